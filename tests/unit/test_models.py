"""Models: decoding realistic Honcho bodies and checking inputs.

Decoding takes only the fields memoryd relies on, ignores the rest, and turns every
missing or mistyped field into a DecodeError naming the operation and the field.
"""

from __future__ import annotations

import copy
import enum
import inspect
import json
import math
import pickle
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

import roncho
from roncho import (
    ChatAnswer,
    ChatChunk,
    Conclusion,
    ConclusionCreate,
    ConfigError,
    DecodeError,
    DeleteAccepted,
    DerivationOutcome,
    DeriverGates,
    Evidence,
    EvidenceConclusion,
    EvidenceMessage,
    Health,
    Message,
    MessageCreate,
    Page,
    Peer,
    QueueStatus,
    Session,
    SessionPeerConfig,
    SessionQueueStatus,
    WebhookEndpoint,
    Workspace,
    parse_timestamp,
)
from roncho._decode import decode_list
from roncho._models import render_batch
from roncho._record import Record
from roncho._request_checks import (
    MAX_CONCLUSION_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_METADATA_DEPTH,
    MAX_METADATA_KEYS,
)

MYPY_TIMEOUT = 120  # seconds; a cold mypy run on a shared machine
WHEN = "2026-11-30T12:00:00.123456Z"
NANO = "V1StGXR8_Z5jdHi6B-myT"  # a 21-character nanoid, as the server makes

WORKSPACE = {"id": "ws1", "metadata": {"team": "a"}, "configuration": {}, "created_at": WHEN}
PEER = {
    "id": "alice",
    "workspace_id": "ws1",
    "created_at": WHEN,
    "metadata": {},
    "configuration": {"observe_me": True},
}
SESSION = {
    "id": "s1",
    "is_active": True,
    "workspace_id": "ws1",
    "metadata": {},
    "configuration": {"reasoning": {"enabled": False}},
    "created_at": WHEN,
}
MESSAGE = {  # no "role": the server sends none
    "id": NANO,
    "content": "I moved to Lisbon last spring.",
    "peer_id": "alice",
    "session_id": "s1",
    "metadata": {"turn": 3},
    "created_at": WHEN,
    "workspace_id": "ws1",
    "token_count": 8,
}
CONCLUSION = {
    "id": "c" * 21,
    "content": "alice lives in Lisbon",
    "observer_id": "alice",
    "observed_id": "alice",
    "session_id": None,
    "level": "explicit",
    "created_at": WHEN,
    "source_ids": None,  # what the observed 3.2.0 server sends
}
QUEUE_EMPTY = {
    "total_work_units": 0,
    "completed_work_units": 0,
    "in_progress_work_units": 0,
    "pending_work_units": 0,
    "sessions": None,
}
QUEUE_BUSY = {
    "total_work_units": 3,
    "completed_work_units": 1,
    "in_progress_work_units": 1,
    "pending_work_units": 1,
    "sessions": {
        NANO: {
            "session_id": NANO,
            "total_work_units": 3,
            "completed_work_units": 1,
            "in_progress_work_units": 1,
            "pending_work_units": 1,
        }
    },
}
EVIDENCE = {
    "conclusions": [{**CONCLUSION, "source_ids": ["d" * 21, "e" * 21], "times_derived": 2}],
    "messages": [{"id": NANO, "session_id": "s1", "peer_id": "alice", "created_at": WHEN}],
    "tool_calls": [{"tool_name": "search_memory", "tool_input": {"query": "home"}}],
    "reasoning_trace_id": None,
}


# -- decoding realistic bodies ------------------------------------------------------------
def test_models_workspace() -> None:
    ws = Workspace.from_json(copy.deepcopy(WORKSPACE), "get_or_create_workspace")
    assert ws == Workspace(
        id="ws1", metadata={"team": "a"}, configuration={}, created_at=WHEN, created=None
    )


def test_models_peer() -> None:
    peer = Peer.from_json(copy.deepcopy(PEER), "get_or_create_peer")
    assert (peer.id, peer.workspace_id, peer.configuration) == (
        "alice",
        "ws1",
        {"observe_me": True},
    )


def test_models_session() -> None:
    session = Session.from_json(copy.deepcopy(SESSION), "get_or_create_session")
    assert session.is_active is True
    assert session.configuration == {"reasoning": {"enabled": False}}
    inactive = Session.from_json({**SESSION, "is_active": False}, "op")
    assert inactive.is_active is False
    assert Session.from_json({"id": "s"}, "op").is_active is True  # absent: active


def test_models_message_without_role() -> None:
    msg = Message.from_json(copy.deepcopy(MESSAGE), "add_messages")
    assert msg == Message(
        id=NANO,
        content="I moved to Lisbon last spring.",
        peer_id="alice",
        session_id="s1",
        created_at=WHEN,
        metadata={"turn": 3},
        workspace_id="ws1",
        token_count=8,
    )
    assert not hasattr(msg, "role")


@pytest.mark.parametrize(
    ("source_ids", "expected"),
    [(None, None), ([], ()), (["a" * 21, "b" * 21], ("a" * 21, "b" * 21))],
)
def test_models_conclusion_source_ids(source_ids: object, expected: object) -> None:
    conclusion = Conclusion.from_json(
        {**CONCLUSION, "source_ids": source_ids}, "create_conclusions"
    )
    assert conclusion.source_ids == expected
    assert conclusion.level == "explicit" and conclusion.session_id is None


def test_models_conclusion_without_source_ids_field() -> None:
    """SRC (3.0.12) sends no source_ids at all."""
    body = {k: v for k, v in CONCLUSION.items() if k != "source_ids"}
    assert Conclusion.from_json(body, "op").source_ids is None


def test_models_page_of_messages() -> None:
    body = {
        "items": [MESSAGE, {**MESSAGE, "id": "x" * 21}],
        "total": 2,
        "page": 1,
        "size": 50,
        "pages": 1,
    }
    page = Page.decode(body, "list_messages", Message.from_json)
    assert [m.id for m in page.items] == [NANO, "x" * 21]
    assert (page.total, page.page, page.size, page.pages) == (2, 1, 50, 1)


def test_models_empty_page() -> None:
    body = {"items": [], "total": 0, "page": 1, "size": 50, "pages": 0}
    page = Page.decode(body, "list_peers", Peer.from_json)
    assert page.items == () and page.pages == 0


def test_models_bare_list() -> None:
    messages = decode_list([MESSAGE], "search", Message.from_json)
    assert messages == (Message.from_json(MESSAGE, "search"),)
    with pytest.raises(DecodeError, match="search: expected a JSON array, got an object"):
        decode_list({"items": [MESSAGE]}, "search", Message.from_json)


def test_models_queue_status_sessions_null() -> None:
    status = QueueStatus.from_json(copy.deepcopy(QUEUE_EMPTY), "queue_status")
    assert status.sessions == {} and status.idle


def test_models_queue_status_internal_session_keys() -> None:
    status = QueueStatus.from_json(copy.deepcopy(QUEUE_BUSY), "queue_status")
    assert not status.idle
    assert list(status.sessions) == [NANO]
    entry = status.sessions[NANO]
    assert (entry.session_id, entry.total_work_units, entry.pending_work_units) == (NANO, 3, 1)
    # session_id absent in an entry: the key stands in for it
    body = copy.deepcopy(QUEUE_BUSY)
    del body["sessions"][NANO]["session_id"]
    assert QueueStatus.from_json(body, "op").sessions[NANO].session_id == NANO


def test_models_queue_status_entry_reads_its_own_session_id() -> None:
    """The entry's session_id is what is read; the key stands in only when it is null or
    absent, and a mistyped one is a DecodeError naming the operation and the entry."""
    body = copy.deepcopy(QUEUE_BUSY)
    body["sessions"][NANO]["session_id"] = "s" * 21
    assert QueueStatus.from_json(body, "op").sessions[NANO].session_id == "s" * 21
    body["sessions"][NANO]["session_id"] = None
    assert QueueStatus.from_json(body, "op").sessions[NANO].session_id == NANO
    body["sessions"][NANO]["session_id"] = ["s1"]
    with pytest.raises(DecodeError) as info:
        QueueStatus.from_json(body, "queue_status")
    assert str(info.value) == (
        f"queue_status: queue status.sessions[{NANO}].session_id should be a string or null, "
        "got an array"
    )


@pytest.mark.parametrize(
    ("pending", "in_progress", "idle"), [(0, 0, True), (1, 0, False), (0, 1, False)]
)
def test_models_queue_status_idle(pending: int, in_progress: int, idle: bool) -> None:
    body = {**QUEUE_EMPTY, "pending_work_units": pending, "in_progress_work_units": in_progress}
    assert QueueStatus.from_json(body, "op").idle is idle


def test_models_chat_answer_without_evidence() -> None:
    assert ChatAnswer.from_json({"content": "She lives in Lisbon."}, "chat") == ChatAnswer(
        content="She lives in Lisbon.", evidence=None
    )
    assert ChatAnswer.from_json({"content": None}, "chat").content is None
    assert ChatAnswer.from_json({"content": "x", "evidence": None}, "chat").evidence is None


def test_models_chat_answer_with_evidence() -> None:
    answer = ChatAnswer.from_json(
        {"content": "Lisbon", "evidence": copy.deepcopy(EVIDENCE)}, "chat"
    )
    evidence = answer.evidence
    assert evidence is not None
    assert evidence.conclusions[0].source_ids == ("d" * 21, "e" * 21)
    assert evidence.messages == (
        EvidenceMessage(id=NANO, session_id="s1", peer_id="alice", created_at=WHEN),
    )
    assert evidence.tool_calls == ({"tool_name": "search_memory", "tool_input": {"query": "home"}},)
    assert evidence.reasoning_trace_id is None


def test_models_evidence_empty_lists_and_nulls() -> None:
    evidence = Evidence.from_json({"conclusions": None, "messages": []}, "chat")
    assert evidence == Evidence()


def test_models_chat_chunks() -> None:
    first = ChatChunk.from_json({"delta": {"content": "Hel"}, "done": False}, "chat_stream")
    assert first == ChatChunk(content="Hel", done=False, evidence=None)
    last = ChatChunk.from_json({"done": True}, "chat_stream")
    assert last == ChatChunk(content="", done=True)
    empty_delta = ChatChunk.from_json({"delta": {}, "done": False}, "chat_stream")
    assert empty_delta.content == ""
    with_evidence = ChatChunk.from_json({"done": True, "evidence": EVIDENCE}, "chat_stream")
    assert with_evidence.evidence is not None and len(with_evidence.evidence.conclusions) == 1


def test_models_health_and_delete_answers() -> None:
    assert Health.from_json({"status": "ok"}, "probe").ok
    assert not Health.from_json({"status": "degraded"}, "probe").ok
    assert DeleteAccepted.from_json({"message": "Session deleted successfully"}, "op").message == (
        "Session deleted successfully"
    )
    assert DeleteAccepted.from_json(None, "op") == DeleteAccepted(message=None)


def test_models_session_peer_config() -> None:
    config = SessionPeerConfig.from_json({"observe_me": None, "observe_others": True}, "op")
    assert config == SessionPeerConfig(observe_me=None, observe_others=True)
    assert config.to_json() == {"observe_me": None, "observe_others": True}
    with pytest.raises(ConfigError):
        SessionPeerConfig(observe_me=1)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["observe_me", "observe_others"])
@pytest.mark.parametrize("bad", [1, 0, "true", "false"])
def test_models_session_peer_config_refuses_what_is_not_a_boolean_naming_the_switch(
    name: str, bad: object
) -> None:
    """1 equals True in Python but would be sent as 1: each switch is True, False or None,
    and the error names the switch that was wrong."""
    with pytest.raises(ConfigError) as info:
        SessionPeerConfig(**{name: bad})
    assert str(info.value) == f"{name} must be True, False or None"
    assert SessionPeerConfig(**{name: False}).to_json()[name] is False


# -- extra fields -------------------------------------------------------------------------
EXTRA = {
    "role": "user",
    "source_message_ids": ["m" * 21],  # 3.3.0's, not read (times_derived is read since 3.2.0)
    "internal_metadata": {"x": 1},
    "kind": "scope",
    "z": [1],
}

DECODERS: list[tuple[str, Callable[[object, str], Any], dict[str, Any]]] = [
    ("workspace", Workspace.from_json, WORKSPACE),
    ("peer", Peer.from_json, PEER),
    ("session", Session.from_json, SESSION),
    ("message", Message.from_json, MESSAGE),
    ("conclusion", Conclusion.from_json, CONCLUSION),
    ("queue status", QueueStatus.from_json, QUEUE_BUSY),
    ("evidence", Evidence.from_json, EVIDENCE),
    ("chat answer", ChatAnswer.from_json, {"content": "x", "evidence": EVIDENCE}),
    ("chat event", ChatChunk.from_json, {"delta": {"content": "x"}, "done": False}),
    ("health", Health.from_json, {"status": "ok"}),
]


@pytest.mark.parametrize(("what", "decode", "body"), DECODERS, ids=[d[0] for d in DECODERS])
def test_models_extra_fields_ignored(
    what: str, decode: Callable[[object, str], Any], body: dict[str, Any]
) -> None:
    assert decode({**copy.deepcopy(body), **EXTRA}, "op") == decode(copy.deepcopy(body), "op")


@pytest.mark.parametrize(("what", "decode", "body"), DECODERS, ids=[d[0] for d in DECODERS])
@pytest.mark.parametrize("bad", [None, [], "text", 1, True])
def test_models_non_object_refused(
    what: str, decode: Callable[[object, str], Any], body: dict[str, Any], bad: object
) -> None:
    with pytest.raises(DecodeError, match=f"^the_op: expected a JSON object for {what}"):
        decode(bad, "the_op")


@pytest.mark.parametrize(("what", "decode", "body"), DECODERS, ids=[d[0] for d in DECODERS])
def test_models_decoded_are_frozen(
    what: str, decode: Callable[[object, str], Any], body: dict[str, Any]
) -> None:
    model = decode(copy.deepcopy(body), "op")
    field = type(model).__slots__[0]
    with pytest.raises(AttributeError):
        setattr(model, field, None)


# -- missing and mistyped fields ----------------------------------------------------------
def _cases() -> list[tuple[str, Callable[[object, str], Any], dict[str, Any], str, object]]:
    """(name, decoder, body, field, bad value); a bad value of MISSING deletes the field."""
    cases = []
    required = {
        "workspace": (Workspace.from_json, WORKSPACE, ["id"]),
        "peer": (Peer.from_json, PEER, ["id"]),
        "session": (Session.from_json, SESSION, ["id"]),
        "message": (
            Message.from_json,
            MESSAGE,
            ["id", "content", "peer_id", "session_id", "created_at"],
        ),
        "conclusion": (
            Conclusion.from_json,
            CONCLUSION,
            ["id", "content", "observer_id", "observed_id"],
        ),
        "queue status": (
            QueueStatus.from_json,
            QUEUE_BUSY,
            [
                "total_work_units",
                "completed_work_units",
                "in_progress_work_units",
                "pending_work_units",
            ],
        ),
        "health": (Health.from_json, {"status": "ok"}, ["status"]),
    }
    for what, (decode, body, fields) in required.items():
        for field in fields:
            for bad in (MISSING, None, 123, ["x"], {"x": 1}, True, 1.5):
                if bad == 123 and field.endswith("work_units"):
                    bad = "123"
                cases.append((what, decode, body, field, bad))
    optional_mistyped = {
        "workspace": (
            Workspace.from_json,
            WORKSPACE,
            {"metadata": [], "configuration": "x", "created_at": 1},
        ),
        "peer": (Peer.from_json, PEER, {"workspace_id": 5, "metadata": "m"}),
        "session": (Session.from_json, SESSION, {"is_active": "yes", "metadata": 1}),
        "message": (
            Message.from_json,
            MESSAGE,
            {"token_count": "8", "metadata": [1], "workspace_id": 1},
        ),
        "conclusion": (
            Conclusion.from_json,
            CONCLUSION,
            {"source_ids": "abc", "session_id": 1, "level": 2, "created_at": []},
        ),
        "queue status": (QueueStatus.from_json, QUEUE_BUSY, {"sessions": []}),
    }
    for what, (decode, body, bad_fields) in optional_mistyped.items():
        for field, bad in bad_fields.items():
            cases.append((what, decode, body, field, bad))
    cases.append(("message", Message.from_json, MESSAGE, "token_count", True))
    cases.append(("conclusion", Conclusion.from_json, CONCLUSION, "source_ids", ["a", 1]))
    return cases


MISSING = object()


@pytest.mark.parametrize(
    ("what", "decode", "body", "field", "bad"),
    _cases(),
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_models_bad_field_is_decode_error_naming_op_and_field(
    what: str, decode: Callable[[object, str], Any], body: dict[str, Any], field: str, bad: object
) -> None:
    data = copy.deepcopy(body)
    if bad is MISSING:
        del data[field]
    else:
        data[field] = bad
    with pytest.raises(DecodeError) as info:
        decode(data, "my_op")
    message = str(info.value)
    assert message.startswith("my_op: ")
    assert f"{what}.{field} should be" in message


def test_models_page_bad_fields() -> None:
    good = {"items": [], "total": 0, "page": 1, "size": 50, "pages": 0}
    for field in good:
        for bad in (MISSING, None, "1", 1.0, {"a": 1}):
            data = dict(good)
            if bad is MISSING:
                del data[field]
            else:
                data[field] = bad
            with pytest.raises(DecodeError, match=f"^list_peers: page.{field} should be"):
                Page.decode(data, "list_peers", Peer.from_json)
    with pytest.raises(
        DecodeError, match="^" + re.escape("list_peers: peer.id should be a string, got nothing")
    ):
        Page.decode({**good, "items": [{"name": "x"}]}, "list_peers", Peer.from_json)


def test_models_nested_bad_fields_name_the_nested_thing() -> None:
    bad_session = copy.deepcopy(QUEUE_BUSY)
    bad_session["sessions"][NANO]["pending_work_units"] = None
    with pytest.raises(DecodeError, match=rf"queue status.sessions\[{NANO}\].pending_work_units"):
        QueueStatus.from_json(bad_session, "queue_status")
    with pytest.raises(DecodeError, match=re.escape("chat: evidence conclusion.content should")):
        Evidence.from_json({"conclusions": [{**CONCLUSION, "content": None}]}, "chat")
    with pytest.raises(DecodeError, match=re.escape("chat: evidence conclusion.observer_id")):
        Evidence.from_json({"conclusions": [{**CONCLUSION, "observer_id": 7}]}, "chat")
    with pytest.raises(DecodeError, match=re.escape("chat: evidence message.id should be")):
        Evidence.from_json({"messages": [{"session_id": "s"}]}, "chat")
    with pytest.raises(
        DecodeError, match=re.escape("chat: evidence.tool_calls should be a list of objects")
    ):
        Evidence.from_json({"tool_calls": ["x"]}, "chat")
    with pytest.raises(DecodeError, match=re.escape("chat: evidence.conclusions should be a list")):
        Evidence.from_json({"conclusions": {"a": 1}}, "chat")
    with pytest.raises(
        DecodeError, match=re.escape("chat_stream: chat event.delta should be an object")
    ):
        ChatChunk.from_json({"done": False}, "chat_stream")
    with pytest.raises(
        DecodeError, match="chat_stream: expected a JSON object for chat event delta"
    ):
        ChatChunk.from_json({"delta": "text", "done": False}, "chat_stream")
    with pytest.raises(
        DecodeError, match=re.escape("chat_stream: chat event delta.content should be")
    ):
        ChatChunk.from_json({"delta": {"content": 1}, "done": False}, "chat_stream")
    with pytest.raises(DecodeError, match=re.escape("chat_stream: chat event.done should be")):
        ChatChunk.from_json({"delta": {"content": "x"}, "done": "no"}, "chat_stream")
    with pytest.raises(DecodeError, match=re.escape("chat: chat answer.content should be")):
        ChatAnswer.from_json({"content": 1}, "chat")
    with pytest.raises(DecodeError) as info:
        DeleteAccepted.from_json({"message": 1}, "delete_session")
    assert str(info.value) == (
        "delete_session: delete answer.message should be a string or null, got int"
    )


SUMMARY = {
    "content": "alice likes tea",
    "message_id": NANO,
    "summary_type": "honcho_chat_summary_short",
    "token_count": 9,
}


@pytest.mark.parametrize(
    ("decode", "body", "expected"),
    [
        (
            roncho.Summary.from_json,
            {**SUMMARY, "content": None},
            "summary.content should be a string, got null",
        ),
        (roncho.Summaries.from_json, {}, "summaries.id should be a string, got nothing"),
        (
            roncho.Summaries.from_json,
            {"id": "s1", "short_summary": {**SUMMARY, "token_count": None}},
            "summary.token_count should be an integer, got null",
        ),
        (
            roncho.SessionContext.from_json,
            {"id": "s1", "messages": None},
            "session context.messages should be an array, got null",
        ),
        (
            roncho.SessionContext.from_json,
            {"id": "s1", "messages": [{**MESSAGE, "content": None}]},
            "message.content should be a string, got null",
        ),
        (
            roncho.SessionContext.from_json,
            {"messages": []},
            "session context.id should be a string, got nothing",
        ),
        (
            roncho.PeerContext.from_json,
            {"peer_id": "alice"},
            "peer context.target_id should be a string, got nothing",
        ),
        (
            roncho.PeerContext.from_json,
            {"peer_id": "alice", "target_id": "bob", "peer_card": ["likes tea", 7]},
            "peer context.peer_card should be a list of strings or null, got an array",
        ),
        (
            ChatChunk.from_json,
            {"done": True, "evidence": {"tool_calls": ["search"]}},
            "evidence.tool_calls should be a list of objects, got an array",
        ),
        (
            ChatAnswer.from_json,
            {"content": "x", "evidence": {"messages": [{"id": None}]}},
            "evidence message.id should be a string, got null",
        ),
        (
            lambda data, op: decode_list(data, op, Message.from_json),
            [MESSAGE, {**MESSAGE, "content": None}],
            "message.content should be a string, got null",
        ),
        (
            lambda data, op: decode_list(data, op, Message.from_json),
            {"items": [MESSAGE]},
            "expected a JSON array, got an object",
        ),
        (
            lambda data, op: Page.decode(data, op, Peer.from_json),
            {"items": {"id": "alice"}, "total": 1, "page": 1, "size": 50, "pages": 1},
            "page.items should be an array, got an object",
        ),
        (
            roncho.Summary.from_json,
            {**SUMMARY, "content": 7},
            "summary.content should be a string, got int",
        ),
        (
            roncho.Summary.from_json,
            {**SUMMARY, "token_count": 9.5},
            "summary.token_count should be an integer, got float",
        ),
        (
            roncho.Summary.from_json,
            {**SUMMARY, "token_count": {"n": 9}},
            "summary.token_count should be an integer, got an object",
        ),
        (
            roncho.Summary.from_json,
            {**SUMMARY, "token_count": True},
            "summary.token_count should be an integer, got a boolean",
        ),
        (roncho.Scope.from_json, {"metadata": {}}, "scope.id should be a string, got nothing"),
        (
            WebhookEndpoint.from_json,
            {"id": "wh1", "url": None},
            "webhook endpoint.url should be a string, got null",
        ),
        (
            SessionPeerConfig.from_json,
            {"observe_me": "yes"},
            "session peer config.observe_me should be true or false or null, got a string",
        ),
    ],
)
def test_models_more_bad_fields_name_the_operation_and_the_field(
    decode: Callable[[object, str], Any], body: object, expected: str
) -> None:
    """Summaries, a session's or a peer's context, a scope, a webhook endpoint, a session
    peer's config: a broken answer is a DecodeError naming the operation and the field,
    nested ones (a summary, a message) too; what came is said as the JSON it was."""
    with pytest.raises(DecodeError) as info:
        decode(body, "the_op")
    assert str(info.value) == f"the_op: {expected}"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ([], "expected a JSON object for scope status, got an array"),
        (
            {"backfill_status": []},
            "scope status.backfill_status should be an object or null, got an array",
        ),
        (
            {"backfill_status": {"s1": "done"}},
            "expected a JSON object for scope status.backfill_status[s1], got a string",
        ),
        (
            {"backfill_status": {"s1": {"state": None}}},
            "scope status.backfill_status[s1].state should be a string, got null",
        ),
        (
            {"backfill_status": {"s1": {"state": "completed", "docs_copied": "3"}}},
            "scope status.backfill_status[s1].docs_copied should be an integer or null, "
            "got a string",
        ),
    ],
)
def test_models_scope_status_bad_fields_name_the_operation_and_the_session(
    body: object, expected: str
) -> None:
    """A broken backfill entry is found by the operation and the member session it is
    about, so the caller knows which session's backfill the server answered wrongly."""
    with pytest.raises(DecodeError) as info:
        roncho.ScopeStatus.from_json(body, "get_scope_status")
    assert str(info.value) == f"get_scope_status: {expected}"


# -- MessageCreate ------------------------------------------------------------------------
def test_message_create_to_json() -> None:
    when = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    body = MessageCreate(
        "alice",
        "hello",
        metadata={"a": [1, {"b": None}]},
        created_at=when,
        configuration={"reasoning": {"enabled": False}},
    ).to_json()
    assert body == {
        "peer_id": "alice",
        "content": "hello",
        "metadata": {"a": [1, {"b": None}]},
        "created_at": "2026-11-30T12:00:00+00:00",
        "configuration": {"reasoning": {"enabled": False}},
    }
    assert MessageCreate("bob", "").to_json() == {"peer_id": "bob", "content": ""}


def test_message_create_content_limit() -> None:
    assert MAX_MESSAGE_CHARS == 25_000
    assert len(MessageCreate("a", "x" * 25_000).to_json()["content"]) == 25_000
    assert MessageCreate("a", "é" * 25_000).to_json()  # characters, not bytes
    with pytest.raises(ConfigError, match="25001 characters"):
        MessageCreate("a", "x" * 25_001).to_json()
    with pytest.raises(ConfigError, match="content must be a string"):
        MessageCreate("a", b"bytes").to_json()  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["\ud800", "ok \udcff", "\udfff\ud800"])
def test_message_and_conclusion_lone_surrogate_refused(text: str) -> None:
    """UTF-8 cannot carry it; refused as ConfigError, not a UnicodeEncodeError at send."""
    with pytest.raises(ConfigError, match="surrogate"):
        MessageCreate("a", text).to_json()
    with pytest.raises(ConfigError, match="surrogate"):
        ConclusionCreate(text, "a", "b").to_json()
    with pytest.raises(ConfigError, match="surrogate"):
        MessageCreate("a", "x", metadata={"k": text}).to_json()
    with pytest.raises(ConfigError, match="surrogate"):
        MessageCreate("a", "x", metadata={text: 1}).to_json()


@pytest.mark.parametrize("peer_id", ["", "a b", "a/b", "x" * 513, None])
def test_message_create_peer_id_checked(peer_id: object) -> None:
    with pytest.raises(ConfigError, match=re.escape("message.peer_id")):
        MessageCreate(peer_id, "x").to_json()  # type: ignore[arg-type]


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


class _Text(str):
    pass


class _Number(float):
    pass


class _Count(enum.IntEnum):
    ONE = 1


def _nested_around(leaf: object, depth: int = MAX_METADATA_DEPTH) -> dict[str, Any]:
    """``depth`` objects, the innermost holding ``leaf``."""
    value: dict[str, Any] = {"leaf": leaf}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


@pytest.mark.parametrize(
    "leaf",
    ["x", "日本", None, True, 7, 1.5, _Text("t"), _Number(2.5), _Count.ONE, [1, "2"], []],
    # Plain ids: mutmut selects tests by node id in a process that has collected them once,
    # and there an id made by repr (one of them `[]`) was "not found".
    ids=[
        "ascii",
        "non-ascii",
        "null",
        "bool",
        "int",
        "float",
        "str-subclass",
        "float-subclass",
        "int-enum",
        "array",
        "empty-array",
    ],
)
def test_a_value_at_the_deepest_level_adds_no_level_of_its_own(leaf: object) -> None:
    """Depth counts objects and arrays, as the server does: a scalar (of a plain kind or a
    subclass) at the fifth level is within the limit, an array there is a sixth level."""
    metadata = _nested_around(leaf)
    if isinstance(leaf, list):
        with pytest.raises(ConfigError, match="nests deeper than 5 levels"):
            MessageCreate("a", "x", metadata=metadata).to_json()
        metadata = _nested_around(leaf, MAX_METADATA_DEPTH - 1)
    assert MessageCreate("a", "x", metadata=metadata).to_json()["metadata"] == metadata


@pytest.mark.parametrize(
    "metadata",
    [
        {},
        {"a": 1, "b": "x", "c": None, "d": True, "e": 1.5, "f": [1, "2"], "g": {"h": []}},
        {f"k{i}": i for i in range(MAX_METADATA_KEYS)},
        _nested(MAX_METADATA_DEPTH),
        {"big": -(2**70), "tiny": 1e-300, "uni": "日本\x00"},
    ],
)
def test_message_create_metadata_accepted(metadata: dict[str, Any]) -> None:
    body = MessageCreate("a", "x", metadata=metadata).to_json()
    assert body["metadata"] == metadata
    json.dumps(body, allow_nan=False)


LONE_SURROGATE = "a string holds a lone surrogate, which UTF-8 cannot carry"


@pytest.mark.parametrize(
    ("metadata", "reason"),
    [
        ([("a", 1)], "must be a dict (a JSON object), not list"),
        ("a=1", "must be a dict (a JSON object), not str"),
        ({"x": math.nan}, "is not JSON-serialisable: NaN and Infinity cannot be sent"),
        ({"x": math.inf}, "is not JSON-serialisable: NaN and Infinity cannot be sent"),
        ({"x": [1, -math.inf]}, "is not JSON-serialisable: NaN and Infinity cannot be sent"),
        ({"x": {"y": math.nan}}, "is not JSON-serialisable: NaN and Infinity cannot be sent"),
        ({1: "a"}, "must use only string keys"),
        ({"a": {2: "b"}}, "must use only string keys"),
        ({"a": [{None: 1}]}, "must use only string keys"),
        ({"a": {1, 2}}, "is not JSON-serialisable: set is not a JSON type"),
        ({"a": b"bytes"}, "is not JSON-serialisable: bytes is not a JSON type"),
        ({"a": object()}, "is not JSON-serialisable: object is not a JSON type"),
        ({"a": datetime(2026, 1, 1)}, "is not JSON-serialisable: datetime is not a JSON type"),
        (
            {f"k{i}": i for i in range(MAX_METADATA_KEYS + 1)},
            "has 101 top-level keys; the server allows 100",
        ),
        (_nested(MAX_METADATA_DEPTH + 1), "nests deeper than 5 levels"),
        ({"a": "\udc80"}, f"is not JSON-serialisable: {LONE_SURROGATE}"),
        ({"\udc80": 1}, f"is not JSON-serialisable: {LONE_SURROGATE}"),
        # Subclasses of str and float are checked as the plain kinds are.
        ({"a": _Text("\udc80")}, f"is not JSON-serialisable: {LONE_SURROGATE}"),
        ({"a": _Number("nan")}, "is not JSON-serialisable: NaN and Infinity cannot be sent"),
        # An object inside an array is a level below the array's.
        (_nested_around([{"x": 1}], MAX_METADATA_DEPTH - 1), "nests deeper than 5 levels"),
    ],
)
def test_message_create_metadata_refused(metadata: object, reason: str) -> None:
    """Each refusal names the field and says what is wrong with it, whole."""
    with pytest.raises(ConfigError) as info:
        MessageCreate("a", "x", metadata=metadata).to_json()  # type: ignore[arg-type]
    assert str(info.value) == f"message.metadata {reason}"


def test_message_create_metadata_self_reference_refused() -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    with pytest.raises(ConfigError):
        MessageCreate("a", "x", metadata=loop).to_json()


@pytest.mark.parametrize(
    ("created_at", "sent"),
    [
        ("2026-11-30T12:00:00Z", "2026-11-30T12:00:00Z"),
        ("2026-11-30T12:00:00.5+02:00", "2026-11-30T12:00:00.5+02:00"),
        ("2026-11-30t12:00:00z", "2026-11-30t12:00:00z"),
        ("2026-11-30 12:00:00-05:30", "2026-11-30 12:00:00-05:30"),
        (datetime(2026, 11, 30, 12, 0, 0, 250000, tzinfo=UTC), "2026-11-30T12:00:00.250000+00:00"),
        (
            datetime(2026, 11, 30, 12, tzinfo=timezone(timedelta(hours=-3))),
            "2026-11-30T12:00:00-03:00",
        ),
    ],
)
def test_message_create_created_at_accepted(created_at: str | datetime, sent: str) -> None:
    assert MessageCreate("a", "x", created_at=created_at).to_json()["created_at"] == sent


@pytest.mark.parametrize(
    "created_at",
    [
        datetime(2026, 11, 30, 12, 0),  # naive
        "2026-11-30T12:00:00",  # no zone
        "2026-11-30",
        "2026-11-30T12:00Z",
        "2026-13-01T00:00:00Z",
        "2026-02-30T00:00:00Z",
        "2026-11-30T24:00:00Z",
        "2026-11-30T23:59:60Z",  # a leap second: Python cannot hold it
        "2026-11-30T12:00:00+24:00",
        "yesterday",
        "",
        1764504000,
        1764504000.0,
    ],
)
def test_message_create_created_at_refused(created_at: object) -> None:
    with pytest.raises(ConfigError, match="created_at"):
        MessageCreate("a", "x", created_at=created_at).to_json()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "configuration",
    [
        {"reasoning": {"enabled": True}},
        {"reasoning": {"enabled": None, "custom_instructions": "x"}},
        {},
    ],
)
def test_message_create_configuration_accepted(configuration: dict[str, Any]) -> None:
    assert MessageCreate("a", "x", configuration=configuration).to_json()["configuration"] == (
        configuration
    )


@pytest.mark.parametrize(
    "configuration",
    [
        {"deriver": {"enabled": False}},
        {"skip_deriver": True},
        {"reasoning": {"enabled": False}, "summary": {}},
        ["reasoning"],
        "reasoning",
        {"reasoning": math.nan},
    ],
)
def test_message_create_configuration_refused(configuration: object) -> None:
    with pytest.raises(ConfigError, match="configuration"):
        MessageCreate("a", "x", configuration=configuration).to_json()  # type: ignore[arg-type]


def test_message_create_where_names_the_batch_position() -> None:
    with pytest.raises(ConfigError, match=r"messages\[7\].peer_id"):
        MessageCreate("bad id", "x").to_json("messages[7]")


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (MessageCreate("bad id", "x"), "messages[7].peer_id must be 1 to 512 characters"),
        (MessageCreate("a", "ok \udcff"), "messages[7].content holds a lone surrogate"),
        (MessageCreate("a", "x", metadata={"k": math.nan}), "messages[7].metadata is not JSON"),
        (MessageCreate("a", "x", metadata=[1]), "messages[7].metadata must be a dict"),  # type: ignore[arg-type]
        (MessageCreate("a", "x", created_at="yesterday"), "messages[7].created_at must be"),
        (
            MessageCreate("a", "x", configuration={"deriver": {}}),
            "messages[7].configuration may hold only 'reasoning'",
        ),
    ],
)
def test_message_create_errors_name_the_field_at_its_batch_position(
    message: MessageCreate, expected: str
) -> None:
    """In a batch of a hundred, the error says which message and which of its fields."""
    with pytest.raises(ConfigError) as info:
        render_batch([MessageCreate("a", "x")] * 7 + [message], MessageCreate, "messages", "op")
    assert str(info.value).startswith(expected)


# -- ConclusionCreate ---------------------------------------------------------------------
def test_conclusion_create_to_json() -> None:
    assert ConclusionCreate("likes tea", "alice", "bob").to_json() == {
        "content": "likes tea",
        "observer_id": "alice",
        "observed_id": "bob",
    }
    assert ConclusionCreate("x", "a", "b", session_id="s1").to_json()["session_id"] == "s1"


@pytest.mark.parametrize("content", ["caf\u00e9 au lait", "\u6bce\u671d\u304a\u8336"])
def test_conclusion_create_with_non_ascii_text_keeps_its_session(content: str) -> None:
    """Text beyond ASCII is checked the long way; its body is the same, session and all."""
    assert ConclusionCreate(content, "alice", "bob", session_id="s1").to_json() == {
        "content": content,
        "observer_id": "alice",
        "observed_id": "bob",
        "session_id": "s1",
    }


def test_content_with_a_lone_surrogate_is_refused_naming_the_field() -> None:
    words = r"^{}\.content holds a lone surrogate, which UTF-8 cannot carry$"
    with pytest.raises(ConfigError, match=words.format("message")):
        MessageCreate("a", "bad \udc80 decode").to_json()
    with pytest.raises(ConfigError, match=words.format("conclusion")):
        ConclusionCreate("bad \udc80 decode", "a", "b").to_json()


def test_conclusion_create_content_limits() -> None:
    assert MAX_CONCLUSION_CHARS == 65_535
    assert ConclusionCreate("x" * 65_535, "a", "b").to_json()
    too_long = r"^conclusion\.content has 65536 characters; the server allows 65535$"
    with pytest.raises(ConfigError, match=too_long):
        ConclusionCreate("x" * 65_536, "a", "b").to_json()
    empty = r"^conclusion\.content must be a non-empty string$"
    with pytest.raises(ConfigError, match=empty):
        ConclusionCreate("", "a", "b").to_json()
    with pytest.raises(ConfigError, match=empty):
        ConclusionCreate(None, "a", "b").to_json()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"observer_id": "a b"}, "observer_id"),
        ({"observed_id": ""}, "observed_id"),
        ({"session_id": "s/1"}, "session_id"),
    ],
)
def test_conclusion_create_ids_checked(kwargs: dict[str, str], field: str) -> None:
    args = {"content": "x", "observer_id": "a", "observed_id": "b", **kwargs}
    with pytest.raises(ConfigError, match=f"conclusion.{field}"):
        ConclusionCreate(**args).to_json()


# -- parse_timestamp ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-30T12:00:00Z", datetime(2026, 11, 30, 12, tzinfo=UTC)),
        ("2026-11-30T12:00:00.123456Z", datetime(2026, 11, 30, 12, 0, 0, 123456, tzinfo=UTC)),
        ("2026-11-30T12:00:00.123456789Z", datetime(2026, 11, 30, 12, 0, 0, 123456, tzinfo=UTC)),
        ("2026-11-30T12:00:00.5Z", datetime(2026, 11, 30, 12, 0, 0, 500000, tzinfo=UTC)),
        ("2026-11-30t12:00:00z", datetime(2026, 11, 30, 12, tzinfo=UTC)),
        ("2026-11-30 12:00:00+00:00", datetime(2026, 11, 30, 12, tzinfo=UTC)),
        (
            "2026-11-30T12:00:00+05:30",
            datetime(2026, 11, 30, 12, tzinfo=timezone(timedelta(hours=5, minutes=30))),
        ),
        (
            "2026-11-30T12:00:00-08:00",
            datetime(2026, 11, 30, 12, tzinfo=timezone(timedelta(hours=-8))),
        ),
    ],
)
def test_parse_timestamp(text: str, expected: datetime) -> None:
    parsed = parse_timestamp(text)
    assert parsed == expected
    assert parsed.utcoffset() == expected.utcoffset()


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-30T12:00:00",
        "2026-11-30",
        "2026-11-30T12:00:00.Z",
        "2026-11-30T12:00:00.1234567890Z",
        "2026-11-30T25:00:00Z",
        "2026-02-29T00:00:00Z",  # 2026 is not a leap year
        "2026-11-30T23:59:60Z",
        " 2026-11-30T12:00:00Z",
        "2026-11-30T12:00:00Z\n",
        "20261130T120000Z",
        "",
        None,
        1764504000,
    ],
)
def test_parse_timestamp_refused(text: object) -> None:
    with pytest.raises(ValueError):
        parse_timestamp(text)  # type: ignore[arg-type]


def test_every_field_a_decoded_model_declares_is_read_from_the_answer() -> None:
    """Each decoder is written out, so a field it forgot to read would quietly keep its
    default: from a body that carries every field, every field comes from the body."""
    bodies: list[tuple[Any, dict[str, Any]]] = [
        (Workspace, WORKSPACE),
        (Peer, PEER),
        (Session, {**SESSION, "is_active": False}),
        (Message, MESSAGE),
        (
            Conclusion,
            {**CONCLUSION, "session_id": "s1", "source_ids": ["d" * 21], "times_derived": 2},
        ),
        (EvidenceMessage, EVIDENCE["messages"][0]),
        (Health, {"status": "ok"}),
        (QueueStatus, {**QUEUE_BUSY, "sessions": {}}),
        (DeleteAccepted, {"message": "accepted"}),
        (ChatAnswer, {"content": "x"}),
        (SessionPeerConfig, {"observe_me": True, "observe_others": False}),
    ]
    for cls, body in bodies:
        model = cls.from_json(copy.deepcopy(body), "op")
        for name in cls.__slots__:
            if name in ("created", "evidence"):  # given by the caller; decoded apart
                continue
            sent = body[name]
            assert getattr(model, name) == (tuple(sent) if isinstance(sent, list) else sent), (
                cls.__name__,
                name,
            )
    entry = QueueStatus.from_json(QUEUE_BUSY, "op").sessions[NANO]
    for name in entry.__slots__:
        assert getattr(entry, name) == QUEUE_BUSY["sessions"][NANO][name]


def test_message_create_takes_its_fields_in_order() -> None:
    parameters = list(inspect.signature(MessageCreate.__init__).parameters.values())[1:]
    for p in parameters:
        assert p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert [p.default for p in parameters[2:]] == [None, None, None]
    assert parameters[0].default is parameters[1].default is inspect.Parameter.empty
    full = MessageCreate("alice", "hi", {"k": 1}, "2026-12-01T00:00:00Z", {"reasoning": {}})
    assert [getattr(full, name) for name in MessageCreate.__slots__] == [
        "alice", "hi", {"k": 1}, "2026-12-01T00:00:00Z", {"reasoning": {}},
    ]  # fmt: skip
    smallest = Message.from_json(
        {"id": "m", "content": "c", "peer_id": "p", "session_id": "s", "created_at": "t"}, "op"
    )
    assert [getattr(smallest, name) for name in Message.__slots__] == [
        "m", "c", "p", "s", "t", {}, None, None,
    ]  # fmt: skip


# -- every model is a plain frozen record ----------------------------------------------------
SAMPLES: list[Any] = [
    Workspace(id="w", metadata={"k": 1}, created=True),
    Peer(id="alice", workspace_id="w"),
    Session(id="s", is_active=False),
    SessionPeerConfig(observe_me=True),
    Message.from_json(MESSAGE, "op"),
    Conclusion.from_json(CONCLUSION, "op"),
    Page(items=(Peer(id="a"),), total=1, page=1, size=50, pages=1),
    EvidenceMessage(id=NANO),
    EvidenceConclusion(id=NANO, content="alice likes tea"),
    Evidence.from_json(EVIDENCE, "op"),
    ChatAnswer(content="x"),
    ChatChunk(content="x", done=True),
    QueueStatus.from_json(QUEUE_BUSY, "op"),
    SessionQueueStatus(
        session_id="s",
        total_work_units=1,
        completed_work_units=0,
        in_progress_work_units=0,
        pending_work_units=1,
    ),
    Health(status="ok"),
    DeleteAccepted(message="accepted"),
    MessageCreate("alice", "hello", metadata={"k": [1]}),
    ConclusionCreate("likes tea", "alice", "bob", session_id="s1"),
    WebhookEndpoint.from_json(
        {"id": NANO, "url": "http://localhost:9/h", "workspace_id": "w"}, "op", True
    ),
    roncho.Summary(content="x", message_id=NANO, summary_type="short", token_count=1),
    roncho.Summaries(id="s"),
    roncho.SessionContext(id="s", messages=(Message.from_json(MESSAGE, "op"),), peer_card=("a",)),
    roncho.PeerContext(peer_id="a", target_id="b", representation="r"),
    roncho.Scope(id="sc", metadata={"k": 1}, created=False),
    roncho.ScopeBackfill(session_id="s", state="completed", docs_copied=2),
    roncho.ScopeStatus(backfill={}),
    DeriverGates(batch_max_age=30.0),
    DerivationOutcome(
        state="batching",
        session_id="s",
        new_work_units=1,
        pending=1,
        in_progress=0,
        completed=0,
        workspace_in_progress=0,
        first_seen=0.25,
        elapsed=3.0,
        reads=13,
        gates=DeriverGates(batch_max_age=30.0),
    ),
    roncho.CallReport(
        op="add_messages",
        method="POST",
        path="/v3/workspaces/{workspace_id}/sessions/{session_id}/messages",
        status=None,
        seconds=0.5,
        bytes_sent=310,
        bytes_received=0,
        request_sent=True,
        error=roncho.ReadTimeout,
    ),
]


MODELS = [type(sample) for sample in SAMPLES]


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_models_init_takes_exactly_its_fields_and_sets_every_one(cls: type[Any]) -> None:
    """Each record's __init__ is written out: it must take exactly its fields (its
    __slots__), in order, and set every one (an unset slot would raise when read)."""
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [p.name for p in parameters] == list(cls.__slots__)
    sample = next(s for s in SAMPLES if type(s) is cls)
    for name in cls.__slots__:
        getattr(sample, name)


def test_models_samples_cover_every_public_model() -> None:
    import roncho

    public = {
        name
        for name in roncho.__all__
        if isinstance(getattr(roncho, name), type) and issubclass(getattr(roncho, name), Record)
    }
    assert {type(s).__name__ for s in SAMPLES} == public


@pytest.mark.parametrize("model", SAMPLES, ids=lambda m: type(m).__name__)
def test_models_are_frozen_records(model: Any) -> None:
    cls = type(model)
    assert issubclass(cls, Record)
    names = list(cls.__slots__)
    values = [getattr(model, name) for name in names]
    assert (
        repr(model)
        == f"{cls.__name__}({', '.join(f'{n}={v!r}' for n, v in zip(names, values, strict=True))})"
    )
    with pytest.raises(AttributeError, match=f"cannot assign to field '{names[0]}'"):
        setattr(model, names[0], None)
    with pytest.raises(AttributeError, match=f"cannot delete field '{names[0]}'"):
        delattr(model, names[0])
    assert not hasattr(model, "__dict__")
    assert getattr(model, names[0]) == values[0]


@pytest.mark.parametrize("model", SAMPLES, ids=lambda m: type(m).__name__)
def test_models_compare_copy_and_pickle_by_their_fields(model: Any) -> None:
    cls = type(model)
    same = model.replace()
    assert same == model and same is not model and type(same) is cls
    assert model != object() and model != tuple(getattr(model, n) for n in cls.__slots__)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        clone = pickle.loads(pickle.dumps(model, protocol))
        assert clone == model and type(clone) is cls
    assert copy.deepcopy(model) == model and copy.copy(model) == model


class _PickledByAnotherVersion:
    """Pickles as a record of ``cls`` made by a roncho whose record had other fields."""

    def __init__(self, record: Record, values: tuple[Any, ...]) -> None:
        self.rebuild = record.__reduce__()[0]
        self.cls = type(record)
        self.values = values

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.rebuild, (self.cls, self.values))


@pytest.mark.parametrize("change", ["one value short", "one value more"])
def test_models_a_pickle_whose_values_do_not_match_the_fields_is_refused(change: str) -> None:
    """A pickle from a roncho whose record had fewer or more fields is refused when read,
    never read into a record with a field unset (an AttributeError later, far from the
    cause) or a value silently dropped."""
    summary = roncho.Summary(content="c", message_id=NANO, summary_type="short", token_count=3)
    values = tuple(getattr(summary, name) for name in type(summary).__slots__)
    values = values[:-1] if change == "one value short" else (*values, "extra")
    data = pickle.dumps(_PickledByAnotherVersion(summary, values))
    with pytest.raises(ValueError, match="zip"):
        pickle.loads(data)
    assert pickle.loads(pickle.dumps(summary)) == summary


def test_models_hash_by_fields_and_a_dict_field_makes_them_unhashable() -> None:
    a = ConclusionCreate("x", "alice", "bob")
    assert hash(a) == hash(ConclusionCreate("x", "alice", "bob"))
    assert len({a, ConclusionCreate("x", "alice", "bob"), ConclusionCreate("y", "a", "b")}) == 2
    assert a != ConclusionCreate("x", "alice", "carol")
    with pytest.raises(TypeError, match="unhashable"):
        hash(Message.from_json(MESSAGE, "op"))  # metadata is a dict


def test_models_replace_checks_again() -> None:
    config = SessionPeerConfig(observe_me=True)
    assert config.replace(observe_others=False) == SessionPeerConfig(
        observe_me=True, observe_others=False
    )
    with pytest.raises(ConfigError):
        config.replace(observe_me=1)
    with pytest.raises(TypeError, match="content"):
        MessageCreate("a", "b").replace(contents="c")
    created = MessageCreate("a", "b").replace(content="c", created_at=WHEN)
    assert created == MessageCreate("a", "c", created_at=WHEN)


def test_models_default_factory_gives_each_its_own_dict() -> None:
    one, two = Workspace(id="w"), Workspace(id="w")
    assert one.metadata == {} and one.metadata is not two.metadata


def test_models_signature_and_match_args() -> None:
    assert str(inspect.signature(EvidenceMessage)) == (
        "(*, id: 'str', session_id: 'str | None' = None, peer_id: 'str | None' = None, "
        "created_at: 'str | None' = None) -> 'None'"
    )
    assert ConclusionCreate.__match_args__ == (
        "content",
        "observer_id",
        "observed_id",
        "session_id",
    )
    assert Message.__match_args__ == ()
    match ConclusionCreate("x", "alice", "bob"):
        case ConclusionCreate(content, observer):
            assert (content, observer) == ("x", "alice")
        case _:
            pytest.fail("a model did not match its own positional pattern")


def test_models_generic_page_builds_through_its_alias() -> None:
    assert Page[int](items=(1,), total=1, page=1, size=1, pages=1) == Page(
        items=(1,), total=1, page=1, size=1, pages=1
    )


_TYPED_USE = textwrap.dedent(
    """
    from roncho import Message, MessageCreate, Page, Workspace

    workspace = Workspace(id="w")
    reveal_type(workspace.metadata)
    reveal_type(Page(items=(workspace,), total=1, page=1, size=1, pages=1))
    MessageCreate("peer", "hello", metadata={"k": 1})
    workspace.id = "x"
    Workspace("w")
    Message(id="m")
    MessageCreate(peer_id=1, content="c")
    """
)


def test_models_look_like_frozen_dataclasses_to_mypy(tmp_path: Any) -> None:
    """Typed fields, the constructor's parameters (keyword-only where declared), and
    assignment refused, as a type checker sees them."""
    pytest.importorskip("mypy")
    snippet = tmp_path / "use.py"
    snippet.write_text(_TYPED_USE)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / "cache"),
            str(snippet),
        ],
        capture_output=True,
        text=True,
        timeout=MYPY_TIMEOUT,
    )
    text = out.stdout.replace("builtins.", "")  # older mypy spells dict as builtins.dict
    lines = [line.split(": ", 1)[1] for line in text.splitlines() if ": " in line]
    assert lines[:2] == [
        'note: Revealed type is "dict[str, Any]"',
        'note: Revealed type is "roncho._models.entities.Page[roncho._models.entities.Workspace]"',
    ]
    errors = "\n".join(lines[2:])
    assert 'Property "id" defined in "Workspace" is read-only' in errors
    assert 'Too many positional arguments for "Workspace"' in errors
    assert 'Missing named argument "content" for "Message"' in errors
    assert 'Argument "peer_id" to "MessageCreate" has incompatible type "int"' in errors
    assert "use.py:7" not in out.stdout  # positional MessageCreate is fine


def test_message_decoded_is_still_frozen() -> None:
    message = Message.from_json(
        {
            "id": "m",
            "content": "c",
            "peer_id": "p",
            "session_id": "s",
            "created_at": "2026-11-30T00:00:00Z",
            "metadata": None,
        },
        "op",
    )
    assert message.metadata == {} and message.token_count is None
    with pytest.raises(AttributeError):
        message.content = "changed"  # type: ignore[misc]


def test_message_decoder_sets_every_field() -> None:
    """It fills a blank slot by slot, so a field it forgot would raise AttributeError when
    read: every field must be set, also from the smallest body."""
    body = {"id": "m", "content": "c", "peer_id": "p", "session_id": "s", "created_at": "t"}
    message = Message.from_json(body, "op")
    assert [getattr(message, name) for name in Message.__slots__] == [
        "m", "c", "p", "s", "t", {}, None, None,
    ]  # fmt: skip
