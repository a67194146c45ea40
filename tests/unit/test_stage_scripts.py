"""scripts/stages.sh, which scripts/test.sh and .ci/run use: every stage runs, each gets a
verdict line, and any failure (pytest's exit 5 included) makes the exit status non-zero.
Why: one failing interpreter stage under `set -e` once hid every later stage."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run_stages(body: str) -> subprocess.CompletedProcess[str]:
    script = f"set -uo pipefail\nsource scripts/stages.sh\n{body}\n"
    return subprocess.run(
        ["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=30
    )


def test_a_failure_does_not_stop_later_stages_and_fails_the_run() -> None:
    result = _run_stages(
        'stage "first" true\n'
        'stage "broken" false\n'
        "stage \"ran nothing\" bash -c 'exit 5'\n"
        'note "Python 3.13 not found"\n'
        'stage "after" true\n'
        "finish demo"
    )
    assert result.returncode == 1
    verdicts = result.stdout.split("== verdicts\n", 1)[1].splitlines()
    assert [re.sub(r" \(\d+ s\)|, \d+ s\)", ")", line) for line in verdicts] == [
        "pass  first)",
        "FAIL  broken (exit 1)",
        "FAIL  ran nothing (exit 5: no tests collected)",
        "note  Python 3.13 not found",
        "pass  after)",
        "demo: 2 passed, 2 failed",
    ]


def test_all_passing_stages_exit_zero() -> None:
    result = _run_stages('stage "one" true\nstage "two" true\nfinish demo')
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1] == "demo: 2 passed, 0 failed"


def test_no_stage_at_all_is_not_a_pass() -> None:
    assert _run_stages('note "nothing ran"\nfinish demo').returncode == 1


@pytest.mark.parametrize("script", ["scripts/test.sh", ".ci/run"])
def test_the_runners_use_stages_and_do_not_stop_at_the_first_failure(script: str) -> None:
    text = (ROOT / script).read_text()
    assert "source scripts/stages.sh" in text
    assert not re.search(r"^set -\w*e", text, re.MULTILINE), f"{script} uses set -e"
    assert text.rstrip().splitlines()[-1].startswith("finish ")
