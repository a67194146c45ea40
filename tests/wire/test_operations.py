"""Every Client operation on the wire: the exact request it sends and how it decodes a
realistic answer (the shapes the observed Honcho 3.2.0 server gives, where they differ
from OpenAPI: 201/200 get-or-create, bare arrays, ``source_ids: null``, no ``role``, 202
deletes with a JSON body, a 204 with a JSON content type and an empty body).

Each case runs twice, without a key (no Authorization header at all) and with one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from rawserver import RawServer, Request, reply, response_bytes, send_raw

import roncho
from roncho import (
    ChatAnswer,
    Conclusion,
    ConclusionCreate,
    DeleteAccepted,
    EvidenceConclusion,
    Message,
    MessageCreate,
    Page,
    Peer,
    QueueStatus,
    Session,
    SessionPeerConfig,
    StatusError,
    WebhookEndpoint,
    Workspace,
)

WS = "w1"
KEY = "eyJhbGciOiJIUzI1NiJ9.eyJ3IjoidzEifQ.c2ln-_"
READ_TIMEOUT = 5.0  # seconds; every answer here is immediate
TS = "2026-11-30T12:00:00.123456Z"
MID = "Zq3cU5nX1bA7yQ0vL2kHd"  # server-made ids are 21-character nanoids
MID2 = "Pq3cU5nX1bA7yQ0vL2kHe"
CID = "c8Xw2LmQ0pR5tY7uI9oPa"
CID2 = "c8Xw2LmQ0pR5tY7uI9oPb"

WORKSPACE = {"id": WS, "metadata": {"k": "v"}, "configuration": {}, "created_at": TS}
PEER = {
    "id": "alice",
    "workspace_id": WS,
    "created_at": TS,
    "metadata": {},
    "configuration": {"observe_me": False},
}
SESSION = {
    "id": "s1",
    "is_active": True,
    "workspace_id": WS,
    "metadata": {"topic": "tea"},
    "configuration": {},
    "created_at": TS,
}
# The observed server's message: no ``role``, a token count, the workspace id.
MESSAGE = {
    "id": MID,
    "content": "I like green tea",
    "peer_id": "alice",
    "session_id": "s1",
    "metadata": {"turn": 1},
    "created_at": TS,
    "workspace_id": WS,
    "token_count": 5,
}
MESSAGE2 = {**MESSAGE, "id": MID2, "content": "so do I", "peer_id": "bob", "metadata": {}}
# The observed 3.2.0 conclusion: ``source_ids`` present and null.
CONCLUSION = {
    "id": CID,
    "content": "alice likes green tea",
    "observer_id": "alice",
    "observed_id": "alice",
    "session_id": None,
    "level": "explicit",
    "created_at": TS,
    "source_ids": None,
}
CONCLUSION2 = {**CONCLUSION, "id": CID2, "observed_id": "bob", "session_id": "s1"}
EVIDENCE = {
    "conclusions": [{**CONCLUSION, "source_ids": []}],
    "messages": [{"id": MID, "session_id": "s1", "peer_id": "alice", "created_at": TS}],
    "tool_calls": [{"tool_name": "search_memory", "tool_input": {"query": "tea"}}],
    "reasoning_trace_id": None,
}


def page(items: list[Any], *, total: int | None = None, p: int = 1, size: int = 50) -> dict:
    total = len(items) if total is None else total
    return {"items": items, "total": total, "page": p, "size": size, "pages": -(-total // size)}


def expected_head(
    method: str,
    target: str,
    port: int,
    body: object = None,
    *,
    key: str | None = None,
    accept: str = "application/json",
    empty_body: bool = False,
) -> bytes:
    """The exact head roncho must send. A JSON body's length does not depend on key
    order, so Content-Length is exact even though the body is compared as JSON."""
    lines = [f"{method} {target} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
    if key is not None:
        lines.append(f"Authorization: Bearer {key}")
    lines += [f"Accept: {accept}", f"User-Agent: roncho/{roncho.__version__}"]
    if body is not None:
        payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        lines += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
    elif empty_body:
        lines.append("Content-Length: 0")
    lines.append("Connection: close")
    return "\r\n".join(lines).encode()


def run(
    handler: Callable[..., None], call: Callable[[roncho.Client], Any], *, key: str | None = None
) -> tuple[Any, Request, RawServer]:
    with RawServer([handler]) as server:
        client = roncho.Client(server.url, WS, api_key=key, read_timeout=READ_TIMEOUT)
        result = call(client)
    assert server.connections == 1
    assert not server.errors
    return result, server.requests[0], server


@dataclass(frozen=True)
class Case:
    name: str
    call: Callable[[roncho.Client], Any]
    answer: bytes
    method: str
    target: str
    body: object
    check: Callable[[Any], None]
    accept: str = "application/json"
    empty_body: bool = False


def _ok(status: int, body: object, **kw: Any) -> bytes:
    return response_bytes(status, body, reason="OK", **kw)


def _check_workspace_created(w: Workspace) -> None:
    assert w == Workspace(id=WS, metadata={"k": "v"}, configuration={}, created_at=TS, created=True)


def _check_peer(p: Peer, created: bool | None) -> None:
    assert p == Peer(
        id="alice",
        workspace_id=WS,
        metadata={},
        configuration={"observe_me": False},
        created_at=TS,
        created=created,
    )


def _check_session(s: Session, created: bool | None) -> None:
    assert s == Session(
        id="s1",
        is_active=True,
        workspace_id=WS,
        metadata={"topic": "tea"},
        configuration={},
        created_at=TS,
        created=created,
    )


def _message(data: dict[str, Any]) -> Message:
    return Message(
        id=data["id"],
        content=data["content"],
        peer_id=data["peer_id"],
        session_id=data["session_id"],
        created_at=data["created_at"],
        metadata=data["metadata"],
        workspace_id=data["workspace_id"],
        token_count=data["token_count"],
    )


def _conclusion(data: dict[str, Any]) -> Conclusion:
    ids = data["source_ids"]
    return Conclusion(
        id=data["id"],
        content=data["content"],
        observer_id=data["observer_id"],
        observed_id=data["observed_id"],
        session_id=data["session_id"],
        level=data["level"],
        created_at=data["created_at"],
        source_ids=None if ids is None else tuple(ids),
    )


def _check_page(result: Page[Any], items: tuple[Any, ...], total: int, p: int, size: int) -> None:
    assert isinstance(result, Page)
    assert result.items == items
    assert (result.total, result.page, result.size) == (total, p, size)


def _check_evidence(answer: ChatAnswer) -> None:
    assert answer.content == "She likes green tea."
    assert answer.evidence is not None
    # Its own record (3.2.0 may leave out the peers; 3.2.1 sends them): all fields as sent.
    assert answer.evidence.conclusions == (
        EvidenceConclusion(
            id=CID,
            content=CONCLUSION["content"],
            observer_id="alice",
            observed_id="alice",
            level="explicit",
            created_at=TS,
            source_ids=(),
        ),
    )
    assert answer.evidence.messages[0].id == MID
    assert answer.evidence.messages[0].peer_id == "alice"
    assert answer.evidence.tool_calls == (
        {"tool_name": "search_memory", "tool_input": {"query": "tea"}},
    )
    assert answer.evidence.reasoning_trace_id is None


# 3.0.12's webhook endpoint: the workspace under ``workspace_id``, no metadata.
HID = "tafH48lWq1FcDJxUGxPj9"
WEBHOOK = {"id": HID, "workspace_id": WS, "url": "http://localhost:8765/hook", "created_at": TS}


def _webhook_fields() -> dict[str, Any]:
    return {"id": HID, "workspace_id": WS, "url": "http://localhost:8765/hook", "created_at": TS}


RESPONSE_FORMAT = {"type": "object", "properties": {"likes": {"type": "string"}}}
W = f"/v3/workspaces/{WS}"

CASES = [
    Case(
        "get_or_create_workspace",
        lambda c: c.get_or_create_workspace(
            metadata={"k": "v"}, configuration={"reasoning": {"enabled": False}}
        ),
        _ok(201, WORKSPACE),
        "POST",
        "/v3/workspaces",
        {"id": WS, "metadata": {"k": "v"}, "configuration": {"reasoning": {"enabled": False}}},
        _check_workspace_created,
    ),
    Case(
        "update_workspace",
        lambda c: c.update_workspace(metadata={"k": "v"}),
        _ok(200, WORKSPACE),
        "PUT",
        W,
        {"metadata": {"k": "v"}, "configuration": None},
        lambda w: (w.id == WS and w.metadata == {"k": "v"} and w.created is None) or pytest.fail(),
    ),
    Case(
        "list_workspaces",
        lambda c: c.list_workspaces(page=2, size=10, reverse=True, filters={"id": WS}),
        _ok(200, page([WORKSPACE], total=11, p=2, size=10)),
        "POST",
        "/v3/workspaces/list?page=2&size=10&reverse=true",
        {"filters": {"id": WS}},
        lambda r: _check_page(
            r, (Workspace(id=WS, metadata={"k": "v"}, created_at=TS),), 11, 2, 10
        ),
    ),
    Case(
        "delete_workspace",
        lambda c: c.delete_workspace(),
        _ok(202, {"message": "Workspace deletion accepted"}),
        "DELETE",
        W,
        None,
        lambda r: r == DeleteAccepted(message="Workspace deletion accepted") or pytest.fail(),
    ),
    Case(
        "get_or_create_peer",
        lambda c: c.get_or_create_peer("alice", configuration={"observe_me": False}),
        _ok(201, PEER),
        "POST",
        f"{W}/peers",
        {"id": "alice", "configuration": {"observe_me": False}},
        lambda p: _check_peer(p, True),
    ),
    Case(
        "update_peer",
        lambda c: c.update_peer("alice", metadata={"x": 1}),
        _ok(200, PEER),
        "PUT",
        f"{W}/peers/alice",
        {"metadata": {"x": 1}, "configuration": None},
        lambda p: _check_peer(p, None),
    ),
    Case(
        "list_peers",
        lambda c: c.list_peers(),
        _ok(200, page([PEER])),
        "POST",
        f"{W}/peers/list?page=1&size=50&reverse=false",
        {},
        lambda r: (_check_page(r, (r.items[0],), 1, 1, 50), _check_peer(r.items[0], None)),
    ),
    Case(
        "get_or_create_session",
        lambda c: c.get_or_create_session(
            "s1",
            peers={"alice": SessionPeerConfig(observe_me=True), "bob": None},
            metadata={"topic": "tea"},
        ),
        _ok(201, SESSION),
        "POST",
        f"{W}/sessions",
        {
            "id": "s1",
            "metadata": {"topic": "tea"},
            "peers": {
                "alice": {"observe_me": True, "observe_others": None},
                "bob": {"observe_me": None, "observe_others": None},
            },
        },
        lambda s: _check_session(s, True),
    ),
    Case(
        "update_session",
        lambda c: c.update_session("s1", configuration={"summary": {"enabled": False}}),
        _ok(200, SESSION),
        "PUT",
        f"{W}/sessions/s1",
        {"metadata": None, "configuration": {"summary": {"enabled": False}}},
        lambda s: _check_session(s, None),
    ),
    Case(
        "list_sessions",
        lambda c: c.list_sessions(size=100, filters={"metadata": {"topic": "tea"}}),
        _ok(200, page([SESSION], size=100)),
        "POST",
        f"{W}/sessions/list?page=1&size=100&reverse=false",
        {"filters": {"metadata": {"topic": "tea"}}},
        lambda r: (_check_page(r, (r.items[0],), 1, 1, 100), _check_session(r.items[0], None)),
    ),
    Case(
        "list_session_peers",
        lambda c: c.list_session_peers("s1", page=3, size=5),
        _ok(200, page([PEER], total=11, p=3, size=5)),
        "GET",
        f"{W}/sessions/s1/peers?page=3&size=5",
        None,
        lambda r: (_check_page(r, (r.items[0],), 11, 3, 5), _check_peer(r.items[0], None)),
    ),
    Case(
        "get_session_peer_config",
        lambda c: c.get_session_peer_config("s1", "alice"),
        _ok(200, {"observe_me": False, "observe_others": None}),
        "GET",
        f"{W}/sessions/s1/peers/alice/config",
        None,
        lambda r: r == SessionPeerConfig(observe_me=False) or pytest.fail(),
    ),
    Case(
        "set_session_peer_config",
        lambda c: c.set_session_peer_config("s1", "alice", observe_others=True),
        _ok(204, None, content_type=None),
        "PUT",
        f"{W}/sessions/s1/peers/alice/config",
        {"observe_me": None, "observe_others": True},
        lambda r: r is None or pytest.fail(),
    ),
    Case(
        "delete_session",
        lambda c: c.delete_session("s1"),
        _ok(202, {"message": "Session deleted successfully"}),
        "DELETE",
        f"{W}/sessions/s1",
        None,
        lambda r: r == DeleteAccepted(message="Session deleted successfully") or pytest.fail(),
    ),
    Case(
        "add_messages",
        lambda c: c.add_messages(
            "s1",
            [
                MessageCreate(
                    "alice",
                    "I like green tea",
                    metadata={"turn": 1},
                    created_at="2026-11-30T12:00:00Z",
                ),
                MessageCreate("bob", "so do I", configuration={"reasoning": {"enabled": False}}),
            ],
        ),
        _ok(201, [MESSAGE, MESSAGE2]),
        "POST",
        f"{W}/sessions/s1/messages",
        {
            "messages": [
                {
                    "peer_id": "alice",
                    "content": "I like green tea",
                    "metadata": {"turn": 1},
                    "created_at": "2026-11-30T12:00:00Z",
                },
                {
                    "peer_id": "bob",
                    "content": "so do I",
                    "configuration": {"reasoning": {"enabled": False}},
                },
            ]
        },
        lambda r: r == (_message(MESSAGE), _message(MESSAGE2)) or pytest.fail(),
    ),
    Case(
        "list_messages",
        lambda c: c.list_messages(
            "s1", page=2, size=100, reverse=True, filters={"peer_id": "alice"}
        ),
        _ok(200, page([MESSAGE], total=101, p=2, size=100)),
        "POST",
        f"{W}/sessions/s1/messages/list?page=2&size=100&reverse=true",
        {"filters": {"peer_id": "alice"}},
        lambda r: _check_page(r, (_message(MESSAGE),), 101, 2, 100),
    ),
    Case(
        "get_message",
        lambda c: c.get_message("s1", MID),
        _ok(200, MESSAGE),
        "GET",
        f"{W}/sessions/s1/messages/{MID}",
        None,
        lambda r: r == _message(MESSAGE) or pytest.fail(),
    ),
    Case(
        "update_message_metadata",
        lambda c: c.update_message_metadata("s1", MID, {"label": "keep"}),
        _ok(200, {**MESSAGE, "metadata": {"label": "keep"}}),
        "PUT",
        f"{W}/sessions/s1/messages/{MID}",
        {"metadata": {"label": "keep"}},
        lambda r: (
            (r.metadata == {"label": "keep"} and r.content == MESSAGE["content"]) or pytest.fail()
        ),
    ),
    Case(
        "create_conclusions",
        lambda c: c.create_conclusions(
            [
                ConclusionCreate("alice likes green tea", "alice", "alice"),
                ConclusionCreate("bob agrees", "alice", "bob", session_id="s1"),
            ]
        ),
        _ok(201, [CONCLUSION, CONCLUSION2]),
        "POST",
        f"{W}/conclusions",
        {
            "conclusions": [
                {
                    "content": "alice likes green tea",
                    "observer_id": "alice",
                    "observed_id": "alice",
                },
                {
                    "content": "bob agrees",
                    "observer_id": "alice",
                    "observed_id": "bob",
                    "session_id": "s1",
                },
            ]
        },
        lambda r: (
            (r == (_conclusion(CONCLUSION), _conclusion(CONCLUSION2)) and r[0].source_ids is None)
            or pytest.fail()
        ),
    ),
    Case(
        "list_conclusions",
        lambda c: c.list_conclusions({"observer_id": "alice"}, reverse=True, size=20),
        _ok(200, page([CONCLUSION2, CONCLUSION], size=20)),
        "POST",
        f"{W}/conclusions/list?page=1&size=20&reverse=true",
        {"filters": {"observer_id": "alice"}},
        lambda r: _check_page(r, (_conclusion(CONCLUSION2), _conclusion(CONCLUSION)), 2, 1, 20),
    ),
    Case(
        "query_conclusions",
        lambda c: c.query_conclusions(
            "tea", "alice", "alice", top_k=5, distance=0.5, filters={"level": "explicit"}
        ),
        _ok(200, [CONCLUSION]),  # a bare array, ordered by similarity
        "POST",
        f"{W}/conclusions/query",
        {
            "query": "tea",
            "filters": {"level": "explicit", "observer_id": "alice", "observed_id": "alice"},
            "top_k": 5,
            "distance": 0.5,
        },
        lambda r: r == (_conclusion(CONCLUSION),) or pytest.fail(),
    ),
    Case(
        "delete_conclusion",
        lambda c: c.delete_conclusion(CID),
        _ok(204, None),  # observed: 204, Content-Type: application/json, empty body
        "DELETE",
        f"{W}/conclusions/{CID}",
        None,
        lambda r: r is None or pytest.fail(),
    ),
    Case(
        "search",
        lambda c: c.search("green tea", limit=5, filters={"metadata": {"turn": 1}}),
        _ok(200, [MESSAGE, MESSAGE2]),  # a bare array, not a Page
        "POST",
        f"{W}/search",
        {"query": "green tea", "limit": 5, "filters": {"metadata": {"turn": 1}}},
        lambda r: r == (_message(MESSAGE), _message(MESSAGE2)) or pytest.fail(),
    ),
    Case(
        "search_peer",
        lambda c: c.search_peer("alice", "tea"),
        _ok(200, [MESSAGE]),
        "POST",
        f"{W}/peers/alice/search",
        {"query": "tea", "limit": 10},
        lambda r: r == (_message(MESSAGE),) or pytest.fail(),
    ),
    Case(
        "search_session",
        lambda c: c.search_session("s1", "tea", limit=100),
        _ok(200, []),
        "POST",
        f"{W}/sessions/s1/search",
        {"query": "tea", "limit": 100},
        lambda r: r == () or pytest.fail(),
    ),
    Case(
        "chat",
        lambda c: c.chat(
            "alice",
            "What does she drink?",
            target="bob",
            session_id="s1",
            reasoning_level="minimal",
            include_evidence=True,
            response_format=RESPONSE_FORMAT,
            filters={"session_id": ["s1", "s2"]},
        ),
        _ok(200, {"content": "She likes green tea.", "evidence": EVIDENCE}),
        "POST",
        f"{W}/peers/alice/chat",
        {
            "query": "What does she drink?",
            "target": "bob",
            "session_id": "s1",
            "reasoning_level": "minimal",
            "include_evidence": True,
            "response_format": RESPONSE_FORMAT,
            "filters": {"session_id": ["s1", "s2"]},
        },
        _check_evidence,
    ),
    Case(
        "chat_plain",
        lambda c: c.chat("alice", "anything?"),
        _ok(200, {"content": None}),  # an empty answer is null
        "POST",
        f"{W}/peers/alice/chat",
        {"query": "anything?"},
        lambda r: r == ChatAnswer(content=None) or pytest.fail(),
    ),
    Case(
        "chat_stream",
        lambda c: c.chat_stream("alice", "tea?", reasoning_level="low").read_all(),
        _ok(
            200,
            None,
            content_type="text/event-stream; charset=utf-8",
            raw_body=b'data: {"delta": {"content": "She likes "}, "done": false}\n\n'
            b'data: {"delta": {"content": "tea."}, "done": false}\n\n'
            b'data: {"done": true}\n\n',
        ),
        "POST",
        f"{W}/peers/alice/chat",
        {"query": "tea?", "reasoning_level": "low", "stream": True},
        lambda r: r == ChatAnswer(content="She likes tea.") or pytest.fail(),
        accept="text/event-stream",
    ),
    Case(
        "chat_workspace",
        lambda c: c.chat_workspace(
            "who likes tea?",
            session_id="s1",
            reasoning_level="high",
            include_evidence=True,
            response_format=RESPONSE_FORMAT,
        ),
        _ok(200, {"content": "She likes green tea.", "evidence": EVIDENCE}),
        "POST",
        f"{W}/chat",
        {
            "query": "who likes tea?",
            "session_id": "s1",
            "reasoning_level": "high",
            "include_evidence": True,
            "response_format": RESPONSE_FORMAT,
        },
        _check_evidence,
    ),
    Case(
        "chat_workspace_stream",
        lambda c: c.chat_workspace_stream("who?").read_all(),
        _ok(
            200,
            None,
            content_type="text/event-stream; charset=utf-8",
            raw_body=b'data: {"delta": {"content": "alice"}, "done": false}\n\n'
            b'data: {"done": true}\n\n',
        ),
        "POST",
        f"{W}/chat",
        {"query": "who?", "stream": True},
        lambda r: r == ChatAnswer(content="alice") or pytest.fail(),
        accept="text/event-stream",
    ),
    Case(
        "probe",
        lambda c: c.probe(),
        _ok(200, {"status": "ok"}),
        "GET",
        "/health",
        None,
        lambda r: (r.ok and r.status == "ok") or pytest.fail(),
    ),
    Case(
        "server_version",
        lambda c: c.server_version(),
        _ok(200, {"openapi": "3.1.0", "info": {"title": "Honcho API", "version": "3.2.0"}}),
        "GET",
        "/openapi.json",
        None,
        lambda r: r == "3.2.0" or pytest.fail(),
    ),
    Case(
        "queue_status",
        lambda c: c.queue_status(),
        _ok(
            200,
            {
                "total_work_units": 3,
                "completed_work_units": 1,
                "in_progress_work_units": 1,
                "pending_work_units": 1,
                # keyed by the server's internal session id, not the name "s1"
                "sessions": {
                    "V1StGXR8_Z5jdHi6B-myT": {
                        "session_id": "V1StGXR8_Z5jdHi6B-myT",
                        "total_work_units": 3,
                        "completed_work_units": 1,
                        "in_progress_work_units": 1,
                        "pending_work_units": 1,
                    }
                },
            },
        ),
        "GET",
        f"{W}/queue/status",
        None,
        lambda r: (
            (
                r.total_work_units == 3
                and not r.idle
                and list(r.sessions) == ["V1StGXR8_Z5jdHi6B-myT"]
                and r.sessions["V1StGXR8_Z5jdHi6B-myT"].pending_work_units == 1
            )
            or pytest.fail()
        ),
    ),
    Case(
        "queue_status_filtered",
        lambda c: c.queue_status(sender_id="alice", session_id="s1"),
        _ok(
            200,
            {
                "total_work_units": 0,
                "completed_work_units": 0,
                "in_progress_work_units": 0,
                "pending_work_units": 0,
                "sessions": None,  # null with a session filter (and when empty)
            },
        ),
        "GET",
        f"{W}/queue/status?sender_id=alice&session_id=s1",
        None,
        lambda r: (
            r
            == QueueStatus(
                total_work_units=0,
                completed_work_units=0,
                in_progress_work_units=0,
                pending_work_units=0,
            )
            or pytest.fail()
        ),
    ),
    Case(
        "create_key",
        lambda c: c.create_key(workspace_id=WS, expires_at="2026-12-01T00:00:00Z"),
        _ok(200, {"key": "eyJ.minted.key"}),
        "POST",
        f"/v3/keys?workspace_id={WS}&expires_at=2026-12-01T00%3A00%3A00Z",
        None,
        lambda r: r == "eyJ.minted.key" or pytest.fail(),
        empty_body=True,
    ),
    Case(
        "get_or_create_webhook",
        lambda c: c.get_or_create_webhook("http://localhost:8765/hook"),
        _ok(201, WEBHOOK),
        "POST",
        f"{W}/webhooks",
        {"url": "http://localhost:8765/hook"},
        lambda r: r == WebhookEndpoint(**_webhook_fields(), created=True) or pytest.fail(),
    ),
    Case(
        "list_webhooks",
        lambda c: c.list_webhooks(page=2, size=1),
        _ok(200, page([WEBHOOK], total=2, p=2, size=1)),
        "GET",
        f"{W}/webhooks?page=2&size=1",
        None,
        lambda r: _check_page(r, (WebhookEndpoint(**_webhook_fields()),), 2, 2, 1),
    ),
    Case(
        "delete_webhook",
        lambda c: c.delete_webhook(HID),
        response_bytes(204, None, reason="No Content", content_type="application/json"),
        "DELETE",
        f"{W}/webhooks/{HID}",
        None,
        lambda r: r is None or pytest.fail(),
    ),
    Case(
        "trigger_webhook_test",
        lambda c: c.trigger_webhook_test(),
        _ok(200, None, raw_body=b"null"),
        "GET",
        f"{W}/webhooks/test",
        None,
        lambda r: r is None or pytest.fail(),
    ),
]


@pytest.mark.parametrize("key", [None, KEY], ids=["no-key", "key"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_operation_request_bytes_and_decoding(case: Case, key: str | None) -> None:
    def handler(conn: Any) -> None:
        conn.read_request()
        conn.send(case.answer)

    result, request, server = run(handler, case.call, key=key)
    assert request.head == expected_head(
        case.method,
        case.target,
        server.port,
        case.body,
        key=key,
        accept=case.accept,
        empty_body=case.empty_body,
    )
    if case.body is None:
        assert request.body == b""
    else:
        assert request.json == case.body
        assert b"\n" not in request.body and b": " not in request.body  # compact JSON
    case.check(result)


@pytest.mark.blocking_only(
    "it reads Client's class; tests/aio's parity test holds AsyncClient to it"
)
def test_every_client_operation_has_a_wire_case() -> None:
    """A new public method on Client must get a case above (or, for the operations beyond
    memoryd's first list, in test_operations_beyond.py)."""
    from test_operations_beyond import BEYOND

    ops = {
        name
        for name in dir(roncho.Client)
        if not name.startswith("_") and callable(getattr(roncho.Client, name))
    }
    # wait_for_derivation is many queue_status calls: test_wait_for_derivation_on_the_wire;
    # each iter_* walk is many list calls: test_walks.py has a case for every one
    not_server_calls = {"close", "with_workspace", "with_options", "wait_for_derivation"}
    walks = {name for name in ops if name.startswith("iter_")}
    covered = {c.name for c in [*CASES, *BEYOND]}
    assert ops - not_server_calls - walks - covered == set()


# -- get-or-create: 201 made it, 200 found it ---------------------------------------------
@pytest.mark.parametrize(
    ("call", "body"),
    [
        (lambda c: c.get_or_create_workspace(), WORKSPACE),
        (lambda c: c.get_or_create_peer("alice"), PEER),
        (lambda c: c.get_or_create_session("s1"), SESSION),
    ],
    ids=["workspace", "peer", "session"],
)
@pytest.mark.parametrize("status", [200, 201])
def test_get_or_create_created_follows_status(
    call: Callable[[roncho.Client], Any], body: dict, status: int
) -> None:
    """OpenAPI documents only 200; the observed server answers 201 for a new one."""
    result, request, _ = run(reply(status, body), call)
    assert result.created is (status == 201)
    assert request.json == {"id": body["id"]}  # nothing optional is sent as null


# -- paging ---------------------------------------------------------------------------------
def test_iter_messages_walks_every_page() -> None:
    pages = [
        page([{**MESSAGE, "id": f"m{i:020d}", "content": str(i)} for i in range(p * 2, p * 2 + 2)])
        for p in range(3)
    ]
    handlers = [
        reply(200, {**pages[p], "total": 5, "page": p + 1, "size": 2, "pages": 3}) for p in range(3)
    ]
    handlers[2] = reply(
        200,
        {**pages[2], "items": pages[2]["items"][:1], "total": 5, "page": 3, "size": 2, "pages": 3},
    )
    with RawServer(handlers) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        got = [m.content for m in client.iter_messages("s1", size=2, reverse=True)]
    assert got == ["0", "1", "2", "3", "4"]
    assert [r.request_line for r in server.requests] == [
        f"POST {W}/sessions/s1/messages/list?page={p}&size=2&reverse=true HTTP/1.1"
        for p in (1, 2, 3)
    ]
    assert all(r.json == {} for r in server.requests)


def test_iter_messages_empty_session_is_one_call() -> None:
    """An unknown session is an empty page (pages 0), not 404."""
    empty = {"items": [], "total": 0, "page": 1, "size": 100, "pages": 0}
    with RawServer([reply(200, empty), reply(200, empty)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        assert list(client.iter_messages("nobody", filters={"peer_id": "alice"})) == []
    assert server.connections == 1
    assert server.requests[0].request_line == (
        f"POST {W}/sessions/nobody/messages/list?page=1&size=100&reverse=false HTTP/1.1"
    )
    assert server.requests[0].json == {"filters": {"peer_id": "alice"}}


def test_base_url_prefix_reaches_every_path() -> None:
    with RawServer([reply(200, {"status": "ok"}), reply(200, page([]))]) as server:
        client = roncho.Client(server.url + "/honcho/", WS, read_timeout=READ_TIMEOUT)
        client.probe()
        client.list_peers()
    assert server.requests[0].request_line == "GET /honcho/health HTTP/1.1"
    assert server.requests[1].request_line == (
        f"POST /honcho{W}/peers/list?page=1&size=50&reverse=false HTTP/1.1"
    )


# -- status answers peculiar to some operations ---------------------------------------------
@pytest.mark.parametrize(
    "answer",
    [
        {"detail": "Not Found"},
        {"detail": "Method Not Allowed"},
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_chat_workspace_on_old_server_says_so(answer: dict, stream: bool) -> None:
    status = 404 if answer["detail"] == "Not Found" else 405

    def call(c: roncho.Client) -> Any:
        return c.chat_workspace_stream("q") if stream else c.chat_workspace("q")

    with RawServer([reply(status, answer)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(StatusError) as info:
            call(client)
    assert info.value.status == status
    assert "no workspace chat" in str(info.value)
    assert info.value.request_sent is True
    assert info.value.path == f"{W}/chat"


def test_chat_workspace_other_404_is_not_rewritten() -> None:
    """A 404 about the workspace itself must not be blamed on an old server."""
    with RawServer([reply(404, {"detail": f"Workspace {WS} not found"})]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(StatusError) as info:
            client.chat_workspace("q")
    assert "no workspace chat" not in str(info.value)
    assert info.value.detail == f"Workspace {WS} not found"


def test_server_version_absent_document_is_none() -> None:
    with RawServer([reply(404, {"detail": "Not Found"})]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        assert client.server_version() is None


def test_create_key_with_auth_off_is_405_status_error() -> None:
    with RawServer([reply(405, {"detail": "Feature is disabled"})]) as server:
        client = roncho.Client(server.url, WS, api_key=KEY, read_timeout=READ_TIMEOUT)
        with pytest.raises(StatusError) as info:
            client.create_key(workspace_id=WS)
    assert info.value.status == 405
    assert info.value.detail == "Feature is disabled"
    assert KEY not in str(info.value) and KEY not in repr(info.value)


def test_deletes_accept_an_empty_202() -> None:
    """The earlier record's table says "empty body" for the session delete's 202."""
    with RawServer([reply(202, None), reply(202, None, content_type=None)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        assert client.delete_session("s1") == DeleteAccepted()
        assert client.delete_workspace() == DeleteAccepted()


def test_conclusions_query_without_observer_422_is_status_error() -> None:
    detail = "observer and observed must be specified for semantic search."
    with RawServer([reply(422, {"detail": detail})]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(StatusError) as info:
            client.query_conclusions("tea", "alice", "bob")
    assert info.value.status == 422 and info.value.detail == detail
    assert server.requests[0].json["filters"] == {"observer_id": "alice", "observed_id": "bob"}


def test_workspace_delete_409_is_workspace_busy() -> None:
    detail = f"Cannot delete workspace '{WS}': active session(s) remain. Delete all sessions first."
    with RawServer([reply(409, {"detail": detail})]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(roncho.WorkspaceBusyError) as info:
            client.delete_workspace()
    assert info.value.detail == detail


def test_search_refuses_a_page_shaped_answer() -> None:
    """The DOCS-new search page shows {"items": [...]}; the server sends a bare array.
    If a server ever sent a Page, decoding says so instead of guessing."""
    with RawServer([reply(200, page([MESSAGE]))]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(roncho.DecodeError) as info:
            client.search("tea")
    assert "search" in str(info.value) and info.value.request_sent is True


def test_reads_go_out_on_a_read_only_client() -> None:
    """Lists, search, conclusion query and chat are POSTs, yet read-only lets them out."""
    calls: list[tuple[Callable[[roncho.Client], Any], bytes]] = [
        (lambda c: c.list_workspaces(), _ok(200, page([]))),
        (lambda c: c.list_peers(), _ok(200, page([]))),
        (lambda c: c.list_sessions(), _ok(200, page([]))),
        (lambda c: c.list_messages("s1"), _ok(200, page([]))),
        (lambda c: c.list_conclusions(), _ok(200, page([]))),
        (lambda c: c.list_session_peers("s1"), _ok(200, page([]))),
        (lambda c: c.get_session_peer_config("s1", "a"), _ok(200, {"observe_me": None})),
        (lambda c: c.get_message("s1", MID), _ok(200, MESSAGE)),
        (lambda c: c.search("q"), _ok(200, [])),
        (lambda c: c.search_peer("a", "q"), _ok(200, [])),
        (lambda c: c.search_session("s1", "q"), _ok(200, [])),
        (lambda c: c.query_conclusions("q", "a", "b"), _ok(200, [])),
        (lambda c: c.chat("a", "q"), _ok(200, {"content": "x"})),
        (lambda c: c.chat_workspace("q"), _ok(200, {"content": "x"})),
        (
            lambda c: c.chat_stream("a", "q").read_all(),
            _ok(200, None, raw_body=b'data: {"done": true}\n\n', content_type="text/event-stream"),
        ),
        (lambda c: c.probe(), _ok(200, {"status": "ok"})),
        (lambda c: c.server_version(), _ok(200, {"info": {"version": "3.2.0"}})),
        (
            lambda c: c.queue_status(),
            _ok(
                200,
                {
                    "total_work_units": 0,
                    "completed_work_units": 0,
                    "in_progress_work_units": 0,
                    "pending_work_units": 0,
                    "sessions": None,
                },
            ),
        ),
    ]
    with RawServer([send_raw(answer) for _, answer in calls]) as server:
        client = roncho.Client(server.url, WS, read_only=True, read_timeout=READ_TIMEOUT)
        for call, _ in calls:
            call(client)
    assert server.connections == len(calls)
    assert not server.errors


@pytest.mark.parametrize("status", [200, 201])
def test_creates_decode_whichever_success_status(status: int) -> None:
    """The earlier record's table says 200 for message and conclusion creates; SRC, OAS
    and the observed server say 201. Both decode."""
    with RawServer([reply(status, [MESSAGE]), reply(status, [CONCLUSION])]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        assert client.add_messages("s1", [MessageCreate("alice", "x")]) == (_message(MESSAGE),)
        assert client.create_conclusions([ConclusionCreate("x", "alice", "alice")]) == (
            _conclusion(CONCLUSION),
        )


def test_newer_server_fields_are_decoded_or_ignored() -> None:
    """OAS 3.3: ``source_ids`` as an array, ``times_derived``; unknown fields are ignored."""
    newer = {**CONCLUSION, "source_ids": [CID2, "c8Xw2LmQ0pR5tY7uI9oPc"], "times_derived": 3}
    message = {**MESSAGE, "role": "user", "embedding_status": "done"}
    with RawServer([reply(200, page([newer])), reply(200, [message])]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        got = client.list_conclusions().items[0]
        assert got.source_ids == (CID2, "c8Xw2LmQ0pR5tY7uI9oPc")
        assert client.search("tea") == (_message(MESSAGE),)


def test_fastapi_422_list_detail_is_kept() -> None:
    detail = [
        {
            "type": "too_long",
            "loc": ["body", "messages"],
            "msg": "List should have at most 100 items after validation, not 101",
            "input": [],
            "ctx": {"field_type": "List", "max_length": 100, "actual_length": 101},
        }
    ]
    with RawServer([reply(422, {"detail": detail})]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(StatusError) as info:
            client.update_workspace(metadata={})
    assert info.value.status == 422 and info.value.detail == detail
    assert "at most 100 items" in str(info.value)


@pytest.mark.parametrize(
    "answer",
    [
        {"items": [], "total": 0, "page": 1, "size": 50},  # no pages
        {"items": None, "total": 0, "page": 1, "size": 50, "pages": 0},
        [],  # a bare array where a Page is due
    ],
)
def test_list_answer_without_page_fields_is_decode_error(answer: object) -> None:
    with RawServer([reply(200, answer)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(roncho.DecodeError) as info:
            client.list_messages("s1")
    assert "list_messages" in str(info.value) and info.value.request_sent is True


@pytest.mark.parametrize(
    ("call", "answer"),
    [
        (lambda c: c.create_key(workspace_id=WS), {"token": "x"}),
        (lambda c: c.create_key(workspace_id=WS), {"key": ""}),
        (lambda c: c.probe(), {"status": 1}),
        (lambda c: c.queue_status(), {"total_work_units": 0}),
        (lambda c: c.get_or_create_peer("alice"), {"workspace_id": WS}),
        (lambda c: c.get_message("s1", MID), {**MESSAGE, "content": None}),
        (lambda c: c.delete_session("s1"), ["accepted"]),
    ],
    ids=["key-missing", "key-empty", "health", "queue", "peer-id", "message-content", "delete"],
)
def test_bad_answer_shapes_are_decode_errors_after_sending(
    call: Callable[[roncho.Client], Any], answer: object
) -> None:
    """DecodeError names the operation and says the request was sent (it may have acted)."""
    with RawServer([reply(200, answer)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(roncho.DecodeError) as info:
            call(client)
    assert info.value.request_sent is True


def _queue(total: int, completed: int, in_progress: int, pending: int) -> bytes:
    counts = {
        "total_work_units": total,
        "completed_work_units": completed,
        "in_progress_work_units": in_progress,
        "pending_work_units": pending,
        "sessions": None,
    }
    return _ok(200, counts)


def test_wait_for_derivation_on_the_wire() -> None:
    """The wait is plain queue_status reads, one connection each: the session's, the
    workspace's while the work is pending with none in progress, the session's again."""
    answers = [_queue(1, 0, 0, 1), _queue(1, 0, 0, 1), _queue(1, 1, 0, 0)]

    def answer(reply_with: bytes) -> Callable[..., None]:
        def handler(conn: Any) -> None:
            conn.read_request()
            conn.send(reply_with)

        return handler

    with RawServer([answer(a) for a in answers]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        since = roncho.QueueStatus(
            total_work_units=0, completed_work_units=0, in_progress_work_units=0,
            pending_work_units=0,
        )  # fmt: skip
        outcome = client.wait_for_derivation(
            "s1", since=since, grace=0.05, interval=0.05, deadline=5.0
        )
    assert outcome.state == "done" and outcome.new_work_units == 1 and outcome.reads == 3
    assert [r.request_line for r in server.requests] == [
        f"GET {W}/queue/status?session_id=s1 HTTP/1.1",
        f"GET {W}/queue/status HTTP/1.1",
        f"GET {W}/queue/status?session_id=s1 HTTP/1.1",
    ]
    assert not server.errors
