"""scripts/stages.sh, which scripts/test.sh and .ci/run use: every stage runs, each gets a
verdict line, and any failure (pytest's exit 5 included) makes the exit status non-zero.
Why: one failing interpreter stage under `set -e` once hid every later stage. A stage that
could not run says SKIP with why: a stage once said "pass ... (0 s)" right after saying it
had skipped its tests."""

from __future__ import annotations

import os
import re
import subprocess
import sys
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
        'note "an aside"\n'
        'skip "on Python 3.13" "no python3.13 on PATH"\n'
        'stage "after" true\n'
        "finish demo"
    )
    assert result.returncode == 1
    verdicts = result.stdout.split("== verdicts\n", 1)[1].splitlines()
    assert [re.sub(r" \(\d+ s\)|, \d+ s\)", ")", line) for line in verdicts] == [
        "pass  first)",
        "FAIL  broken (exit 1)",
        "FAIL  ran nothing (exit 5: no tests collected)",
        "note  an aside",
        "SKIP  on Python 3.13 (no python3.13 on PATH)",
        "pass  after)",
        "== why it failed, the last 12 lines of: broken",
        "(it printed nothing)",
        "== why it failed, the last 12 lines of: ran nothing",
        "(it printed nothing)",
        "demo: 2 passed, 2 failed, 1 skipped",
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
    assert tail == [
        *(f"line {i}" for i in range(20, 31)),
        "oops",
        "demo: 1 passed, 1 failed, 0 skipped",
    ]
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
    assert result.stdout.splitlines()[-1] == "demo: 2 passed, 0 failed, 0 skipped"


def test_no_stage_at_all_is_not_a_pass() -> None:
    assert _run_stages('note "nothing ran"\nfinish demo').returncode == 1


@pytest.mark.parametrize("script", ["scripts/test.sh", ".ci/run"])
def test_the_runners_use_stages_and_do_not_stop_at_the_first_failure(script: str) -> None:
    text = (ROOT / script).read_text()
    assert "source scripts/stages.sh" in text
    assert not re.search(r"^set -\w*e", text, re.MULTILINE), f"{script} uses set -e"
    assert text.rstrip().splitlines()[-1].startswith("finish ")


def _verdicts(result: subprocess.CompletedProcess[str]) -> list[str]:
    lines = result.stdout.split("== verdicts\n", 1)[1].splitlines()
    return [re.sub(r" \(\d+ s\)", "", line) for line in lines]


def test_a_stage_that_exits_77_says_skip_with_its_last_line_and_does_not_fail() -> None:
    result = _run_stages(
        'stage "needs a kit" bash -c \'echo looking; echo "no kit at /x; skipped"; echo; '
        "exit 77'\n"
        "stage \"silent\" bash -c 'exit 77'\n"
        'stage "ran" true\n'
        "finish demo"
    )
    assert result.returncode == 0, result.stdout
    assert _verdicts(result) == [
        "SKIP  needs a kit (no kit at /x; skipped)",
        "SKIP  silent (it exited 77 (skipped) without saying why)",
        "pass  ran",
        "demo: 1 passed, 0 failed, 2 skipped",
    ]


def test_a_run_where_every_stage_skipped_is_not_a_pass() -> None:
    result = _run_stages("stage \"a\" bash -c 'echo why; exit 77'\nfinish demo")
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1] == "demo: 0 passed, 0 failed, 1 skipped"


def test_the_route_tests_without_a_kit_are_a_skip_not_a_pass(tmp_path: Path) -> None:
    command = (
        f"{sys.executable} tests/honcho_routes/run_routes.py --target emulator --compare "
        f"--kit {tmp_path}/no-kit --rh-dir {tmp_path}/no-dir"
    )
    result = _run_stages(f'stage "routes" {command}\nfinish demo')
    [verdict] = [line for line in _verdicts(result) if "routes" in line]
    assert verdict.startswith("SKIP  routes (honcho-routes: no kit tarball at ")
    assert verdict.endswith("; skipped)")


def test_the_real_server_stage_without_a_server_is_a_skip(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RONCHO_LIVE_")}
    env["REAL_HONCHO_KIT"] = str(tmp_path / "no-kit")
    result = subprocess.run(
        [
            "bash",
            "-c",
            'source scripts/stages.sh\nstage "real" bash scripts/test-real.sh\nfinish demo',
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    assert _verdicts(result)[0] == (
        "SKIP  real (test-real: no real server: RONCHO_LIVE_URL is not set and there is no kit "
        f"at {tmp_path}/no-kit; skipped)"
    )


def test_the_typescript_sdk_check_without_node_is_a_skip(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"  # a PATH with bash and dirname, and no node or npm
    bin_dir.mkdir()
    for tool in ("bash", "dirname"):
        found = subprocess.run(
            ["bash", "-c", f"command -v {tool}"], capture_output=True, text=True, check=True
        ).stdout.strip()
        (bin_dir / tool).symlink_to(found)
    result = subprocess.run(
        [str(bin_dir / "bash"), "scripts/sdk-ts-conformance.sh"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": str(bin_dir)},
    )
    assert result.returncode == 77
    assert result.stdout.splitlines()[-1].startswith("sdk-ts-conformance: no node and npm")


@pytest.mark.parametrize("script", ["scripts/test.sh", ".ci/run", "scripts/test-real.sh"])
def test_no_runner_records_a_stage_that_did_not_run_as_a_note_or_a_pass(script: str) -> None:
    """A stage that cannot run here is a `skip`, with why; `note` is for asides."""
    text = (ROOT / script).read_text()
    assert not re.search(r"\bnote \"[^\"]*(not found|did not run|skipped)", text)
