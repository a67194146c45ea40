"""The SDK conformance run (scripts/sdk-conformance.sh) as tests, plus its record and docs.

The run itself needs the SDK's test-only venv (tests/sdk/.venv-sdk/, made by the script); without
it those tests skip and say how to make it. The rest checks the committed recording.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sdk_conformance import RECORDED, SDK_FACTS, check_fact
from sdk_method_table import PUBLIC_METHODS, against_3_2, faults
from sdk_method_table import RECORDED as METHODS_RECORDED

from roncho.testing import FakeHoncho

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


# -- every method of the SDK against FakeHoncho 3.2.0 and 3.0.12 (sdk_method_table.py) -----
def _recorded_methods() -> list[dict[str, Any]]:
    lines = METHODS_RECORDED.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_methods_recording_is_whole_and_has_no_run_specific_values() -> None:
    text = METHODS_RECORDED.read_text(encoding="utf-8")
    assert "roncho-sdk-" not in text and "Bearer" not in text
    calls = _recorded_methods()
    assert len(calls) == PUBLIC_METHODS == len({c["method"] for c in calls})
    # The real 3.0.12 fails exactly where the SDK calls what 3.2.0 added.
    failing = {c["method"]: c["outcome"] for c in calls if c["outcome"] != "ok"}
    assert failing == {
        "ConclusionsView.get": "error APIError 405",
        "WorkspaceConclusions.get": "error APIError 405",
        "ConclusionsView.derived": "error UnprocessableEntityError 422",
        "Honcho.chat": "error NotFoundError 404",
        "Honcho.chat_stream": "error NotFoundError 404",
    }


def test_method_faults_have_teeth() -> None:
    """The real 3.0.12's run, offered as a 3.2.0 run, is refused where 3.2.0 differs, and
    only there; a method left uncalled and a missing call are faults too."""
    real = _recorded_methods()
    coverage = {"called": PUBLIC_METHODS, "missing": []}
    found = faults(real, coverage, real, coverage, real)
    outcomes = [f for f in found if " -> " in f]
    assert outcomes == [
        "3.2.0: ConclusionsView.get -> error APIError 405",
        "3.2.0: ConclusionsView.derived -> error UnprocessableEntityError 422",
        "3.2.0: WorkspaceConclusions.get -> error APIError 405",
        "3.2.0: Honcho.chat -> error NotFoundError 404",
        "3.2.0: Honcho.chat_stream -> error NotFoundError 404",
    ]
    wire = {f.split(":")[1].strip() for f in found if " -> " not in f}
    assert wire == {
        "ConclusionsView.get", "ConclusionsView.derived", "WorkspaceConclusions.get",
        "Honcho.chat", "Honcho.chat_stream",
    }  # fmt: skip
    short = {"called": PUBLIC_METHODS - 1, "missing": ["Scope.status"]}
    assert faults([], short, [], coverage, [])[0] == (
        "3.2.0: 72 methods called, missing ['Scope.status']"
    )
    cut = faults([], coverage, real[1:], coverage, real)
    assert cut[-1] == "3.0.12: 72 calls on the emulator, 73 recorded"


@pytest.mark.timeout(300)
def test_every_sdk_method_on_3_2_0_and_as_the_real_3_0_12() -> None:
    if not SDK_PYTHON.exists():
        pytest.skip("no SDK venv: run `bash scripts/sdk-conformance.sh` once to make it")
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "sdk" / "sdk_method_table.py"),
         "--sdk-python", str(SDK_PYTHON)],
        capture_output=True, text=True, timeout=300, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "3.2.0: 73 of 73 methods ok; 3.0.12: 73 of 73 as recorded" in done.stdout


@pytest.mark.timeout(300)
def test_a_3_2_server_is_held_to_upstream_3_2_as_known(capsys: pytest.CaptureFixture[str]) -> None:
    """Q8's check (a real 3.2.x with --base-url), tried on two stand-ins: FakeHoncho 3.2.0
    passes it; a 3.0.12 posing as 3.2.0 is refused where the versions differ."""
    if not SDK_PYTHON.exists():
        pytest.skip("no SDK venv: run `bash scripts/sdk-conformance.sh` once to make it")
    with FakeHoncho(version="3.2.0", flush=True) as fake:
        assert against_3_2(str(SDK_PYTHON), fake.url, "3.2.0") == 0
    assert "server 3.2.0: 0 differences from upstream 3.2 as known" in capsys.readouterr().out
    with FakeHoncho(version="3.0.12", flush=True) as fake:
        assert against_3_2(str(SDK_PYTHON), fake.url, "3.2.0") == 1
    out = capsys.readouterr().out
    assert "DIFFERENCE server 3.2.0: ConclusionsView.get -> error APIError 405" in out
    assert "DIFFERENCE server 3.2.0: Honcho.chat -> error NotFoundError 404" in out
