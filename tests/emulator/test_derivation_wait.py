"""wait_for_derivation against the emulator, both clients: flushing and batching, an enqueue
slower than the grace period, a peer that is not observed, a deriver busy elsewhere."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from both_clients import BlockingAsync, Loop

import roncho
from roncho import DeriverGates, MessageCreate, SessionPeerConfig
from roncho.testing import FakeHoncho, Latency

QueueRoute = "/v3/workspaces/{w}/queue/status"


@pytest.fixture(params=["blocking", "asyncio"])
def make_client(request: pytest.FixtureRequest) -> Iterator[Any]:
    """A function (url, workspace) -> a client of the kind under test."""
    if request.param == "blocking":
        yield roncho.Client
        return
    loop = Loop()
    try:
        yield BlockingAsync.on_loop(loop)
    finally:
        loop.close()


def _sync(client: Any, session: str, *messages: tuple[str, str]) -> roncho.QueueStatus:
    """The mark read before the sync, then the sync."""
    since = client.queue_status(session_id=session)
    client.add_messages(session, [MessageCreate(peer, text) for peer, text in messages])
    return since  # type: ignore[no-any-return]


def test_flushing_deriver_done_after_the_work_was_seen(make_client: Any) -> None:
    with FakeHoncho(flush=True) as fake, make_client(fake.url, "w") as client:
        since = _sync(client, "s1", ("alice", "I like green tea."))
        outcome = client.wait_for_derivation("s1", since=since, grace=0.3, deadline=10)
        assert outcome.state == "done", str(outcome)
        assert outcome.new_work_units == 1 and outcome.completed == 1
        assert outcome.first_seen is not None and outcome.elapsed >= 0.3
        assert client.list_conclusions({"session_id": "s1"}).total == 1
        # The next sync in the same session waits for its own item, not the first one's.
        since = _sync(client, "s1", ("alice", "I like black tea too."))
        outcome = client.wait_for_derivation("s1", since=since, grace=0.3, deadline=10)
        assert outcome.done and outcome.new_work_units == 1 and outcome.completed == 2
        assert client.list_conclusions({"session_id": "s1"}).total == 2


def test_batching_deriver_says_so_at_the_bound(make_client: Any) -> None:
    """Honcho's defaults: a short message waits for 512 tokens or 30 minutes."""
    with FakeHoncho() as fake, make_client(fake.url, "w") as client:
        since = _sync(client, "s1", ("alice", "I like green tea."))
        told = client.wait_for_derivation(
            "s1", since=since, gates=DeriverGates(), grace=0.2, interval=0.1, deadline=1.0
        )
        assert told.state == "batching" and told.pending == 1, str(told)
        assert told.workspace_in_progress == 0
        assert "512 tokens or 1800 s after its oldest message" in str(told)
        # Not told the gates, it cannot tell batching from a backlog the queue hides.
        since = client.queue_status(session_id="s1")
        client.add_messages("s1", [MessageCreate("alice", "And oolong.")])
        untold = client.wait_for_derivation(
            "s1", since=since, grace=0.2, interval=0.1, deadline=1.0
        )
        assert untold.state == "waiting" and untold.pending == 2, str(untold)
        assert client.list_conclusions().total == 0


def test_batching_deriver_said_early_when_its_age_gate_opens_after_the_deadline(
    make_client: Any,
) -> None:
    """Told a deriver that looks every 0.3 s and an age gate of 30 minutes, a wait with a
    long deadline says "batching" after a look, with when the gate will release it, instead
    of spending its whole deadline."""
    with FakeHoncho() as fake, make_client(fake.url, "w") as client:
        since = _sync(client, "s1", ("alice", "I like green tea."))
        gates = DeriverGates(deriver_look=0.3)
        outcome = client.wait_for_derivation(
            "s1", since=since, gates=gates, grace=0.2, interval=0.1, deadline=30
        )
        assert outcome.state == "batching" and outcome.pending == 1, str(outcome)
        assert outcome.elapsed < 30 / 2, str(outcome)  # far from the deadline
        assert outcome.released_by is not None and outcome.released_by >= 1800
        assert "the age gate releases it by" in str(outcome)


def test_batching_deriver_done_when_its_age_gate_opens(make_client: Any) -> None:
    with FakeHoncho(batch_max_age=1.0) as fake, make_client(fake.url, "w") as client:
        since = _sync(client, "s1", ("alice", "I like green tea."))
        gates = DeriverGates(batch_max_age=1.0)
        outcome = client.wait_for_derivation(
            "s1", since=since, gates=gates, grace=0.2, interval=0.1, deadline=10
        )
        returned = time.monotonic()
        assert outcome.done, str(outcome)
        # Events on one clock (the emulator's records are monotonic seconds), no margin:
        # the age gate released the item, and the wait said done only after it completed.
        (record,) = fake.deriver_log()
        assert record.gate == "age" and record.claimed_at - record.enqueued_at >= 1.0
        assert record.completed_at <= returned
        assert client.list_conclusions().total == 1


def test_an_enqueue_slower_than_the_grace_is_nothing_queued_not_done(make_client: Any) -> None:
    with FakeHoncho(flush=True, enqueue_delay=1.0) as fake, make_client(fake.url, "w") as client:
        since = _sync(client, "s1", ("alice", "I like green tea."))
        short = client.wait_for_derivation("s1", since=since, grace=0.3, deadline=5)
        assert short.state == "nothing_queued" and short.first_seen is None, str(short)
        assert client.list_conclusions().total == 0  # it was not done, and it did not say so
        # A grace longer than the lag sees the item and waits for it.
        since = _sync(client, "s2", ("alice", "I like black tea."))
        started = time.monotonic()
        long = client.wait_for_derivation("s2", since=since, grace=1.5, interval=0.2, deadline=5)
        returned = time.monotonic()
        assert long.done and long.first_seen is not None, str(long)
        # Events on one clock: the item became visible only after the wait began (the
        # lag), the wait saw it all the same, and said done only after it was completed.
        (record,) = [r for r in fake.deriver_log() if r.session_id == "s2"]
        assert started < record.enqueued_at and record.completed_at <= returned
        # Not at its first read (made at once): a later one, after at least one of the
        # wait's own pauses of 0.2 s, which a loaded machine only makes longer.
        assert long.first_seen >= 0.1 and long.reads >= 2, str(long)
        assert client.list_conclusions({"session_id": "s2"}).total == 1


def test_a_peer_that_is_not_observed_gives_nothing_queued(make_client: Any) -> None:
    with FakeHoncho(flush=True) as fake, make_client(fake.url, "w") as client:
        client.get_or_create_peer("assistant", configuration={"observe_me": False})
        client.get_or_create_session("s1", peers={"assistant": SessionPeerConfig(observe_me=False)})
        since = _sync(client, "s1", ("assistant", "Noted."))
        outcome = client.wait_for_derivation("s1", since=since, grace=0.3, deadline=5)
        assert outcome.state == "nothing_queued" and outcome.new_work_units == 0
        assert "no new work for session 's1' appeared" in str(outcome)


def test_a_deriver_busy_with_another_sessions_work_is_waiting(make_client: Any) -> None:
    """Another session's long message passed the token gate and is being derived (slowly);
    ours is pending. Work in progress elsewhere: not batching, "waiting"."""
    with FakeHoncho(deriver_delay=5.0) as fake, make_client(fake.url, "w") as client:
        client.add_messages("other", [MessageCreate("bob", "word " * 2000)])
        since = _sync(client, "s1", ("alice", "I like green tea."))
        outcome = client.wait_for_derivation(
            "s1", since=since, gates=DeriverGates(), grace=0.2, interval=0.1, deadline=1.0
        )
        assert outcome.state == "waiting", str(outcome)
        assert outcome.pending == 1 and outcome.workspace_in_progress == 1
        assert "1 in progress in the workspace" in str(outcome)


def test_still_working_at_the_bound(make_client: Any) -> None:
    with FakeHoncho(flush=True, deriver_delay=5.0) as fake, make_client(fake.url, "w") as client:
        since = _sync(client, "s1", ("alice", "I like green tea."), ("alice", "And coffee."))
        outcome = client.wait_for_derivation("s1", since=since, grace=0.2, deadline=1.0)
        assert outcome.state == "still_working", str(outcome)
        assert (outcome.in_progress, outcome.pending, outcome.new_work_units) == (2, 0, 2)


def test_done_while_another_session_keeps_the_deriver_busy(make_client: Any) -> None:
    with FakeHoncho(deriver="manual", flush=True) as fake, make_client(fake.url, "w") as client:
        client.add_messages("other", [MessageCreate("bob", "I like maps.")])
        since = _sync(client, "s1", ("alice", "I like green tea."))
        fake.deriver.step(batches=1)  # the other session's batch, the oldest
        outcome = client.wait_for_derivation("s1", since=since, grace=0.2, deadline=0.8)
        assert outcome.state == "waiting" and outcome.pending == 1, str(outcome)
        fake.deriver.step()
        since_done = client.wait_for_derivation("s1", since=since, grace=0.2, deadline=2)
        assert since_done.done and since_done.completed == 1


def test_bad_arguments_send_nothing(make_client: Any) -> None:
    with FakeHoncho(flush=True) as fake, make_client(fake.url, "w") as client:
        since = client.queue_status(session_id="s1")
        client.add_messages("s1", [MessageCreate("alice", "I like green tea.")])
        whole = client.queue_status()  # read without session_id: the workspace's counts
        fake.clear_requests()
        bad: list[tuple[dict[str, Any], str]] = [
            ({"since": None}, "since"),
            ({"since": [since]}, "since"),
            ({"since": whole}, "since"),
            ({"since": since, "grace": True}, "grace"),
            ({"since": since, "deadline": None}, "deadline"),
            ({"since": since, "interval": "0.25"}, "interval"),
            ({"since": since, "gates": "flush"}, "gates"),
            ({"since": since, "grace": 5, "deadline": 2}, "grace"),
        ]
        for options, name in bad:
            with pytest.raises(roncho.ConfigError, match=name):
                client.wait_for_derivation("s1", **options)
        with pytest.raises(roncho.ConfigError, match="session_id"):
            client.wait_for_derivation(["s1"], since=since)
        assert fake.requests == []


def test_no_read_answered_within_the_deadline_is_deadline_exceeded(make_client: Any) -> None:
    with FakeHoncho(flush=True) as fake, make_client(fake.url, "w") as client:
        since = client.queue_status(session_id="s1")
        fake.faults.add(method="GET", route=QueueRoute, latency=Latency.fixed(2.0))
        with pytest.raises(roncho.DeadlineExceeded):
            client.wait_for_derivation("s1", since=since, grace=0.1, deadline=0.5)
