"""Each argument check of each operation names the parameter it refused first in its
message, as the caller wrote it (``conclusion_id must be ...``), so the caller knows which
argument to fix without reading roncho's source; and a refusal of a value or of a
combination of arguments says, word for word, what is allowed.

One case per check and per operation: each operation's checks are its own lines of code,
so a check that names the wrong parameter in one operation is not caught by the same check
in another. (tests/unit/test_wrong_types.py walks every parameter's type from the
signatures; the cases here are written out, and give values of the right type that the
check refuses: an id with a space, a number out of range.) Nothing is sent:
test_client_args's guard fails any connection.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_client_args import WS, no_network, refused  # noqa: F401  (no_network: autouse)
from test_client_args_beyond import LONG_SCOPE, upload

import roncho
from roncho import MessageCreate

BAD = "a b"  # an id with a space: the right type, refused by the id rule
Case = tuple[str, Callable[[roncho.Client], Any], str]


CASES: list[Case] = [
    # workspaces
    (
        "update_workspace configuration",
        lambda c: c.update_workspace(configuration=[]),
        "configuration",
    ),
    ("list_workspaces reverse", lambda c: c.list_workspaces(reverse=1), "reverse"),
    ("schedule_dream observer", lambda c: c.schedule_dream(BAD), "observer"),
    ("schedule_dream observed", lambda c: c.schedule_dream("a", observed=BAD), "observed"),
    ("schedule_dream session_id", lambda c: c.schedule_dream("a", session_id=BAD), "session_id"),
    ("schedule_dream rebuild", lambda c: c.schedule_dream("a", rebuild=1), "rebuild"),
    # peers
    ("get_or_create_peer peer_id", lambda c: c.get_or_create_peer(BAD), "peer_id"),
    (
        "get_or_create_peer configuration",
        lambda c: c.get_or_create_peer("a", configuration=[]),
        "configuration",
    ),
    ("update_peer peer_id", lambda c: c.update_peer(BAD), "peer_id"),
    ("update_peer configuration", lambda c: c.update_peer("a", configuration=[]), "configuration"),
    ("list_peers reverse", lambda c: c.list_peers(reverse=1), "reverse"),
    ("list_peer_sessions peer_id", lambda c: c.list_peer_sessions(BAD), "peer_id"),
    ("get_peer_representation peer_id", lambda c: c.get_peer_representation(BAD), "peer_id"),
    (
        "get_peer_representation target",
        lambda c: c.get_peer_representation("a", target=BAD),
        "target",
    ),
    (
        "get_peer_representation session_id",
        lambda c: c.get_peer_representation("a", session_id=BAD),
        "session_id",
    ),
    (
        "get_peer_representation sessions",
        lambda c: c.get_peer_representation("a", sessions=[BAD]),
        "sessions item",
    ),
    (
        "get_peer_representation scope",
        lambda c: c.get_peer_representation("a", scope=BAD),
        "scope",
    ),
    (
        "get_peer_representation scope too long",
        lambda c: c.get_peer_representation("a", scope=LONG_SCOPE),
        "scope",
    ),
    (
        "get_peer_representation search_query",
        lambda c: c.get_peer_representation("a", search_query="q" * 10_001),
        "search_query",
    ),
    (
        "get_peer_representation search_top_k",
        lambda c: c.get_peer_representation("a", search_top_k=101),
        "search_top_k",
    ),
    (
        "get_peer_representation search_max_distance",
        lambda c: c.get_peer_representation("a", search_max_distance=1.5),
        "search_max_distance",
    ),
    (
        "get_peer_representation include_most_frequent",
        lambda c: c.get_peer_representation("a", include_most_frequent=1),
        "include_most_frequent",
    ),
    (
        "get_peer_representation max_conclusions",
        lambda c: c.get_peer_representation("a", max_conclusions=0),
        "max_conclusions",
    ),
    (
        "get_peer_context max_conclusions over 100",
        lambda c: c.get_peer_context("a", max_conclusions=101),
        "max_conclusions",
    ),
    ("get_peer_card peer_id", lambda c: c.get_peer_card(BAD), "peer_id"),
    ("set_peer_card peer_id", lambda c: c.set_peer_card(BAD, ["x"]), "peer_id"),
    ("set_peer_card line", lambda c: c.set_peer_card("a", ["ok", 3]), "card[1]"),
    ("get_peer_context peer_id", lambda c: c.get_peer_context(BAD), "peer_id"),
    # sessions
    ("get_or_create_session session_id", lambda c: c.get_or_create_session(BAD), "session_id"),
    (
        "get_or_create_session peers key",
        lambda c: c.get_or_create_session("s", peers={BAD: None}),
        "peers key",
    ),
    (
        "get_or_create_session configuration",
        lambda c: c.get_or_create_session("s", configuration=[]),
        "configuration",
    ),
    ("update_session session_id", lambda c: c.update_session(BAD), "session_id"),
    ("list_sessions reverse", lambda c: c.list_sessions(reverse=1), "reverse"),
    ("list_session_peers session_id", lambda c: c.list_session_peers(BAD), "session_id"),
    (
        "get_session_peer_config session_id",
        lambda c: c.get_session_peer_config(BAD, "a"),
        "session_id",
    ),
    ("get_session_peer_config peer_id", lambda c: c.get_session_peer_config("s", BAD), "peer_id"),
    ("delete_session session_id", lambda c: c.delete_session(BAD), "session_id"),
    ("get_session_context session_id", lambda c: c.get_session_context(BAD), "session_id"),
    ("get_session_context tokens", lambda c: c.get_session_context("s", tokens=0), "tokens"),
    ("get_session_context summary", lambda c: c.get_session_context("s", summary=1), "summary"),
    (
        "get_session_context scope",
        lambda c: c.get_session_context("s", peer_target="a", scope=BAD),
        "scope",
    ),
    (
        "get_session_context limit_to_session",
        lambda c: c.get_session_context("s", limit_to_session=1),
        "limit_to_session",
    ),
    (
        "get_session_context sessions",
        lambda c: c.get_session_context("s", peer_target="a", sessions=["s", BAD]),
        "sessions item",
    ),
    ("get_session_summaries session_id", lambda c: c.get_session_summaries(BAD), "session_id"),
    ("clone_session session_id", lambda c: c.clone_session(BAD), "session_id"),
    ("add_session_peers session_id", lambda c: c.add_session_peers(BAD, {"a": None}), "session_id"),
    ("add_session_peers peers key", lambda c: c.add_session_peers("s", {BAD: None}), "peers key"),
    (
        "remove_session_peers peer_ids",
        lambda c: c.remove_session_peers("s", [BAD]),
        "peer_ids item",
    ),
    # scopes
    ("get_or_create_scope scope_id", lambda c: c.get_or_create_scope(BAD), "scope_id"),
    ("list_scopes reverse", lambda c: c.list_scopes(reverse=1), "reverse"),
    ("get_scope scope_id", lambda c: c.get_scope(BAD), "scope_id"),
    ("get_scope scope_id too long", lambda c: c.get_scope(LONG_SCOPE), "scope_id"),
    ("add_scope_sessions scope_id", lambda c: c.add_scope_sessions(BAD, ["s"]), "scope_id"),
    (
        "add_scope_sessions session_ids",
        lambda c: c.add_scope_sessions("x", [BAD]),
        "session_ids item",
    ),
    ("remove_scope_session scope_id", lambda c: c.remove_scope_session(BAD, "s"), "scope_id"),
    (
        "remove_scope_session session_id",
        lambda c: c.remove_scope_session("x", BAD),
        "session_id",
    ),
    ("list_scope_sessions scope_id", lambda c: c.list_scope_sessions(BAD), "scope_id"),
    ("list_scope_sessions reverse", lambda c: c.list_scope_sessions("x", reverse=1), "reverse"),
    ("get_scope_status scope_id", lambda c: c.get_scope_status(BAD), "scope_id"),
    # messages
    (
        "add_messages session_id",
        lambda c: c.add_messages(BAD, [MessageCreate("a", "x")]),
        "session_id",
    ),
    ("list_messages session_id", lambda c: c.list_messages(BAD), "session_id"),
    ("list_messages reverse", lambda c: c.list_messages("s", reverse=1), "reverse"),
    ("get_message session_id", lambda c: c.get_message(BAD, "m"), "session_id"),
    ("get_message message_id", lambda c: c.get_message("s", BAD), "message_id"),
    (
        "update_message_metadata session_id",
        lambda c: c.update_message_metadata(BAD, "m", {}),
        "session_id",
    ),
    (
        "update_message_metadata message_id",
        lambda c: c.update_message_metadata("s", BAD, {}),
        "message_id",
    ),
    ("upload_file session_id", upload(session_id=BAD), "session_id"),
    ("upload_file peer_id", upload(peer_id=BAD), "peer_id"),
    ("upload_file max_bytes", upload(max_bytes=0), "max_bytes"),
    ("upload_file filename", upload(filename="a" * 256), "filename"),
    ("upload_file configuration", upload(configuration=[]), "configuration"),
    ("upload_file created_at", upload(created_at="yesterday"), "created_at"),
    # conclusions
    ("list_conclusions reverse", lambda c: c.list_conclusions(reverse=1), "reverse"),
    ("query_conclusions query", lambda c: c.query_conclusions(3, "a", "b"), "query"),
    ("query_conclusions observer_id", lambda c: c.query_conclusions("q", BAD, "b"), "observer_id"),
    ("query_conclusions observed_id", lambda c: c.query_conclusions("q", "a", BAD), "observed_id"),
    ("query_conclusions top_k", lambda c: c.query_conclusions("q", "a", "b", top_k=0), "top_k"),
    (
        "query_conclusions distance",
        lambda c: c.query_conclusions("q", "a", "b", distance=2.0),
        "distance",
    ),
    (
        "query_conclusions filters",
        lambda c: c.query_conclusions("q", "a", "b", filters=[]),
        "filters",
    ),
    ("get_conclusion conclusion_id", lambda c: c.get_conclusion(BAD), "conclusion_id"),
    ("delete_conclusion conclusion_id", lambda c: c.delete_conclusion(BAD), "conclusion_id"),
    # search
    ("search query", lambda c: c.search(3), "query"),
    ("search limit", lambda c: c.search("q", limit=101), "limit"),
    ("search filters", lambda c: c.search("q", filters=[]), "filters"),
    ("search_peer peer_id", lambda c: c.search_peer(BAD, "q"), "peer_id"),
    ("search_session session_id", lambda c: c.search_session(BAD, "q"), "session_id"),
    # chat
    ("chat peer_id", lambda c: c.chat(BAD, "q"), "peer_id"),
    ("chat query", lambda c: c.chat("a", ""), "query"),
    ("chat target", lambda c: c.chat("a", "q", target=BAD), "target"),
    ("chat session_id", lambda c: c.chat("a", "q", session_id=BAD), "session_id"),
    ("chat include_evidence", lambda c: c.chat("a", "q", include_evidence=1), "include_evidence"),
    ("chat response_format", lambda c: c.chat("a", "q", response_format=[]), "response_format"),
    ("chat filters", lambda c: c.chat("a", "q", filters=[]), "filters"),
    ("chat_stream peer_id", lambda c: c.chat_stream(BAD, "q"), "peer_id"),
    (
        "chat_workspace session_id",
        lambda c: c.chat_workspace("q", session_id=BAD),
        "session_id",
    ),
    # webhooks
    ("delete_webhook endpoint_id", lambda c: c.delete_webhook(BAD), "endpoint_id"),
    # server
    (
        "create_key expires_at",
        lambda c: c.create_key(workspace_id="w", expires_at="tomorrow"),
        "expires_at",
    ),
]


@pytest.mark.parametrize(
    ("call", "name"), [(c, n) for _, c, n in CASES], ids=[i for i, _, _ in CASES]
)
def test_a_refused_argument_is_named_first(call: Callable[[roncho.Client], Any], name: str) -> None:
    exc = refused(lambda: call(roncho.Client("http://127.0.0.1:9", WS)))
    assert str(exc).startswith(f"{name} "), str(exc)


# Refusals of a value or a combination: the whole text, which says what to give instead.
TEXTS: list[tuple[str, Callable[[roncho.Client], Any], str]] = [
    (
        "add_messages none",
        lambda c: c.add_messages("s", []),
        "add_messages takes 1 to 100 messages, got 0",
    ),
    (
        "add_messages not a record",
        lambda c: c.add_messages("s", [3]),
        "messages[0] must be a MessageCreate",
    ),
    (
        "add_messages a str",
        lambda c: c.add_messages("s", "hi"),
        "messages must be a list of MessageCreate, not str",
    ),
    (
        "get_or_create_session peers a list",
        lambda c: c.get_or_create_session("s", peers=["a"]),
        "peers must map peer ids to SessionPeerConfig (or None)",
    ),
    (
        "get_or_create_session peer config a number",
        lambda c: c.get_or_create_session("s", peers={"a": 3}),
        "peers['a'] must be a SessionPeerConfig or a dict",
    ),
    (
        "get_or_create_session peer config unknown key",
        lambda c: c.get_or_create_session("s", peers={"a": {"observe": True}}),
        "peers['a'] has unknown keys ['observe']",
    ),
    (
        "get_or_create_workspace configuration",
        lambda c: c.get_or_create_workspace(configuration=[]),
        "configuration must be a dict",
    ),
    ("list_messages filters", lambda c: c.list_messages("s", filters=[]), "filters must be a dict"),
    (
        "create_conclusions none",
        lambda c: c.create_conclusions([]),
        "create_conclusions takes 1 to 100 conclusions, got 0",
    ),
    (
        "create_conclusions not a record",
        lambda c: c.create_conclusions([3]),
        "conclusions[0] must be a ConclusionCreate",
    ),
    (
        "create_conclusions a str",
        lambda c: c.create_conclusions("likes tea"),
        "conclusions must be a list of ConclusionCreate, not str",
    ),
    (
        "create_key with no id",
        lambda c: c.create_key(expires_at="2026-01-01T00:00:00Z"),
        "create_key needs workspace_id, peer_id or session_id",
    ),
    (
        "add_scope_sessions 101",
        lambda c: c.add_scope_sessions("x", [f"s{i}" for i in range(101)]),
        "session_ids must name 1 to 100 sessions",
    ),
    (
        "query_conclusions query too long",
        lambda c: c.query_conclusions("q" * 1_000_001, "a", "b"),
        "query has 1000001 characters; the server allows 1000000",
    ),
    (
        "add_session_peers nobody",
        lambda c: c.add_session_peers("s", {}),
        "peers must name at least one peer",
    ),
    (
        "set_session_peers not a map",
        lambda c: c.set_session_peers("s", ["a"]),
        "peers must map peer ids to SessionPeerConfig (or None)",
    ),
    (
        "set_session_peers None",
        lambda c: c.set_session_peers("s", None),
        "peers must map peer ids to SessionPeerConfig (or None)",
    ),
    (
        "remove_session_peers nobody",
        lambda c: c.remove_session_peers("s", []),
        "peer_ids must name at least one peer",
    ),
    (
        "remove_session_peers a str",
        lambda c: c.remove_session_peers("s", "alice"),
        "peer_ids must be a list of ids, not str",
    ),
    (
        "set_session_peer_config no flag",
        lambda c: c.set_session_peer_config("s", "a"),
        "set_session_peer_config needs observe_me or observe_others",
    ),
    (
        "set_peer_card a str",
        lambda c: c.set_peer_card("a", "likes tea"),
        "card must be a list of strings (one a line), not a str",
    ),
    (
        "upload_file text",
        upload(content="text"),
        "content must be bytes: read the file in binary mode",
    ),
    (
        "upload_file media type",
        upload(content_type="text"),
        "content_type must be a media type such as 'text/plain; charset=utf-8'",
    ),
    (
        "get_peer_representation sessions without session_id",
        lambda c: c.get_peer_representation("a", session_id="s", sessions=["t"]),
        "sessions must include session_id when both are given",
    ),
    (
        "get_peer_representation sessions a str",
        lambda c: c.get_peer_representation("a", sessions="s"),
        "sessions must be a list of ids, not str",
    ),
    (
        "get_peer_representation scope with session_id",
        lambda c: c.get_peer_representation("a", session_id="s", scope="x"),
        "scope cannot be given with session_id or sessions",
    ),
    (
        "get_session_context scope without peer_target",
        lambda c: c.get_session_context("s", scope="x"),
        "peer_perspective, scope and sessions need peer_target",
    ),
    (
        "get_session_context perspective and scope",
        lambda c: c.get_session_context("s", peer_target="a", peer_perspective="b", scope="x"),
        "peer_perspective and scope cannot be given together",
    ),
    (
        "get_session_context limit_to_session and scope",
        lambda c: c.get_session_context("s", peer_target="a", limit_to_session=True, scope="x"),
        "limit_to_session cannot be given with sessions or scope",
    ),
    (
        "get_session_context sessions and scope",
        lambda c: c.get_session_context("s", peer_target="a", sessions=["s"], scope="x"),
        "sessions and scope cannot be given together",
    ),
    (
        "get_session_context sessions without this one",
        lambda c: c.get_session_context("s", peer_target="a", sessions=["t"]),
        "sessions must include session_id",
    ),
    (
        "get_session_context sessions a str",
        lambda c: c.get_session_context("s", peer_target="a", sessions="s"),
        "sessions must be a list of ids, not str",
    ),
    (
        "chat filters beyond session_id",
        lambda c: c.chat("a", "q", filters={"x": 1}),
        "chat filters may hold only 'session_id' (the server refuses ['x'])",
    ),
]


@pytest.mark.parametrize(
    ("call", "text"), [(c, t) for _, c, t in TEXTS], ids=[i for i, _, _ in TEXTS]
)
def test_a_refusal_says_what_is_allowed(call: Callable[[roncho.Client], Any], text: str) -> None:
    exc = refused(lambda: call(roncho.Client("http://127.0.0.1:9", WS)))
    assert str(exc) == text
