"""The Q9 probe on the emulator: what it measures and how its answer reads. The emulator
delivers as 3.0.12 does (docs/emulator.md), so every part of the probe has something to see."""

from __future__ import annotations

import pytest

from roncho.workbook import DeriverConfig, open_target, wait_until
from roncho.workbook._webhooks import probe_webhooks, trial_stats

SECRET = "q9-test-secret"


@pytest.mark.timeout(120)
def test_q9_probe_on_the_emulator() -> None:
    options = {"webhook_secret": SECRET, "flush": True, "deriver_delay": 0.02}
    with open_target(emulator_options=options) as target:
        finding = probe_webhooks(
            target,
            "roncho-q9test",
            secret=SECRET,
            config=DeriverConfig(flush=True, age_gate=1800.0),
            trials=2,
            messages=3,
            message_chars=60,
            summary_messages=20,
            wait_bound=10.0,
            poll=0.02,
            settle=0.2,
            watch=0.5,
        )
        assert target.fake is not None and target.fake.webhook_deliveries()
        reader = target.reader()

        def gone() -> bool:
            listed = reader.list_workspaces().items
            return not [w for w in listed if w.id.startswith("roncho-q9test")]

        assert wait_until(gone, bound=5.0, interval=0.05) is not None  # purged after its 202
    trials = finding.tables["trials"]
    assert [t["event"] for t in trials] == [True, True]
    assert all(t["complete_at_event"] and t["events_for_session"] == 1 for t in trials)
    assert all(t["verified"] for t in trials)
    units = sorted((g["queue_type"], g["observed"]) for g in finding.tables["granularity"])
    assert units == [
        ("representation", "q9-other"),
        ("representation", "q9-user"),
        ("summary", "None"),
    ]
    failure = {(f["receiver"], f["event"]): f["deliveries"] for f in finding.tables["failure"]}
    assert failure == {
        ("answers 200", "test.event"): 1,
        ("answers 200", "queue.empty"): 1,
        ("answers 500", "test.event"): 1,
        ("answers 500", "queue.empty"): 1,
        ("down, back after the events", "any"): 0,
    }
    [registration] = finding.tables["registration"]
    assert (registration["first_status"], registration["again_status"]) == (201, 200)
    assert registration["bad_signatures"] == 0 and not registration["message_text_in_a_body"]
    assert "queue.empty arrived in 2/2 trials" in finding.answer
    assert (
        "no retry" in finding.answer and "Verdict: push is a dependable wake-up" in finding.answer
    )
    statuses = [c.status for c in finding.trace.calls]
    assert 422 in statuses  # the loopback IP literal


def test_trial_stats_median_and_p90() -> None:
    rows = [{"event_after_sync_s": float(v)} for v in range(1, 11)]
    [first, *_] = trial_stats(rows)
    assert first["measure"] == "event_after_sync_s"
    assert (first["n"], first["median_s"], first["min_s"], first["max_s"]) == (10, 5.5, 1.0, 10.0)
    assert first["p90_s"] == pytest.approx(9.1)
