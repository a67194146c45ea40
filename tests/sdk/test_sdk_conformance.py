"""The SDK conformance run (scripts/sdk-conformance.sh) as tests, plus its record and docs.

The run itself needs the SDK's test-only venv (tests/sdk/.venv-sdk/, made by the script); without
it those tests skip and say how to make it. The rest checks the committed recording.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sdk_conformance import RECORDED, SDK_FACTS, check_fact

ROOT = Path(__file__).resolve().parents[2]
SDK_PYTHON = Path(__file__).resolve().parent / ".venv-sdk" / "bin" / "python"
DOCS = ROOT / "docs" / "sdk-conformance.md"


def _recorded(version: str) -> list[dict[str, object]]:
    lines = (RECORDED / f"{version}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_recording_holds_the_sdk_facts() -> None:
    steps = {str(s["step"]): s for s in _recorded("3.0.12")}
    for name in SDK_FACTS:
        assert name in steps, f"the recording has no step {name!r}"
        assert check_fact(steps[name]) is None


def test_recording_has_no_run_specific_values() -> None:
    text = (RECORDED / "3.0.12.jsonl").read_text(encoding="utf-8")
    assert "roncho-sdk-" not in text and "Bearer" not in text


def test_docs_list_every_sdk_fact() -> None:
    text = DOCS.read_text(encoding="utf-8")
    missing = [name for name in SDK_FACTS if f"`{name}`" not in text]
    assert not missing, f"docs/sdk-conformance.md does not list {missing}"


def _run(*extra: str) -> subprocess.CompletedProcess[str]:
    if not SDK_PYTHON.exists():
        pytest.skip("no SDK venv: run `bash scripts/sdk-conformance.sh` once to make it")
    return subprocess.run(
        [
            sys.executable,
            str(ROOT / "tests" / "sdk" / "sdk_conformance.py"),
            "--sdk-python",
            str(SDK_PYTHON),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )


@pytest.mark.timeout(300)
def test_sdk_flow_on_the_emulator_matches_the_recorded_real_run() -> None:
    done = _run()
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " the same, 0 different" in done.stdout


@pytest.mark.timeout(300)
def test_the_comparison_has_teeth() -> None:
    """The 3.2.0 profile against the 3.0.12 record must be flagged where the versions differ."""
    done = _run("--emulator-version", "3.2.0")
    assert done.returncode == 1
    flagged = {line.split("  ")[0] for line in done.stdout.splitlines() if "DIFFERENT" in line}
    assert {"conclusions create", "workspace chat (SDK: 404 on 3.0.12)"} <= flagged
