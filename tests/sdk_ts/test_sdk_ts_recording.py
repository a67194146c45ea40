"""The TypeScript SDK's recorded real run (scripts/sdk-ts-conformance.sh replays it in CI)."""

from __future__ import annotations

import json

from sdk_ts_conformance import LLM_TEXT, RANKED, RECORDED, VERSION, differences


def _steps() -> list[dict[str, object]]:
    lines = (RECORDED / f"{VERSION}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_recording_names_every_specially_compared_step() -> None:
    names = [str(step["step"]) for step in _steps()]
    assert len(names) == len(set(names))
    assert set(names) >= (LLM_TEXT | RANKED)


def test_recording_has_no_run_specific_values() -> None:
    text = (RECORDED / f"{VERSION}.jsonl").read_text(encoding="utf-8")
    assert "roncho-sdk-ts-" not in text and "eyJ" not in text


def test_a_value_difference_is_a_difference() -> None:
    step = next(s for s in _steps() if s["step"] == "messages list")
    changed = json.loads(json.dumps(step).replace("I like green tea", "I like black tea"))
    assert differences(step, step) == []
    assert differences(step, changed)


def test_token_counts_within_the_tolerance_are_the_same() -> None:
    step = next(s for s in _steps() if s["step"] == "messages add")
    near = json.loads(json.dumps(step).replace('"token_count": 4', '"token_count": 5'))
    far = json.loads(json.dumps(step).replace('"token_count": 4', '"token_count": 9'))
    assert differences(step, near) == []
    assert differences(step, far)


def test_exact_token_counts_allow_no_difference() -> None:
    # With the roncho[tokens] extra the emulator counts as the server: no tolerance then.
    step = next(s for s in _steps() if s["step"] == "messages add")
    near = json.loads(json.dumps(step).replace('"token_count": 4', '"token_count": 5'))
    assert differences(step, step, exact_tokens=True) == []
    assert differences(step, near, exact_tokens=True)
