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
        "== why it failed, the last 12 lines of: broken",
        "(it printed nothing)",
        "== why it failed, the last 12 lines of: ran nothing",
        "(it printed nothing)",
        "demo: 2 passed, 2 failed",
    ]


def test_a_failed_stage_s_last_lines_close_the_run(tmp_path: Path) -> None:
    """CI shows only the end of a run: why a stage failed must be there, not pages above."""
    result = _run_stages(
        f'export TMPDIR="{tmp_path}"\n'
        'stage "noisy" bash -c \'seq -f "line %g" 1 30; echo oops >&2; exit 3\'\n'
        "stage \"quiet\" bash -c 'echo fine'\n"
        "finish demo"
    )
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert "fine" in lines  # a stage's output is still shown as it runs
    tail = lines[lines.index("== why it failed, the last 12 lines of: noisy") + 1 :]
    assert tail == [*(f"line {i}" for i in range(20, 31)), "oops", "demo: 1 passed, 1 failed"]
    assert list(tmp_path.iterdir()) == []  # the kept output is removed at the end


def test_pytest_s_failed_test_ids_come_first_in_the_tail() -> None:
    result = _run_stages(
        'stage "tests" bash -c \'echo "FAILED tests/x.py::test_y - boom"; '
        'seq -f "line %g" 1 30; exit 1\'\n'
        "finish demo"
    )
    lines = result.stdout.splitlines()
    start = lines.index("== why it failed, the last 12 lines of: tests") + 1
    assert lines[start : start + 2] == ["FAILED tests/x.py::test_y - boom", "line 19"]


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
