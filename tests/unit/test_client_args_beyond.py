"""The operations beyond memoryd's first list check every argument before anything is sent:
each refusal is a ConfigError that names the parameter; a read_only client refuses each
write and lets each read out (tests/wire/test_operations_beyond.py sends the reads)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_client_args import WS, no_network, refused, sent  # noqa: F401  (no_network: autouse)

import roncho
from roncho import ReadOnlyError

LONG_SCOPE = "s" * 507


@pytest.fixture
def client() -> roncho.Client:
    # Port 9 on loopback, and no_network stops every connection before it is made.
    return roncho.Client("http://127.0.0.1:9", WS)


def upload(**changes: Any) -> Callable[[roncho.Client], Any]:
    """An upload_file call with good arguments but ``changes``."""
    args: dict[str, Any] = {
        "session_id": "s",
        "peer_id": "a",
        "content": b"x",
        "filename": "a.txt",
        "content_type": "text/plain",
        **changes,
    }
    return lambda c: c.upload_file(**args)


BAD: list[tuple[str, Callable[[roncho.Client], Any], str]] = [
    ("peer id", lambda c: c.list_peer_sessions("bad id"), "peer_id"),
    ("page", lambda c: c.list_peer_sessions("a", page=0), "page"),
    ("size", lambda c: c.list_scope_sessions("sc", size=101), "size"),
    ("reverse", lambda c: c.list_scopes(reverse="yes"), "reverse"),  # type: ignore[arg-type]
    ("target", lambda c: c.get_peer_representation("a", target="b/c"), "target"),
    ("top k", lambda c: c.get_peer_representation("a", search_top_k=0), "search_top_k"),
    ("top k high", lambda c: c.get_peer_context("a", search_top_k=101), "search_top_k"),
    (
        "distance",
        lambda c: c.get_peer_representation("a", search_max_distance=1.5),
        "search_max_distance",
    ),
    (
        "distance nan",
        lambda c: c.get_session_context("s", search_max_distance=float("nan")),
        "search_max_distance",
    ),
    (
        "most frequent",
        lambda c: c.get_peer_context("a", include_most_frequent=1),  # type: ignore[arg-type]
        "include_most_frequent",
    ),
    ("max conclusions", lambda c: c.get_peer_context("a", max_conclusions=0), "max_conclusions"),
    ("search query", lambda c: c.get_peer_context("a", search_query="q" * 10_001), "search_query"),
    ("sessions str", lambda c: c.get_peer_representation("a", sessions="s1"), "sessions"),  # type: ignore[arg-type]
    (
        "session not in sessions",
        lambda c: c.get_peer_representation("a", session_id="s1", sessions=["s2"]),
        "sessions",
    ),
    (
        "scope with session",
        lambda c: c.get_peer_representation("a", scope="x", session_id="s"),
        "scope",
    ),
    ("scope too long", lambda c: c.get_peer_representation("a", scope=LONG_SCOPE), "scope"),
    ("card str", lambda c: c.set_peer_card("a", "likes tea"), "card"),  # type: ignore[arg-type]
    ("card line", lambda c: c.set_peer_card("a", ["ok", 3]), "card[1]"),  # type: ignore[list-item]
    ("card target", lambda c: c.set_peer_card("a", ["x"], target=""), "target"),
    ("tokens", lambda c: c.get_session_context("s", tokens=0), "tokens"),
    ("tokens bool", lambda c: c.get_session_context("s", tokens=True), "tokens"),
    ("summary", lambda c: c.get_session_context("s", summary=None), "summary"),  # type: ignore[arg-type]
    (
        "perspective alone",
        lambda c: c.get_session_context("s", peer_perspective="b"),
        "peer_target",
    ),
    (
        "perspective and scope",
        lambda c: c.get_session_context("s", peer_target="a", peer_perspective="b", scope="x"),
        "scope",
    ),
    (
        "limit and sessions",
        lambda c: c.get_session_context(
            "s", peer_target="a", sessions=["s"], limit_to_session=True
        ),
        "limit_to_session",
    ),
    (
        "sessions without this one",
        lambda c: c.get_session_context("s", peer_target="a", sessions=["t"]),
        "sessions",
    ),
    (
        "sessions item",
        lambda c: c.get_session_context("s", peer_target="a", sessions=["s", "a b"]),
        "sessions",
    ),
    ("clone message id", lambda c: c.clone_session("s", message_id="m m"), "message_id"),
    ("add nobody", lambda c: c.add_session_peers("s", {}), "peers"),
    ("add bad key", lambda c: c.add_session_peers("s", {"a b": None}), "peers"),
    ("add bad config", lambda c: c.add_session_peers("s", {"a": {"observe": True}}), "peers"),
    ("set not a map", lambda c: c.set_session_peers("s", ["a"]), "peers"),  # type: ignore[arg-type]
    ("remove str", lambda c: c.remove_session_peers("s", "alice"), "peer_ids"),
    ("remove nobody", lambda c: c.remove_session_peers("s", []), "peer_ids"),
    ("upload text", upload(content="text"), "content"),
    ("upload over cap", upload(content=b"12345", max_bytes=4), "max_bytes"),
    ("upload cap", upload(max_bytes=0), "max_bytes"),
    ("upload name quote", upload(filename='a".txt'), "filename"),
    ("upload name crlf", upload(filename="a\r\n.txt"), "filename"),
    ("upload name empty", upload(filename=""), "filename"),
    ("upload type", upload(content_type="text/plain\r\nX: y"), "content_type"),
    ("upload type bare", upload(content_type="text"), "content_type"),
    ("upload peer", upload(peer_id=""), "peer_id"),
    ("upload session", upload(session_id="s/t"), "session_id"),
    ("upload metadata", upload(metadata=[1]), "metadata"),
    ("upload configuration", upload(configuration="on"), "configuration"),
    ("upload created_at", upload(created_at="yesterday"), "created_at"),
    ("dream type", lambda c: c.schedule_dream("a", dream_type="nap"), "dream_type"),
    ("dream observer", lambda c: c.schedule_dream("a b"), "observer"),
    ("dream rebuild", lambda c: c.schedule_dream("a", rebuild="no"), "rebuild"),  # type: ignore[arg-type]
    ("scope id", lambda c: c.get_or_create_scope("scope.x"), "scope_id"),
    ("scope id long", lambda c: c.get_scope(LONG_SCOPE), "scope_id"),
    ("scope metadata", lambda c: c.get_or_create_scope("x", {"k": float("inf")}), "metadata"),
    ("scope no sessions", lambda c: c.add_scope_sessions("x", []), "session_ids"),
    (
        "scope too many",
        lambda c: c.add_scope_sessions("x", [f"s{i}" for i in range(101)]),
        "session_ids",
    ),
    ("scope session", lambda c: c.remove_scope_session("x", "s s"), "session_id"),
]


@pytest.mark.parametrize(("call", "names"), [(c, n) for _, c, n in BAD], ids=[i for i, _, _ in BAD])
def test_bad_arguments_are_refused_naming_the_parameter(
    client: roncho.Client, call: Callable[[roncho.Client], Any], names: str
) -> None:
    exc = refused(lambda: call(client))
    assert names in str(exc)


def test_an_upload_at_the_cap_goes_out(client: roncho.Client) -> None:
    sent(lambda: upload(content=b"1234", max_bytes=4)(client))


WRITES: dict[str, Callable[[roncho.Client], Any]] = {
    "set_peer_card": lambda c: c.set_peer_card("a", ["x"]),
    "clone_session": lambda c: c.clone_session("s"),
    "add_session_peers": lambda c: c.add_session_peers("s", {"a": None}),
    "set_session_peers": lambda c: c.set_session_peers("s", {}),
    "remove_session_peers": lambda c: c.remove_session_peers("s", ["a"]),
    "upload_file": lambda c: c.upload_file("s", "a", b"x", "a.txt", "text/plain"),
    "schedule_dream": lambda c: c.schedule_dream("a"),
    "get_or_create_scope": lambda c: c.get_or_create_scope("x"),
    "add_scope_sessions": lambda c: c.add_scope_sessions("x", ["s"]),
    "remove_scope_session": lambda c: c.remove_scope_session("x", "s"),
}
READS: dict[str, Callable[[roncho.Client], Any]] = {
    "list_peer_sessions": lambda c: c.list_peer_sessions("a"),
    "get_peer_representation": lambda c: c.get_peer_representation("a"),
    "get_peer_card": lambda c: c.get_peer_card("a"),
    "get_peer_context": lambda c: c.get_peer_context("a"),
    "get_session_context": lambda c: c.get_session_context("s"),
    "get_session_summaries": lambda c: c.get_session_summaries("s"),
    "list_scopes": lambda c: c.list_scopes(),
    "get_scope": lambda c: c.get_scope("x"),
    "list_scope_sessions": lambda c: c.list_scope_sessions("x"),
    "get_scope_status": lambda c: c.get_scope_status("x"),
}


@pytest.mark.parametrize("op", list(WRITES))
def test_read_only_refuses_each_write(op: str) -> None:
    client = roncho.Client("http://127.0.0.1:9", WS, read_only=True)
    exc = refused(lambda: WRITES[op](client), ReadOnlyError)
    assert op in str(exc) and "read-only" in str(exc)
    sent(lambda: WRITES[op](roncho.Client("http://127.0.0.1:9", WS)))


@pytest.mark.parametrize("op", list(READS))
def test_read_only_lets_each_read_out(op: str) -> None:
    sent(lambda: READS[op](roncho.Client("http://127.0.0.1:9", WS, read_only=True)))


def test_every_new_operation_is_a_write_or_a_read() -> None:
    assert set(WRITES) | set(READS) == {
        "list_peer_sessions", "get_peer_representation", "get_peer_card", "set_peer_card",
        "get_peer_context", "get_session_context", "get_session_summaries", "clone_session",
        "add_session_peers", "set_session_peers", "remove_session_peers", "upload_file",
        "schedule_dream", "get_or_create_scope", "list_scopes", "get_scope",
        "add_scope_sessions", "remove_scope_session", "list_scope_sessions", "get_scope_status",
    }  # fmt: skip
    assert not set(WRITES) & set(READS)
