"""``roncho.delivery.sync_batch`` (and roncho.aio.delivery's, in the "asyncio" run of each
test): what it sends, when it looks, when it sends again, what it says it did.

Against roncho.testing.FakeHoncho and its fault switches, and through the fault proxy
(tests/faultproxy.py) with one fault of each kind in a fixed order. tests/delivery_soak.py
drives it many turns at a time (tests/emulator/test_delivery_soak.py, scripts/test-real.sh).
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

import pytest
from both_clients import BlockingAsync
from faultproxy import FaultPlan, FaultProxy
from rawserver import RawServer, RefusingPort, Trap, reply
from seams import client_class

import roncho
from roncho import delivery
from roncho.aio import delivery as aio_delivery
from roncho.testing import FakeHoncho, Latency

# Also the settle time: the function waits the client's read timeout. Long enough that an
# emulator on a loaded 2-core machine answers a plain call within it.
READ_TIMEOUT = 2.0
# The emulator's delay before it stores a "slow" write: past the read timeout (the client
# gives up), within the settle time after it (the look finds it).
SLOW = READ_TIMEOUT + 0.7
ADD_ROUTE = "/v3/workspaces/{w}/sessions/{s}/messages"
# How long the proxy refuses: long enough that the next call, made as soon as the answer
# came, is refused on a loaded machine; sync_batch's pause and attempts outlast it.
REFUSAL = 1.5


def sync_batch(client: Any, *args: Any, **kwargs: Any) -> delivery.Delivery:
    """The function of the client's own half: the asyncio one for the facade's client."""
    if isinstance(client, BlockingAsync):
        record = client.loop.run(aio_delivery.sync_batch(client._client, *args, **kwargs))
        assert isinstance(record, delivery.Delivery)
        return record
    return delivery.sync_batch(client, *args, **kwargs)


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho(deriver_delay=0.0) as emulator:
        # The first message the emulator stores loads its tokenizer (half a second, more
        # on a loaded machine): pay that outside the session the tests look at.
        warm = roncho.Client(emulator.url, "w", read_timeout=30)
        warm.get_or_create_workspace()
        warm.add_messages("warm-up", [roncho.MessageCreate("alice", "warm")])
        yield emulator


class Waits:
    """The waits ``sync_batch`` asks for, taken without waiting: ``(seconds, looks so far)``
    each. For the tests whose batch's fate is settled when the error is raised (an error
    status before the write; an answer cut after it): waiting out the settle time there
    holds nothing more than asking for it, before the look. The tests where a write is
    still running when the client gives up wait for real."""

    def __init__(self, fake: FakeHoncho) -> None:
        self.fake = fake
        self.asked: list[tuple[float, int]] = []

    def sleep(self, seconds: float) -> None:
        self.asked.append((seconds, len(looks(self.fake))))

    async def async_sleep(self, seconds: float) -> None:
        self.sleep(seconds)


@pytest.fixture
def waits(fake: FakeHoncho, monkeypatch: pytest.MonkeyPatch) -> Waits:
    """``sync_batch``'s waits (both halves) recorded, not waited."""
    recorded = Waits(fake)
    monkeypatch.setattr(delivery, "time", SimpleNamespace(monotonic=time.monotonic,
                                                          sleep=recorded.sleep))  # fmt: skip
    monkeypatch.setattr(aio_delivery, "asyncio", SimpleNamespace(sleep=recorded.async_sleep))
    return recorded


def client_of(url: str, **options: Any) -> roncho.Client:
    client = roncho.Client(url, "w", connect_timeout=1.0, read_timeout=READ_TIMEOUT, **options)
    client.get_or_create_workspace()
    client.get_or_create_session("s1", peers={"alice": None})
    return client


def batch_of(n: int, tag: str) -> list[roncho.MessageCreate]:
    return [roncho.MessageCreate("alice", f"{tag} message {i}") for i in range(n)]


def posts(fake: FakeHoncho) -> list[Any]:
    return [r for r in fake.requests if r.method == "POST" and r.path.endswith("/s1/messages")]


def looks(fake: FakeHoncho) -> list[Any]:
    return [r for r in fake.requests if r.path.endswith("/s1/messages/list")]


def held(client: roncho.Client) -> list[tuple[str, str]]:
    return [(m.content, str(m.metadata.get("sync_id"))) for m in client.iter_messages("s1")]


def test_an_answered_send_is_sent_once_with_the_marker_on_every_message(
    fake: FakeHoncho,
) -> None:
    client = client_of(fake.url)
    batch = [roncho.MessageCreate("alice", "a", metadata={"mood": "calm"}), *batch_of(1, "b")]
    record = sync_batch(client, "s1", batch, "turn-1")
    assert (record.outcome, record.attempts, record.looks, record.errors) == ("sent", 1, 0, ())
    assert record.settled == 0.0
    assert [m.content for m in record.messages] == ["a", "b message 0"]
    sent = json.loads(posts(fake)[0].body)["messages"]
    assert [m["metadata"] for m in sent] == [{"mood": "calm", "sync_id": "turn-1"},
                                             {"sync_id": "turn-1"}]  # fmt: skip
    assert looks(fake) == []
    other = sync_batch(client, "s1", batch_of(1, "c"), "turn-2", marker_key="delivery")
    assert other.messages[0].metadata == {"delivery": "turn-2"}


def test_an_answer_cut_short_after_the_write_is_found_and_not_sent_again(
    fake: FakeHoncho, waits: Waits
) -> None:
    client = client_of(fake.url)
    fake.faults.close_mid_body_next()
    record = sync_batch(client, "s1", batch_of(3, "x"), "t1")
    assert (record.outcome, record.attempts, record.looks) == ("found", 1, 1)
    assert record.errors == ("ProtocolError",)
    assert record.settled == READ_TIMEOUT
    assert waits.asked == [(READ_TIMEOUT, 0)]  # the settle time, before the look
    assert [m.content for m in record.messages] == [f"x message {i}" for i in range(3)]
    assert len(posts(fake)) == 1
    assert held(client) == [(f"x message {i}", "t1") for i in range(3)]


def test_a_5xx_before_the_write_is_looked_for_then_sent_again(
    fake: FakeHoncho, waits: Waits
) -> None:
    client = client_of(fake.url)
    fake.faults.fail_next(503)
    record = sync_batch(client, "s1", batch_of(2, "x"), "t1")
    assert (record.outcome, record.attempts, record.looks) == ("resent", 2, 1)
    assert record.errors == ("StatusError",)
    assert waits.asked == [(READ_TIMEOUT, 0)]
    assert len(posts(fake)) == 2
    assert held(client) == [("x message 0", "t1"), ("x message 1", "t1")]


def test_a_write_still_running_after_the_read_timeout_is_waited_for_and_found(
    fake: FakeHoncho,
) -> None:
    """The emulator stores the batch after the client gave up: the look comes a whole read
    timeout later, finds it, and does not send it again (which would store it twice)."""
    client = client_of(fake.url)
    fake.faults.slow_next(SLOW)
    record = sync_batch(client, "s1", batch_of(2, "slow"), "t1")
    assert (record.outcome, record.attempts, record.errors) == ("found", 1, ("ReadTimeout",))
    assert len(posts(fake)) == 1
    assert held(client) == [("slow message 0", "t1"), ("slow message 1", "t1")]


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_is_raised_at_once_without_a_look(fake: FakeHoncho, status: int) -> None:
    client = client_of(fake.url)
    fake.faults.fail_next(status)
    with pytest.raises(roncho.UnauthorizedError):
        sync_batch(client, "s1", batch_of(1, "x"), "t1")
    assert len(posts(fake)) == 1
    assert looks(fake) == []


def test_no_attempt_left_raises_the_last_send_error_after_its_look(
    fake: FakeHoncho, waits: Waits
) -> None:
    client = client_of(fake.url)
    fake.faults.add(method="POST", route=ADD_ROUTE, status=502, times=2)  # the sends only
    with pytest.raises(roncho.StatusError) as caught:
        sync_batch(client, "s1", batch_of(1, "x"), "t1", attempts=2)
    assert caught.value.status == 502
    assert (len(posts(fake)), len(looks(fake))) == (2, 2)
    assert waits.asked == [(READ_TIMEOUT, 0), (READ_TIMEOUT, 1)]
    assert held(client) == []


def test_a_refused_connection_is_sent_again_after_the_pause_without_a_look() -> None:
    """Nothing left the process: no look, just ``attempts`` sends, then the last error."""
    made: list[int] = []

    def counted(family: int, kind: int, proto: int) -> socket.socket:
        made.append(family)
        return socket.socket(family, kind, proto)

    with RefusingPort() as refusing:
        client = client_class(counted)(refusing.url, "w", read_timeout=READ_TIMEOUT)
        with pytest.raises(roncho.ConnectError) as caught:
            sync_batch(client, "s1", batch_of(1, "x"), "t1", attempts=3, pause=0.05)
    assert caught.value.request_sent is False
    assert len(made) == 3


@pytest.mark.parametrize("pause", [0, 0.05])
def test_the_pause_between_refused_sends_is_the_callers(
    monkeypatch: pytest.MonkeyPatch, pause: float
) -> None:
    """pause=0 sends again at once; any other pause is waited as given."""
    waits: list[float] = []

    class Clock:
        monotonic = staticmethod(time.monotonic)

        @staticmethod
        def sleep(seconds: float) -> None:
            waits.append(seconds)

    class Aio:
        @staticmethod
        async def sleep(seconds: float) -> None:
            waits.append(seconds)

    monkeypatch.setattr(delivery, "time", Clock)
    monkeypatch.setattr(aio_delivery, "asyncio", Aio)
    with RefusingPort() as refusing:
        client = roncho.Client(refusing.url, "w", read_timeout=READ_TIMEOUT)
        with pytest.raises(roncho.ConnectError):
            sync_batch(client, "s1", batch_of(1, "x"), "t1", attempts=3, pause=pause)
    assert waits == [pause, pause]


def test_a_refusal_that_ends_is_resent_and_says_so(fake: FakeHoncho) -> None:
    """The proxy answers one write, then refuses connections for a while: the next batch's
    first send is refused (nothing sent), and a send after the pause is answered."""
    client = client_of(fake.url)
    url = urlsplit(fake.url)
    plan = FaultPlan(script=["refuse"])
    with FaultProxy((url.hostname or "", url.port or 0), plan, hold=0, refuse_for=REFUSAL) as proxy:
        through = client.with_options()
        proxied = roncho.Client(proxy.url, "w", connect_timeout=1.0, read_timeout=READ_TIMEOUT)
        first = sync_batch(proxied, "s1", batch_of(1, "a"), "t1")
        second = sync_batch(proxied, "s1", batch_of(1, "b"), "t2", attempts=20, pause=0.2)
    assert first.outcome == "sent"
    assert second.outcome == "resent" and second.looks == 0 and second.settled == 0.0
    assert set(second.errors) == {"ConnectError"} and second.attempts == len(second.errors) + 1
    assert proxy.refused_periods == 1 and proxy.errors == []
    assert held(through) == [("a message 0", "t1"), ("b message 0", "t2")]


def test_look_first_finds_a_batch_that_landed_and_sends_nothing(fake: FakeHoncho) -> None:
    client = client_of(fake.url)
    sync_batch(client, "s1", batch_of(2, "x"), "t1")
    before = len(posts(fake))
    record = sync_batch(client, "s1", batch_of(2, "x"), "t1", look_first=True)
    assert (record.outcome, record.attempts, record.looks, record.errors) == ("found", 0, 1, ())
    assert len(posts(fake)) == before
    fresh = sync_batch(client, "s1", batch_of(1, "y"), "t2", look_first=True)
    assert (fresh.outcome, fresh.attempts, fresh.looks) == ("sent", 1, 1)


@pytest.mark.parametrize(
    ("stored", "held_count", "why"),
    [
        (["x message 0"], 1, "not once"),  # part of the batch
        (["x message 0", "x message 1"] * 2, 4, "not once"),  # the batch twice
        (["x message 1", "x message 0"], 2, "other contents"),  # the marker on another batch
    ],
)
def test_a_look_that_finds_anything_but_the_batch_once_raises_and_sends_nothing(
    fake: FakeHoncho, stored: list[str], held_count: int, why: str
) -> None:
    client = client_of(fake.url)
    marked = [roncho.MessageCreate("alice", c, metadata={"sync_id": "t1"}) for c in stored]
    client.add_messages("s1", marked)
    before = len(posts(fake))
    with pytest.raises(delivery.BatchMismatchError) as caught:
        sync_batch(client, "s1", batch_of(2, "x"), "t1", look_first=True)
    assert (caught.value.held, caught.value.expected) == (held_count, 2)
    assert str(caught.value) == (
        f"{held_count} messages carry this batch's marker where the batch has 2 ({why}); "
        "not sent again"
    )  # counts only: no marker, no content
    assert caught.value.request_sent is True
    assert len(posts(fake)) == before


MARKER_WORDS = "marker must be a non-empty string, unique to the batch"
BATCH_WORDS = "batch must be an iterable of roncho.MessageCreate"


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"marker": ""}, MARKER_WORDS),
        ({"marker": 7}, MARKER_WORDS),
        ({"marker_key": ""}, "marker_key must be a non-empty string"),
        ({"batch": []}, "batch must hold 1 to 100 messages, got 0"),
        ({"batch": batch_of(101, "x")}, "batch must hold 1 to 100 messages, got 101"),
        ({"batch": "hello"}, BATCH_WORDS),
        # Text and mappings are refused as such, even empty (not as an empty batch).
        ({"batch": ""}, BATCH_WORDS),
        ({"batch": b""}, BATCH_WORDS),
        ({"batch": {}}, BATCH_WORDS),
        ({"batch": [{"peer_id": "alice", "content": "x"}]}, BATCH_WORDS),
        ({"attempts": 0}, "attempts must be "),
        ({"pause": -1}, "pause must be a positive finite number of seconds"),
        ({"session_id": "bad id"}, "session_id must be 1 to 512 characters"),
    ],
)
def test_a_bad_argument_is_a_config_error_before_anything_is_sent(
    arguments: dict[str, Any], words: str
) -> None:
    with Trap() as trap:
        client = roncho.Client(trap.url, "w", read_timeout=READ_TIMEOUT)
        call: dict[str, Any] = {"session_id": "s1", "batch": batch_of(1, "x"), "marker": "t1"}
        call.update(arguments)
        with pytest.raises(roncho.ConfigError) as info:
            sync_batch(client, call.pop("session_id"), call.pop("batch"), call.pop("marker"),
                       **call)  # fmt: skip
        assert str(info.value).startswith(words)
        assert trap.connections() == 0


def test_the_largest_batch_and_no_pause_are_taken(fake: FakeHoncho) -> None:
    """A batch of 100 (the server's own limit) and pause=0 (send again at once) are in
    range: bounds of the checks, not refusals."""
    client = client_of(fake.url)
    record = sync_batch(client, "s1", batch_of(100, "x"), "t1", pause=0)
    assert (record.outcome, len(record.messages)) == ("sent", 100)


def test_the_record_says_how_long_the_call_took(
    fake: FakeHoncho, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``elapsed`` is the monotonic clock's reading at the end less the one at the start."""
    client = client_of(fake.url)
    readings = iter([10.0, 12.5])

    class Clock:
        @staticmethod
        def monotonic() -> float:
            return next(readings)

    monkeypatch.setattr(delivery, "time", Clock)
    monkeypatch.setattr(aio_delivery, "time", Clock)
    record = sync_batch(client, "s1", batch_of(1, "x"), "t1")
    assert (record.outcome, record.elapsed) == ("sent", 2.5)


def test_a_look_whose_page_holds_none_of_what_it_counts_is_a_mismatch() -> None:
    """A page that counts messages under the marker but lists none is not "nothing
    found": sending again could store the batch twice."""
    answer = {"items": [], "total": 2, "page": 1, "size": 100, "pages": 1}
    with RawServer([reply(200, answer)]) as server:
        client = roncho.Client(server.url, "w", read_timeout=READ_TIMEOUT)
        with pytest.raises(delivery.BatchMismatchError) as caught:
            sync_batch(client, "s1", batch_of(2, "x"), "t1", look_first=True)
    assert (caught.value.held, caught.value.expected) == (2, 2)
    assert server.connections == 1  # the look, and no send
    assert server.requests[0].request_line.startswith(
        "POST /v3/workspaces/w/sessions/s1/messages/list"
    )


def test_the_settle_time_is_the_clients_read_timeout() -> None:
    client = roncho.Client("http://127.0.0.1:9", "w", read_timeout=2.5)
    assert delivery.settle_time(client) == 2.5
    assert delivery.settle_time(client.with_options(read_timeout=7)) == 7
    assert aio_delivery.settle_time is delivery.settle_time


def test_every_fault_of_the_proxy_in_turn_leaves_each_batch_once(fake: FakeHoncho) -> None:
    """One fault of each kind, in a fixed order, then none: what each turn's record says
    and that the server holds every batch once, in order."""
    kinds = ["reset_early", "reset_sent", "reset_answered", "hold", "cut", "refuse"]
    # The plan goes by write: the resend after reset_early is the next one, let it pass.
    script = [kinds[0], "pass", *kinds[1:]]
    client = client_of(fake.url)
    url = urlsplit(fake.url)
    upstream = (url.hostname or "", url.port or 0)
    plan = FaultPlan(script=script)
    with FaultProxy(upstream, plan, hold=READ_TIMEOUT + 0.5, refuse_for=REFUSAL) as proxy:
        proxied = roncho.Client(proxy.url, "w", connect_timeout=1.0, read_timeout=READ_TIMEOUT)
        records = [
            sync_batch(proxied, "s1", batch_of(n % 3 + 1, f"t{n}"), f"t{n}", pause=0.2,
                       attempts=20)
            for n in range(8)
        ]  # fmt: skip
    said = [(r.outcome, r.errors) for r in records]
    assert said[:6] == [
        ("resent", ("ProtocolError",)),  # reset before the server saw it: looked, sent again
        ("found", ("ProtocolError",)),  # reset while the server worked: looked, found
        ("found", ("ProtocolError",)),  # reset after the server answered
        ("found", ("ReadTimeout",)),  # answer held past the read timeout
        ("found", ("ProtocolError",)),  # body cut short
        ("sent", ()),  # answered, then the proxy stops listening
    ]
    assert said[6][0] == "resent" and set(said[6][1]) == {"ConnectError"}
    assert said[7] == ("sent", ())
    assert dict(proxy.injected) == dict.fromkeys(kinds, 1) and proxy.errors == []
    expected = [(f"t{n} message {i}", f"t{n}") for n in range(8) for i in range(n % 3 + 1)]
    assert held(client) == expected


# -- what the mutation run of roncho/aio/delivery.py found unheld -----------------------------
LOOK_ROUTE = "/v3/workspaces/{w}/sessions/{s}/messages/list"
# Longer than each call's deadline below, shorter than the read timeout: a call that keeps
# the deadline fails with DeadlineExceeded; one that drops it waits and is answered.
HELD = 1.0
DEADLINE = 0.3


def test_every_settle_adds_to_settled_and_a_look_asks_for_a_whole_page(
    fake: FakeHoncho, waits: Waits
) -> None:
    client = client_of(fake.url)
    fake.faults.add(method="POST", route=ADD_ROUTE, status=503, times=2)  # the sends only
    record = sync_batch(client, "s1", batch_of(2, "x"), "t1", attempts=3)
    assert (record.outcome, record.attempts, record.looks) == ("resent", 3, 2)
    assert record.settled == 2 * READ_TIMEOUT
    assert waits.asked == [(READ_TIMEOUT, 0), (READ_TIMEOUT, 1)]
    assert [r.query.get("size") for r in looks(fake)] == ["100", "100"]


def test_a_first_look_that_finds_the_batch_returns_the_stored_messages(fake: FakeHoncho) -> None:
    client = client_of(fake.url)
    sent = sync_batch(client, "s1", batch_of(2, "x"), "t1")
    again = sync_batch(client, "s1", batch_of(2, "x"), "t1", look_first=True)
    assert (again.outcome, again.attempts, again.looks) == ("found", 0, 1)
    assert [m.id for m in again.messages] == [m.id for m in sent.messages]
    assert [m.content for m in again.messages] == ["x message 0", "x message 1"]


def test_the_deadline_bounds_each_send(fake: FakeHoncho) -> None:
    client = client_of(fake.url)
    fake.faults.add(method="POST", route=ADD_ROUTE, latency=Latency.fixed(HELD), times=1)
    record = sync_batch(client, "s1", batch_of(1, "x"), "t1", deadline=DEADLINE)
    # the held write landed within the settle time: the look found it
    assert (record.outcome, record.errors) == ("found", ("DeadlineExceeded",))
    assert len(posts(fake)) == 1


def test_the_deadline_bounds_a_first_look(fake: FakeHoncho) -> None:
    client = client_of(fake.url)
    fake.faults.add(method="POST", route=LOOK_ROUTE, latency=Latency.fixed(HELD), times=1)
    with pytest.raises(roncho.DeadlineExceeded):
        sync_batch(client, "s1", batch_of(1, "x"), "t1", look_first=True, deadline=DEADLINE)
    assert posts(fake) == []


def test_the_deadline_bounds_a_look_after_a_failed_send(fake: FakeHoncho, waits: Waits) -> None:
    client = client_of(fake.url)
    fake.faults.add(method="POST", route=ADD_ROUTE, status=503, times=1)
    fake.faults.add(method="POST", route=LOOK_ROUTE, latency=Latency.fixed(HELD), times=1)
    with pytest.raises(roncho.DeadlineExceeded):
        sync_batch(client, "s1", batch_of(1, "x"), "t1", deadline=DEADLINE)
    assert len(posts(fake)) == 1
    assert waits.asked == [(READ_TIMEOUT, 0)]
