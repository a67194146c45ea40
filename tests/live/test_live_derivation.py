"""wait_for_derivation on each target: after an observed peer's turn it is never "done"
before the session's queue has the turn's items and none left, nor before its conclusion
is listed; an unobserved peer's turn is "nothing queued".

A real server may batch (Honcho's default): the observed turn is a message past Honcho's
default token gate (`past_the_gate`), so a batching server derives it at once too and the
wait is "done" there as on a flushing one; only a server with a larger gate holds it, and
then the wait ends at its bound with the work pending, and says so.
"""

from __future__ import annotations

import secrets

import pytest
from live_data import Target, past_the_gate
from live_recorder import Recorder

import roncho
from roncho import MessageCreate, SessionPeerConfig

# The kit's single deriver may first work off earlier stages' deletions and webhooks (a
# test event once took over 150 s behind such a backlog: test_live_webhooks.py).
DERIVATION_WAIT = 240.0
OBSERVED = "derive-user"
UNOBSERVED = "derive-agent"


@pytest.mark.timeout(DERIVATION_WAIT + 60)
def test_wait_for_derivation_done_only_after_the_work(
    scratch: roncho.Client, target: Target, recorder: Recorder
) -> None:
    session = f"derive-{secrets.token_hex(4)}"
    recorder.name(session, "{derivation_session}")
    scratch.get_or_create_peer(OBSERVED)
    scratch.get_or_create_session(session, peers={OBSERVED: SessionPeerConfig(observe_me=True)})
    before = scratch.queue_status(session_id=session)
    turn = past_the_gate("I keep bees on the roof.")
    scratch.add_messages(session, [MessageCreate(OBSERVED, turn)])
    outcome = scratch.wait_for_derivation(session, since=before, deadline=DERIVATION_WAIT)
    recorder.note("derivation_wait_state", outcome.state)
    assert outcome.state != "nothing_queued", str(outcome)
    if target.kind == "emulator":
        assert outcome.done, str(outcome)  # the emulator targets flush
    if outcome.done:
        after = scratch.queue_status(session_id=session)
        assert after.total_work_units > before.total_work_units
        assert after.pending_work_units == after.in_progress_work_units == 0
        assert outcome.first_seen is not None and outcome.new_work_units >= 1
        assert scratch.list_conclusions({"session_id": session}).total >= 1, str(outcome)
    else:  # batching, waiting or still working at the bound: the work is there, unfinished
        assert outcome.pending + outcome.in_progress >= 1, str(outcome)


@pytest.mark.timeout(60)
def test_wait_for_derivation_nothing_queued_for_an_unobserved_peer(
    scratch: roncho.Client, recorder: Recorder
) -> None:
    session = f"derive-quiet-{secrets.token_hex(4)}"
    recorder.name(session, "{derivation_quiet_session}")
    scratch.get_or_create_peer(UNOBSERVED, configuration={"observe_me": False})
    scratch.get_or_create_session(session, peers={UNOBSERVED: SessionPeerConfig(observe_me=False)})
    before = scratch.queue_status(session_id=session)
    scratch.add_messages(session, [MessageCreate(UNOBSERVED, "Noted.")])
    outcome = scratch.wait_for_derivation(session, since=before, deadline=30)
    recorder.note("derivation_wait_unobserved_state", outcome.state)
    assert outcome.state == "nothing_queued", str(outcome)
    assert outcome.new_work_units == 0 and outcome.elapsed < 30
