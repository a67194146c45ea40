"""Arguments the server would refuse (or that could escape their path segment) are refused
by the client with ConfigError before anything is sent.

No socket is opened here: the client's connect() is replaced by one that fails the test
with ``Sent`` if it is ever built. The same replacement shows that the values on the right
side of each boundary (100 keys, depth 5, 25000 characters, 100 items) do get sent.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

import roncho
from roncho import (
    ConclusionCreate,
    ConfigError,
    MessageCreate,
    ReadOnlyError,
    SessionPeerConfig,
)

WS = "w1"
GOOD = "ok_id-1"


class Sent(BaseException):
    """Raised where the client would open a connection (BaseException: nothing catches it)."""


class NoConnection:
    built = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        NoConnection.built += 1
        raise Sent


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    import roncho._client

    NoConnection.built = 0
    monkeypatch.setattr(roncho._client, "connect", NoConnection)


@pytest.fixture
def client() -> roncho.Client:
    # Port 9 on loopback: even if the guard above failed, nothing would reach a server.
    return roncho.Client("http://127.0.0.1:9", WS)


def refused(call: Callable[[], Any], error: type[Exception] = ConfigError) -> ConfigError:
    with pytest.raises(error) as info:
        call()
    assert NoConnection.built == 0
    exc = info.value
    assert isinstance(exc, ConfigError)
    assert exc.request_sent is False
    return exc


def sent(call: Callable[[], Any]) -> None:
    with pytest.raises(Sent):
        call()
    assert NoConnection.built == 1


# -- ids ------------------------------------------------------------------------------------
BAD_IDS = [
    "x/search",
    "x%2Fsearch",
    "..",
    ".",
    "",
    "a" * 513,
    "café",
    "\uff58",  # fullwidth x
    "\u0661",  # Arabic-Indic digit one (str.isdigit() is true)
    "a\r\nb",
    "a\n",
    "a b",
    "a\x00",
    "a?b",
    "a#b",
    "*",
]
BAD_ID_NAMES = [
    "slash",
    "pct2F",
    "dotdot",
    "dot",
    "empty",
    "513",
    "accent",
    "fullwidth",
    "arabic-digit",
    "crlf",
    "trailing-lf",
    "space",
    "nul",
    "query",
    "fragment",
    "star",
]

# Each slot an id can take; ``bad`` is put in that one slot, the rest are valid.
ID_SLOTS: dict[str, Callable[[roncho.Client, Any], Any]] = {
    "get_or_create_peer": lambda c, bad: c.get_or_create_peer(bad),
    "update_peer": lambda c, bad: c.update_peer(bad, metadata={}),
    "get_or_create_session": lambda c, bad: c.get_or_create_session(bad),
    "get_or_create_session.peers": lambda c, bad: c.get_or_create_session(GOOD, peers={bad: None}),
    "update_session": lambda c, bad: c.update_session(bad),
    "list_session_peers": lambda c, bad: c.list_session_peers(bad),
    "iter_session_peers": lambda c, bad: next(c.iter_session_peers(bad)),
    "iter_peer_sessions": lambda c, bad: next(c.iter_peer_sessions(bad)),
    "get_session_peer_config.session": lambda c, bad: c.get_session_peer_config(bad, GOOD),
    "get_session_peer_config.peer": lambda c, bad: c.get_session_peer_config(GOOD, bad),
    "set_session_peer_config.session": lambda c, bad: c.set_session_peer_config(
        bad, GOOD, observe_me=True
    ),
    "set_session_peer_config.peer": lambda c, bad: c.set_session_peer_config(
        GOOD, bad, observe_me=True
    ),
    "delete_session": lambda c, bad: c.delete_session(bad),
    "add_messages.session": lambda c, bad: c.add_messages(bad, [MessageCreate(GOOD, "x")]),
    "add_messages.peer_id": lambda c, bad: c.add_messages(GOOD, [MessageCreate(bad, "x")]),
    "list_messages": lambda c, bad: c.list_messages(bad),
    "iter_messages": lambda c, bad: next(c.iter_messages(bad)),
    "get_message.session": lambda c, bad: c.get_message(bad, GOOD),
    "get_message.message": lambda c, bad: c.get_message(GOOD, bad),
    "update_message_metadata.session": lambda c, bad: c.update_message_metadata(bad, GOOD, {}),
    "update_message_metadata.message": lambda c, bad: c.update_message_metadata(GOOD, bad, {}),
    "create_conclusions.observer": lambda c, bad: c.create_conclusions(
        [ConclusionCreate("x", bad, GOOD)]
    ),
    "create_conclusions.observed": lambda c, bad: c.create_conclusions(
        [ConclusionCreate("x", GOOD, bad)]
    ),
    "create_conclusions.session": lambda c, bad: c.create_conclusions(
        [ConclusionCreate("x", GOOD, GOOD, session_id=bad)]
    ),
    "query_conclusions.observer": lambda c, bad: c.query_conclusions("q", bad, GOOD),
    "query_conclusions.observed": lambda c, bad: c.query_conclusions("q", GOOD, bad),
    "delete_conclusion": lambda c, bad: c.delete_conclusion(bad),
    "search_peer": lambda c, bad: c.search_peer(bad, "q"),
    "search_session": lambda c, bad: c.search_session(bad, "q"),
    "chat.peer": lambda c, bad: c.chat(bad, "q"),
    "chat.target": lambda c, bad: c.chat(GOOD, "q", target=bad),
    "chat.session": lambda c, bad: c.chat(GOOD, "q", session_id=bad),
    "chat_stream.peer": lambda c, bad: c.chat_stream(bad, "q"),
    "chat_workspace.session": lambda c, bad: c.chat_workspace("q", session_id=bad),
    "chat_workspace_stream.session": lambda c, bad: c.chat_workspace_stream("q", session_id=bad),
    "queue_status.observer": lambda c, bad: c.queue_status(observer_id=bad),
    "queue_status.sender": lambda c, bad: c.queue_status(sender_id=bad),
    "queue_status.session": lambda c, bad: c.queue_status(session_id=bad),
    "create_key.workspace": lambda c, bad: c.create_key(workspace_id=bad),
    "create_key.peer": lambda c, bad: c.create_key(workspace_id=GOOD, peer_id=bad),
    "create_key.session": lambda c, bad: c.create_key(workspace_id=GOOD, session_id=bad),
    "with_workspace": lambda c, bad: c.with_workspace(bad),
    "Client": lambda c, bad: roncho.Client("http://127.0.0.1:9", bad),
}


@pytest.mark.parametrize("bad", BAD_IDS, ids=BAD_ID_NAMES)
@pytest.mark.parametrize("slot", list(ID_SLOTS))
def test_bad_id_is_refused_before_sending(client: roncho.Client, slot: str, bad: str) -> None:
    exc = refused(lambda: ID_SLOTS[slot](client, bad))
    assert "A-Z, a-z, 0-9" in str(exc)
    if bad:
        # The refusal quotes a bounded, escaped piece of the id, never raw control bytes.
        assert "\r" not in str(exc) and "\n" not in str(exc) and len(str(exc)) < 300


@pytest.mark.parametrize("slot", list(ID_SLOTS))
def test_good_ids_in_every_slot_are_sent(client: roncho.Client, slot: str) -> None:
    """The guard is the id rule, no stricter: 512 characters of the whole alphabet pass."""
    longest = ("Az09_-" * 86)[:512]
    if slot == "Client":
        assert roncho.Client("http://127.0.0.1:9", longest).workspace == longest
        return
    if slot == "with_workspace":
        assert client.with_workspace(longest).workspace == longest
        return
    sent(lambda: ID_SLOTS[slot](client, longest))


def test_non_string_ids_are_refused(client: roncho.Client) -> None:
    for bad in (None, 1, b"abc", ["a"]):
        refused(lambda bad=bad: client.get_or_create_peer(bad))
        refused(lambda bad=bad: client.delete_session(bad))


# -- batches --------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 101])
def test_message_batch_outside_1_to_100_is_refused(client: roncho.Client, n: int) -> None:
    exc = refused(lambda: client.add_messages("s1", [MessageCreate("a", "x")] * n))
    assert f"got {n}" in str(exc)


@pytest.mark.parametrize("n", [0, 101])
def test_conclusion_batch_outside_1_to_100_is_refused(client: roncho.Client, n: int) -> None:
    exc = refused(lambda: client.create_conclusions([ConclusionCreate("x", "a", "b")] * n))
    assert f"got {n}" in str(exc)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (
            lambda c: c.add_messages("s1", MessageCreate("a", "x")),
            "messages must be a list of MessageCreate, not a single one: pass [message]",
        ),
        (
            lambda c: c.create_conclusions(ConclusionCreate("x", "a", "b")),
            "conclusions must be a list of ConclusionCreate, not a single one: pass [conclusion]",
        ),
        (
            lambda c: c.add_messages("s1", "hello"),
            "messages must be a list of MessageCreate, not str",
        ),
        (
            lambda c: c.add_messages("s1", b"hi"),
            "messages must be a list of MessageCreate, not bytes",
        ),
        (
            lambda c: c.add_messages("s1", bytearray(b"hi")),
            "messages must be a list of MessageCreate, not bytearray",
        ),
        (
            lambda c: c.add_messages("s1", {"peer_id": "a", "content": "x"}),
            "messages must be a list of MessageCreate, not dict",
        ),
        (lambda c: c.add_messages("s1", 7), "messages must be a list of MessageCreate, not int"),
        (
            lambda c: c.create_conclusions({"content": "x"}),
            "conclusions must be a list of ConclusionCreate, not dict",
        ),
        (
            lambda c: c.add_messages("s1", [MessageCreate("a", "x"), ("a", "y")]),
            "messages[1] must be a MessageCreate",
        ),
        (
            lambda c: c.add_messages("s1", []),
            "add_messages takes 1 to 100 messages, got 0",
        ),
    ],
)
def test_a_batch_that_is_not_a_list_is_refused_saying_what_to_pass(
    client: roncho.Client, call: Callable[[roncho.Client], Any], words: str
) -> None:
    """Text, bytes and a dict are iterable but are not a batch; one record on its own (the
    commonest slip) gets the fix (wrap it in a list); anything else names the type it got,
    the position of the wrong item, or the size the batch must have."""
    assert str(refused(lambda: call(client))) == words


def test_batches_of_1_and_100_are_sent(client: roncho.Client) -> None:
    sent(lambda: client.add_messages("s1", [MessageCreate("a", "x")] * 100))
    NoConnection.built = 0
    sent(lambda: client.create_conclusions(iter([ConclusionCreate("x", "a", "b")])))


def test_message_over_25000_characters_is_refused(client: roncho.Client) -> None:
    exc = refused(
        lambda: client.add_messages(
            "s1", [MessageCreate("a", "ok"), MessageCreate("b", "é" * 25_001)]
        )
    )
    assert "messages[1].content" in str(exc) and "25000" in str(exc)
    NoConnection.built = 0
    # Characters, not bytes: 25000 two-byte characters is allowed; empty content too.
    sent(
        lambda: client.add_messages(
            "s1", [MessageCreate("a", "é" * 25_000), MessageCreate("a", "")]
        )
    )


def test_batch_items_of_the_wrong_type_are_refused(client: roncho.Client) -> None:
    refused(lambda: client.add_messages("s1", [{"peer_id": "a", "content": "x"}]))  # type: ignore[list-item]
    refused(lambda: client.add_messages("s1", "hello"))  # type: ignore[arg-type]
    refused(lambda: client.create_conclusions([("x", "a", "b")]))  # type: ignore[list-item]
    refused(lambda: client.create_conclusions([ConclusionCreate("", "a", "b")]))
    refused(lambda: client.create_conclusions([ConclusionCreate("x" * 65_536, "a", "b")]))


def test_message_details_are_checked(client: roncho.Client) -> None:
    refused(lambda: client.add_messages("s1", [MessageCreate("a", 5)]))  # type: ignore[arg-type]
    refused(
        lambda: client.add_messages("s1", [MessageCreate("a", "x", created_at="2026-11-30 noon")])
    )
    refused(
        lambda: client.add_messages(
            "s1", [MessageCreate("a", "x", created_at="2026-11-30T12:00:00")]
        )
    )
    refused(
        lambda: client.add_messages(
            "s1", [MessageCreate("a", "x", configuration={"reasoning": {}, "deriver": {}})]
        )
    )


# -- metadata -------------------------------------------------------------------------------
def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


BAD_METADATA = {
    "list": [1, 2],
    "string": "x",
    "nan": {"x": math.nan},
    "inf": {"x": [math.inf]},
    "101-keys": {f"k{i}": i for i in range(101)},
    "depth-6": _nested(6),
    "int-key": {1: "x"},
    "object": {"x": object()},
}

METADATA_SLOTS: dict[str, Callable[[roncho.Client, Any], Any]] = {
    "get_or_create_workspace": lambda c, m: c.get_or_create_workspace(metadata=m),
    "update_workspace": lambda c, m: c.update_workspace(metadata=m),
    "get_or_create_peer": lambda c, m: c.get_or_create_peer("a", metadata=m),
    "update_peer": lambda c, m: c.update_peer("a", metadata=m),
    "get_or_create_session": lambda c, m: c.get_or_create_session("s", metadata=m),
    "update_session": lambda c, m: c.update_session("s", metadata=m),
    "update_message_metadata": lambda c, m: c.update_message_metadata("s", "m", m),
    "add_messages": lambda c, m: c.add_messages("s", [MessageCreate("a", "x", metadata=m)]),
}


@pytest.mark.parametrize("bad", list(BAD_METADATA))
@pytest.mark.parametrize("slot", list(METADATA_SLOTS))
def test_bad_metadata_is_refused(client: roncho.Client, slot: str, bad: str) -> None:
    exc = refused(lambda: METADATA_SLOTS[slot](client, BAD_METADATA[bad]))
    # The refusal starts with the field's name as the caller wrote it.
    field = "messages[0].metadata" if slot == "add_messages" else "metadata"
    assert str(exc).startswith(f"{field} ")


@pytest.mark.parametrize("slot", list(METADATA_SLOTS))
def test_metadata_at_the_limits_is_sent(client: roncho.Client, slot: str) -> None:
    sent(lambda: METADATA_SLOTS[slot](client, {**_nested(5), **{f"k{i}": i for i in range(99)}}))


def test_update_message_metadata_requires_a_dict(client: roncho.Client) -> None:
    refused(lambda: client.update_message_metadata("s", "m", None))  # type: ignore[arg-type]


def test_configuration_must_be_json_objects(client: roncho.Client) -> None:
    refused(lambda: client.get_or_create_workspace(configuration=["x"]))  # type: ignore[arg-type]
    refused(lambda: client.update_peer("a", configuration={"x": math.nan}))
    refused(lambda: client.update_session("s", configuration={"x": {1, 2}}))


# -- chat, search, paging -------------------------------------------------------------------
@pytest.mark.parametrize(
    "filters",
    [
        {"peer_id": "a"},
        {"session_id": "s1", "metadata": {"x": 1}},
        {"metadata": {"label": "keep"}},
        {"AND": [{"session_id": "s1"}]},
    ],
)
@pytest.mark.parametrize("method", ["chat", "chat_stream"])
def test_chat_filters_hold_only_session_id(
    client: roncho.Client, filters: dict[str, Any], method: str
) -> None:
    exc = refused(lambda: getattr(client, method)("a", "q", filters=filters))
    assert "session_id" in str(exc)


def test_chat_filters_with_session_id_are_sent(client: roncho.Client) -> None:
    sent(lambda: client.chat("a", "q", filters={"session_id": {"in": ["s1", "s2"]}}))


@pytest.mark.parametrize("level", ["LOW", "extreme", "", "none", 1, True])
@pytest.mark.parametrize(
    "method", ["chat", "chat_stream", "chat_workspace", "chat_workspace_stream"]
)
def test_bad_reasoning_level_is_refused(client: roncho.Client, level: Any, method: str) -> None:
    args = ("q",) if method.startswith("chat_workspace") else ("a", "q")
    exc = refused(lambda: getattr(client, method)(*args, reasoning_level=level))
    assert "minimal, low, medium, high, max" in str(exc)


@pytest.mark.parametrize("level", ["minimal", "low", "medium", "high", "max"])
def test_every_reasoning_level_is_sent(client: roncho.Client, level: str) -> None:
    sent(lambda: client.chat("a", "q", reasoning_level=level))


def test_chat_query_bounds(client: roncho.Client) -> None:
    refused(lambda: client.chat("a", ""))
    refused(lambda: client.chat("a", "q" * 10_001))
    refused(lambda: client.chat_workspace(""))
    refused(lambda: client.chat("a", "q", include_evidence="yes"))  # type: ignore[arg-type]
    refused(lambda: client.chat("a", "q", response_format=["x"]))  # type: ignore[arg-type]
    sent(lambda: client.chat("a", "q" * 10_000))


def test_search_and_query_bounds(client: roncho.Client) -> None:
    for limit in (0, 101, True, 1.5):
        refused(lambda limit=limit: client.search("q", limit=limit))
        refused(lambda limit=limit: client.search_peer("a", "q", limit=limit))
    refused(lambda: client.search(None))  # type: ignore[arg-type]
    refused(lambda: client.search("q", filters=["x"]))  # type: ignore[arg-type]
    for top_k in (0, 101):
        refused(lambda top_k=top_k: client.query_conclusions("q", "a", "b", top_k=top_k))
    for distance in (-0.1, 1.1, math.nan, math.inf):
        refused(lambda d=distance: client.query_conclusions("q", "a", "b", distance=d))
    refused(lambda: client.query_conclusions("", "a", "b"))


PAGED: dict[str, Callable[..., Any]] = {
    "list_workspaces": lambda c, **kw: c.list_workspaces(**kw),
    "list_peers": lambda c, **kw: c.list_peers(**kw),
    "list_sessions": lambda c, **kw: c.list_sessions(**kw),
    "list_session_peers": lambda c, **kw: c.list_session_peers("s", **kw),
    "list_messages": lambda c, **kw: c.list_messages("s", **kw),
    "iter_messages": lambda c, **kw: next(c.iter_messages("s", **kw)),
    "list_conclusions": lambda c, **kw: c.list_conclusions(**kw),
    "list_peer_sessions": lambda c, **kw: c.list_peer_sessions("p", **kw),
    "list_scopes": lambda c, **kw: c.list_scopes(**kw),
    "list_scope_sessions": lambda c, **kw: c.list_scope_sessions("sc", **kw),
    "list_webhooks": lambda c, **kw: c.list_webhooks(**kw),
    "iter_workspaces": lambda c, **kw: next(c.iter_workspaces(**kw)),
    "iter_peers": lambda c, **kw: next(c.iter_peers(**kw)),
    "iter_peer_sessions": lambda c, **kw: next(c.iter_peer_sessions("p", **kw)),
    "iter_sessions": lambda c, **kw: next(c.iter_sessions(**kw)),
    "iter_session_peers": lambda c, **kw: next(c.iter_session_peers("s", **kw)),
    "iter_scopes": lambda c, **kw: next(c.iter_scopes(**kw)),
    "iter_scope_sessions": lambda c, **kw: next(c.iter_scope_sessions("sc", **kw)),
    "iter_conclusions": lambda c, **kw: next(c.iter_conclusions(**kw)),
    "iter_webhooks": lambda c, **kw: next(c.iter_webhooks(**kw)),
}


BAD_PAGING = {
    "size101": {"size": 101},
    "size0": {"size": 0},
    "page0": {"page": 0},
    "page-1": {"page": -1},
    "size-str": {"size": "10"},
    "page-float": {"page": 1.0},
}


@pytest.mark.parametrize(
    ("op", "paging"),
    [
        (op, name)
        for op in PAGED
        for name, paging in BAD_PAGING.items()
        if not (op.startswith("iter_") and "page" in paging)  # a walk has no page argument
    ],
)
def test_bad_paging_is_refused(client: roncho.Client, op: str, paging: str) -> None:
    refused(lambda: PAGED[op](client, **BAD_PAGING[paging]))


def test_reverse_must_be_a_bool(client: roncho.Client) -> None:
    refused(lambda: client.list_messages("s", reverse="yes"))  # type: ignore[arg-type]
    refused(lambda: client.list_peers(reverse=1))  # type: ignore[arg-type]


def test_create_key_needs_a_scope(client: roncho.Client) -> None:
    refused(lambda: client.create_key())
    refused(lambda: client.create_key(expires_at="2026-12-01T00:00:00Z"))
    refused(lambda: client.create_key(workspace_id="w", expires_at="tomorrow"))


def test_session_peer_map_is_checked(client: roncho.Client) -> None:
    refused(lambda: client.get_or_create_session("s", peers=["a"]))  # type: ignore[arg-type]
    refused(lambda: client.get_or_create_session("s", peers={"a": {"observe": True}}))
    refused(lambda: client.get_or_create_session("s", peers={"a": {"observe_me": "yes"}}))
    refused(lambda: client.get_or_create_session("s", peers={"a": True}))  # type: ignore[dict-item]
    refused(lambda: client.set_session_peer_config("s", "a", observe_me="no"))  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        SessionPeerConfig(observe_others=1)  # type: ignore[arg-type]


def test_set_session_peer_config_needs_a_flag(client: roncho.Client) -> None:
    """All-None would set nothing, yet the server would add the peer to the session."""
    exc = refused(lambda: client.set_session_peer_config("s", "a"))
    assert "observe_me or observe_others" in str(exc)
    sent(lambda: client.set_session_peer_config("s", "a", observe_me=False))


def test_deadline_is_checked_before_sending(client: roncho.Client) -> None:
    for deadline in (0, -1, math.nan, math.inf, "5", True):
        refused(lambda d=deadline: client.probe(deadline=d))
    sent(lambda: client.probe(deadline=0.5))


# -- read-only ------------------------------------------------------------------------------
WRITES: dict[str, Callable[[roncho.Client], Any]] = {
    "get_or_create_workspace": lambda c: c.get_or_create_workspace(),
    "update_workspace": lambda c: c.update_workspace(metadata={}),
    "delete_workspace": lambda c: c.delete_workspace(),
    "get_or_create_peer": lambda c: c.get_or_create_peer("a"),
    "update_peer": lambda c: c.update_peer("a", metadata={}),
    "get_or_create_session": lambda c: c.get_or_create_session("s"),
    "update_session": lambda c: c.update_session("s", metadata={}),
    "set_session_peer_config": lambda c: c.set_session_peer_config("s", "a", observe_me=False),
    "delete_session": lambda c: c.delete_session("s"),
    "add_messages": lambda c: c.add_messages("s", [MessageCreate("a", "x")]),
    "update_message_metadata": lambda c: c.update_message_metadata("s", "m", {}),
    "create_conclusions": lambda c: c.create_conclusions([ConclusionCreate("x", "a", "b")]),
    "delete_conclusion": lambda c: c.delete_conclusion("c"),
    "create_key": lambda c: c.create_key(workspace_id="w"),
    "get_or_create_webhook": lambda c: c.get_or_create_webhook("http://localhost:9/hook"),
    "delete_webhook": lambda c: c.delete_webhook("e"),
    "trigger_webhook_test": lambda c: c.trigger_webhook_test(),
}


@pytest.mark.parametrize("op", list(WRITES))
def test_read_only_refuses_every_write(op: str) -> None:
    client = roncho.Client("http://127.0.0.1:9", WS, read_only=True)
    exc = refused(lambda: WRITES[op](client), ReadOnlyError)
    assert op in str(exc) and "read-only" in str(exc)
    # The same call on a writable client does go out.
    sent(lambda: WRITES[op](roncho.Client("http://127.0.0.1:9", WS)))


@pytest.mark.parametrize("op", list(WRITES))
def test_read_only_propagates_to_copies(op: str) -> None:
    client = roncho.Client("http://127.0.0.1:9", WS, api_key="k", read_only=True)
    refused(lambda: WRITES[op](client.with_workspace("w2")), ReadOnlyError)
    refused(lambda: WRITES[op](client.with_options(read_timeout=1)), ReadOnlyError)
    sent(lambda: WRITES[op](client.with_workspace(WS, read_only=False)))


def test_read_only_error_is_a_config_error() -> None:
    assert issubclass(ReadOnlyError, ConfigError) and issubclass(ReadOnlyError, ValueError)
