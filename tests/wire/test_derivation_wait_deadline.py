"""``wait_for_derivation`` when a queue read outlasts the wait's deadline (both clients; the
loop is roncho/aio/_derivation_wait.py, rendered for the blocking client): each read is
bounded by what is left of the wait, not by the read timeout, and the outcome carries the
caller's gates. Found unheld by the mutation run of that module."""

from __future__ import annotations

from typing import Any

import pytest
from rawserver import Conn, RawServer, response_bytes

import roncho

WS = "w1"
READ_TIMEOUT = 5.0  # a read that dropped the wait's deadline would wait this long
SINCE = roncho.QueueStatus(
    total_work_units=0, completed_work_units=0, in_progress_work_units=0, pending_work_units=0
)


def _queue(total: int, completed: int, in_progress: int, pending: int) -> bytes:
    counts = {
        "total_work_units": total,
        "completed_work_units": completed,
        "in_progress_work_units": in_progress,
        "pending_work_units": pending,
        "sessions": None,
    }
    return response_bytes(200, counts, reason="OK")


def _answer(reply_with: bytes) -> Any:
    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(reply_with)

    return handler


def _hold(conn: Conn) -> None:
    """Read the request and answer nothing until the client hangs up."""
    conn.read_request()
    conn.wait_closed(limit=READ_TIMEOUT + 2)


@pytest.mark.timeout(30)
def test_a_first_read_past_the_deadline_raises_deadline_exceeded() -> None:
    """No answer from the session yet: nothing to say, so the read's error stands."""
    with RawServer([_hold]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(roncho.DeadlineExceeded):
            client.wait_for_derivation("s1", since=SINCE, grace=0.05, interval=0.05, deadline=0.5)


@pytest.mark.timeout(30)
def test_a_later_read_past_the_deadline_ends_the_wait_with_an_outcome() -> None:
    gates = roncho.DeriverGates()
    with RawServer([_answer(_queue(1, 0, 0, 1)), _hold]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        outcome = client.wait_for_derivation(
            "s1", since=SINCE, grace=0.05, interval=0.05, gates=gates, deadline=0.5
        )
    assert isinstance(outcome, roncho.DerivationOutcome)
    # the workspace's read was the one held: never read, so "waiting", not "batching"
    assert outcome.state == "waiting" and outcome.gates is gates
    assert outcome.new_work_units == 1
