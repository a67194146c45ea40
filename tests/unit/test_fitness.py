"""scripts/fitness.py, the lines that end scripts/test-real.sh: one per question and stage (PASS,
FAIL or SKIP with why), then fit only when no line failed, else NOT fit with every reason.
Why: "notebooks: PASS" said that they ran, not that their answers suit memoryd; and a verdict
that read only Q7, Q3, Q9 and the live suite let the rest of the run count for nothing.

Each rule is held by an answer folder that must fail it: ``fitness_answers/fit/run`` is a run
folder in the notebooks' shape (tables taken from the kit's runs in results/), fit as it is;
each folder under ``fitness_answers/fails/`` changes one table of it (its ``case.json`` says
what else: the owner's expectation, stage lines, tables removed, manifest fields) and must
fail with exactly the line it names. Under ``fitness_answers/settings/``, what a deriver
setting causes (a release not waited for, a push the batching held back, a race's rate):
each must stay fit, with a line that says so.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import fitness  # noqa: E402

ANSWERS = Path(__file__).with_name("fitness_answers")
FIT = ANSWERS / "fit" / "run"
QUESTIONS = [
    "Q1 auth",
    "Q2 deletion",
    "Q3 deriver latency",
    "Q3 derivation switches",
    "Q4 filters",
    "Q5 provenance",
    "Q6 workspace delete",
    "Q7 health",
    "Q8 differences",
    "Q9 webhooks",
    "Q10 context",
]


def _cases(kind: str) -> list[Path]:
    return sorted(p for p in (ANSWERS / kind).iterdir() if p.is_dir())


def _merge(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in changes.items():
        merged[key] = _merge(base.get(key, {}), value) if isinstance(value, dict) else value
    return merged


def _judge(case: Path, tmp_path: Path) -> tuple[fitness.Verdict, dict[str, Any]]:
    """The fit run with the case's tables laid over it, judged as the case says."""
    spec = json.loads((case / "case.json").read_text(encoding="utf-8"))
    run = tmp_path / "run"
    shutil.copytree(FIT, run)
    for table in [*case.glob("*.csv"), *case.glob("*.answer.json")]:
        shutil.copy(table, run / table.name)
    for table in spec.get("remove", []):
        (run / f"{table}.csv").unlink()
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    (run / "manifest.json").write_text(json.dumps(_merge(manifest, spec.get("manifest", {}))))
    expect = dict(fitness.expectation(e) for e in spec.get("expect_auth", ["off"]))
    verdict = fitness.judge(
        [run], spec.get("stages", []), expect, spec.get("deliveries_unchecked", "")
    )
    return verdict, spec


def test_the_fit_run_passes_every_question_with_what_it_showed() -> None:
    stages = ["test-real: live suite, auth off: PASS (41 s)", "test-real: start: PASS (9 s)"]
    verdict = fitness.judge([FIT], stages, {"": "off"})
    assert verdict.fit
    assert [x.what for x in verdict.lines] == [*QUESTIONS, "live suite, auth off"]
    assert all(x.outcome == fitness.PASS for x in verdict.lines)
    by = {x.what: x.why for x in verdict.lines}
    assert by["Q1 auth"] == "auth off at http://127.0.0.1:8000 (no key: 200), as the owner says"
    assert by["Q2 deletion"] == (
        "a session delete made it inactive at once; its messages and conclusions were purged "
        "within 2.673 s, the session-less conclusion kept"
    )
    assert by["Q7 health"] == "/health 200 ok (3.0.12)"
    assert by["Q10 context"].startswith("18/18 context reads kept to tokens=N")
    assert by["live suite, auth off"] == "passed"
    assert verdict.line() == (
        "test-real: the server is fit for memoryd: no question or stage above failed "
        "(12 PASS, 0 SKIP; a SKIP says why it is not the server's)"
    )


@pytest.mark.parametrize("case", _cases("fails"), ids=lambda p: p.name)
def test_an_answer_folder_that_breaks_a_rule_fails_with_that_rule_alone(
    case: Path, tmp_path: Path
) -> None:
    verdict, spec = _judge(case, tmp_path)
    assert not verdict.fit
    failed = [x for x in verdict.lines if x.outcome == fitness.FAIL]
    assert [x.what for x in failed] == [spec["fails"]]
    assert failed[0].text() == spec["line"]
    assert verdict.line() == (
        f"test-real: the server is NOT fit for memoryd: {failed[0].what}: {failed[0].why}"
    )


@pytest.mark.parametrize("case", _cases("settings"), ids=lambda p: p.name)
def test_what_a_setting_causes_is_said_and_never_counts_against(case: Path, tmp_path: Path) -> None:
    verdict, spec = _judge(case, tmp_path)
    assert verdict.fit, verdict.reasons
    (line,) = [x.text() for x in verdict.lines if x.text().startswith(spec["line"])]
    assert spec["says"] in line


def test_each_question_has_a_case_that_fails_it_and_each_judged_stage_too() -> None:
    failed = {json.loads((c / "case.json").read_text())["fails"] for c in _cases("fails")}
    assert set(QUESTIONS) <= failed
    assert {"differential (emulator vs server)", "SDK conformance"} <= failed
    assert any(name.startswith("live suite") for name in failed)


def test_what_was_not_answered_is_not_claimed(tmp_path: Path) -> None:
    verdict = fitness.judge([tmp_path], ["live suite, auth on: FAIL (3 s) - exit 1"], {"": "on"})
    assert verdict.reasons == [
        *(f"{q}: gave no answer: its notebook failed or did not run" for q in QUESTIONS),
        "live suite, auth on: failed, exit 1 (see its output above)",
    ]
    assert not fitness.judge([]).fit


def test_q1_is_held_per_server_when_the_run_covers_two(tmp_path: Path) -> None:
    """The kit's run: auth off at its API and on at its auth API, each as the kit sets it."""
    on = tmp_path / "auth-on"
    case = ANSWERS / "fails" / "q1-a-peer-key-writes-messages"
    on.mkdir()
    shutil.copy(case / "q1_auth__evidence.csv", on)
    scopes = (case / "q1_auth__scopes.csv").read_text().replace(",201,False,", ",403,True,")
    (on / "q1_auth__scopes.csv").write_text(scopes)
    (on / "manifest.json").write_text(json.dumps({"server": {"base_url": "http://h:8001"}}))
    expect = {"http://127.0.0.1:8000": "off", "http://h:8001": "on"}
    line = fitness.q1_auth([fitness.load_run(FIT), fitness.load_run(on)], expect)
    assert line.outcome == fitness.PASS
    assert line.why == (
        "auth off at http://127.0.0.1:8000 (no key: 200), as the owner says; auth on at "
        "http://h:8001 (no key: 401), scoped keys as the source says in 40/40, as the owner says"
    )
    swapped = {"http://127.0.0.1:8000": "on", "http://h:8001": "off"}
    assert fitness.q1_auth([fitness.load_run(FIT), fitness.load_run(on)], swapped).outcome == "FAIL"


def test_only_the_stages_that_check_roncho_against_the_server_are_judged() -> None:
    assert fitness.stage_line("test-real: setup: FAIL (3 s) - exit 1") is None
    assert fitness.stage_line("test-real: no roncho- workspace left behind: PASS (1 s)") is None
    assert fitness.stage_line("test-real: differential (emulator vs server): PASS (20 s)") == (
        fitness.Line("differential (emulator vs server)", "PASS", "passed")
    )


def test_the_command_prints_a_line_per_question_and_stage_then_the_verdict(
    tmp_path: Path,
) -> None:
    command = [sys.executable, str(ROOT / "scripts" / "fitness.py")]
    fit = subprocess.run(
        [*command, "--expect-auth", "off", "--stage", "live suite: PASS (2 s)", str(FIT)],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert fit.returncode == 0, fit.stderr
    lines = fit.stdout.splitlines()
    assert [x.split(":")[1].strip() for x in lines[:-1]] == [*QUESTIONS, "live suite"]
    assert all(x.startswith("fitness: ") for x in lines[:-1])
    assert lines[-1].startswith("test-real: the server is fit for memoryd: ")
    unfit = subprocess.run([*command, str(tmp_path / "empty")], capture_output=True, text=True,
                           timeout=30)  # fmt: skip
    assert unfit.returncode == 1
    assert unfit.stdout.splitlines()[-1].startswith(
        "test-real: the server is NOT fit for memoryd: Q1 auth: gave no answer"
    )
    bad = subprocess.run([*command, "--expect-auth", "maybe"], capture_output=True, text=True,
                         timeout=30)  # fmt: skip
    assert bad.returncode == 2
    assert "--expect-auth takes on, off or URL=on|off" in bad.stderr


def test_test_real_ends_with_the_overall_line_after_everything_else() -> None:
    """The lines are printed by the exit trap last, after the server is stopped; every exit
    that gets as far as a server says something there."""
    text = (ROOT / "scripts" / "test-real.sh").read_text()
    cleanup = text[text.index("cleanup() {") : text.index("trap cleanup EXIT")]
    assert cleanup.rstrip().splitlines()[-3].strip() == '[ -z "$OVERALL" ] || echo "$OVERALL"'
    assert 'OVERALL="$("$PY" scripts/fitness.py' in text
    assert text.count('OVERALL="test-real: ') == 4  # setup, start, /health, fitness.py broken


def test_test_real_hands_the_verdict_every_stage_line_and_the_owners_expectation() -> None:
    text = (ROOT / "scripts" / "test-real.sh").read_text()
    assert 'FITNESS_FLAGS+=(--stage "$line")' in text
    assert "--expect-auth) EXPECT_AUTH=" in text
    assert 'FITNESS_FLAGS+=(--expect-auth "$EXPECT_AUTH")' in text
    assert 'FITNESS_FLAGS+=(--expect-auth "$URL=off" --expect-auth "$AUTH_URL=on")' in text
