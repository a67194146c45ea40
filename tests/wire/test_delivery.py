"""Delivery certainty: after a failed write, may the server have it? (``request_sent``)

Part one drives add_messages and create_conclusions into every failure mode and checks the
answer the error gives: False only where no byte can have left the process (bad argument,
read-only client, refused, connect timeout, name not resolved, deadline spent connecting),
True everywhere else, and in those cases the scripted server really did get the whole body.

Part two runs the recovery recipe of docs/delivery.md against roncho.testing.FakeHoncho:
each batch carries a ``sync_id`` in its metadata; after an error with ``request_sent`` the
recipe looks for that sync_id before sending again. Faults make responses fail after the
server stored the batch (body cut short), before it did (5xx from the fault switch), and
while it is still working (slow answer, client read timeout); nothing is lost and nothing
is stored twice.
"""

from __future__ import annotations

import json
import socket
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from rawserver import (
    SERVER_WAIT,
    Conn,
    Handler,
    RawServer,
    RefusingPort,
    Trap,
    never_answer,
    reply,
    send_raw,
)
from seams import blackholed, client_class

import roncho
from roncho.testing import FakeHoncho

KEY = "KEY-must-not-leak-1234"
CONNECT_TIMEOUT = 0.5
READ_TIMEOUT = 5.0
SHORT_READ_TIMEOUT = 0.2
DEADLINE = 0.2
# The emulator's delay before it handles a "slow" request: well past SHORT_READ_TIMEOUT,
# so the client has given up (and looked once) before the batch is stored.
SLOW = 1.0
# How long the recipe lets a write the server may still be doing land before it looks.
SETTLE = SLOW + 0.5
POLL = 0.02

MESSAGES = [roncho.MessageCreate(peer_id="alice", content="I moved to Lisbon")]
CONCLUSIONS = [roncho.ConclusionCreate(content="lives in Lisbon", observer_id="a", observed_id="a")]


def add_messages(client: roncho.Client, **kw: Any) -> Any:
    return client.add_messages(kw.get("session", "s1"), MESSAGES, deadline=kw.get("deadline"))


def create_conclusions(client: roncho.Client, **kw: Any) -> Any:
    if kw.get("session") == "bad id":
        bad = [CONCLUSIONS[0].replace(observer_id="bad id")]
        return client.create_conclusions(bad)
    return client.create_conclusions(CONCLUSIONS, deadline=kw.get("deadline"))


WRITES: dict[str, Callable[..., Any]] = {
    "add_messages": add_messages,
    "create_conclusions": create_conclusions,
}
BODY_KEY = {"add_messages": "messages", "create_conclusions": "conclusions"}


@dataclass(frozen=True)
class Failure:
    name: str
    expect: type[roncho.RonchoError]
    sent: bool
    # handlers for a RawServer (the request reaches it), or how nothing reaches anything
    script: Sequence[Handler] | str
    kwargs: tuple[tuple[str, Any], ...] = ()
    options: tuple[tuple[str, Any], ...] = ()


def cut_mid_body(conn: Conn) -> None:
    conn.read_request()
    conn.send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 90\r\n\r\n[{")


def hang_up(conn: Conn) -> None:
    conn.read_request()


FAILURES = [
    Failure("bad-argument", roncho.ConfigError, False, "trap", (("session", "bad id"),)),
    Failure("read-only-client", roncho.ReadOnlyError, False, "trap", (), (("read_only", True),)),
    Failure("refused", roncho.ConnectError, False, "refused"),
    Failure("connect-timeout", roncho.ConnectTimeout, False, "blackhole"),
    Failure("name-not-resolved", roncho.ConnectError, False, "unresolved"),
    Failure(
        "deadline-while-connecting",
        roncho.DeadlineExceeded,
        False,
        "blackhole",
        (("deadline", DEADLINE),),
        (("connect_timeout", SERVER_WAIT),),
    ),
    Failure(
        "read-timeout",
        roncho.ReadTimeout,
        True,
        [never_answer],
        (),
        (("read_timeout", SHORT_READ_TIMEOUT),),
    ),
    Failure("deadline-while-reading", roncho.DeadlineExceeded, True, [never_answer],
            (("deadline", DEADLINE),)),
    Failure("closed-without-answer", roncho.ProtocolError, True, [hang_up]),
    Failure("closed-mid-response", roncho.ProtocolError, True, [cut_mid_body]),
    Failure("malformed-status-line", roncho.ProtocolError, True,
            [send_raw(b"HTTP/1.1 2OO OK\r\n\r\n")]),
    Failure("500", roncho.StatusError, True, [reply(500, {"detail": "An unexpected error"})]),
    Failure("502", roncho.StatusError, True, [reply(502, raw_body=b"<html>Bad Gateway</html>")]),
    Failure("503", roncho.StatusError, True, [reply(503, {"detail": "unavailable"})]),
    Failure("422", roncho.StatusError, True, [reply(422, {"detail": [{"msg": "bad"}]})]),
    Failure("answer-not-json", roncho.DecodeError, True, [reply(200, raw_body=b"<html>")]),
    Failure("answer-wrong-shape", roncho.DecodeError, True, [reply(200, {"items": []})]),
]  # fmt: skip


def _unresolvable(host: str, port: int) -> list[tuple[Any, ...]]:
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize("failure", FAILURES, ids=[f.name for f in FAILURES])
def test_request_sent_says_whether_the_server_may_have_it(
    failure: Failure, write: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    options: dict[str, Any] = {
        "api_key": KEY,
        "connect_timeout": CONNECT_TIMEOUT,
        "read_timeout": READ_TIMEOUT,
        **dict(failure.options),
    }
    call = WRITES[write]
    with Trap() as trap, RefusingPort() as refusing:
        if isinstance(failure.script, str):
            url = {"trap": trap.url, "refused": refusing.url}.get(
                failure.script, "http://honcho.invalid:8000"
            )
            kind = roncho.Client
            if failure.script == "blackhole":
                address = ("127.0.0.1", refusing.port)
                monkeypatch.setattr(
                    roncho._network,
                    "resolve",
                    lambda h, p: [(socket.AF_INET, socket.SOCK_STREAM, 6, "", address)],
                )
                kind = client_class(blackholed())
            elif failure.script == "unresolved":
                monkeypatch.setattr(roncho._network, "resolve", _unresolvable)
            with pytest.raises(roncho.RonchoError) as caught:
                call(kind(url, "w", **options), **dict(failure.kwargs))
            monkeypatch.undo()
            assert trap.connections() == 0, "nothing reached any server"
        else:
            server = RawServer(failure.script)
            with server, pytest.raises(roncho.RonchoError) as caught:
                call(roncho.Client(server.url, "w", **options), **dict(failure.kwargs))
            # "may have reached the server": here it did, body and all.
            assert len(server.requests) == 1
            body = server.requests[0].json
            assert isinstance(body, dict) and len(body[BODY_KEY[write]]) == 1
    assert type(caught.value) is failure.expect
    assert caught.value.request_sent is failure.sent


# -- the recovery recipe against the emulator -----------------------------------------------
def stamped(batch: Sequence[roncho.MessageCreate], sync_id: str) -> list[roncho.MessageCreate]:
    return [
        m.replace(metadata={**(m.metadata or {}), "sync_id": sync_id}) for m in batch
    ]


def landed(client: roncho.Client, session_id: str, sync_id: str) -> tuple[roncho.Message, ...]:
    """The messages of one batch that the server holds (a batch is at most 100 messages)."""
    page = client.list_messages(
        session_id,
        size=roncho._request_checks.MAX_PAGE_SIZE,
        filters={"metadata": {"sync_id": sync_id}},
    )
    return page.items


def sync_batch(
    client: roncho.Client,
    session_id: str,
    batch: Sequence[roncho.MessageCreate],
    sync_id: str,
    *,
    attempts: int = 3,
    settle: float = SETTLE,
) -> tuple[roncho.Message, ...]:
    """docs/delivery.md, as code: send once; after a failure that may have reached the
    server, let a write still in progress land, then look before sending again."""
    batch = stamped(batch, sync_id)
    for attempt in range(attempts):
        try:
            return client.add_messages(session_id, batch)
        except (roncho.ConfigError, roncho.UnauthorizedError, roncho.RedirectError):
            raise  # sending again cannot help
        except roncho.RonchoError as exc:
            if attempt == attempts - 1:
                raise
            if exc.request_sent:
                time.sleep(settle)
                found = landed(client, session_id, sync_id)
                if len(found) == len(batch):
                    return found
                if found:
                    raise AssertionError("a batch is stored whole or not at all") from exc
    raise AssertionError("unreachable")


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho(deriver_delay=0.0) as emulator:
        yield emulator


def emulator_client(fake: FakeHoncho, **options: Any) -> roncho.Client:
    settings: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT, "read_timeout": READ_TIMEOUT}
    client = roncho.Client(fake.url, "w", **{**settings, **options})
    client.get_or_create_workspace()
    client.get_or_create_session("s1", peers={"alice": None})
    return client


def batch_of(n: int, tag: str) -> list[roncho.MessageCreate]:
    return [roncho.MessageCreate(peer_id="alice", content=f"{tag} message {i}") for i in range(n)]


def stored_sync_ids(client: roncho.Client) -> list[str]:
    return [str(m.metadata.get("sync_id")) for m in client.iter_messages("s1")]


def test_recipe_after_body_cut_short_finds_the_batch_and_does_not_resend(
    fake: FakeHoncho,
) -> None:
    client = emulator_client(fake)
    fake.faults.close_mid_body_next()
    with pytest.raises(roncho.ProtocolError) as caught:
        client.add_messages("s1", stamped(batch_of(3, "first"), "probe"))
    assert caught.value.request_sent is True
    assert len(landed(client, "s1", "probe")) == 3, "stored although the answer was lost"

    posts_before = len([r for r in fake.requests if r.path.endswith("/messages")])
    fake.faults.close_mid_body_next()
    result = sync_batch(client, "s1", batch_of(3, "second"), "b2", settle=0.0)
    posts_after = len([r for r in fake.requests if r.path.endswith("/messages")])
    assert posts_after - posts_before == 1, "the recipe looked instead of sending again"
    assert [m.content for m in result] == [f"second message {i}" for i in range(3)]
    assert stored_sync_ids(client).count("b2") == 3


def test_recipe_after_5xx_resends_once(fake: FakeHoncho) -> None:
    client = emulator_client(fake)
    fake.faults.fail_next(503)  # answered without being handled: nothing stored
    result = sync_batch(client, "s1", batch_of(2, "x"), "b1", settle=0.0)
    assert len(result) == 2
    posts = [r for r in fake.requests if r.path.endswith("/messages")]
    assert len(posts) == 2, "one failed attempt, one resend"
    assert stored_sync_ids(client) == ["b1", "b1"]


def test_recipe_after_read_timeout_waits_for_the_write_still_in_progress(
    fake: FakeHoncho,
) -> None:
    """A timed-out write may still be running on the server: looking at once finds nothing,
    and resending then would store it twice. The recipe lets it settle first."""
    client = emulator_client(fake, read_timeout=SHORT_READ_TIMEOUT)
    fake.faults.slow_next(SLOW)
    with pytest.raises(roncho.ReadTimeout) as caught:
        client.add_messages("s1", stamped(batch_of(2, "slow"), "early-look"))
    assert caught.value.request_sent is True
    assert landed(client, "s1", "early-look") == (), "not stored yet: a resend now duplicates"
    deadline = time.monotonic() + SERVER_WAIT
    while len(landed(client, "s1", "early-look")) < 2:
        assert time.monotonic() < deadline, "the slow write never landed"
        time.sleep(POLL)

    fake.faults.slow_next(SLOW)
    result = sync_batch(client, "s1", batch_of(2, "slow"), "b2")
    assert [m.content for m in result] == ["slow message 0", "slow message 1"]
    assert stored_sync_ids(client).count("b2") == 2


def test_recipe_over_many_batches_loses_nothing_and_stores_nothing_twice(
    fake: FakeHoncho,
) -> None:
    client = emulator_client(fake)
    faults: list[Callable[[], None] | None] = [
        None,
        fake.faults.close_mid_body_next,
        lambda: fake.faults.fail_next(500),
        None,
        fake.faults.close_mid_body_next,
        lambda: fake.faults.fail_next(502),
        fake.faults.close_mid_body_next,
    ]
    expected: list[str] = []
    for n, fault in enumerate(faults):
        sync_id = f"batch-{n}-{uuid.uuid4().hex[:8]}"
        batch = batch_of(n % 3 + 1, f"b{n}")
        expected += [m.content for m in batch]
        if fault is not None:
            fault()
        sync_batch(client, "s1", batch, sync_id, settle=0.0)
    stored = list(client.iter_messages("s1"))
    assert [m.content for m in stored] == expected, "every message once, in order"
    assert len({m.id for m in stored}) == len(expected)


def test_recipe_gives_up_on_errors_that_resending_cannot_fix(fake: FakeHoncho) -> None:
    client = emulator_client(fake)
    fake.faults.fail_next(401)
    with pytest.raises(roncho.UnauthorizedError):
        sync_batch(client, "s1", batch_of(1, "x"), "b1", settle=0.0)
    assert client.list_messages("s1").total == 0
    posts = [r for r in fake.requests if r.path.endswith("/messages")]
    assert len(posts) == 1
    assert json.loads(posts[0].body)["messages"][0]["metadata"] == {"sync_id": "b1"}
