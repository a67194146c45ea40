"""Every parameter of every operation, alone, on the wire: the exact request it makes.

The server ignores a key it does not know (the real 3.0.12 answers 200 to ``filter``,
``filters`` and any other name alike), so a parameter sent under a wrong name is lost
without a sound. Each case below gives one call with at most one optional parameter (or
one with the companions it needs, in NEEDS) and the request it must make, written out by
hand: the request line (method, path, query names and values in order) and the JSON body.
The head is compared whole and the body as JSON; each case runs on both clients
(tests/wire/conftest.py) and decodes a realistic answer to an exact record.

Three coverage tests hold the table against two lists made elsewhere:

- the clients' signatures (``roncho.Client`` and ``roncho.aio.AsyncClient``, read with
  ``inspect``): every parameter of every public method has a case of its own, and so has
  every optional field of a batch's record (BATCHES: MessageCreate, ConclusionCreate);
  ``deadline`` is never sent (NOT_SENT_PARAMETERS); a method that is not an operation is
  named with why (NOT_OPERATIONS); an iterator ``iter_<x>`` walks ``list_<x>`` and shares
  its cases: its parameters must be that operation's (``page`` aside, the walk owns it);
- the server's request fields, ``data/server_request_fields.txt`` (made by
  ``scripts/server_request_fields.py`` from the kit's Honcho 3.0.12 source): every field
  the server declares is sent by some case or left out with why (NOT_SENT), and every
  field a case sends is one the server declares, or a later server's (LATER, with the
  version that added it).

How answers decode with each optional field present and absent is the last table,
DECODING.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from rawserver import RawServer, Request, chunked, response_bytes, send_raw, sse_events, stream_head

import roncho
from roncho import (
    ChatAnswer,
    Conclusion,
    ConclusionCreate,
    DeleteAccepted,
    Health,
    Message,
    MessageCreate,
    Page,
    Peer,
    PeerContext,
    QueueStatus,
    Scope,
    ScopeBackfill,
    ScopeStatus,
    Session,
    SessionContext,
    SessionPeerConfig,
    SessionQueueStatus,
    Summaries,
    Summary,
    WebhookEndpoint,
    Workspace,
)
from roncho.aio import AsyncClient

FIELDS = Path(__file__).parent / "data" / "server_request_fields.txt"
ROUTES = Path(__file__).parent / "data" / "server_routes.txt"
WS = "w1"
W = "/v3/workspaces/w1"
READ_TIMEOUT = 5.0
TS = "2026-11-30T12:00:00.123456Z"
MID = "Zq3cU5nX1bA7yQ0vL2kHd"
CID = "c8Xw2LmQ0pR5tY7uI9oPa"
NO_BODY = None


# -- the answers each operation gets, and what they decode to ----------------------------
WORKSPACE = {"id": WS, "metadata": {"k": "v"}, "configuration": {}, "created_at": TS}
PEER = {"id": "alice", "workspace_id": WS, "metadata": {}, "configuration": {}, "created_at": TS}
SESSION = {
    "id": "s1",
    "is_active": True,
    "workspace_id": WS,
    "metadata": {},
    "configuration": {},
    "created_at": TS,
}
MESSAGE = {
    "id": MID,
    "content": "I like green tea",
    "peer_id": "alice",
    "session_id": "s1",
    "metadata": {},
    "created_at": TS,
    "workspace_id": WS,
    "token_count": 5,
}
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
SCOPE = {"id": "travel", "metadata": {}, "created_at": TS}
WEBHOOK = {"id": "wh1", "url": "https://example.com/hook", "workspace_id": WS, "created_at": TS}

WORKSPACE_R = Workspace(id=WS, metadata={"k": "v"}, configuration={}, created_at=TS)
PEER_R = Peer(id="alice", workspace_id=WS, metadata={}, configuration={}, created_at=TS)
SESSION_R = Session(
    id="s1", is_active=True, workspace_id=WS, metadata={}, configuration={}, created_at=TS
)
MESSAGE_R = Message(
    id=MID,
    content="I like green tea",
    peer_id="alice",
    session_id="s1",
    metadata={},
    created_at=TS,
    workspace_id=WS,
    token_count=5,
)
CONCLUSION_R = Conclusion(
    id=CID,
    content="alice likes green tea",
    observer_id="alice",
    observed_id="alice",
    session_id=None,
    level="explicit",
    created_at=TS,
    source_ids=None,
)
SCOPE_R = Scope(id="travel", metadata={}, created_at=TS)
WEBHOOK_R = WebhookEndpoint(
    id="wh1", url="https://example.com/hook", workspace_id=WS, created_at=TS
)


def _json(status: int, body: object) -> bytes:
    return response_bytes(status, body, reason="OK")


def _page(item: dict[str, Any]) -> bytes:
    return _json(200, {"items": [item], "total": 1, "page": 1, "size": 50, "pages": 1})


def _page_r(item: object) -> Page[Any]:
    return Page(items=(item,), total=1, page=1, size=50, pages=1)


NO_CONTENT = response_bytes(204, None, reason="No Content", content_type=None)
STREAM = stream_head() + chunked(
    sse_events({"delta": {"content": "yes"}, "done": False}, {"done": True})
)
CONTEXT = {"id": "s1", "messages": [MESSAGE], "summary": None}
QUEUE = {
    "total_work_units": 3,
    "completed_work_units": 1,
    "in_progress_work_units": 1,
    "pending_work_units": 1,
}
QUEUE_R = QueueStatus(
    total_work_units=3, completed_work_units=1, in_progress_work_units=1, pending_work_units=1
)

# method -> (the answer's bytes, what the call returns)
ANSWERS: dict[str, tuple[bytes, object]] = {
    "add_messages": (_json(201, [MESSAGE]), (MESSAGE_R,)),
    "add_scope_sessions": (NO_CONTENT, None),
    "add_session_peers": (_json(200, SESSION), SESSION_R),
    "chat": (_json(200, {"content": "yes"}), ChatAnswer(content="yes")),
    "chat_stream": (STREAM, ChatAnswer(content="yes")),
    "chat_workspace": (_json(200, {"content": "yes"}), ChatAnswer(content="yes")),
    "chat_workspace_stream": (STREAM, ChatAnswer(content="yes")),
    "clone_session": (_json(201, SESSION), SESSION_R),
    "create_conclusions": (_json(201, [CONCLUSION]), (CONCLUSION_R,)),
    "create_key": (_json(200, {"key": "a.b.c"}), "a.b.c"),
    "delete_conclusion": (NO_CONTENT, None),
    "delete_session": (
        _json(202, {"message": "Session deleted"}),
        DeleteAccepted(message="Session deleted"),
    ),
    "delete_webhook": (NO_CONTENT, None),
    "delete_workspace": (
        _json(202, {"message": "Workspace deleted"}),
        DeleteAccepted(message="Workspace deleted"),
    ),
    "get_conclusion": (_json(200, CONCLUSION), CONCLUSION_R),
    "get_message": (_json(200, MESSAGE), MESSAGE_R),
    "get_or_create_peer": (
        _json(201, PEER),
        Peer(
            id="alice", workspace_id=WS, metadata={}, configuration={}, created_at=TS, created=True
        ),
    ),
    "get_or_create_scope": (
        _json(200, SCOPE),
        Scope(id="travel", metadata={}, created_at=TS, created=False),
    ),
    "get_or_create_session": (
        _json(201, SESSION),
        Session(
            id="s1",
            is_active=True,
            workspace_id=WS,
            metadata={},
            configuration={},
            created_at=TS,
            created=True,
        ),
    ),
    "get_or_create_webhook": (
        _json(200, WEBHOOK),
        WebhookEndpoint(
            id="wh1", url="https://example.com/hook", workspace_id=WS, created_at=TS, created=False
        ),
    ),
    "get_or_create_workspace": (
        _json(201, WORKSPACE),
        Workspace(id=WS, metadata={"k": "v"}, configuration={}, created_at=TS, created=True),
    ),
    "get_peer_card": (_json(200, {"peer_card": ["likes tea"]}), ("likes tea",)),
    "get_peer_context": (
        _json(
            200,
            {"peer_id": "alice", "target_id": "alice", "representation": "R", "peer_card": ["c"]},
        ),
        PeerContext(peer_id="alice", target_id="alice", representation="R", peer_card=("c",)),
    ),
    "get_peer_representation": (_json(200, {"representation": "R"}), "R"),
    "get_scope": (_json(200, SCOPE), SCOPE_R),
    "get_scope_status": (
        _json(200, {"backfill_status": {"s1": {"state": "completed"}}}),
        ScopeStatus(backfill={"s1": ScopeBackfill(session_id="s1", state="completed")}),
    ),
    "get_session_context": (
        _json(200, CONTEXT),
        SessionContext(id="s1", messages=(MESSAGE_R,), summary=None),
    ),
    "get_session_peer_config": (
        _json(200, {"observe_me": True, "observe_others": False}),
        SessionPeerConfig(observe_me=True, observe_others=False),
    ),
    "get_session_summaries": (
        _json(200, {"id": "s1", "short_summary": None, "long_summary": None}),
        Summaries(id="s1"),
    ),
    "list_conclusions": (_page(CONCLUSION), _page_r(CONCLUSION_R)),
    "list_messages": (_page(MESSAGE), _page_r(MESSAGE_R)),
    "list_peer_sessions": (_page(SESSION), _page_r(SESSION_R)),
    "list_peers": (_page(PEER), _page_r(PEER_R)),
    "list_scope_sessions": (_page(SESSION), _page_r(SESSION_R)),
    "list_scopes": (_page(SCOPE), _page_r(SCOPE_R)),
    "list_session_peers": (_page(PEER), _page_r(PEER_R)),
    "list_sessions": (_page(SESSION), _page_r(SESSION_R)),
    "list_webhooks": (_page(WEBHOOK), _page_r(WEBHOOK_R)),
    "list_workspaces": (_page(WORKSPACE), _page_r(WORKSPACE_R)),
    "probe": (_json(200, {"status": "ok"}), Health(status="ok")),
    "query_conclusions": (_json(200, [CONCLUSION]), (CONCLUSION_R,)),
    "queue_status": (_json(200, QUEUE), QUEUE_R),
    "remove_scope_session": (NO_CONTENT, None),
    "remove_session_peers": (_json(200, SESSION), SESSION_R),
    "schedule_dream": (NO_CONTENT, None),
    "search": (_json(200, [MESSAGE]), (MESSAGE_R,)),
    "search_peer": (_json(200, [MESSAGE]), (MESSAGE_R,)),
    "search_session": (_json(200, [MESSAGE]), (MESSAGE_R,)),
    "server_version": (_json(200, {"info": {"version": "3.0.12"}}), "3.0.12"),
    "set_peer_card": (_json(200, {"peer_card": ["likes tea"]}), ("likes tea",)),
    "set_session_peer_config": (NO_CONTENT, None),
    "set_session_peers": (_json(200, SESSION), SESSION_R),
    "trigger_webhook_test": (NO_CONTENT, None),
    "update_message_metadata": (_json(200, MESSAGE), MESSAGE_R),
    "update_peer": (_json(200, PEER), PEER_R),
    "update_session": (_json(200, SESSION), SESSION_R),
    "update_workspace": (_json(200, WORKSPACE), WORKSPACE_R),
    "upload_file": (_json(201, [MESSAGE]), (MESSAGE_R,)),
}


# -- the cases ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Form:
    """A multipart body, part by part: (name, filename, content type, bytes)."""

    parts: tuple[tuple[str, str | None, str | None, bytes], ...]


@dataclass(frozen=True)
class Case:
    method: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    request: str  # "METHOD /target?query"
    body: object = NO_BODY  # the JSON body, or a Form; NO_BODY: none
    needs: tuple[str, ...] = field(default=())  # companions an optional parameter needs
    label: str = ""  # what the case holds, when its keyword arguments do not say it

    @property
    def id(self) -> str:
        given = self.label or ",".join(self.kwargs) or "base"
        return f"{self.method}[{given}]"


def C(
    method: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    request: str,
    body: object = NO_BODY,
) -> Case:
    return Case(method, args, kwargs, request, body)


PAGING = "page=1&size=50&reverse=false"
FILTER = {"metadata": {"k": "v"}}
MSG = MessageCreate("alice", "hi")
CONC = ConclusionCreate("likes tea", "alice", "bob")
UPLOAD_TEXT = b"line one\r\n"


def _upload(*fields: tuple[str, bytes]) -> Form:
    return Form(
        (
            ("peer_id", None, None, b"alice"),
            *((name, None, None, value) for name, value in fields),
            ("file", "a.txt", "text/plain", UPLOAD_TEXT),
        )
    )


CASES: list[Case] = [
    # workspaces
    C("get_or_create_workspace", (), {}, "POST /v3/workspaces", {"id": WS}),
    C(
        "get_or_create_workspace",
        (),
        {"metadata": {"k": "v"}},
        "POST /v3/workspaces",
        {"id": WS, "metadata": {"k": "v"}},
    ),
    C(
        "get_or_create_workspace",
        (),
        {"configuration": {"c": 1}},
        "POST /v3/workspaces",
        {"id": WS, "configuration": {"c": 1}},
    ),
    C("update_workspace", (), {}, f"PUT {W}", {"metadata": None, "configuration": None}),
    C(
        "update_workspace",
        (),
        {"metadata": {"k": "v"}},
        f"PUT {W}",
        {"metadata": {"k": "v"}, "configuration": None},
    ),
    C(
        "update_workspace",
        (),
        {"configuration": {"c": 1}},
        f"PUT {W}",
        {"metadata": None, "configuration": {"c": 1}},
    ),
    C("delete_workspace", (), {}, f"DELETE {W}"),
    C("list_workspaces", (), {}, f"POST /v3/workspaces/list?{PAGING}", {}),
    C(
        "list_workspaces",
        (),
        {"page": 3},
        "POST /v3/workspaces/list?page=3&size=50&reverse=false",
        {},
    ),
    C(
        "list_workspaces",
        (),
        {"size": 7},
        "POST /v3/workspaces/list?page=1&size=7&reverse=false",
        {},
    ),
    C(
        "list_workspaces",
        (),
        {"reverse": True},
        "POST /v3/workspaces/list?page=1&size=50&reverse=true",
        {},
    ),
    C(
        "list_workspaces",
        (),
        {"filters": FILTER},
        f"POST /v3/workspaces/list?{PAGING}",
        {"filters": FILTER},
    ),
    C(
        "schedule_dream",
        ("alice",),
        {},
        f"POST {W}/schedule_dream",
        {"observer": "alice", "dream_type": "omni"},
    ),
    C(
        "schedule_dream",
        ("alice",),
        {"observed": "bob"},
        f"POST {W}/schedule_dream",
        {"observer": "alice", "observed": "bob", "dream_type": "omni"},
    ),
    C(
        "schedule_dream",
        ("alice",),
        {"dream_type": "card_refresh"},
        f"POST {W}/schedule_dream",
        {"observer": "alice", "dream_type": "card_refresh"},
    ),
    C(
        "schedule_dream",
        ("alice",),
        {"session_id": "s1"},
        f"POST {W}/schedule_dream",
        {"observer": "alice", "dream_type": "omni", "session_id": "s1"},
    ),
    C(
        "schedule_dream",
        ("alice",),
        {"rebuild": True},
        f"POST {W}/schedule_dream",
        {"observer": "alice", "dream_type": "omni", "rebuild": True},
    ),
    # peers
    C("get_or_create_peer", ("alice",), {}, f"POST {W}/peers", {"id": "alice"}),
    C(
        "get_or_create_peer",
        ("alice",),
        {"metadata": {"k": "v"}},
        f"POST {W}/peers",
        {"id": "alice", "metadata": {"k": "v"}},
    ),
    C(
        "get_or_create_peer",
        ("alice",),
        {"configuration": {"observe_me": False}},
        f"POST {W}/peers",
        {"id": "alice", "configuration": {"observe_me": False}},
    ),
    C(
        "update_peer",
        ("alice",),
        {},
        f"PUT {W}/peers/alice",
        {"metadata": None, "configuration": None},
    ),
    C(
        "update_peer",
        ("alice",),
        {"metadata": {"k": "v"}},
        f"PUT {W}/peers/alice",
        {"metadata": {"k": "v"}, "configuration": None},
    ),
    C(
        "update_peer",
        ("alice",),
        {"configuration": {"observe_me": False}},
        f"PUT {W}/peers/alice",
        {"metadata": None, "configuration": {"observe_me": False}},
    ),
    C("list_peers", (), {}, f"POST {W}/peers/list?{PAGING}", {}),
    C("list_peers", (), {"page": 2}, f"POST {W}/peers/list?page=2&size=50&reverse=false", {}),
    C("list_peers", (), {"size": 9}, f"POST {W}/peers/list?page=1&size=9&reverse=false", {}),
    C("list_peers", (), {"reverse": True}, f"POST {W}/peers/list?page=1&size=50&reverse=true", {}),
    C("list_peers", (), {"filters": FILTER}, f"POST {W}/peers/list?{PAGING}", {"filters": FILTER}),
    C("list_peer_sessions", ("alice",), {}, f"POST {W}/peers/alice/sessions?{PAGING}", {}),
    C(
        "list_peer_sessions",
        ("alice",),
        {"page": 2},
        f"POST {W}/peers/alice/sessions?page=2&size=50&reverse=false",
        {},
    ),
    C(
        "list_peer_sessions",
        ("alice",),
        {"size": 5},
        f"POST {W}/peers/alice/sessions?page=1&size=5&reverse=false",
        {},
    ),
    C(
        "list_peer_sessions",
        ("alice",),
        {"reverse": True},
        f"POST {W}/peers/alice/sessions?page=1&size=50&reverse=true",
        {},
    ),
    C(
        "list_peer_sessions",
        ("alice",),
        {"filters": FILTER},
        f"POST {W}/peers/alice/sessions?{PAGING}",
        {"filters": FILTER},
    ),
    C("get_peer_representation", ("alice",), {}, f"POST {W}/peers/alice/representation", {}),
    C(
        "get_peer_representation",
        ("alice",),
        {"target": "bob"},
        f"POST {W}/peers/alice/representation",
        {"target": "bob"},
    ),
    C(
        "get_peer_representation",
        ("alice",),
        {"session_id": "s1"},
        f"POST {W}/peers/alice/representation",
        {"session_id": "s1"},
    ),
    # The session restriction travels as `filters` (PeerRepresentationGet.filters); a wrong
    # key would be ignored by the server and widen the answer.
    C(
        "get_peer_representation",
        ("alice",),
        {"sessions": ["s1", "s2"]},
        f"POST {W}/peers/alice/representation",
        {"filters": {"session_id": {"in": ["s1", "s2"]}}},
    ),
    C(
        "get_peer_representation",
        ("alice",),
        {"scope": "travel"},
        f"POST {W}/peers/alice/representation",
        {"scope": "travel"},
    ),
    C(
        "get_peer_representation",
        ("alice",),
        {"search_query": "tea"},
        f"POST {W}/peers/alice/representation",
        {"search_query": "tea"},
    ),
    C(
        "get_peer_representation",
        ("alice",),
        {"search_top_k": 4},
        f"POST {W}/peers/alice/representation",
        {"search_top_k": 4},
    ),
    C(
        "get_peer_representation",
        ("alice",),
        {"search_max_distance": 0.25},
        f"POST {W}/peers/alice/representation",
        {"search_max_distance": 0.25},
    ),
    C(
        "get_peer_representation",
        ("alice",),
        {"include_most_frequent": False},
        f"POST {W}/peers/alice/representation",
        {"include_most_frequent": False},
    ),
    C(
        "get_peer_representation",
        ("alice",),
        {"max_conclusions": 12},
        f"POST {W}/peers/alice/representation",
        {"max_conclusions": 12},
    ),
    C("get_peer_card", ("alice",), {}, f"GET {W}/peers/alice/card"),
    C("get_peer_card", ("alice",), {"target": "bob"}, f"GET {W}/peers/alice/card?target=bob"),
    C(
        "set_peer_card",
        ("alice", ["likes tea"]),
        {},
        f"PUT {W}/peers/alice/card",
        {"peer_card": ["likes tea"]},
    ),
    C(
        "set_peer_card",
        ("alice", ["likes tea"]),
        {"target": "bob"},
        f"PUT {W}/peers/alice/card?target=bob",
        {"peer_card": ["likes tea"]},
    ),
    C("get_peer_context", ("alice",), {}, f"GET {W}/peers/alice/context"),
    C("get_peer_context", ("alice",), {"target": "bob"}, f"GET {W}/peers/alice/context?target=bob"),
    C(
        "get_peer_context",
        ("alice",),
        {"search_query": "green tea"},
        f"GET {W}/peers/alice/context?search_query=green%20tea",
    ),
    C(
        "get_peer_context",
        ("alice",),
        {"search_top_k": 4},
        f"GET {W}/peers/alice/context?search_top_k=4",
    ),
    C(
        "get_peer_context",
        ("alice",),
        {"search_max_distance": 0.5},
        f"GET {W}/peers/alice/context?search_max_distance=0.5",
    ),
    C(
        "get_peer_context",
        ("alice",),
        {"include_most_frequent": False},
        f"GET {W}/peers/alice/context?include_most_frequent=false",
    ),
    C(
        "get_peer_context",
        ("alice",),
        {"max_conclusions": 12},
        f"GET {W}/peers/alice/context?max_conclusions=12",
    ),
    # sessions
    C("get_or_create_session", ("s1",), {}, f"POST {W}/sessions", {"id": "s1"}),
    C(
        "get_or_create_session",
        ("s1",),
        {"peers": {"alice": SessionPeerConfig(observe_me=False)}},
        f"POST {W}/sessions",
        {"id": "s1", "peers": {"alice": {"observe_me": False, "observe_others": None}}},
    ),
    C(
        "get_or_create_session",
        ("s1",),
        {"metadata": {"k": "v"}},
        f"POST {W}/sessions",
        {"id": "s1", "metadata": {"k": "v"}},
    ),
    C(
        "get_or_create_session",
        ("s1",),
        {"configuration": {"c": 1}},
        f"POST {W}/sessions",
        {"id": "s1", "configuration": {"c": 1}},
    ),
    C(
        "update_session",
        ("s1",),
        {},
        f"PUT {W}/sessions/s1",
        {"metadata": None, "configuration": None},
    ),
    C(
        "update_session",
        ("s1",),
        {"metadata": {"k": "v"}},
        f"PUT {W}/sessions/s1",
        {"metadata": {"k": "v"}, "configuration": None},
    ),
    C(
        "update_session",
        ("s1",),
        {"configuration": {"c": 1}},
        f"PUT {W}/sessions/s1",
        {"metadata": None, "configuration": {"c": 1}},
    ),
    C("delete_session", ("s1",), {}, f"DELETE {W}/sessions/s1"),
    C("list_sessions", (), {}, f"POST {W}/sessions/list?{PAGING}", {}),
    C("list_sessions", (), {"page": 4}, f"POST {W}/sessions/list?page=4&size=50&reverse=false", {}),
    C("list_sessions", (), {"size": 3}, f"POST {W}/sessions/list?page=1&size=3&reverse=false", {}),
    C(
        "list_sessions",
        (),
        {"reverse": True},
        f"POST {W}/sessions/list?page=1&size=50&reverse=true",
        {},
    ),
    C(
        "list_sessions",
        (),
        {"filters": FILTER},
        f"POST {W}/sessions/list?{PAGING}",
        {"filters": FILTER},
    ),
    C("clone_session", ("s1",), {}, f"POST {W}/sessions/s1/clone"),
    C(
        "clone_session",
        ("s1",),
        {"message_id": MID},
        f"POST {W}/sessions/s1/clone?message_id={MID}",
    ),
    C("list_session_peers", ("s1",), {}, f"GET {W}/sessions/s1/peers?page=1&size=50"),
    C("list_session_peers", ("s1",), {"page": 2}, f"GET {W}/sessions/s1/peers?page=2&size=50"),
    C("list_session_peers", ("s1",), {"size": 8}, f"GET {W}/sessions/s1/peers?page=1&size=8"),
    C(
        "add_session_peers",
        ("s1", {"alice": None}),
        {},
        f"POST {W}/sessions/s1/peers",
        {"alice": {"observe_me": None, "observe_others": None}},
    ),
    C(
        "set_session_peers",
        ("s1", {"alice": SessionPeerConfig(observe_others=True)}),
        {},
        f"PUT {W}/sessions/s1/peers",
        {"alice": {"observe_me": None, "observe_others": True}},
    ),
    C(
        "remove_session_peers",
        ("s1", ["alice", "bob"]),
        {},
        f"DELETE {W}/sessions/s1/peers",
        ["alice", "bob"],
    ),
    C("get_session_peer_config", ("s1", "alice"), {}, f"GET {W}/sessions/s1/peers/alice/config"),
    # set_session_peer_config needs one of its two flags: each alone is its case.
    C(
        "set_session_peer_config",
        ("s1", "alice"),
        {"observe_me": False},
        f"PUT {W}/sessions/s1/peers/alice/config",
        {"observe_me": False, "observe_others": None},
    ),
    C(
        "set_session_peer_config",
        ("s1", "alice"),
        {"observe_others": True},
        f"PUT {W}/sessions/s1/peers/alice/config",
        {"observe_me": None, "observe_others": True},
    ),
    C("get_session_context", ("s1",), {}, f"GET {W}/sessions/s1/context?summary=true"),
    C(
        "get_session_context",
        ("s1",),
        {"tokens": 500},
        f"GET {W}/sessions/s1/context?tokens=500&summary=true",
    ),
    C(
        "get_session_context",
        ("s1",),
        {"summary": False},
        f"GET {W}/sessions/s1/context?summary=false",
    ),
    C(
        "get_session_context",
        ("s1",),
        {"peer_target": "alice"},
        f"GET {W}/sessions/s1/context?summary=true&peer_target=alice",
    ),
    Case(
        "get_session_context",
        ("s1",),
        {"peer_target": "alice", "peer_perspective": "bob"},
        f"GET {W}/sessions/s1/context?summary=true&peer_target=alice&peer_perspective=bob",
        needs=("peer_target",),
    ),
    Case(
        "get_session_context",
        ("s1",),
        {"peer_target": "alice", "scope": "travel"},
        f"GET {W}/sessions/s1/context?summary=true&peer_target=alice&scope=travel",
        needs=("peer_target",),
    ),
    Case(
        "get_session_context",
        ("s1",),
        {"peer_target": "alice", "sessions": ["s1", "s2"]},
        f"GET {W}/sessions/s1/context?summary=true&peer_target=alice&sessions=s1&sessions=s2",
        needs=("peer_target",),
    ),
    C(
        "get_session_context",
        ("s1",),
        {"limit_to_session": True},
        f"GET {W}/sessions/s1/context?summary=true&limit_to_session=true",
    ),
    C(
        "get_session_context",
        ("s1",),
        {"search_query": "tea"},
        f"GET {W}/sessions/s1/context?summary=true&search_query=tea",
    ),
    C(
        "get_session_context",
        ("s1",),
        {"search_top_k": 2},
        f"GET {W}/sessions/s1/context?summary=true&search_top_k=2",
    ),
    C(
        "get_session_context",
        ("s1",),
        {"search_max_distance": 0.75},
        f"GET {W}/sessions/s1/context?summary=true&search_max_distance=0.75",
    ),
    C(
        "get_session_context",
        ("s1",),
        {"include_most_frequent": True},
        f"GET {W}/sessions/s1/context?summary=true&include_most_frequent=true",
    ),
    C(
        "get_session_context",
        ("s1",),
        {"max_conclusions": 30},
        f"GET {W}/sessions/s1/context?summary=true&max_conclusions=30",
    ),
    C("get_session_summaries", ("s1",), {}, f"GET {W}/sessions/s1/summaries"),
    # messages
    C(
        "add_messages",
        ("s1", [MSG]),
        {},
        f"POST {W}/sessions/s1/messages",
        {"messages": [{"peer_id": "alice", "content": "hi"}]},
    ),
    # Each optional field of a batch's record alone (MessageCreate, ConclusionCreate).
    *(
        Case(
            "add_messages",
            ("s1", [MessageCreate("alice", "hi", **given)]),
            {},
            f"POST {W}/sessions/s1/messages",
            {"messages": [{"peer_id": "alice", "content": "hi", **sent}]},
            label=f"MessageCreate.{name}",
        )
        for name, given, sent in (
            ("metadata", {"metadata": {"k": "v"}}, {"metadata": {"k": "v"}}),
            (
                "created_at",
                {"created_at": datetime(2026, 11, 30, 12, 0, tzinfo=UTC)},
                {"created_at": "2026-11-30T12:00:00+00:00"},
            ),
            (
                "configuration",
                {"configuration": {"reasoning": {"enabled": False}}},
                {"configuration": {"reasoning": {"enabled": False}}},
            ),
        )
    ),
    C("get_message", ("s1", MID), {}, f"GET {W}/sessions/s1/messages/{MID}"),
    C(
        "update_message_metadata",
        ("s1", MID, {"k": "v"}),
        {},
        f"PUT {W}/sessions/s1/messages/{MID}",
        {"metadata": {"k": "v"}},
    ),
    C("list_messages", ("s1",), {}, f"POST {W}/sessions/s1/messages/list?{PAGING}", {}),
    C(
        "list_messages",
        ("s1",),
        {"page": 2},
        f"POST {W}/sessions/s1/messages/list?page=2&size=50&reverse=false",
        {},
    ),
    C(
        "list_messages",
        ("s1",),
        {"size": 100},
        f"POST {W}/sessions/s1/messages/list?page=1&size=100&reverse=false",
        {},
    ),
    C(
        "list_messages",
        ("s1",),
        {"reverse": True},
        f"POST {W}/sessions/s1/messages/list?page=1&size=50&reverse=true",
        {},
    ),
    C(
        "list_messages",
        ("s1",),
        {"filters": FILTER},
        f"POST {W}/sessions/s1/messages/list?{PAGING}",
        {"filters": FILTER},
    ),
    C(
        "upload_file",
        ("s1", "alice", UPLOAD_TEXT, "a.txt", "text/plain"),
        {},
        f"POST {W}/sessions/s1/messages/upload",
        _upload(),
    ),
    C(
        "upload_file",
        ("s1", "alice", UPLOAD_TEXT, "a.txt", "text/plain"),
        {"metadata": {"k": "v"}},
        f"POST {W}/sessions/s1/messages/upload",
        _upload(("metadata", b'{"k": "v"}')),
    ),
    # A form field's JSON is UTF-8 text, as a JSON body is: not \u escapes.
    Case(
        "upload_file",
        ("s1", "alice", UPLOAD_TEXT, "a.txt", "text/plain"),
        {"metadata": {"k": "café"}},
        f"POST {W}/sessions/s1/messages/upload",
        _upload(("metadata", '{"k": "café"}'.encode())),
        label="metadata,non-ASCII",
    ),
    C(
        "upload_file",
        ("s1", "alice", UPLOAD_TEXT, "a.txt", "text/plain"),
        {"configuration": {"reasoning": {"enabled": False}}},
        f"POST {W}/sessions/s1/messages/upload",
        _upload(("configuration", b'{"reasoning": {"enabled": false}}')),
    ),
    Case(
        "upload_file",
        ("s1", "alice", UPLOAD_TEXT, "a.txt", "text/plain"),
        {"configuration": {"note": "über"}},
        f"POST {W}/sessions/s1/messages/upload",
        _upload(("configuration", '{"note": "über"}'.encode())),
        label="configuration,non-ASCII",
    ),
    C(
        "upload_file",
        ("s1", "alice", UPLOAD_TEXT, "a.txt", "text/plain"),
        {"created_at": "2026-11-30T12:00:00Z"},
        f"POST {W}/sessions/s1/messages/upload",
        _upload(("created_at", b"2026-11-30T12:00:00Z")),
    ),
    # max_bytes is a check before sending: an upload under it goes out unchanged.
    C(
        "upload_file",
        ("s1", "alice", UPLOAD_TEXT, "a.txt", "text/plain"),
        {"max_bytes": len(UPLOAD_TEXT)},
        f"POST {W}/sessions/s1/messages/upload",
        _upload(),
    ),
    # conclusions
    C(
        "create_conclusions",
        ([CONC],),
        {},
        f"POST {W}/conclusions",
        {"conclusions": [{"content": "likes tea", "observer_id": "alice", "observed_id": "bob"}]},
    ),
    Case(
        "create_conclusions",
        ([ConclusionCreate("likes tea", "alice", "bob", session_id="s1")],),
        {},
        f"POST {W}/conclusions",
        {
            "conclusions": [
                {
                    "content": "likes tea",
                    "observer_id": "alice",
                    "observed_id": "bob",
                    "session_id": "s1",
                }
            ]
        },
        label="ConclusionCreate.session_id",
    ),
    C("get_conclusion", (CID,), {}, f"GET {W}/conclusions/{CID}"),
    C("delete_conclusion", (CID,), {}, f"DELETE {W}/conclusions/{CID}"),
    C("list_conclusions", (), {}, f"POST {W}/conclusions/list?{PAGING}", {}),
    C(
        "list_conclusions",
        (),
        {"filters": {"observer_id": "alice"}},
        f"POST {W}/conclusions/list?{PAGING}",
        {"filters": {"observer_id": "alice"}},
    ),
    C(
        "list_conclusions",
        (),
        {"page": 2},
        f"POST {W}/conclusions/list?page=2&size=50&reverse=false",
        {},
    ),
    C(
        "list_conclusions",
        (),
        {"size": 6},
        f"POST {W}/conclusions/list?page=1&size=6&reverse=false",
        {},
    ),
    C(
        "list_conclusions",
        (),
        {"reverse": True},
        f"POST {W}/conclusions/list?page=1&size=50&reverse=true",
        {},
    ),
    C(
        "query_conclusions",
        ("tea", "alice", "bob"),
        {},
        f"POST {W}/conclusions/query",
        {"query": "tea", "filters": {"observer_id": "alice", "observed_id": "bob"}},
    ),
    C(
        "query_conclusions",
        ("tea", "alice", "bob"),
        {"top_k": 3},
        f"POST {W}/conclusions/query",
        {"query": "tea", "filters": {"observer_id": "alice", "observed_id": "bob"}, "top_k": 3},
    ),
    C(
        "query_conclusions",
        ("tea", "alice", "bob"),
        {"distance": 0.5},
        f"POST {W}/conclusions/query",
        {
            "query": "tea",
            "filters": {"observer_id": "alice", "observed_id": "bob"},
            "distance": 0.5,
        },
    ),
    C(
        "query_conclusions",
        ("tea", "alice", "bob"),
        {"filters": {"level": "explicit"}},
        f"POST {W}/conclusions/query",
        {
            "query": "tea",
            "filters": {"level": "explicit", "observer_id": "alice", "observed_id": "bob"},
        },
    ),
    # search
    C("search", ("tea",), {}, f"POST {W}/search", {"query": "tea", "limit": 10}),
    C("search", ("tea",), {"limit": 3}, f"POST {W}/search", {"query": "tea", "limit": 3}),
    C(
        "search",
        ("tea",),
        {"filters": {"peer_id": "alice"}},
        f"POST {W}/search",
        {"query": "tea", "limit": 10, "filters": {"peer_id": "alice"}},
    ),
    C(
        "search_peer",
        ("alice", "tea"),
        {},
        f"POST {W}/peers/alice/search",
        {"query": "tea", "limit": 10},
    ),
    C(
        "search_peer",
        ("alice", "tea"),
        {"limit": 3},
        f"POST {W}/peers/alice/search",
        {"query": "tea", "limit": 3},
    ),
    C(
        "search_peer",
        ("alice", "tea"),
        {"filters": FILTER},
        f"POST {W}/peers/alice/search",
        {"query": "tea", "limit": 10, "filters": FILTER},
    ),
    C(
        "search_session",
        ("s1", "tea"),
        {},
        f"POST {W}/sessions/s1/search",
        {"query": "tea", "limit": 10},
    ),
    C(
        "search_session",
        ("s1", "tea"),
        {"limit": 3},
        f"POST {W}/sessions/s1/search",
        {"query": "tea", "limit": 3},
    ),
    C(
        "search_session",
        ("s1", "tea"),
        {"filters": FILTER},
        f"POST {W}/sessions/s1/search",
        {"query": "tea", "limit": 10, "filters": FILTER},
    ),
    # scopes
    C("get_or_create_scope", ("travel",), {}, f"POST {W}/scopes", {"id": "travel"}),
    C(
        "get_or_create_scope",
        ("travel",),
        {"metadata": {"k": "v"}},
        f"POST {W}/scopes",
        {"id": "travel", "metadata": {"k": "v"}},
    ),
    C("get_scope", ("travel",), {}, f"GET {W}/scopes/travel"),
    C("get_scope_status", ("travel",), {}, f"GET {W}/scopes/travel/status"),
    C("list_scopes", (), {}, f"POST {W}/scopes/list?{PAGING}"),
    C("list_scopes", (), {"page": 2}, f"POST {W}/scopes/list?page=2&size=50&reverse=false"),
    C("list_scopes", (), {"size": 4}, f"POST {W}/scopes/list?page=1&size=4&reverse=false"),
    C("list_scopes", (), {"reverse": True}, f"POST {W}/scopes/list?page=1&size=50&reverse=true"),
    C(
        "add_scope_sessions",
        ("travel", ["s1", "s2"]),
        {},
        f"POST {W}/scopes/travel/sessions",
        {"session_ids": ["s1", "s2"]},
    ),
    C("remove_scope_session", ("travel", "s1"), {}, f"DELETE {W}/scopes/travel/sessions/s1"),
    C("list_scope_sessions", ("travel",), {}, f"POST {W}/scopes/travel/sessions/list?{PAGING}"),
    C(
        "list_scope_sessions",
        ("travel",),
        {"page": 2},
        f"POST {W}/scopes/travel/sessions/list?page=2&size=50&reverse=false",
    ),
    C(
        "list_scope_sessions",
        ("travel",),
        {"size": 4},
        f"POST {W}/scopes/travel/sessions/list?page=1&size=4&reverse=false",
    ),
    C(
        "list_scope_sessions",
        ("travel",),
        {"reverse": True},
        f"POST {W}/scopes/travel/sessions/list?page=1&size=50&reverse=true",
    ),
    # chat: each option alone, for the answer and for the stream (which adds stream: true)
    *(
        C(
            name,
            ("alice", "q"),
            kwargs,
            f"POST {W}/peers/alice/chat",
            {"query": "q", **sent, **more},
        )
        for name, more in (("chat", {}), ("chat_stream", {"stream": True}))
        for kwargs, sent in (
            ({}, {}),
            ({"target": "bob"}, {"target": "bob"}),
            ({"session_id": "s1"}, {"session_id": "s1"}),
            ({"reasoning_level": "high"}, {"reasoning_level": "high"}),
            ({"include_evidence": True}, {"include_evidence": True}),
            (
                {"response_format": {"type": "json_object"}},
                {"response_format": {"type": "json_object"}},
            ),
            ({"filters": {"session_id": "s1"}}, {"filters": {"session_id": "s1"}}),
        )
    ),
    *(
        C(name, ("q",), kwargs, f"POST {W}/chat", {"query": "q", **sent, **more})
        for name, more in (("chat_workspace", {}), ("chat_workspace_stream", {"stream": True}))
        for kwargs, sent in (
            ({}, {}),
            ({"session_id": "s1"}, {"session_id": "s1"}),
            ({"reasoning_level": "minimal"}, {"reasoning_level": "minimal"}),
            ({"include_evidence": True}, {"include_evidence": True}),
            (
                {"response_format": {"type": "json_object"}},
                {"response_format": {"type": "json_object"}},
            ),
        )
    ),
    # webhooks
    C(
        "get_or_create_webhook",
        ("https://example.com/hook",),
        {},
        f"POST {W}/webhooks",
        {"url": "https://example.com/hook"},
    ),
    C("list_webhooks", (), {}, f"GET {W}/webhooks?page=1&size=50"),
    C("list_webhooks", (), {"page": 2}, f"GET {W}/webhooks?page=2&size=50"),
    C("list_webhooks", (), {"size": 5}, f"GET {W}/webhooks?page=1&size=5"),
    C("delete_webhook", ("wh1",), {}, f"DELETE {W}/webhooks/wh1"),
    C("trigger_webhook_test", (), {}, f"GET {W}/webhooks/test"),
    # the server
    C("probe", (), {}, "GET /health"),
    C("server_version", (), {}, "GET /openapi.json"),
    C("queue_status", (), {}, f"GET {W}/queue/status"),
    C("queue_status", (), {"observer_id": "alice"}, f"GET {W}/queue/status?observer_id=alice"),
    C("queue_status", (), {"sender_id": "bob"}, f"GET {W}/queue/status?sender_id=bob"),
    C("queue_status", (), {"session_id": "s1"}, f"GET {W}/queue/status?session_id=s1"),
    # create_key needs one of its three ids: each alone is its case, expires_at with one.
    C("create_key", (), {"workspace_id": WS}, f"POST /v3/keys?workspace_id={WS}"),
    C("create_key", (), {"peer_id": "alice"}, "POST /v3/keys?peer_id=alice"),
    C("create_key", (), {"session_id": "s1"}, "POST /v3/keys?session_id=s1"),
    Case(
        "create_key",
        (),
        {"workspace_id": WS, "expires_at": "2026-12-31T00:00:00Z"},
        f"POST /v3/keys?workspace_id={WS}&expires_at=2026-12-31T00%3A00%3A00Z",
        needs=("workspace_id",),
    ),
]

# Optional parameters with no case where they are the only one given, and why.
ONE_OF = {
    "create_key": "needs one of workspace_id, peer_id, session_id: each alone is a case",
    "set_session_peer_config": "needs one of its two flags: each alone is a case",
}


# -- the run -------------------------------------------------------------------------------
def expected_head(method: str, target: str, port: int, body: object, accept: str) -> bytes:
    """The head roncho must send, written out (a JSON body's length does not depend on
    key order, so Content-Length is exact though the body is compared as JSON)."""
    lines = [f"{method} {target} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
    lines += [f"Accept: {accept}", f"User-Agent: roncho/{roncho.__version__}"]
    if body is not NO_BODY:
        payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        lines += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
    elif method in ("POST", "PUT"):
        lines.append("Content-Length: 0")
    lines.append("Connection: close")
    return "\r\n".join(lines).encode()


def check_form(request: Request, form: Form, port: int, target: str) -> None:
    """An upload: the head with its multipart type, and the body part by part, exactly."""
    content_type = request.headers["content-type"]
    match = re.fullmatch(r"multipart/form-data; boundary=(roncho-[0-9a-f]{40})", content_type)
    assert match, content_type
    boundary = match.group(1).encode()
    body = b""
    for name, filename, part_type, payload in form.parts:
        disposition = b'Content-Disposition: form-data; name="%s"' % name.encode()
        if filename is not None:
            disposition += b'; filename="%s"' % filename.encode()
        if part_type is not None:
            disposition += b"\r\nContent-Type: " + part_type.encode()
        body += b"--" + boundary + b"\r\n" + disposition + b"\r\n\r\n" + payload + b"\r\n"
    body += b"--" + boundary + b"--\r\n"
    assert request.body == body
    head = (
        f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json\r\n"
        f"User-Agent: roncho/{roncho.__version__}\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close"
    ).encode()
    assert request.head == head


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_the_request_each_option_makes(case: Case) -> None:
    answer, expected = ANSWERS[case.method]
    with RawServer([send_raw(answer)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        result = getattr(client, case.method)(*case.args, **case.kwargs)
        if case.method.endswith("_stream"):
            with result as stream:
                result = stream.read_all()
    assert not server.errors
    assert server.connections == 1
    (request,) = server.requests
    method, target = case.request.split(" ", 1)
    if isinstance(case.body, Form):
        check_form(request, case.body, server.port, target)
    else:
        accept = "text/event-stream" if case.method.endswith("_stream") else "application/json"
        assert request.head == expected_head(method, target, server.port, case.body, accept)
        assert request.json == case.body
    assert result == expected


# -- coverage: the clients' signatures -----------------------------------------------------
NOT_OPERATIONS = {
    "close": "closes the client; sends nothing",
    "aclose": "AsyncClient's close; sends nothing",
    "with_options": "a copy of the client with other timeouts; sends nothing",
    "with_workspace": "a copy of the client for another workspace; sends nothing",
    "wait_for_derivation": (
        "a loop of queue_status(session_id=...) reads (whose request is a case here); its "
        "own parameters are client-side (since, grace, interval, gates), held by "
        "tests/unit/test_derivation.py"
    ),
}
NOT_SENT_PARAMETERS = {
    "deadline": "bounds the call on the client (tests/wire/test_timeouts.py); never sent",
}


def _wraps(name: str) -> str | None:
    """The operation an iterator walks: ``iter_<x>`` wraps ``list_<x>``. Its parameters
    are that operation's but ``page`` (the walk owns it), so the operation's cases are
    its cases: test_every_parameter_has_a_case checks the parameters are a subset."""
    return "list_" + name[len("iter_") :] if name.startswith("iter_") else None


def _public(kind: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in inspect.getmembers(kind, callable)
        if not name.startswith("_") and inspect.isfunction(member)
    }


def _parameters(signature: inspect.Signature) -> dict[str, inspect.Parameter]:
    return {name: p for name, p in signature.parameters.items() if name != "self"}


@pytest.mark.blocking_only("reads both clients' signatures itself")
@pytest.mark.parametrize("kind", [roncho.Client, AsyncClient], ids=["Client", "AsyncClient"])
def test_every_parameter_has_a_case(kind: type) -> None:
    """Every parameter of every public method has a wire case of its own: required ones in
    the method's base case, each optional one given alone (or with what it needs)."""
    by_method: dict[str, list[Case]] = {}
    for case in CASES:
        by_method.setdefault(case.method, []).append(case)
    missing: list[str] = []
    for name, signature in _public(kind).items():
        if name in NOT_OPERATIONS:
            continue
        parameters = _parameters(signature)
        operation = _wraps(name)
        if operation is not None:
            if operation not in _public(kind):
                missing.append(f"{name}: walks {operation}, which is no method: name the rule")
                continue
            walked = _parameters(_public(kind)[operation])
            extra = set(parameters) - set(walked) - set(NOT_SENT_PARAMETERS)
            assert not extra, f"{name} has parameters {operation} has not: {extra}"
            continue
        cases = by_method.get(name, [])
        if not cases:
            missing.append(f"{name}: no case at all")
            continue
        required = [n for n, p in parameters.items() if p.default is inspect.Parameter.empty]
        optional = [
            n
            for n, p in parameters.items()
            if p.default is not inspect.Parameter.empty and n not in NOT_SENT_PARAMETERS
        ]
        for case in cases:
            bound = signature.bind(None, *case.args, **case.kwargs)
            given = [n for n in bound.arguments if n in optional]
            assert set(given) - set(case.needs) == set(case.kwargs) - set(case.needs)
            for n in required:
                assert n in bound.arguments
        alone = {
            n
            for case in cases
            for n in case.kwargs
            if n in optional and len(set(case.kwargs) - set(case.needs)) == 1
        }
        if name not in ONE_OF and not any(set(c.kwargs) <= set(c.needs) for c in cases):
            missing.append(f"{name}: no case with only its required parameters")
        missing += [f"{name}({n}=...): no case with it alone" for n in optional if n not in alone]
    assert not missing, "\n".join(missing)


# The records a batch operation sends, by operation: their optional fields are parameters
# too, each held alone by a case of that operation.
BATCHES = {"add_messages": MessageCreate, "create_conclusions": ConclusionCreate}


@pytest.mark.blocking_only("checks the table against the records' signatures")
def test_every_optional_field_of_a_batch_record_has_a_case() -> None:
    missing = []
    for method, record in BATCHES.items():
        optional = [
            name
            for name, p in inspect.signature(record).parameters.items()
            if p.default is not inspect.Parameter.empty
        ]
        alone: set[str] = set()
        for case in CASES:
            if case.method != method:
                continue
            for item in case.args[-1]:
                given = [name for name in optional if getattr(item, name) is not None]
                if len(given) == 1:
                    alone.add(given[0])
        missing += [f"{record.__name__}.{name}" for name in optional if name not in alone]
    assert not missing, f"no case with only this field given: {missing}"


@pytest.mark.blocking_only("reads both clients' signatures itself")
def test_both_clients_have_the_same_parameters() -> None:
    blocking = {n: list(_parameters(s)) for n, s in _public(roncho.Client).items()}
    asyncio_ = {n: list(_parameters(s)) for n, s in _public(AsyncClient).items()}
    assert set(asyncio_) - set(blocking) == {"aclose"}
    assert {n: asyncio_[n] for n in blocking} == blocking


@pytest.mark.blocking_only("checks the table, not a client")
def test_every_case_has_an_answer_and_a_known_method() -> None:
    methods = set(_public(roncho.Client))
    assert {case.method for case in CASES} <= methods
    assert set(ANSWERS) == {case.method for case in CASES}


# -- coverage: the server's request fields -------------------------------------------------
# Fields the server declares that roncho does not send, and why.
NOT_SENT = {
    ("POST /v3/workspaces/{workspace_id}/peers/list", "body kind"): (
        "scope peers are the server's own (scope.<name>); roncho lists the workspace's peers"
    ),
    ("POST /v3/workspaces/{workspace_id}/sessions", "body scopes"): (
        "add_scope_sessions puts a session in a scope, after it exists"
    ),
    ("POST /v3/workspaces/{workspace_id}/peers/{peer_id}/chat", "body scope"): (
        "not offered: chat's scope needs a workspace key and is not held on a real server yet"
    ),
    ("POST /v3/workspaces/{workspace_id}/search", "body scope"): (
        "not offered: search's scope is not held on a real server yet"
    ),
}
# Routes none of whose fields roncho sends, and why.
NOT_SENT_ROUTES = {
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/messages/": (
        "the same handler as .../messages with a trailing slash; add_messages calls the other"
    ),
}
# Fields (and routes) roncho sends that the 3.0.12 source does not declare: a later
# server's, each with the version that added it (docs/reference: honcho-v3.md).
LATER = {
    ("POST /v3/workspaces/{workspace_id}/peers/{peer_id}/chat", "body include_evidence"): "3.2.0",
    ("POST /v3/workspaces/{workspace_id}/chat", "body query"): "3.1.0",
    ("POST /v3/workspaces/{workspace_id}/chat", "body session_id"): "3.1.0",
    ("POST /v3/workspaces/{workspace_id}/chat", "body reasoning_level"): "3.1.0",
    ("POST /v3/workspaces/{workspace_id}/chat", "body response_format"): "3.1.0",
    ("POST /v3/workspaces/{workspace_id}/chat", "body stream"): "3.1.0",
    ("POST /v3/workspaces/{workspace_id}/chat", "body include_evidence"): "3.2.0",
}
# Routes outside /v3 (no request fields) and the 3.2.0 route without any.
NO_FIELDS_KNOWN = {"GET /health", "GET /openapi.json"}


def _server_fields() -> dict[str, set[str]]:
    fields: dict[str, set[str]] = {}
    for line in FIELDS.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            route, where_name = line.split("  ")
            fields.setdefault(route, set()).add(where_name)
    return fields


def _route_of(request: str, routes: list[str]) -> str | None:
    method, target = request.split(" ", 1)
    path = urlsplit(target).path
    for route in routes:
        route_method, template = route.split(" ", 1)
        pattern = re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", re.escape(template))
        if route_method == method and re.fullmatch(pattern, path):
            return route
    return None


def _sent(case: Case) -> set[str]:
    """The request fields a case's expected request carries, as the server names them."""
    names = {
        f"query {name}" for name, _ in parse_qsl(urlsplit(case.request.split(" ", 1)[1]).query)
    }
    if isinstance(case.body, Form):
        names |= {f"{'file' if p[1] else 'form'} {p[0]}" for p in case.body.parts}
    elif (
        isinstance(case.body, dict)
        and case.request.endswith("/peers")
        and "/sessions/" in case.request
    ):
        names.add("body *")  # a session's members: a mapping of peer ids, not named fields
    elif isinstance(case.body, dict):
        names |= {f"body {key}" for key in case.body}
        for key, value in case.body.items():  # a batch: its items' keys
            if isinstance(value, list):
                names |= {
                    f"body {key}[].{k}" for item in value if isinstance(item, dict) for k in item
                }
    elif isinstance(case.body, list):
        names.add("body *")
    return names


LATER_ROUTES = {
    "POST /v3/workspaces/{workspace_id}/chat",
    "GET /v3/workspaces/{workspace_id}/conclusions/{conclusion_id}",
}


@pytest.mark.blocking_only("checks the table against the server's field list")
def test_every_server_field_is_sent_or_left_out_with_why() -> None:
    server = _server_fields()
    declared = [
        line.split("  #")[0]
        for line in ROUTES.read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    routes = sorted(set(declared) | set(server) | LATER_ROUTES)
    sent: dict[str, set[str]] = {}
    for case in CASES:
        route = _route_of(case.request, routes)
        if route is None:
            assert case.request.split("?")[0] in NO_FIELDS_KNOWN, f"{case.id}: no such route"
            continue
        sent.setdefault(route, set()).update(_sent(case))
    never = [
        f"{route}  {name}"
        for route, names in server.items()
        for name in sorted(names)
        if name not in sent.get(route, set())
        and (route, name) not in NOT_SENT
        and route not in NOT_SENT_ROUTES
    ]
    assert not never, "declared by the server, sent by no case:\n" + "\n".join(never)
    unknown = [
        f"{route}  {name}"
        for route, names in sent.items()
        for name in sorted(names)
        if name not in server.get(route, set()) and (route, name) not in LATER
    ]
    assert not unknown, "sent, but the server declares no such field:\n" + "\n".join(unknown)
    stale = [key for key in NOT_SENT if key[1] in sent.get(key[0], set())]
    assert not stale, f"NOT_SENT names fields a case sends: {stale}"


# -- each answer with every optional field present, and absent -----------------------------
SUMMARY = {
    "content": "alice likes tea",
    "message_id": MID,
    "summary_type": "honcho_chat_summary_short",
    "created_at": TS,
    "token_count": 9,
}
SUMMARY_R = Summary(
    content="alice likes tea",
    message_id=MID,
    summary_type="honcho_chat_summary_short",
    created_at=TS,
    token_count=9,
)
SUMMARY_BARE = {k: v for k, v in SUMMARY.items() if k != "created_at"}
SUMMARY_BARE_R = Summary(
    content="alice likes tea",
    message_id=MID,
    summary_type="honcho_chat_summary_short",
    token_count=9,
)
EVIDENCE = {
    "conclusions": [
        {
            "id": CID,
            "content": "alice likes tea",
            "observer_id": "alice",
            "observed_id": "alice",
            "session_id": "s1",
            "level": "explicit",
            "created_at": TS,
            "source_ids": [MID],
        }
    ],
    "messages": [{"id": MID, "session_id": "s1", "peer_id": "alice", "created_at": TS}],
    "tool_calls": [{"tool_name": "search_memory", "tool_input": {"query": "tea"}}],
    "reasoning_trace_id": "rt1",
}
EVIDENCE_R = roncho.Evidence(
    conclusions=(
        roncho.EvidenceConclusion(
            id=CID,
            content="alice likes tea",
            observer_id="alice",
            observed_id="alice",
            session_id="s1",
            level="explicit",
            created_at=TS,
            source_ids=(MID,),
        ),
    ),
    messages=(roncho.EvidenceMessage(id=MID, session_id="s1", peer_id="alice", created_at=TS),),
    tool_calls=({"tool_name": "search_memory", "tool_input": {"query": "tea"}},),
    reasoning_trace_id="rt1",
)


@dataclass(frozen=True)
class Decoding:
    name: str
    call: Callable[[roncho.Client], Any]
    answer: bytes
    expected: object


DECODING = [
    Decoding(
        "message, all present",
        lambda c: c.get_message("s1", MID),
        _json(200, MESSAGE),
        MESSAGE_R,
    ),
    Decoding(
        "message, optional fields absent",
        lambda c: c.get_message("s1", MID),
        _json(200, {k: v for k, v in MESSAGE.items() if k not in ("workspace_id", "token_count")}),
        Message(
            id=MID,
            content="I like green tea",
            peer_id="alice",
            session_id="s1",
            metadata={},
            created_at=TS,
        ),
    ),
    Decoding(
        "conclusion, all present",
        lambda c: c.get_conclusion(CID),
        _json(200, {**CONCLUSION, "session_id": "s1", "source_ids": [MID], "times_derived": 2}),
        Conclusion(
            id=CID,
            content="alice likes green tea",
            observer_id="alice",
            observed_id="alice",
            session_id="s1",
            level="explicit",
            created_at=TS,
            source_ids=(MID,),
            times_derived=2,
        ),
    ),
    Decoding(
        "conclusion, optional fields absent",
        lambda c: c.get_conclusion(CID),
        _json(200, {"id": CID, "content": "x", "observer_id": "alice", "observed_id": "bob"}),
        Conclusion(id=CID, content="x", observer_id="alice", observed_id="bob"),
    ),
    Decoding(
        "peer, optional fields absent",
        lambda c: c.update_peer("alice"),
        _json(200, {"id": "alice"}),
        Peer(id="alice"),
    ),
    Decoding(
        "session, optional fields absent",
        lambda c: c.update_session("s1"),
        _json(200, {"id": "s1"}),
        Session(id="s1"),
    ),
    Decoding(
        "workspace, optional fields absent",
        lambda c: c.update_workspace(),
        _json(200, {"id": WS}),
        Workspace(id=WS),
    ),
    Decoding(
        "scope, optional fields absent",
        lambda c: c.get_scope("travel"),
        _json(200, {"id": "travel"}),
        Scope(id="travel"),
    ),
    Decoding(
        "webhook endpoint, optional fields absent",
        lambda c: c.list_webhooks(),
        _page({"id": "wh1", "url": "https://example.com/hook"}),
        _page_r(WebhookEndpoint(id="wh1", url="https://example.com/hook")),
    ),
    Decoding(
        "peer context, card and representation present",
        lambda c: c.get_peer_context("alice", target="bob"),
        _json(
            200,
            {
                "peer_id": "alice",
                "target_id": "bob",
                "representation": "bob likes tea",
                "peer_card": ["likes tea", "hikes"],
            },
        ),
        PeerContext(
            peer_id="alice",
            target_id="bob",
            representation="bob likes tea",
            peer_card=("likes tea", "hikes"),
        ),
    ),
    Decoding(
        "peer context, card and representation null",
        lambda c: c.get_peer_context("alice"),
        _json(
            200,
            {"peer_id": "alice", "target_id": "alice", "representation": None, "peer_card": None},
        ),
        PeerContext(peer_id="alice", target_id="alice"),
    ),
    Decoding(
        "peer context, card and representation absent",
        lambda c: c.get_peer_context("alice"),
        _json(200, {"peer_id": "alice", "target_id": "alice"}),
        PeerContext(peer_id="alice", target_id="alice"),
    ),
    Decoding(
        "session context, all present",
        lambda c: c.get_session_context("s1"),
        _json(
            200,
            {
                "id": "s1",
                "messages": [MESSAGE],
                "summary": SUMMARY,
                "peer_representation": "alice likes tea",
                "peer_card": ["likes tea"],
            },
        ),
        SessionContext(
            id="s1",
            messages=(MESSAGE_R,),
            summary=SUMMARY_R,
            peer_representation="alice likes tea",
            peer_card=("likes tea",),
        ),
    ),
    Decoding(
        "session context, optional fields absent (a summary without created_at)",
        lambda c: c.get_session_context("s1"),
        _json(200, {"id": "s1", "messages": [], "summary": SUMMARY_BARE}),
        SessionContext(id="s1", summary=SUMMARY_BARE_R),
    ),
    Decoding(
        "summaries, both present",
        lambda c: c.get_session_summaries("s1"),
        _json(200, {"id": "s1", "short_summary": SUMMARY, "long_summary": SUMMARY_BARE}),
        Summaries(id="s1", short=SUMMARY_R, long=SUMMARY_BARE_R),
    ),
    Decoding(
        "summaries, both absent",
        lambda c: c.get_session_summaries("s1"),
        _json(200, {"id": "s1"}),
        Summaries(id="s1"),
    ),
    Decoding(
        "queue status, with sessions",
        lambda c: c.queue_status(),
        _json(200, {**QUEUE, "sessions": {"s1": {**QUEUE, "session_id": "s1"}}}),
        QueueStatus(
            total_work_units=3,
            completed_work_units=1,
            in_progress_work_units=1,
            pending_work_units=1,
            sessions={
                "s1": SessionQueueStatus(
                    session_id="s1",
                    total_work_units=3,
                    completed_work_units=1,
                    in_progress_work_units=1,
                    pending_work_units=1,
                )
            },
        ),
    ),
    Decoding(
        "scope status, a backfill with every field",
        lambda c: c.get_scope_status("travel"),
        _json(
            200,
            {"backfill_status": {"s1": {"state": "completed", "updated_at": TS, "docs_copied": 4}}},
        ),
        ScopeStatus(
            backfill={
                "s1": ScopeBackfill(
                    session_id="s1", state="completed", updated_at=TS, docs_copied=4
                )
            }
        ),
    ),
    Decoding(
        "scope status, no backfill",
        lambda c: c.get_scope_status("travel"),
        _json(200, {}),
        ScopeStatus(),
    ),
    Decoding(
        "chat answer with evidence, every field present",
        lambda c: c.chat("alice", "q", include_evidence=True),
        _json(200, {"content": "yes", "evidence": EVIDENCE}),
        ChatAnswer(content="yes", evidence=EVIDENCE_R),
    ),
    Decoding(
        "chat answer, content null, evidence absent",
        lambda c: c.chat("alice", "q"),
        _json(200, {"content": None}),
        ChatAnswer(content=None),
    ),
    Decoding(
        "chat answer, evidence with every optional field absent",
        lambda c: c.chat("alice", "q", include_evidence=True),
        _json(
            200,
            {
                "content": "yes",
                "evidence": {
                    "conclusions": [{"id": CID, "content": "c"}],
                    "messages": [{"id": MID}],
                },
            },
        ),
        ChatAnswer(
            content="yes",
            evidence=roncho.Evidence(
                conclusions=(roncho.EvidenceConclusion(id=CID, content="c"),),
                messages=(roncho.EvidenceMessage(id=MID),),
            ),
        ),
    ),
    Decoding(
        "chat stream, evidence on the last event",
        lambda c: _read_stream(c.chat_stream("alice", "q", include_evidence=True)),
        stream_head()
        + chunked(
            sse_events(
                {"delta": {"content": "ye"}, "done": False},
                {"delta": {"content": "s"}, "done": False},
                {"done": True, "evidence": EVIDENCE},
            )
        ),
        ChatAnswer(content="yes", evidence=EVIDENCE_R),
    ),
    Decoding(
        "a 202 delete without a message",
        lambda c: c.delete_session("s1"),
        _json(202, {}),
        DeleteAccepted(),
    ),
    Decoding(
        "session peer config, both flags absent",
        lambda c: c.get_session_peer_config("s1", "alice"),
        _json(200, {}),
        SessionPeerConfig(),
    ),
    Decoding(
        "peer card null",
        lambda c: c.get_peer_card("alice"),
        _json(200, {"peer_card": None}),
        None,
    ),
    Decoding(
        "peer card absent",
        lambda c: c.get_peer_card("alice"),
        _json(200, {}),
        None,
    ),
    Decoding(
        "server version absent",
        lambda c: c.server_version(),
        _json(200, {"info": {}}),
        None,
    ),
]


def _read_stream(stream: Any) -> ChatAnswer:
    with stream:
        return stream.read_all()  # type: ignore[no-any-return]


@pytest.mark.parametrize("case", DECODING, ids=[case.name for case in DECODING])
def test_each_answer_decodes_with_its_optional_fields(case: Decoding) -> None:
    with RawServer([send_raw(case.answer)]) as server:
        result = case.call(roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT))
    assert not server.errors
    assert result == case.expected


def test_the_same_upload_sends_the_same_bytes() -> None:
    """upload_file promises the same bytes for the same upload (roncho/_multipart.py, the
    CHANGELOG): two uploads, head and body, are byte for byte one request; a random
    boundary would differ."""
    answer, expected = ANSWERS["upload_file"]
    args = ("s1", "alice", UPLOAD_TEXT, "a.txt", "text/plain")
    with RawServer([send_raw(answer), send_raw(answer)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        results = [client.upload_file(*args, metadata={"k": "v"}) for _ in range(2)]
    assert not server.errors
    assert results == [expected, expected]
    first, second = server.requests
    assert first.raw == second.raw
    assert first.head.startswith(f"POST {W}/sessions/s1/messages/upload HTTP/1.1\r\n".encode())
