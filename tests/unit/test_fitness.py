"""scripts/fitness.py, the overall line that ends scripts/test-real.sh: fit only when the
answers show it (Q7 health, Q3 as the deriver settings told, the delivery checks, the live
suite), else NOT fit with every reason. Why: "notebooks: PASS" said that they ran, not that
their answers suit memoryd, and the run ended with no single line an owner could act on."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import fitness  # noqa: E402

HEALTH = {"health status": "200", "health body": '{"status":"ok"}', "probe()": "ok",
          "server_version()": "3.0.12"}  # fmt: skip
RELEASE = {"size": "above", "gate": "tokens", "expected gate": "flush/tokens",
           "check": "consistent"}  # fmt: skip
SWITCH = {"case": "peer observe_me false", "verdict": "stopped", "agrees": "True"}
TRIAL = {"event": "True", "complete_at_event": "True", "verified": "True"}


def _table(folder: Path, name: str, rows: list[dict[str, str]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"{name}.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _run_folder(folder: Path, **overrides: list[dict[str, str]]) -> Path:
    tables = {
        "q7_health__answers": [HEALTH],
        "q3_deriver_latency__latency": [RELEASE, RELEASE],
        "q3_derivation_switches__switches": [SWITCH],
        "q9_webhooks__trials": [TRIAL, TRIAL, TRIAL],
    }
    tables.update(overrides)
    for name, rows in tables.items():
        if rows:
            _table(folder, name, rows)
    return folder


def test_answers_that_hold_are_fit_and_say_what_was_shown(tmp_path: Path) -> None:
    verdict = fitness.judge([_run_folder(tmp_path / "run")], live_passed=["live suite, auth off"])
    assert verdict.fit
    assert verdict.line() == (
        "test-real: the server is fit for memoryd: Q7 /health 200 ok (3.0.12); "
        "Q3 2 releases as the deriver settings told; 1 derivation switch cases as the source "
        "says; deliveries 3/3 complete at the event; live suite, auth off passed"
    )


def test_answers_spread_over_several_run_folders_are_read_together(tmp_path: Path) -> None:
    flush_on = _run_folder(tmp_path / "flush-on")
    batching = tmp_path / "flush-off"
    _table(batching, "q3_deriver_latency__latency", [RELEASE])
    auth = tmp_path / "auth"  # a folder with none of these answers (q1 only)
    auth.mkdir()
    verdict = fitness.judge([flush_on, batching, auth])
    assert verdict.fit
    assert "Q3 3 releases as the deriver settings told" in verdict.line()


def test_a_release_the_told_settings_do_not_explain_is_not_fit(tmp_path: Path) -> None:
    late = dict(RELEASE, size="below", gate="not released", **{"expected gate": "age"})
    late["check"] = "INCONSISTENT"
    unsettled = dict(RELEASE, check="unsettled (bound shorter than the age gate)")
    verdict = fitness.judge(
        [_run_folder(tmp_path, q3_deriver_latency__latency=[RELEASE, late, unsettled])]
    )
    assert not verdict.fit
    assert verdict.line() == (
        "test-real: the server is NOT fit for memoryd: Q3: 1 of 3 releases disagree with the "
        "deriver settings told (below the token gate: not released; expected age)"
    )


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        (
            {"q7_health__answers": [dict(HEALTH, **{"health status": "503", "probe()": "down"})]},
            'Q7: GET /health answered 503 {"status":"ok"}, probe() down',
        ),
        (
            {"q3_derivation_switches__switches": [SWITCH, dict(SWITCH, agrees="False",
                                                                 verdict="derived")]},
            "Q3: 1 derivation switch case(s) not as the source says "
            "(peer observe_me false: derived)",
        ),
        (
            {"q9_webhooks__trials": [TRIAL, dict(TRIAL, event="False", complete_at_event="",
                                                 verified="")]},
            "Q9: 1 of 2 webhook trials got no queue.empty",
        ),
        (
            {"q9_webhooks__trials": [dict(TRIAL, complete_at_event="False"),
                                     dict(TRIAL, verified="False")]},
            "Q9: 1 of 2 queue.empty came before every conclusion was readable, "
            "1 of 2 deliveries had a bad signature",
        ),
    ],
)  # fmt: skip
def test_each_answer_that_does_not_hold_is_named(
    tmp_path: Path, overrides: dict[str, list[dict[str, str]]], reason: str
) -> None:
    verdict = fitness.judge([_run_folder(tmp_path, **overrides)])
    assert not verdict.fit
    assert verdict.reasons == [reason]


def test_unverified_deliveries_without_a_secret_are_not_counted_as_bad(tmp_path: Path) -> None:
    trials = [dict(TRIAL, verified=""), dict(TRIAL, verified="")]
    assert fitness.judge([_run_folder(tmp_path, q9_webhooks__trials=trials)]).fit


def test_deliveries_the_run_could_not_receive_are_said_so_and_not_judged(tmp_path: Path) -> None:
    lost = [dict(TRIAL, event="False", complete_at_event="", verified="")]
    folder = _run_folder(tmp_path, q9_webhooks__trials=lost)
    assert not fitness.judge([folder]).fit
    verdict = fitness.judge([folder], deliveries_unchecked="no webhook secret given")
    assert verdict.fit
    assert "deliveries not judged (no webhook secret given)" in verdict.line()


def test_what_was_not_answered_is_not_claimed(tmp_path: Path) -> None:
    folder = _run_folder(
        tmp_path, q7_health__answers=[], q3_derivation_switches__switches=[],
        q9_webhooks__trials=[],
    )  # fmt: skip
    verdict = fitness.judge([folder], live_failed=["live suite, auth on"])
    assert verdict.reasons == [
        "Q7 (health) gave no answer: its notebook failed or did not run",
        "Q3 (derivation switches) gave no answer: its notebook failed or did not run",
        "Q9 (webhook deliveries) gave no answer: its notebook failed or did not run",
        "live suite, auth on failed (see its verdict above)",
    ]
    assert not fitness.judge([]).fit


def test_the_command_prints_one_line_and_exits_by_the_verdict(tmp_path: Path) -> None:
    command = [sys.executable, str(ROOT / "scripts" / "fitness.py")]
    fit = subprocess.run(
        [*command, "--live-passed", "live suite", str(_run_folder(tmp_path / "a"))],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert fit.returncode == 0
    assert fit.stdout.count("\n") == 1
    assert fit.stdout.startswith("test-real: the server is fit for memoryd: ")
    unfit = subprocess.run([*command, str(tmp_path / "empty")], capture_output=True, text=True,
                           timeout=30)  # fmt: skip
    assert unfit.returncode == 1
    assert unfit.stdout.startswith("test-real: the server is NOT fit for memoryd: Q7")


def test_test_real_ends_with_the_overall_line_after_everything_else() -> None:
    """The line is printed by the exit trap last, after the server is stopped; every exit
    that gets as far as a server says something there."""
    text = (ROOT / "scripts" / "test-real.sh").read_text()
    cleanup = text[text.index("cleanup() {") : text.index("trap cleanup EXIT")]
    assert cleanup.rstrip().splitlines()[-3].strip() == '[ -z "$OVERALL" ] || echo "$OVERALL"'
    assert 'OVERALL="$("$PY" scripts/fitness.py' in text
    assert text.count('OVERALL="test-real: ') == 4  # setup, start, /health, fitness.py broken
