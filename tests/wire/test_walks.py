"""Every paged list walks for the caller: each ``iter_*`` method on the wire, then on the
emulator over more than one page.

A walk sends one call per page, in page order, and asks for the next page only when the
caller has taken the last item of the one before (one page is held at a time); it stops at
the last page its answers name, or at an empty page, whatever the server would say next;
its arguments are checked before anything is sent; and ``deadline`` bounds each page's
call, not the whole walk. Each case runs on both clients (tests/wire/conftest.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from rawserver import Conn, Handler, RawServer, Trap, never_answer, reply, response_bytes
from test_operations import CONCLUSION, PEER, SESSION, TS, WEBHOOK, WORKSPACE

import roncho
from roncho import ConclusionCreate, ConfigError, DeadlineExceeded
from roncho.testing import FakeHoncho

pytestmark = pytest.mark.timeout(60)

WS = "w1"
W = f"/v3/workspaces/{WS}"
READ_TIMEOUT = 10.0  # an idle read never ends a test here: only a deadline does
FILTERS = {"metadata": {"k": "v"}}
# The deadline rule: each page's answer waits PAUSE, under DEADLINE; two pages wait longer.
PAUSE = 0.6
DEADLINE = 1.0
SHORT_DEADLINE = 0.5  # for a page that never answers


@dataclass(frozen=True)
class Walk:
    """One ``iter_*`` method: how to start it, what each page's request is, and an item."""

    name: str
    start: Callable[..., Iterator[Any]]  # (client, **paging) -> the walk
    line: str  # the request line of every page, with {page} and {size} to fill in
    body: Any  # the JSON body every page sends (None: no body)
    item: Callable[[int], dict[str, Any]]  # the i-th item of the list, as the server sends it
    key: Callable[[Any], str]  # the decoded item's identity: item(i) gives str(i)

    def page_line(self, page: int, size: int) -> str:
        return self.line.format(page=page, size=size)


def _by_id(record: Any) -> str:
    return str(record.id).removeprefix("x")


WALKS = [
    Walk(
        "iter_workspaces",
        lambda c, **kw: c.iter_workspaces(reverse=True, filters=FILTERS, **kw),
        "POST /v3/workspaces/list?page={page}&size={size}&reverse=true HTTP/1.1",
        {"filters": FILTERS},
        lambda i: {**WORKSPACE, "id": f"x{i}"},
        _by_id,
    ),
    Walk(
        "iter_peers",
        lambda c, **kw: c.iter_peers(reverse=True, filters=FILTERS, **kw),
        f"POST {W}/peers/list?page={{page}}&size={{size}}&reverse=true HTTP/1.1",
        {"filters": FILTERS},
        lambda i: {**PEER, "id": f"x{i}"},
        _by_id,
    ),
    Walk(
        "iter_peer_sessions",
        lambda c, **kw: c.iter_peer_sessions("alice", reverse=True, filters=FILTERS, **kw),
        f"POST {W}/peers/alice/sessions?page={{page}}&size={{size}}&reverse=true HTTP/1.1",
        {"filters": FILTERS},
        lambda i: {**SESSION, "id": f"x{i}"},
        _by_id,
    ),
    Walk(
        "iter_sessions",
        lambda c, **kw: c.iter_sessions(reverse=True, filters=FILTERS, **kw),
        f"POST {W}/sessions/list?page={{page}}&size={{size}}&reverse=true HTTP/1.1",
        {"filters": FILTERS},
        lambda i: {**SESSION, "id": f"x{i}"},
        _by_id,
    ),
    Walk(
        "iter_session_peers",
        lambda c, **kw: c.iter_session_peers("s1", **kw),
        f"GET {W}/sessions/s1/peers?page={{page}}&size={{size}} HTTP/1.1",
        None,
        lambda i: {**PEER, "id": f"x{i}"},
        _by_id,
    ),
    Walk(
        "iter_scopes",
        lambda c, **kw: c.iter_scopes(reverse=True, **kw),
        f"POST {W}/scopes/list?page={{page}}&size={{size}}&reverse=true HTTP/1.1",
        None,
        lambda i: {"id": f"x{i}", "metadata": {}, "created_at": TS},
        _by_id,
    ),
    Walk(
        "iter_scope_sessions",
        lambda c, **kw: c.iter_scope_sessions("travel", reverse=True, **kw),
        f"POST {W}/scopes/travel/sessions/list?page={{page}}&size={{size}}&reverse=true HTTP/1.1",
        None,
        lambda i: {**SESSION, "id": f"x{i}"},
        _by_id,
    ),
    Walk(
        "iter_messages",
        lambda c, **kw: c.iter_messages("s1", reverse=True, filters=FILTERS, **kw),
        f"POST {W}/sessions/s1/messages/list?page={{page}}&size={{size}}&reverse=true HTTP/1.1",
        {"filters": FILTERS},
        lambda i: {
            "id": f"m{i:020d}",
            "content": str(i),
            "peer_id": "alice",
            "session_id": "s1",
            "metadata": {},
            "created_at": TS,
            "workspace_id": WS,
            "token_count": 1,
        },
        lambda m: str(m.content),
    ),
    Walk(
        "iter_conclusions",
        lambda c, **kw: c.iter_conclusions(FILTERS, reverse=True, **kw),
        f"POST {W}/conclusions/list?page={{page}}&size={{size}}&reverse=true HTTP/1.1",
        {"filters": FILTERS},
        lambda i: {**CONCLUSION, "id": f"c{i:020d}", "content": str(i)},
        lambda c: str(c.content),
    ),
    Walk(
        "iter_webhooks",
        lambda c, **kw: c.iter_webhooks(**kw),
        f"GET {W}/webhooks?page={{page}}&size={{size}} HTTP/1.1",
        None,
        lambda i: {**WEBHOOK, "id": f"h{i:020d}", "url": f"http://localhost:8765/{i}"},
        lambda h: str(h.url).rsplit("/", 1)[1],
    ),
]
BY_NAME = {walk.name: walk for walk in WALKS}
each_walk = pytest.mark.parametrize("walk", WALKS, ids=[walk.name for walk in WALKS])


def answer(walk: Walk, first: int, count: int, *, total: int, page: int, size: int) -> dict:
    """One page of ``walk``'s list: items first .. first + count - 1, of ``total``."""
    items = [walk.item(i) for i in range(first, first + count)]
    return {"items": items, "total": total, "page": page, "size": size, "pages": -(-total // size)}


def client(url: str) -> roncho.Client:
    return roncho.Client(url, WS, read_timeout=READ_TIMEOUT)


@pytest.mark.blocking_only("it reads Client's class; the parity test holds AsyncClient to it")
def test_every_walk_of_the_client_has_its_cases() -> None:
    """A new ``iter_*`` method must get a wire case above and an emulator flow below."""
    walks = {name for name in dir(roncho.Client) if name.startswith("iter_")}
    assert walks == set(BY_NAME) == set(FLOWS)


@each_walk
def test_a_walk_is_one_call_per_page_and_stops_at_the_last_page(walk: Walk) -> None:
    """Five items, two a page: three calls, pages 1, 2 and 3, each with the same paging
    and filters; a fourth answer the server holds is never asked for."""
    pages = [answer(walk, 2 * p, 2, total=5, page=p + 1, size=2) for p in range(2)]
    pages.append(answer(walk, 4, 1, total=5, page=3, size=2))
    beyond = answer(walk, 5, 2, total=7, page=4, size=2)
    with RawServer([reply(200, body) for body in [*pages, beyond]]) as server:
        walked = walk.start(client(server.url), size=2)
        got = [walk.key(next(walked)), walk.key(next(walked))]
        # The first page is taken: the second is not asked for until the caller wants it.
        assert len(server.requests) == 1
        got += [walk.key(item) for item in walked]
    assert got == ["0", "1", "2", "3", "4"]
    assert server.connections == 3
    assert [r.request_line for r in server.requests] == [
        walk.page_line(page, 2) for page in (1, 2, 3)
    ]
    assert [r.json for r in server.requests] == [walk.body] * 3


@each_walk
def test_a_walk_stops_at_an_empty_page_whatever_the_page_count_says(walk: Walk) -> None:
    """An answer with no items ends the walk, though it says there are more pages."""
    empty = {"items": [], "total": 500, "page": 1, "size": 100, "pages": 5}
    more = answer(walk, 0, 1, total=500, page=2, size=100)
    with RawServer([reply(200, empty), reply(200, more)]) as server:
        assert list(walk.start(client(server.url))) == []
    assert server.connections == 1
    assert server.requests[0].request_line == walk.page_line(1, 100)  # the largest page


@each_walk
def test_a_walk_that_fits_one_page_is_one_call(walk: Walk) -> None:
    """A full page that is the only one: one call, though the page could hold no more."""
    only = answer(walk, 0, 3, total=3, page=1, size=3)
    with RawServer([reply(200, only), reply(200, only)]) as server:
        got = [walk.key(item) for item in walk.start(client(server.url), size=3)]
    assert got == ["0", "1", "2"]
    assert server.connections == 1


@each_walk
@pytest.mark.parametrize("size", [0, 101, True, "10"])
def test_a_walk_checks_its_page_size_before_sending(walk: Walk, size: Any) -> None:
    with Trap() as trap:
        walked = walk.start(roncho.Client(trap.url, WS, connect_timeout=1.0), size=size)
        with pytest.raises(ConfigError) as info:
            next(walked)
        assert trap.connections() == 0
    assert "size" in str(info.value)
    assert info.value.request_sent is False


@pytest.mark.parametrize(
    ("start", "named"),
    [
        (lambda c: c.iter_peer_sessions("a/b"), "peer_id"),
        (lambda c: c.iter_session_peers("a/b"), "session_id"),
        (lambda c: c.iter_scope_sessions("a/b"), "scope_id"),
        (lambda c: c.iter_messages("a/b"), "session_id"),
        (lambda c: c.iter_conclusions(["not", "a", "mapping"]), "filters"),
        (lambda c: c.iter_sessions(reverse="yes"), "reverse"),
    ],
    ids=["peer_id", "session_id", "scope_id", "messages.session_id", "filters", "reverse"],
)
def test_a_walk_checks_its_other_arguments_before_sending(
    start: Callable[[roncho.Client], Iterator[Any]], named: str
) -> None:
    with Trap() as trap:
        walked = start(roncho.Client(trap.url, WS, connect_timeout=1.0))
        with pytest.raises(ConfigError) as info:
            next(walked)
        assert trap.connections() == 0
    assert info.value.request_sent is False
    assert str(info.value).startswith(named), str(info.value)


def answer_after(pause: float, body: dict) -> Handler:
    """Read the request, wait ``pause`` seconds, then answer."""
    data = response_bytes(200, body)

    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.server.stopping.wait(pause)
        conn.send(data)

    return handler


@each_walk
def test_the_deadline_bounds_each_page_not_the_whole_walk(walk: Walk) -> None:
    """Each page answers after PAUSE, under DEADLINE; the two pages take longer than
    DEADLINE together, and the walk still ends with every item."""
    pages = [answer(walk, 2 * p, 2, total=4, page=p + 1, size=2) for p in range(2)]
    with RawServer([answer_after(PAUSE, body) for body in pages]) as server:
        started = time.monotonic()
        walked = walk.start(client(server.url), size=2, deadline=DEADLINE)
        got = [walk.key(item) for item in walked]
        took = time.monotonic() - started
    assert got == ["0", "1", "2", "3"]
    assert took > DEADLINE, "the walk took longer than its deadline, and still ended"


@each_walk
def test_a_page_slower_than_the_deadline_ends_the_walk_there(walk: Walk) -> None:
    """The first page's items reach the caller; the second page never answers, and its
    call alone runs out of the deadline (the idle read timeout is far longer)."""
    first = answer(walk, 0, 2, total=4, page=1, size=2)
    with RawServer([reply(200, first), never_answer]) as server:
        walked = walk.start(client(server.url), size=2, deadline=SHORT_DEADLINE)
        got = [walk.key(next(walked)), walk.key(next(walked))]
        with pytest.raises(DeadlineExceeded) as info:
            next(walked)
    assert got == ["0", "1"]
    assert info.value.request_sent is True
    assert [r.request_line for r in server.requests] == [walk.page_line(p, 2) for p in (1, 2)]


# -- on the emulator: every walk over more than one page gives what the pages give --------
def _workspaces(c: roncho.Client) -> list[str]:
    for name in ("wa", "wb", "wc"):
        c.with_workspace(name).get_or_create_workspace()
    return ["w1", "wa", "wb", "wc"]


def _peers(c: roncho.Client) -> list[str]:
    for name in ("alice", "bob", "carol", "dave", "erin"):
        c.get_or_create_peer(name)
    return ["alice", "bob", "carol", "dave", "erin"]


def _sessions(c: roncho.Client) -> list[str]:
    for name in ("s1", "s2", "s3", "s4", "s5"):
        c.get_or_create_session(name, peers={"alice": None})
    return ["s1", "s2", "s3", "s4", "s5"]


def _members(c: roncho.Client) -> list[str]:
    c.get_or_create_session("s1", peers={name: None for name in ("alice", "bob", "carol")})
    return ["alice", "bob", "carol"]


def _scopes(c: roncho.Client) -> list[str]:
    for name in ("travel", "work", "home"):
        c.get_or_create_scope(name)
    return ["travel", "work", "home"]


def _scope_sessions(c: roncho.Client) -> list[str]:
    _sessions(c)
    c.get_or_create_scope("travel")
    c.add_scope_sessions("travel", ["s1", "s2", "s3", "s4", "s5"])
    return ["s1", "s2", "s3", "s4", "s5"]


def _messages(c: roncho.Client) -> list[str]:
    c.get_or_create_session("s1", peers={"alice": None})
    c.add_messages("s1", [roncho.MessageCreate("alice", f"note {i}") for i in range(5)])
    return [f"note {i}" for i in range(5)]


def _conclusions(c: roncho.Client) -> list[str]:
    c.get_or_create_peer("alice")
    c.get_or_create_peer("bob")
    for i in range(5):  # one batch each: a batch shares one created_at, kept in its order
        c.create_conclusions([ConclusionCreate(f"fact {i}", "alice", "bob")])
    return [f"fact {i}" for i in reversed(range(5))]  # newest first


def _webhooks(c: roncho.Client) -> list[str]:
    urls = [f"http://localhost:8765/hook{i}" for i in range(3)]
    for url in urls:
        c.get_or_create_webhook(url)
    return urls


@dataclass(frozen=True)
class Flow:
    """Make more than two items of a list, then walk it two a page and read it whole."""

    make: Callable[[roncho.Client], list[str]]  # what the list then holds, in its order
    walk: Callable[[roncho.Client], Iterator[Any]]  # two a page
    whole: Callable[[roncho.Client], Any]  # the same list as one page
    key: Callable[[Any], str]


FLOWS = {
    "iter_workspaces": Flow(
        _workspaces,
        lambda c: c.iter_workspaces(size=2),
        lambda c: c.list_workspaces(size=100),
        lambda w: str(w.id),
    ),
    "iter_peers": Flow(
        _peers, lambda c: c.iter_peers(size=2), lambda c: c.list_peers(size=100), lambda p: p.id
    ),
    "iter_peer_sessions": Flow(
        _sessions,
        lambda c: c.iter_peer_sessions("alice", size=2),
        lambda c: c.list_peer_sessions("alice", size=100),
        lambda s: s.id,
    ),
    "iter_sessions": Flow(
        _sessions,
        lambda c: c.iter_sessions(size=2),
        lambda c: c.list_sessions(size=100),
        lambda s: s.id,
    ),
    "iter_session_peers": Flow(
        _members,
        lambda c: c.iter_session_peers("s1", size=2),
        lambda c: c.list_session_peers("s1", size=100),
        lambda p: p.id,
    ),
    "iter_scopes": Flow(
        _scopes, lambda c: c.iter_scopes(size=2), lambda c: c.list_scopes(size=100), lambda s: s.id
    ),
    "iter_scope_sessions": Flow(
        _scope_sessions,
        lambda c: c.iter_scope_sessions("travel", size=2),
        lambda c: c.list_scope_sessions("travel", size=100),
        lambda s: s.id,
    ),
    "iter_messages": Flow(
        _messages,
        lambda c: c.iter_messages("s1", size=2),
        lambda c: c.list_messages("s1", size=100),
        lambda m: m.content,
    ),
    "iter_conclusions": Flow(
        _conclusions,
        lambda c: c.iter_conclusions({"observer_id": "alice"}, size=2),
        lambda c: c.list_conclusions({"observer_id": "alice"}, size=100),
        lambda x: x.content,
    ),
    "iter_webhooks": Flow(
        _webhooks,
        lambda c: c.iter_webhooks(size=2),
        lambda c: c.list_webhooks(size=100),
        lambda h: h.url,
    ),
}


@pytest.mark.parametrize("name", list(FLOWS))
def test_each_walk_on_the_emulator_gives_every_item_across_pages(name: str) -> None:
    flow = FLOWS[name]
    with FakeHoncho() as fake:
        c = roncho.Client(fake.url, WS, read_timeout=READ_TIMEOUT)
        c.get_or_create_workspace()
        made = flow.make(c)
        assert len(made) > 2  # more than one page of two
        walked = [flow.key(item) for item in flow.walk(c)]
        whole = flow.whole(c)
    assert whole.pages == 1 and [flow.key(item) for item in whole.items] == made
    assert walked == made
