"""The simulated deriver: who is observed, the batching gate, queue status, conclusions."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from emu_http import Api, wait_for

from roncho.testing import FakeHoncho

W = "/v3/workspaces"
NANOID = re.compile(r"^[A-Za-z0-9_-]{21}$")
# How long a "stays pending" assertion watches: several deriver ticks and delays.
QUIET = 0.25


@pytest.fixture
def flushing() -> Iterator[Api]:
    with FakeHoncho(flush=True, deriver_delay=0.01) as fake:
        yield Api(fake.port)


def settled(api: Api, w: str = "w") -> dict[str, Any]:
    """Queue status once nothing is pending or in progress."""

    def done() -> dict[str, Any] | None:
        status = api.queue(w)
        busy = status["pending_work_units"] + status["in_progress_work_units"]
        return status if busy == 0 else None

    return wait_for(done, what="deriver to settle")


def items_for(api: Api, setup: dict[str, Any], message: dict[str, Any]) -> int:
    """Apply a configuration setup, send one message from alice, return queued item count."""
    if "workspace" in setup:
        api.put(f"{W}/w", {"configuration": setup["workspace"]})
    peer_config = setup.get("peer")
    if peer_config is not None:
        api.post(f"{W}/w/peers", {"id": "alice", "configuration": peer_config})
    session: dict[str, Any] = {"id": "s", "peers": {"alice": setup.get("session_peer", {})}}
    if "session" in setup:
        session["configuration"] = setup["session"]
    assert api.post(f"{W}/w/sessions", session).status == 201
    item = {"peer_id": "alice", "content": "I like green tea", **message}
    assert api.post(f"{W}/w/sessions/s/messages", {"messages": [item]}).status == 201
    return int(settled(api)["total_work_units"])


OFF = {"reasoning": {"enabled": False}}
ON = {"reasoning": {"enabled": True}}


@pytest.mark.parametrize(
    ("setup", "message", "expected"),
    [
        pytest.param({}, {}, 1, id="control"),
        pytest.param({"peer": {"observe_me": False}}, {}, 0, id="peer-observe_me-false"),
        pytest.param(
            {"peer": {"observe_me": True}, "session_peer": {"observe_me": False}},
            {},
            0,
            id="session-peer-false-overrides-peer-true",
        ),
        pytest.param(
            {"peer": {"observe_me": False}, "session_peer": {"observe_me": True}},
            {},
            1,
            id="session-peer-true-overrides-peer-false",
        ),
        pytest.param({}, {"configuration": OFF}, 0, id="message-reasoning-off"),
        pytest.param({"session": OFF}, {}, 0, id="session-reasoning-off"),
        pytest.param({"workspace": OFF}, {}, 0, id="workspace-reasoning-off"),
        pytest.param({"session": OFF}, {"configuration": ON}, 1, id="message-over-session"),
        pytest.param({"workspace": OFF, "session": ON}, {}, 1, id="session-over-workspace"),
        pytest.param(
            {"workspace": ON, "session": {"reasoning": {"enabled": None}}},
            {"configuration": {"reasoning": {"enabled": None}}},
            1,
            id="nulls-skipped",
        ),
        pytest.param({"workspace": {"skip_deriver": True}}, {}, 0, id="legacy-skip-deriver"),
    ],
)
def test_observation_matrix(
    flushing: Api, setup: dict[str, Any], message: dict[str, Any], expected: int
) -> None:
    assert items_for(flushing, setup, message) == expected
    conclusions = flushing.post(f"{W}/w/conclusions/list").json["total"]
    assert conclusions == expected


def test_conclusion_written_for_each_observer(flushing: Api) -> None:
    peers = {"alice": {}, "bob": {"observe_others": True}, "carol": {}}
    flushing.post(f"{W}/w/sessions", {"id": "s", "peers": peers})
    flushing.add_messages("w", "s", ("alice", "I moved to Lisbon"))
    settled(flushing)
    found = flushing.post(f"{W}/w/conclusions/list", query={"reverse": "true"}).json["items"]
    assert [(c["observer_id"], c["observed_id"]) for c in found] == [
        ("alice", "alice"),
        ("bob", "alice"),
    ]
    assert found[0]["content"] == "alice said: I moved to Lisbon"
    assert found[0]["level"] == "explicit" and found[0]["session_id"] == "s"
    assert found[0]["source_ids"] is None


def test_queue_status_shape_and_filters(flushing: Api) -> None:
    flushing.add_messages("w", "s1", ("alice", "a"), ("bob", "b"))
    flushing.add_messages("w", "s2", ("alice", "c"))
    status = settled(flushing)
    assert set(status) == {
        "total_work_units",
        "completed_work_units",
        "in_progress_work_units",
        "pending_work_units",
        "sessions",
    }
    assert (status["total_work_units"], status["completed_work_units"]) == (3, 3)
    assert len(status["sessions"]) == 2
    for key, entry in status["sessions"].items():
        assert NANOID.match(key) and entry["session_id"] == key
    by_session = flushing.queue("w", session_id="s1")
    assert (by_session["total_work_units"], by_session["sessions"]) == (2, None)
    assert flushing.queue("w", sender_id="alice")["total_work_units"] == 2
    # Representation items carry an observers list, not a single observer.
    assert flushing.queue("w", observer_id="alice")["total_work_units"] == 0
    assert flushing.queue("w", observer_id="zed", sender_id="bob")["total_work_units"] == 1
    empty = flushing.queue("nothing-here")
    assert (empty["total_work_units"], empty["sessions"]) == (0, None)


def test_gate_holds_short_messages_pending() -> None:
    with FakeHoncho(deriver_delay=0.01) as fake:
        api = Api(fake.port)
        api.add_messages("w", "s", ("alice", "short"))
        time.sleep(QUIET)
        status = api.queue("w")
        assert (status["pending_work_units"], status["completed_work_units"]) == (1, 0)
        assert fake.deriver_log() == []


def test_gate_releases_on_tokens() -> None:
    with FakeHoncho(batch_tokens=10, deriver_delay=0.01) as fake:
        api = Api(fake.port)
        api.add_messages("w", "s", ("alice", "x" * 25))  # 5 tokens: below the target
        time.sleep(QUIET)
        assert api.queue("w")["pending_work_units"] == 1
        api.add_messages("w", "s", ("bob", "y" * 50))  # another sender: its own batch
        api.add_messages("w", "s", ("alice", "z" * 25))  # alice reaches 10
        wait_for(lambda: len(fake.deriver_log()) == 3, what="both batches")
        assert {r.gate for r in fake.deriver_log()} == {"tokens"}
        assert api.queue("w")["completed_work_units"] == 3


def test_gate_releases_on_age() -> None:
    with FakeHoncho(batch_max_age=0.1, deriver_delay=0.01) as fake:
        api = Api(fake.port)
        api.add_messages("w", "s", ("alice", "short"))
        assert api.queue("w")["pending_work_units"] == 1
        (record,) = wait_for(fake.deriver_log, what="age gate")
        assert record.gate == "age" and record.task == "representation"
        assert record.claimed_at - record.enqueued_at >= 0.1


def test_gate_flush() -> None:
    with FakeHoncho(flush=True) as fake:
        Api(fake.port).add_messages("w", "s", ("alice", "short"))
        (record,) = wait_for(fake.deriver_log, what="flush")
        assert (record.gate, record.sender_id, record.session_id) == ("flush", "alice", "s")


def test_items_pass_through_in_progress() -> None:
    with FakeHoncho(flush=True, deriver_delay=0.3) as fake:
        api = Api(fake.port)
        api.add_messages("w", "s", ("alice", "short"))
        wait_for(lambda: api.queue("w")["in_progress_work_units"] == 1, what="claim")
        wait_for(lambda: api.queue("w")["completed_work_units"] == 1, what="completion")


def test_enqueue_delay_hides_new_items() -> None:
    with FakeHoncho(flush=True, enqueue_delay=0.3) as fake:
        api = Api(fake.port)
        api.add_messages("w", "s", ("alice", "short"))
        assert api.queue("w")["total_work_units"] == 0
        wait_for(lambda: api.queue("w")["total_work_units"] == 1, what="enqueue")


def test_configuration_frozen_at_enqueue() -> None:
    with FakeHoncho(batch_max_age=0.2, deriver_delay=0.01) as fake:
        api = Api(fake.port)
        api.add_messages("w", "s", ("alice", "before the switch"))
        api.put(f"{W}/w", {"configuration": OFF})
        api.add_messages("w", "s", ("alice", "after the switch"))
        wait_for(fake.deriver_log, what="age gate")
        assert len(fake.deriver_log()) == 1
        assert api.queue("w")["total_work_units"] == 1


def test_summary_every_twentieth_message(flushing: Api) -> None:
    flushing.add_messages("w", "s", *[("alice", f"message {i}") for i in range(20)])
    status = settled(flushing)
    assert status["total_work_units"] == 21
    summary = flushing.get(f"{W}/w/sessions/s/summaries").json["short_summary"]
    assert set(summary) == {"content", "message_id", "summary_type", "created_at", "token_count"}
    context = flushing.get(f"{W}/w/sessions/s/context").json
    assert context["summary"] == summary


def test_long_summary_every_sixtieth_message_and_how_context_picks_one(flushing: Api) -> None:
    """As 3.0.12: the long summary at the 60th message, `summary_type` named as the server
    names it; context takes the longer summary that fits in 40% of `tokens` and then the
    messages from the one the summary ends at (included) that fit in the rest."""
    flushing.add_messages("w", "s", *[("alice", f"message {i} about tea") for i in range(60)])
    settled(flushing)
    summaries = flushing.get(f"{W}/w/sessions/s/summaries").json
    short, long = summaries["short_summary"], summaries["long_summary"]
    assert short["summary_type"] == "honcho_chat_summary_short"
    assert long["summary_type"] == "honcho_chat_summary_long"
    assert long["token_count"] > short["token_count"]
    roomy = flushing.get(f"{W}/w/sessions/s/context", query={"tokens": "100000"}).json
    assert roomy["summary"] == long
    assert [m["id"] for m in roomy["messages"]] == [long["message_id"]]
    tight = long["token_count"] * 2  # 40% of it is under the long summary's size
    assert tight * 0.4 < long["token_count"] and short["token_count"] <= int(tight * 0.4)
    picked = flushing.get(f"{W}/w/sessions/s/context", query={"tokens": str(tight)}).json
    assert picked["summary"] == short
    spent = short["token_count"] + sum(m["token_count"] for m in picked["messages"])
    assert spent <= tight
    bare = flushing.get(f"{W}/w/sessions/s/context", query={"summary": "false", "tokens": "50"})
    assert bare.json["summary"] is None
    assert sum(m["token_count"] for m in bare.json["messages"]) <= 50


def test_session_purge_removes_its_conclusions(flushing: Api) -> None:
    flushing.add_messages("w", "s", ("alice", "soon gone"))
    flushing.post(f"{W}/w/peers", {"id": "bob"})
    kept = {"content": "kept", "observer_id": "bob", "observed_id": "alice"}
    flushing.post(f"{W}/w/conclusions", {"conclusions": [kept]})
    settled(flushing)
    assert flushing.post(f"{W}/w/conclusions/list").json["total"] == 2
    flushing.delete(f"{W}/w/sessions/s")
    wait_for(
        lambda: flushing.post(f"{W}/w/conclusions/list").json["total"] == 1,
        what="purge of the session's conclusions",
    )
    assert flushing.queue("w")["total_work_units"] == 0


def test_many_messages_settle_quickly(flushing: Api) -> None:
    for batch in range(10):
        items = [("alice", f"batch {batch} message {i}") for i in range(100)]
        assert flushing.add_messages("w", "s", *items).status == 201
    status = settled(flushing)
    # 1000 representation items plus one summary item every 20th message.
    assert status["completed_work_units"] == 1000 + 50
