"""The Q9 probe on the emulator: what it measures and how its answer reads. The emulator
delivers as 3.0.12 does (docs/emulator.md), so every part of the probe has something to see."""

from __future__ import annotations

import http.client
import socket
from typing import Any

import pytest

from roncho_workbook import DeriverConfig, Finding, open_target, wait_until
from roncho_workbook._prose import (
    BEHIND,
    DELIVERED,
    LOST,
    UNKNOWN,
    UNREACHED,
    webhooks_answer,
)
from roncho_workbook._push import (
    _test_event,
    outcome_of_test_event,
    probe_webhooks,
    trial_stats,
)
from roncho_workbook._receiver import DownPort, Receiver

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
    [test] = finding.tables["test_event"]
    assert (test["arrived"], test["outcome"]) == (True, DELIVERED)


@pytest.mark.timeout(120)
def test_q9_probe_on_a_batching_emulator_waits_for_no_age_gate() -> None:
    """Honcho's defaults (flush off, 512 tokens, 1800 s): every sync of the probe is sized to
    pass the token gate, so each event comes within the short bound, as with flush on."""
    options = {
        "webhook_secret": SECRET,
        "flush": False,
        "batch_tokens": 512,
        "batch_max_age": 1800.0,
        "deriver_delay": 0.02,
    }
    with open_target(emulator_options=options) as target:
        finding = probe_webhooks(
            target,
            "roncho-q9batch",
            secret=SECRET,
            config=DeriverConfig(flush=False, age_gate=1800.0, token_gate=512),
            trials=2,
            messages=3,
            message_chars=60,
            summary_messages=20,
            wait_bound=10.0,
            poll=0.02,
            settle=0.2,
            watch=0.5,
        )
    trials = finding.tables["trials"]
    assert [t["event"] for t in trials] == [True, True]
    assert all(t["chars"] * t["messages"] >= 512 * 8 for t in trials)
    [test] = finding.tables["test_event"]
    assert (test["arrived"], test["outcome"]) == (True, DELIVERED)
    units = sorted((g["queue_type"], g["observed"]) for g in finding.tables["granularity"])
    assert ("representation", "q9-other") in units and ("representation", "q9-user") in units
    failure = {(f["receiver"], f["event"]): f["deliveries"] for f in finding.tables["failure"]}
    assert failure[("answers 200", "queue.empty")] == 1
    assert "sized to pass the 512-token gate" in finding.answer
    assert "Verdict: push is a dependable wake-up" in finding.answer


def test_trial_stats_median_and_p90() -> None:
    rows = [{"event_after_sync_s": float(v)} for v in range(1, 11)]
    [first, *_] = trial_stats(rows)
    assert first["measure"] == "event_after_sync_s"
    assert (first["n"], first["median_s"], first["min_s"], first["max_s"]) == (10, 5.5, 1.0, 10.0)
    assert first["p90_s"] == pytest.approx(9.1)


@pytest.mark.parametrize(
    ("test_came", "probe_came", "probe_queued", "outcome"),
    [
        (True, True, False, DELIVERED),
        (True, False, True, DELIVERED),
        (False, True, False, LOST),
        (False, False, True, BEHIND),
        (False, False, False, UNREACHED),
        (False, False, None, UNKNOWN),
    ],
)
def test_what_became_of_the_test_event(
    test_came: bool, probe_came: bool, probe_queued: bool | None, outcome: str
) -> None:
    assert outcome_of_test_event(test_came, probe_came, probe_queued) == outcome


def _test_event_on(options: dict[str, Any], bound: float) -> tuple[float | None, str, Finding]:
    """The test-event step alone, on an emulator started with ``options``."""
    finding = Finding(question="Q9")
    with (
        open_target(emulator_options=options) as target,
        target.scratch("roncho-q9probe") as client,
        Receiver(SECRET) as receiver,
    ):
        client.get_or_create_webhook(receiver.url("ok", client.workspace))
        delay, outcome = _test_event(finding, receiver, client, target.raw(client.workspace), bound)
    return delay, outcome, finding


@pytest.mark.timeout(60)
def test_a_deriver_that_has_not_reached_the_probe_reads_as_behind() -> None:
    """No test event, and the probe synced after it still queued: not "no event"."""
    # A manual deriver never runs; without a secret the emulator posts nothing.
    delay, outcome, finding = _test_event_on({"deriver": "manual", "flush": True}, bound=2.0)
    assert (delay, outcome) == (None, BEHIND)
    [row] = finding.tables["test_event"]
    assert row["waited_s"] >= 2.0 and not row["probe_event"]
    finding.tables["trials"] = []
    said = webhooks_answer(
        finding, DeriverConfig(flush=True, age_gate=0.0), None, False, 0.25, outcome
    )
    assert "no delivery was due yet" in said and "not a lost event" in said
    assert "test.event after not yet (the deriver had not reached it)" in said


@pytest.mark.timeout(60)
def test_a_probe_done_without_any_delivery_reads_as_unreached_early() -> None:
    options = {"flush": True, "deriver_delay": 0.01}  # no secret: nothing is posted
    delay, outcome, finding = _test_event_on(options, bound=30.0)
    assert (delay, outcome) == (None, UNREACHED)
    [row] = finding.tables["test_event"]
    assert row["waited_s"] < 30.0  # ended once the probe's work was done, not at the bound
    said = webhooks_answer(
        finding, DeriverConfig(flush=True, age_gate=0.0), None, False, 0.25, outcome
    )
    assert "no delivery reached this run's receiver" in said


def test_receiver_without_a_secret_reads_events_unverified() -> None:
    """No secret to check with: the event is still read (``verified`` None), and a body
    that is not an event is kept with the reason, never raised from the handler."""
    body = b'{"data":{"workspace_id":"w1"},"timestamp":"2026-12-01T19:39:14Z","type":"test.event"}'
    with Receiver("") as receiver:
        receiver._take(body, None, "ok")
        receiver._take(b"{not json", None, "ok")
        receiver._take(b"[1, 2]", None, "ok")
        first, broken, listed = receiver.snapshot()
    assert first.verified is None and first.problem == ""
    assert first.event is not None and first.event.type == "test.event"
    assert first.event.workspace_id == "w1"
    assert broken.event is None and broken.verified is None and "Expecting" in broken.problem
    assert listed.event is None and "not a JSON object" in listed.problem


def test_a_port_held_down_refuses_then_records_every_post_once_back() -> None:
    """Q9 holds the down receiver's port (refusing, and never free for another process to
    take), then brings the same Receiver up on it: it gets every POST (signed or not),
    answers 200 there and 500 under ``/fail``."""
    with DownPort() as down:
        port = down.port
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
        with Receiver(SECRET, down=down) as back:
            assert back.port == port
            statuses = []
            for path in ("/down", "/fail/x", "/ok/y"):
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                try:
                    connection.request("POST", path, body=b"{not an event")
                    statuses.append(connection.getresponse().status)
                finally:
                    connection.close()
            arrivals = back.snapshot()
        with pytest.raises(RuntimeError):
            down.take()  # handed over once, to the receiver
    assert statuses == [200, 500, 200]
    assert [a.mode for a in arrivals] == ["ok", "fail", "ok"]
    assert all(a.verified is False and a.event is None for a in arrivals)
