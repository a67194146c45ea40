"""Routing, authorization and the endpoint handlers of the emulator.

`App.dispatch(request)` is the whole server behind the sockets: it matches the route the way
Starlette does (first full match wins; a path match with another method is 405; otherwise
404), checks the key when auth is on (reference §2), then runs the handler. Handlers hold the
store lock while they read or change state and never sleep while holding it.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any, Literal
from urllib.parse import parse_qs

from . import _auth, _filters, _search
from ._common import (
    ID_PATTERN,
    ApiError,
    JsonDict,
    error_item,
    estimate_tokens,
    iso,
    nanoid,
    not_found,
    parse_datetime,
    utcnow,
    validation_error,
)
from ._deriver import Deriver
from ._multipart import FilePart, parse_form
from ._options import Options
from ._state import (
    Conclusion,
    Membership,
    Message,
    Peer,
    Scope,
    Session,
    Store,
    Workspace,
    conclusion_json,
    conclusion_row,
    message_json,
    message_row,
    peer_json,
    peer_row,
    scope_json,
    session_json,
    session_row,
    workspace_json,
    workspace_row,
)
from ._validate import (
    body_object,
    get_bool,
    get_dict,
    get_float,
    get_id,
    get_int,
    get_list,
    get_literal,
    get_metadata,
    get_str,
    parse_json_body,
    query_bool,
    query_float,
    query_int,
    session_peer_config,
)

Access = Literal["public", "admin", "self", "workspace", "peer", "member_read", "own_config"]

# Reference O4 / O8: batch limits and content sizes.
MAX_BATCH = 100
MAX_MESSAGE_CHARS = 25000
MAX_CONCLUSION_CHARS = 65535
MAX_QUERY_CHARS = 10000
# Reference O3a: SESSION_OBSERVERS_LIMIT.
SESSION_OBSERVERS_LIMIT = 10
REASONING_LEVELS = ("minimal", "low", "medium", "high", "max")
DREAM_TYPES = ("omni", "card_refresh")
# 3.0.12 `split_text_into_chunks` default: an uploaded file becomes messages of this size.
MAX_UPLOAD_CHUNK = 49500
# How many words each streamed chat piece carries.
WORDS_PER_PIECE = 4


def openapi_stub(version: str) -> JsonDict:
    """`/openapi.json` with only `info`: the imitated version, marked as the emulator's."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "Honcho API (roncho emulator)", "version": f"{version}-emulator"},
        "paths": {},
    }


CONCLUSIONS_QUERY_DETAIL = (
    "observer and observed must be specified for semantic search. Pass them inside the "
    "'filters' object, e.g. "
    '{"query": "...", "filters": {"observer": "alice", "observed": "bob"}}. '
    "Both 'observer'/'observer_id' and 'observed'/'observed_id' are accepted."
)


@dataclass(frozen=True, slots=True)
class Request:
    """A parsed request as the app sees it (path already percent-decoded, reference §1.2)."""

    method: str
    path: str
    query: Mapping[str, str]
    headers: Mapping[str, str]
    body: bytes
    # The query string as sent, for parameters that may repeat (`sessions=a&sessions=b`).
    raw_query: str = ""


@dataclass(slots=True)
class Response:
    """What to send: a JSON or empty body, or (when `events` is set) an SSE stream."""

    status: int
    body: bytes = b""
    content_type: str | None = "application/json"
    events: list[bytes] | None = None
    event_delay: float = 0.0


def json_response(status: int, payload: object) -> Response:
    # FastAPI's JSONResponse: compact separators, non-ASCII kept.
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return Response(status, text.encode("utf-8"))


def error_response(error: ApiError) -> Response:
    return json_response(error.status, {"detail": error.detail})


@dataclass(slots=True)
class Ctx:
    """One request in a handler: path params, query, body and the caller's claims."""

    request: Request
    params: dict[str, str]
    claims: _auth.Claims
    _body: object = field(default=None)
    _parsed: bool = False

    @property
    def w(self) -> str:
        return self.params["w"]

    def json(self) -> object:
        if not self._parsed:
            self._body = parse_json_body(self.request.body)
            self._parsed = True
        return self._body

    def body(self, *, required: bool = True) -> JsonDict:
        return body_object(self.json(), required=required)


Handler = Callable[["App", Ctx], Response]


@dataclass(frozen=True, slots=True)
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler
    access: Access


def _compile(template: str) -> re.Pattern[str]:
    regex = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template)
    return re.compile(f"^{regex}$")


def _page(query: Mapping[str, str], items: list[JsonDict]) -> JsonDict:
    """fastapi-pagination's Page: `{items,total,page,size,pages}` (reference §1.5)."""
    page = query_int(query, "page", 1, ge=1, le=None)
    size = query_int(query, "size", 50, ge=1, le=100)
    total = len(items)
    start = (page - 1) * size
    return {
        "items": items[start : start + size],
        "total": total,
        "page": page,
        "size": size,
        "pages": math.ceil(total / size) if total else 0,
    }


def _ordered(
    query: Mapping[str, str], items: list[Any], *, newest_first: bool = False
) -> list[Any]:
    reverse = query_bool(query, "reverse", False)
    return list(reversed(items)) if reverse != newest_first else list(items)


def _peer_missing(peer: str, w: str) -> ApiError:
    return ApiError(404, f"Peer {peer} not found in workspace {w}")


def _session_missing(session: str, w: str) -> ApiError:
    return ApiError(404, f"Session {session} not found in workspace {w}")


def _check_configuration(config: JsonDict | None, loc: list[str | int]) -> JsonDict | None:
    """Light check of a Workspace/SessionConfiguration: `reasoning` must be an object."""
    if config is None:
        return None
    reasoning = config.get("reasoning")
    if reasoning is not None:
        if not isinstance(reasoning, dict):
            raise validation_error(
                "model_type",
                [*loc, "configuration", "reasoning"],
                "Input should be a valid dictionary or instance of ReasoningConfiguration",
                reasoning,
            )
        get_bool(reasoning, "enabled", [*loc, "configuration", "reasoning"], None)
    return config


def _filters_of(body: JsonDict) -> Any:
    filters = body.get("filters")
    if filters is not None and not isinstance(filters, dict):
        raise validation_error(
            "dict_type", ["body", "filters"], "Input should be a valid dictionary", filters
        )
    return filters


class App:
    """The emulated server: state, deriver and routes. Thread-safe."""

    def __init__(self, options: Options, secret: bytes) -> None:
        self.options = options
        self.secret = secret
        self.store = Store()
        self.deriver = Deriver(self.store, options)
        self.routes: list[Route] = []
        # How a handler waits; the server swaps in its close event so close() cuts it short.
        self.wait: Callable[[float], object] = time.sleep
        self._register()

    # ---- routing ----

    def _add(self, method: str, template: str, handler: Handler, access: Access) -> None:
        self.routes.append(Route(method, _compile(template), handler, access))

    def _register(self) -> None:
        w = "/v3/workspaces/{w}"
        s = w + "/sessions/{s}"
        p = w + "/peers/{p}"
        add = self._add
        add("GET", "/health", App.health, "public")
        add("GET", "/openapi.json", App.openapi, "public")
        add("POST", "/v3/keys", App.create_key, "admin")
        add("POST", "/v3/workspaces", App.create_workspace, "self")
        add("POST", "/v3/workspaces/list", App.list_workspaces, "admin")
        add("PUT", w, App.update_workspace, "workspace")
        add("DELETE", w, App.delete_workspace, "workspace")
        add("POST", w + "/search", App.search_workspace, "workspace")
        if self.options.serves_workspace_chat:
            add("POST", w + "/chat", App.workspace_chat, "workspace")
        add("GET", w + "/queue/status", App.queue_status, "workspace")
        add("POST", w + "/peers", App.create_peer, "self")
        add("POST", w + "/peers/list", App.list_peers, "workspace")
        add("PUT", p, App.update_peer, "peer")
        add("POST", p + "/sessions", App.peer_sessions, "peer")
        add("POST", p + "/search", App.search_peer, "peer")
        add("POST", p + "/chat", App.peer_chat, "peer")
        add("GET", p + "/context", App.peer_context, "peer")
        add("POST", p + "/representation", App.peer_representation, "peer")
        add("GET", p + "/card", App.get_card, "peer")
        add("PUT", p + "/card", App.put_card, "peer")
        add("POST", w + "/sessions", App.create_session, "self")
        add("POST", w + "/sessions/list", App.list_sessions, "workspace")
        add("PUT", s, App.update_session, "workspace")
        add("DELETE", s, App.delete_session, "workspace")
        add("POST", s + "/peers", App.add_session_peers, "workspace")
        add("PUT", s + "/peers", App.set_session_peers, "workspace")
        add("DELETE", s + "/peers", App.remove_session_peers, "workspace")
        add("GET", s + "/peers", App.list_session_peers, "member_read")
        add("GET", s + "/peers/{p}/config", App.get_peer_config, "own_config")
        add("PUT", s + "/peers/{p}/config", App.put_peer_config, "workspace")
        add("POST", s + "/search", App.search_session, "member_read")
        add("GET", s + "/context", App.session_context, "member_read")
        add("GET", s + "/summaries", App.session_summaries, "member_read")
        add("POST", s + "/messages", App.create_messages, "workspace")
        add("POST", s + "/messages/", App.create_messages, "workspace")
        add("POST", s + "/messages/list", App.list_messages, "member_read")
        add("POST", s + "/messages/upload", App.upload_messages, "workspace")
        add("POST", s + "/clone", App.clone_session, "workspace")
        add("POST", w + "/schedule_dream", App.schedule_dream, "workspace")
        add("POST", w + "/scopes", App.create_scope, "workspace")
        add("POST", w + "/scopes/list", App.list_scopes, "workspace")
        add("GET", w + "/scopes/{sc}", App.get_scope, "workspace")
        add("POST", w + "/scopes/{sc}/sessions", App.add_scope_sessions, "workspace")
        add("DELETE", w + "/scopes/{sc}/sessions/{s}", App.remove_scope_session, "workspace")
        add("POST", w + "/scopes/{sc}/sessions/list", App.list_scope_sessions, "workspace")
        add("GET", w + "/scopes/{sc}/status", App.scope_status, "workspace")
        add("GET", s + "/messages/{m}", App.get_message, "member_read")
        add("PUT", s + "/messages/{m}", App.update_message, "workspace")
        add("POST", w + "/conclusions", App.create_conclusions, "workspace")
        add("POST", w + "/conclusions/list", App.list_conclusions, "workspace")
        add("POST", w + "/conclusions/query", App.query_conclusions, "workspace")
        add("DELETE", w + "/conclusions/{c}", App.delete_conclusion, "workspace")

    def dispatch(self, request: Request) -> Response:
        """Answer one request (never raises for API errors)."""
        try:
            return self._dispatch(request)
        except ApiError as error:
            return error_response(error)

    def _dispatch(self, request: Request) -> Response:
        path_matched = False
        # Starlette serves HEAD wherever it serves GET.
        method = "GET" if request.method == "HEAD" else request.method
        for route in self.routes:
            match = route.pattern.match(request.path)
            if match is None:
                continue
            if route.method != method:
                path_matched = True
                continue
            params = match.groupdict()
            claims = self._authorize(route, params, request)
            return route.handler(self, Ctx(request, params, claims))
        if path_matched:
            raise ApiError(405, "Method Not Allowed")
        raise not_found()

    def _authorize(self, route: Route, params: Mapping[str, str], request: Request) -> _auth.Claims:
        if route.access == "public" or not self.options.auth:
            return _auth.ADMIN
        header = next((v for k, v in request.headers.items() if k.lower() == "authorization"), None)
        claims = _auth.decode(self.secret, _auth.bearer_token(header))
        if claims.admin:
            return claims
        if route.access == "admin":
            raise ApiError(401, _auth.ADMIN_ONLY)
        denied = ApiError(401, _auth.NOT_PERMITTED)
        if "w" in params and claims.workspace != params["w"]:
            raise denied
        if route.access == "self":
            return claims  # the handler compares body ids with the claims
        if claims.session is not None:
            if params.get("s") != claims.session:
                raise denied
            return claims
        if claims.peer is not None:
            if route.access == "peer" and params.get("p") == claims.peer:
                return claims
            if route.access in ("member_read", "own_config") and self._is_member(
                params["w"], params["s"], claims.peer
            ):
                if route.access == "own_config" and params.get("p") != claims.peer:
                    raise denied
                return claims
            raise denied
        return claims

    def _is_member(self, w: str, s: str, peer: str) -> bool:
        with self.store.lock:
            ws = self.store.workspaces.get(w)
            session = ws.sessions.get(s) if ws else None
            if session is None or not session.is_active:
                return False
            member = session.members.get(peer)
            return member is not None and member.active

    # ---- state helpers (call with the lock held) ----

    def _ws(self, w: str) -> Workspace | None:
        return self.store.workspaces.get(w)

    def _ws_or_create(self, w: str) -> Workspace:
        ws = self.store.workspaces.get(w)
        if ws is None:
            ws = Workspace(id=w, created_at=utcnow())
            self.store.workspaces[w] = ws
        return ws

    def _peer_or_create(self, ws: Workspace, name: str) -> tuple[Peer, bool]:
        peer = ws.peers.get(name)
        if peer is not None:
            return peer, False
        if not ID_PATTERN.match(name):
            raise ApiError(422, f"Invalid peer name '{name}': must match pattern ^[a-zA-Z0-9_-]+$")
        peer = Peer(id=name, workspace_id=ws.id, created_at=utcnow())
        ws.peers[name] = peer
        return peer, True

    def _active_session(self, ws: Workspace, name: str) -> Session:
        session = ws.sessions.get(name)
        if session is None or not session.is_active:
            raise _session_missing(name, ws.id)
        return session

    def _session_or_create(self, ws: Workspace, name: str) -> tuple[Session, bool]:
        session = ws.sessions.get(name)
        if session is not None:
            if not session.is_active:
                raise _session_missing(name, ws.id)
            return session, False
        session = Session(id=name, workspace_id=ws.id, created_at=utcnow())
        ws.sessions[name] = session
        return session, True

    def _upsert_members(
        self,
        ws: Workspace,
        session: Session,
        peers: Mapping[str, tuple[bool | None, bool | None]],
        *,
        keep_active_config: bool = True,
    ) -> None:
        """Reference O3a peers-map rules; 400 when observers would exceed the limit."""
        for name in peers:
            self._peer_or_create(ws, name)
        proposed = dict(session.members)
        for name, (observe_me, observe_others) in peers.items():
            current = proposed.get(name)
            if current is not None and current.active and keep_active_config:
                continue
            proposed[name] = Membership(observe_me, observe_others, True)
        observers = sum(1 for m in proposed.values() if m.active and m.observe_others)
        if observers > SESSION_OBSERVERS_LIMIT:
            raise ApiError(
                400,
                f"Cannot create session {session.id} with {observers} observers. Maximum "
                f"allowed is {SESSION_OBSERVERS_LIMIT} observers per session. Observers are "
                "peers with 'observe_others' set to true.",
            )
        session.members = proposed

    def _check_member_access(self, ctx: Ctx, ws: Workspace | None, session_name: str) -> None:
        """A peer key may only chat about sessions it is an active member of (reference §2)."""
        peer = ctx.claims.peer
        if peer is None or ctx.claims.admin:
            return
        session = ws.sessions.get(session_name) if ws else None
        member = session.members.get(peer) if session else None
        if member is None or not member.active:
            raise ApiError(401, _auth.NOT_PERMITTED)

    def _conclusion_json(self, conclusion: Conclusion) -> JsonDict:
        return conclusion_json(conclusion, source_ids=self.options.profile.conclusion_source_ids)

    # ---- health, openapi, keys ----

    def health(self, ctx: Ctx) -> Response:
        return json_response(200, {"status": "ok"})

    def openapi(self, ctx: Ctx) -> Response:
        return json_response(200, openapi_stub(self.options.version))

    def create_key(self, ctx: Ctx) -> Response:
        if not self.options.auth:
            raise ApiError(405, "Feature is disabled")
        query = ctx.request.query
        workspace = query.get("workspace_id") or None
        peer = query.get("peer_id") or None
        session = query.get("session_id") or None
        expires = query.get("expires_at") or None
        if not (workspace or peer or session):
            raise ApiError(
                422, "At least one of workspace_id, peer_id, or session_id must be provided"
            )
        if (peer or session) and not workspace:
            raise ApiError(422, "workspace_id is required when scoping a key to a peer or session")
        if expires is not None:
            moment = parse_datetime(expires)
            if moment is None:
                raise validation_error(
                    "datetime_from_date_parsing",
                    ["query", "expires_at"],
                    "Input should be a valid datetime or date",
                    expires,
                )
            expires = iso(moment)
        key = _auth.mint(
            self.secret, workspace=workspace, peer=peer, session=session, expires_at=expires
        )
        return json_response(200, {"key": key})

    # ---- workspaces (O1, O7) ----

    def create_workspace(self, ctx: Ctx) -> Response:
        body = ctx.body()
        name = get_id(body, ["body"])
        metadata = get_metadata(body, ["body"])
        configuration = _check_configuration(get_dict(body, "configuration", ["body"]), ["body"])
        if not ctx.claims.admin and ctx.claims.workspace != name:
            raise ApiError(401, _auth.NOT_PERMITTED)
        with self.store.lock:
            ws = self.store.workspaces.get(name)
            if ws is not None:
                return json_response(200, workspace_json(ws))
            ws = Workspace(
                id=name,
                created_at=utcnow(),
                metadata=metadata or {},
                configuration=configuration or {},
            )
            self.store.workspaces[name] = ws
            return json_response(201, workspace_json(ws))

    def list_workspaces(self, ctx: Ctx) -> Response:
        body = ctx.body(required=False)
        match = _filters.compile_filter(_filters_of(body), _filters.WORKSPACE)
        with self.store.lock:
            items = [
                workspace_json(ws)
                for ws in self.store.workspaces.values()
                if match(workspace_row(ws))
            ]
        return json_response(200, _page(ctx.request.query, _ordered(ctx.request.query, items)))

    def update_workspace(self, ctx: Ctx) -> Response:
        body = ctx.body()
        metadata = get_metadata(body, ["body"])
        configuration = _check_configuration(get_dict(body, "configuration", ["body"]), ["body"])
        with self.store.lock:
            ws = self._ws_or_create(ctx.w)
            if metadata is not None:
                ws.metadata = metadata
            if configuration is not None:
                ws.configuration = {**ws.configuration, **configuration}
            return json_response(200, workspace_json(ws))

    def delete_workspace(self, ctx: Ctx) -> Response:
        with self.store.lock:
            ws = self._ws(ctx.w)
            if ws is None:
                raise ApiError(404, f"Workspace {ctx.w} not found")
            if not ws.deleting:
                if any(session.is_active for session in ws.sessions.values()):
                    raise ApiError(
                        409,
                        f"Cannot delete workspace '{ctx.w}': active session(s) remain. "
                        "Delete all sessions first.",
                    )
                ws.deleting = True
                self.deriver.schedule(self.options.purge_delay, lambda: self._purge_workspace(ws))
        return json_response(202, {"message": "Workspace deletion accepted"})

    def _purge_workspace(self, ws: Workspace) -> None:
        if self.store.workspaces.get(ws.id) is ws:
            del self.store.workspaces[ws.id]

    # ---- peers (O2) ----

    def create_peer(self, ctx: Ctx) -> Response:
        body = ctx.body()
        name = get_id(body, ["body"])
        metadata = get_metadata(body, ["body"])
        configuration = get_dict(body, "configuration", ["body"])
        if ctx.claims.peer is not None and ctx.claims.peer != name:
            raise ApiError(401, _auth.NOT_PERMITTED)
        with self.store.lock:
            ws = self._ws_or_create(ctx.w)
            peer, created = self._peer_or_create(ws, name)
            if metadata is not None:
                peer.metadata = metadata
            if configuration is not None:
                peer.configuration = configuration
            return json_response(201 if created else 200, peer_json(peer))

    def list_peers(self, ctx: Ctx) -> Response:
        body = ctx.body(required=False)
        match = _filters.compile_filter(_filters_of(body), _filters.PEER)
        with self.store.lock:
            ws = self._ws(ctx.w)
            peers = list(ws.peers.values()) if ws else []
            items = [peer_json(peer) for peer in peers if match(peer_row(peer))]
        return json_response(200, _page(ctx.request.query, _ordered(ctx.request.query, items)))

    def update_peer(self, ctx: Ctx) -> Response:
        body = ctx.body()
        metadata = get_metadata(body, ["body"])
        configuration = get_dict(body, "configuration", ["body"])
        with self.store.lock:
            ws = self._ws_or_create(ctx.w)
            peer, _ = self._peer_or_create(ws, ctx.params["p"])
            if metadata is not None:
                peer.metadata = metadata
            if configuration is not None:
                peer.configuration = configuration
            return json_response(200, peer_json(peer))

    def peer_sessions(self, ctx: Ctx) -> Response:
        body = ctx.body(required=False)
        match = _filters.compile_filter(_filters_of(body), _filters.SESSION)
        with self.store.lock:
            ws = self._ws(ctx.w)
            sessions = list(ws.sessions.values()) if ws else []
            items = [
                session_json(session)
                for session in sessions
                if ctx.params["p"] in session.members and match(session_row(session))
            ]
        return json_response(200, _page(ctx.request.query, _ordered(ctx.request.query, items)))

    def get_card(self, ctx: Ctx) -> Response:
        target = ctx.request.query.get("target") or ctx.params["p"]
        with self.store.lock:
            ws = self._ws(ctx.w)
            if ws is None or ctx.params["p"] not in ws.peers:
                raise _peer_missing(ctx.params["p"], ctx.w)
            card = ws.cards.get((ctx.params["p"], target))
            return json_response(200, {"peer_card": list(card) if card is not None else None})

    def put_card(self, ctx: Ctx) -> Response:
        body = ctx.body()
        card = get_list(body, "peer_card", ["body"], required=True) or []
        if not all(isinstance(line, str) for line in card):
            raise validation_error(
                "string_type", ["body", "peer_card", 0], "Input should be a valid string", card
            )
        target = ctx.request.query.get("target") or ctx.params["p"]
        with self.store.lock:
            ws = self._ws(ctx.w)
            if ws is None or ctx.params["p"] not in ws.peers:
                raise _peer_missing(ctx.params["p"], ctx.w)
            if target not in ws.peers:
                raise _peer_missing(target, ctx.w)
            ws.cards[(ctx.params["p"], target)] = list(card)
        return json_response(200, {"peer_card": list(card)})

    def _representation(
        self,
        ws: Workspace,
        observer: str,
        observed: str,
        limit: int,
        sessions: set[str] | None,
        search: Search | None = None,
    ) -> str:
        """The observer's conclusions about `observed` (within the allowlist) as the server's
        markdown: up to `limit`, the most recent ones; with a search query, its best keyword
        matches first (`top_k`, default a third of `limit`), as the server's semantic part."""
        candidates = [
            c
            for c in ws.conclusions
            if not c.deleted
            and c.observer_id == observer
            and c.observed_id == observed
            and (sessions is None or c.session_id in sessions)
        ]
        chosen: list[Conclusion] = []
        if search is not None and search.query:
            top_k = search.top_k if search.top_k is not None else max(1, limit // 3)
            chosen = _search.rank(search.query, candidates, lambda c: c.content)[
                : min(top_k, limit)
            ]
        for conclusion in reversed(candidates):
            if len(chosen) >= limit:
                break
            if conclusion not in chosen:
                chosen.append(conclusion)
        chosen.sort(key=lambda c: c.seq)
        return representation_markdown(chosen)

    def peer_context(self, ctx: Ctx) -> Response:
        query = ctx.request.query
        peer = ctx.params["p"]
        target = query.get("target") or peer
        limit = query_int(query, "max_conclusions", 100, ge=1, le=100)
        search = Search(query.get("search_query") or None, _query_top_k(query))
        query_float(query, "search_max_distance", ge=0.0, le=1.0)
        query_bool(query, "include_most_frequent", True)
        with self.store.lock:
            ws = self._ws(ctx.w)
            # Seen on 3.0.12: a missing path peer is named (not the reference's "Peer not
            # found"); a missing target is no error, only an empty representation.
            if ws is None or peer not in ws.peers:
                raise _peer_missing(peer, ctx.w)
            text = self._representation(ws, peer, target, limit, None, search)
            card = ws.cards.get((peer, target))
            return json_response(
                200,
                {
                    "peer_id": peer,
                    "target_id": target,
                    "representation": text,
                    "peer_card": list(card) if card is not None else None,
                },
            )

    def peer_representation(self, ctx: Ctx) -> Response:
        body = ctx.body(required=False)
        session_id = get_str(body, "session_id", ["body"])
        target = get_str(body, "target", ["body"])
        limit = get_int(body, "max_conclusions", ["body"], 25, ge=1, le=100) or 25
        top_k = get_int(body, "search_top_k", ["body"], None, ge=1, le=100)
        search = Search(get_str(body, "search_query", ["body"]), top_k)
        get_float(body, "search_max_distance", ["body"], ge=0.0, le=1.0)
        get_bool(body, "include_most_frequent", ["body"], None)
        allow = _chat_sessions(body.get("filters"), session_id)
        peer = ctx.params["p"]
        with self.store.lock:
            ws = self._ws(ctx.w)
            # Seen on 3.0.12: a missing peer, target or session is not an error, only an
            # empty representation.
            if ws is None:
                return json_response(200, {"representation": ""})
            sessions = {session_id} if session_id else allow
            text = self._representation(ws, peer, target or peer, limit, sessions, search)
        return json_response(200, {"representation": text})

    # ---- sessions (O3, O6) ----

    def create_session(self, ctx: Ctx) -> Response:
        body = ctx.body()
        name = get_id(body, ["body"])
        metadata = get_metadata(body, ["body"])
        configuration = _check_configuration(get_dict(body, "configuration", ["body"]), ["body"])
        peers_key = "peers" if "peers" in body or "peer_names" not in body else "peer_names"
        raw_peers = get_dict(body, peers_key, ["body"])
        peers = {
            key: session_peer_config(value, ["body", peers_key, key])
            for key, value in (raw_peers or {}).items()
        }
        if ctx.claims.session is not None and ctx.claims.session != name:
            raise ApiError(401, _auth.NOT_PERMITTED)
        with self.store.lock:
            ws = self._ws_or_create(ctx.w)
            existing = ws.sessions.get(name)
            if existing is not None and not existing.is_active:
                raise _session_missing(name, ctx.w)
            session = existing or Session(id=name, workspace_id=ws.id, created_at=utcnow())
            self._upsert_members(ws, session, peers)
            if existing is None:
                session.metadata = metadata or {}
                session.configuration = configuration or {}
                ws.sessions[name] = session
                return json_response(201, session_json(session))
            if metadata is not None:
                session.metadata = metadata
            if configuration is not None:
                session.configuration = {**session.configuration, **configuration}
            return json_response(200, session_json(session))

    def list_sessions(self, ctx: Ctx) -> Response:
        body = ctx.body(required=False)
        match = _filters.compile_filter(_filters_of(body), _filters.SESSION)
        with self.store.lock:
            ws = self._ws(ctx.w)
            sessions = list(ws.sessions.values()) if ws else []
            items = [
                session_json(session)
                for session in sessions
                if session.is_active and match(session_row(session))
            ]
        return json_response(200, _page(ctx.request.query, _ordered(ctx.request.query, items)))

    def update_session(self, ctx: Ctx) -> Response:
        body = ctx.body()
        metadata = get_metadata(body, ["body"])
        configuration = _check_configuration(get_dict(body, "configuration", ["body"]), ["body"])
        with self.store.lock:
            ws = self._ws_or_create(ctx.w)
            session, _ = self._session_or_create(ws, ctx.params["s"])
            if metadata is not None:
                session.metadata = metadata
            if configuration is not None:
                session.configuration = {**session.configuration, **configuration}
            return json_response(200, session_json(session))

    def delete_session(self, ctx: Ctx) -> Response:
        with self.store.lock:
            ws = self._ws(ctx.w)
            if ws is None:
                raise _session_missing(ctx.params["s"], ctx.w)
            session = self._active_session(ws, ctx.params["s"])
            session.is_active = False
            self.deriver.schedule(
                self.options.purge_delay, lambda: self._purge_session(ws, session)
            )
        return json_response(202, {"message": "Session deleted successfully"})

    def _purge_session(self, ws: Workspace, session: Session) -> None:
        """Reference §4.1: hard-delete messages, the session's conclusions, queue, the row."""
        name = session.id
        ws.messages = [m for m in ws.messages if m.session_id != name]
        ws.conclusions = [c for c in ws.conclusions if c.session_id != name]
        ws.queue = [q for q in ws.queue if q.session_internal_id != session.internal_id]
        ws.open_items = [q for q in ws.open_items if q.session_internal_id != session.internal_id]
        if ws.sessions.get(name) is session:
            del ws.sessions[name]

    def _peer_map(self, ctx: Ctx) -> dict[str, tuple[bool | None, bool | None]]:
        raw = ctx.json()
        if not isinstance(raw, dict):
            raise validation_error("dict_type", ["body"], "Input should be a valid dictionary", raw)
        return {key: session_peer_config(value, ["body", key]) for key, value in raw.items()}

    def add_session_peers(self, ctx: Ctx) -> Response:
        peers = self._peer_map(ctx)
        with self.store.lock:
            ws = self._ws_or_create(ctx.w)
            session, _ = self._session_or_create(ws, ctx.params["s"])
            self._upsert_members(ws, session, peers)
            return json_response(200, session_json(session))

    def set_session_peers(self, ctx: Ctx) -> Response:
        peers = self._peer_map(ctx)
        with self.store.lock:
            ws = self._ws(ctx.w)
            if ws is None:
                raise _session_missing(ctx.params["s"], ctx.w)
            session = self._active_session(ws, ctx.params["s"])
            previous = session.members
            session.members = {
                name: Membership(m.observe_me, m.observe_others, False)
                for name, m in previous.items()
            }
            try:
                self._upsert_members(ws, session, peers, keep_active_config=False)
            except ApiError:
                session.members = previous
                raise
            return json_response(200, session_json(session))

    def remove_session_peers(self, ctx: Ctx) -> Response:
        raw = ctx.json()
        if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
            raise validation_error("list_type", ["body"], "Input should be a valid list", raw)
        with self.store.lock:
            ws = self._ws(ctx.w)
            if ws is None:
                raise _session_missing(ctx.params["s"], ctx.w)
            session = self._active_session(ws, ctx.params["s"])
            for name in raw:
                member = session.members.get(name)
                if member is not None:
                    member.active = False
            return json_response(200, session_json(session))

    def list_session_peers(self, ctx: Ctx) -> Response:
        with self.store.lock:
            ws = self._ws(ctx.w)
            session = ws.sessions.get(ctx.params["s"]) if ws else None
            items = []
            if ws is not None and session is not None:
                items = [
                    peer_json(ws.peers[name])
                    for name, member in session.members.items()
                    if member.active and name in ws.peers
                ]
        return json_response(200, _page(ctx.request.query, items))

    def get_peer_config(self, ctx: Ctx) -> Response:
        peer, name = ctx.params["p"], ctx.params["s"]
        with self.store.lock:
            ws = self._ws(ctx.w)
            if ws is None or peer not in ws.peers:
                raise _peer_missing(peer, ctx.w)
            session = ws.sessions.get(name)
            member = session.members.get(peer) if session else None
            if member is None:
                raise ApiError(
                    404, f"Session peer {peer} not found in session {name} in workspace {ctx.w}"
                )
            return json_response(
                200, {"observe_me": member.observe_me, "observe_others": member.observe_others}
            )

    def put_peer_config(self, ctx: Ctx) -> Response:
        observe_me, observe_others = session_peer_config(ctx.body(), ["body"])
        peer, name = ctx.params["p"], ctx.params["s"]
        with self.store.lock:
            ws = self._ws(ctx.w)
            if ws is None:
                raise _session_missing(name, ctx.w)
            session = self._active_session(ws, name)
            if peer not in ws.peers:
                raise _peer_missing(peer, ctx.w)
            current = session.members.get(peer)
            before = current or Membership(None, None, True)
            merged = Membership(
                observe_me if observe_me is not None else before.observe_me,
                observe_others if observe_others is not None else before.observe_others,
                before.active,
            )
            proposed = {**session.members, peer: merged}
            observers = sum(1 for m in proposed.values() if m.active and m.observe_others)
            if observers > SESSION_OBSERVERS_LIMIT:
                raise ApiError(
                    400,
                    f"Cannot create session {name} with {observers} observers. Maximum allowed "
                    f"is {SESSION_OBSERVERS_LIMIT} observers per session. Observers are peers "
                    "with 'observe_others' set to true.",
                )
            session.members = proposed
        # Observed on 3.0.12: 204 with Content-Type application/json and an empty body.
        return Response(204, b"")

    def session_context(self, ctx: Ctx) -> Response:
        query = ctx.request.query
        tokens = query_int(query, "tokens", 100000, ge=1, le=100000)
        with_summary = query_bool(query, "summary", True)
        limit_to_session = query_bool(query, "limit_to_session", False)
        search = Search(query.get("search_query") or None, _query_top_k(query))
        query_float(query, "search_max_distance", ge=0.0, le=1.0)
        query_bool(query, "include_most_frequent", False)
        limit = query_int(query, "max_conclusions", 100, ge=1, le=100)
        peer_target = query.get("peer_target") or None
        peer_perspective = query.get("peer_perspective") or None
        name = ctx.params["s"]
        allow = self._context_allowlist(ctx, name, peer_target, peer_perspective, limit_to_session)
        with self.store.lock:
            ws = self._ws(ctx.w)
            if ws is None or name not in ws.sessions:
                raise _session_missing(name, ctx.w)
            session = ws.sessions[name]
            chosen: list[Message] = []
            budget = tokens
            for message in reversed([m for m in ws.messages if m.session_id == name]):
                if message.token_count > budget:
                    break
                budget -= message.token_count
                chosen.append(message)
            representation = None
            card = None
            if peer_target is not None:
                observer = peer_perspective or peer_target
                sessions = set(allow) if allow is not None else None
                representation = self._representation(
                    ws, observer, peer_target, limit, sessions, search
                )
                card_lines = ws.cards.get((observer, peer_target))
                # Fail closed: a card has no per-session provenance, so under an allowlist
                # (`sessions` or `limit_to_session`) the server withholds it.
                if card_lines is not None and allow is None:
                    card = list(card_lines)
            return json_response(
                200,
                {
                    "id": name,
                    "messages": [message_json(m) for m in reversed(chosen)],
                    "summary": session.short_summary if with_summary else None,
                    "peer_representation": representation if peer_target is not None else None,
                    "peer_card": card,
                },
            )

    def _context_allowlist(
        self,
        ctx: Ctx,
        name: str,
        peer_target: str | None,
        peer_perspective: str | None,
        limit_to_session: bool,
    ) -> list[str] | None:
        """Session context's checks on `peer_perspective`, `sessions` and `limit_to_session`
        (texts as 3.0.12's `routers/sessions.py`); the effective session allowlist or None."""
        if peer_perspective and not peer_target:
            raise ApiError(422, "peer_target must be provided if peer_perspective is provided")
        # Seen on 3.0.12: membership lets a peer key read the session, not a co-member's view;
        # it may read only from its own perspective (and only sessions it belongs to).
        peer_key = ctx.claims.peer if not ctx.claims.admin else None
        if peer_target and peer_key is not None and peer_key != (peer_perspective or peer_target):
            raise ApiError(401, _auth.NOT_PERMITTED)
        repeated = parse_qs(ctx.request.raw_query, keep_blank_values=True).get("sessions")
        if repeated is None:
            return [name] if limit_to_session else None
        if limit_to_session:
            raise ApiError(422, "`sessions` and `limit_to_session` are mutually exclusive")
        if not peer_target:
            raise ApiError(422, "peer_target must be provided if sessions is provided")
        allow = _filters.session_allowlist(list(repeated), field="sessions", must_include=name)
        if ctx.claims.peer is not None and not ctx.claims.admin:
            for session_name in allow:
                self._check_member_access(ctx, self._ws(ctx.w), session_name)
        return allow

    def session_summaries(self, ctx: Ctx) -> Response:
        name = ctx.params["s"]
        with self.store.lock:
            ws = self._ws(ctx.w)
            if ws is None or name not in ws.sessions:
                raise _session_missing(name, ctx.w)
            summary = ws.sessions[name].short_summary
        return json_response(200, {"id": name, "short_summary": summary, "long_summary": None})

    # ---- messages (O4, O5) ----

    def create_messages(self, ctx: Ctx) -> Response:
        body = ctx.body()
        raw = (
            get_list(body, "messages", ["body"], min_items=1, max_items=MAX_BATCH, required=True)
            or []
        )
        parsed = [self._message_input(item, ["body", "messages", i]) for i, item in enumerate(raw)]
        with self.store.lock:
            ws = self._ws_or_create(ctx.w)
            for item in parsed:
                if item["peer_id"] not in ws.peers and not ID_PATTERN.match(item["peer_id"]):
                    self._peer_or_create(ws, item["peer_id"])  # raises the 422
            session, _ = self._session_or_create(ws, ctx.params["s"])
            for item in parsed:
                self._peer_or_create(ws, item["peer_id"])
            for item in parsed:
                member = session.members.get(item["peer_id"])
                if member is None or not member.active:
                    session.members[item["peer_id"]] = Membership(None, None, True)
            now = utcnow()  # one transaction, one timestamp for the whole batch
            created = [
                Message(
                    id=nanoid(),
                    seq=self.store.next_seq(),
                    content=item["content"],
                    peer_id=item["peer_id"],
                    session_id=session.id,
                    workspace_id=ws.id,
                    created_at=item["created_at"] or now,
                    token_count=estimate_tokens(item["content"]),
                    metadata=item["metadata"] or {},
                    configuration=item["configuration"],
                )
                for item in parsed
            ]
            ws.messages.extend(created)
            self.deriver.enqueue(ws, session, created)
            return json_response(201, [message_json(m) for m in created])

    def _message_input(self, item: object, loc: list[str | int]) -> dict[str, Any]:
        if not isinstance(item, dict):
            raise validation_error(
                "model_attributes_type",
                loc,
                "Input should be a valid dictionary or object to extract fields from",
                item,
            )
        content = get_str(item, "content", loc, required=True, max_len=MAX_MESSAGE_CHARS)
        peer_id = get_str(item, "peer_id", loc, required=True)
        metadata = get_metadata(item, loc)
        config = get_dict(item, "configuration", loc)
        reasoning = config.get("reasoning") if config else None
        configuration: JsonDict = {}
        if isinstance(reasoning, dict):
            get_bool(reasoning, "enabled", [*loc, "configuration", "reasoning"], None)
            configuration = {"reasoning": reasoning}
        created_at = None
        raw_created = item.get("created_at")
        if raw_created is not None:
            created_at = parse_datetime(raw_created) if isinstance(raw_created, str) else None
            if created_at is None:
                raise validation_error(
                    "datetime_from_date_parsing",
                    [*loc, "created_at"],
                    "Input should be a valid datetime or date",
                    raw_created,
                )
        return {
            "content": content,
            "peer_id": peer_id,
            "metadata": metadata,
            "configuration": configuration,
            "created_at": created_at,
        }

    def list_messages(self, ctx: Ctx) -> Response:
        body = ctx.body(required=False)
        match = _filters.compile_filter(_filters_of(body), _filters.MESSAGE)
        with self.store.lock:
            ws = self._ws(ctx.w)
            messages = list(ws.messages) if ws else []
            items = [
                message_json(m)
                for m in messages
                if m.session_id == ctx.params["s"] and match(message_row(m))
            ]
        return json_response(200, _page(ctx.request.query, _ordered(ctx.request.query, items)))

    def _find_message(self, ws: Workspace | None, session: str, message_id: str) -> Message | None:
        if ws is None:
            return None
        return next(
            (m for m in ws.messages if m.id == message_id and m.session_id == session), None
        )

    def get_message(self, ctx: Ctx) -> Response:
        with self.store.lock:
            message = self._find_message(self._ws(ctx.w), ctx.params["s"], ctx.params["m"])
            if message is None:
                raise ApiError(404, f"Message with ID {ctx.params['m']} not found")
            return json_response(200, message_json(message))

    def update_message(self, ctx: Ctx) -> Response:
        body = ctx.body()
        metadata = get_metadata(body, ["body"])
        with self.store.lock:
            message = self._find_message(self._ws(ctx.w), ctx.params["s"], ctx.params["m"])
            if message is None:
                raise ApiError(404, "Message not found")
            if metadata is not None:
                message.metadata = metadata
            return json_response(200, message_json(message))

    def upload_messages(self, ctx: Ctx) -> Response:
        """A file becomes messages (3.0.12 `messages.py` upload): text/* and JSON as text,
        split into chunks of at most `MAX_UPLOAD_CHUNK` characters."""
        content_type = next(
            (v for k, v in ctx.request.headers.items() if k.lower() == "content-type"), ""
        )
        form = parse_form(content_type, ctx.request.body)
        fields = form.fields if form else {}
        files = form.files if form else {}
        missing = [
            error_item("missing", ["body", key], "Field required", None)
            for key, present in (("peer_id", "peer_id" in fields), ("file", "file" in files))
            if not present
        ]
        if missing:
            raise ApiError(422, missing)
        upload = files["file"]
        text = _upload_text(upload)
        metadata = _json_field(fields.get("metadata"))
        created_at = parse_datetime(fields["created_at"]) if fields.get("created_at") else None
        peer_id = fields["peer_id"]
        with self.store.lock:
            ws = self._ws_or_create(ctx.w)
            session, _ = self._session_or_create(ws, ctx.params["s"])
            self._peer_or_create(ws, peer_id)
            member = session.members.get(peer_id)
            if member is None or not member.active:
                session.members[peer_id] = Membership(None, None, True)
            now = utcnow()
            created = [
                Message(
                    id=nanoid(),
                    seq=self.store.next_seq(),
                    content=chunk,
                    peer_id=peer_id,
                    session_id=session.id,
                    workspace_id=ws.id,
                    created_at=created_at or now,
                    token_count=estimate_tokens(chunk),
                    metadata=metadata if isinstance(metadata, dict) else {},
                )
                for chunk in _split_chunks(text, MAX_UPLOAD_CHUNK)
            ]
            ws.messages.extend(created)
            self.deriver.enqueue(ws, session, created)
            return json_response(201, [message_json(m) for m in created])

    # ---- session clone, dreams (3.0.12 routers) ----

    def clone_session(self, ctx: Ctx) -> Response:
        """A new session named by a nanoid with the metadata, configuration, members and the
        messages (up to and including `message_id`) of an active one; nothing is enqueued."""
        cutoff = ctx.request.query.get("message_id") or None
        with self.store.lock:
            ws = self._ws(ctx.w)
            original = ws.sessions.get(ctx.params["s"]) if ws else None
            if ws is None or original is None or not original.is_active:
                raise ApiError(404, "Original session not found")
            messages = [m for m in ws.messages if m.session_id == original.id]
            if cutoff is not None:
                index = next((i for i, m in enumerate(messages) if m.id == cutoff), None)
                if index is None:
                    raise ApiError(404, "Session not found")
                messages = messages[: index + 1]
            clone = Session(
                id=nanoid(),
                workspace_id=ws.id,
                created_at=utcnow(),
                metadata=dict(original.metadata),
                configuration=dict(original.configuration),
                members={
                    name: Membership(m.observe_me, m.observe_others, m.active)
                    for name, m in original.members.items()
                },
            )
            ws.sessions[clone.id] = clone
            ws.messages.extend(
                Message(
                    id=nanoid(),
                    seq=self.store.next_seq(),
                    content=m.content,
                    peer_id=m.peer_id,
                    session_id=clone.id,
                    workspace_id=ws.id,
                    created_at=clone.created_at,
                    token_count=m.token_count,
                    metadata=dict(m.metadata),
                )
                for m in messages
            )
            return json_response(201, session_json(clone))

    def schedule_dream(self, ctx: Ctx) -> Response:
        """Accepted (204) and checked like the server's `ScheduleDreamRequest`; the emulated
        deriver has no dreams, so nothing else happens."""
        body = ctx.body()
        get_str(body, "observer", ["body"], required=True)
        get_str(body, "observed", ["body"])
        if "dream_type" not in body:
            get_str(body, "dream_type", ["body"], required=True)  # FastAPI's "missing" item
        get_literal(body, "dream_type", ["body"], DREAM_TYPES, "omni")
        get_str(body, "session_id", ["body"])
        get_bool(body, "rebuild", ["body"], False)
        return Response(204, b"")

    # ---- scopes (3.0.12 routers/scopes.py) ----

    def create_scope(self, ctx: Ctx) -> Response:
        body = ctx.body()
        name = get_str(body, "id", ["body"], required=True, min_len=1) or ""
        if not ID_PATTERN.match(name):
            raise validation_error(
                "value_error",
                ["body", "id"],
                "Value error, Scope name must match pattern ^[a-zA-Z0-9_-]+$",
                name,
                {"error": {}},
            )
        metadata = get_metadata(body, ["body"])
        with self.store.lock:
            ws = self._ws_or_create(ctx.w)
            scope = ws.scopes.get(name)
            if scope is not None:
                return json_response(200, scope_json(scope))
            scope = Scope(id=name, created_at=utcnow(), metadata=metadata or {})
            ws.scopes[name] = scope
            return json_response(201, scope_json(scope))

    def list_scopes(self, ctx: Ctx) -> Response:
        with self.store.lock:
            ws = self._ws(ctx.w)
            items = [scope_json(scope) for scope in (ws.scopes.values() if ws else [])]
        return json_response(200, _page(ctx.request.query, _ordered(ctx.request.query, items)))

    def _scope(self, ws: Workspace | None, ctx: Ctx) -> Scope:
        scope = ws.scopes.get(ctx.params["sc"]) if ws else None
        if scope is None:
            raise ApiError(404, f"Scope {ctx.params['sc']} not found in workspace {ctx.w}")
        return scope

    def get_scope(self, ctx: Ctx) -> Response:
        with self.store.lock:
            return json_response(200, scope_json(self._scope(self._ws(ctx.w), ctx)))

    def add_scope_sessions(self, ctx: Ctx) -> Response:
        body = ctx.body()
        names = (
            get_list(body, "session_ids", ["body"], min_items=1, max_items=100, required=True) or []
        )
        with self.store.lock:
            ws = self._ws(ctx.w)
            scope = self._scope(ws, ctx)
            assert ws is not None
            for session_name in names:
                self._active_session(ws, str(session_name))
            stamp = iso(utcnow())
            for session_name in names:
                scope.backfill[str(session_name)] = {"state": "pending", "updated_at": stamp}
            self.deriver.schedule(self.options.deriver_delay, lambda: _backfilled(ws, scope))
        return Response(204, b"")

    def remove_scope_session(self, ctx: Ctx) -> Response:
        with self.store.lock:
            scope = self._scope(self._ws(ctx.w), ctx)
            scope.backfill.pop(ctx.params["s"], None)
        return Response(204, b"")

    def list_scope_sessions(self, ctx: Ctx) -> Response:
        with self.store.lock:
            ws = self._ws(ctx.w)
            scope = self._scope(ws, ctx)
            assert ws is not None
            items = [
                session_json(ws.sessions[name])
                for name in scope.backfill
                if name in ws.sessions and ws.sessions[name].is_active
            ]
        return json_response(200, _page(ctx.request.query, _ordered(ctx.request.query, items)))

    def scope_status(self, ctx: Ctx) -> Response:
        with self.store.lock:
            scope = self._scope(self._ws(ctx.w), ctx)
            return json_response(
                200, {"backfill_status": {k: dict(v) for k, v in scope.backfill.items()}}
            )

    # ---- search (O10, O11) ----

    def _search(self, ctx: Ctx, forced: Mapping[str, str]) -> Response:
        body = ctx.body()
        text = get_str(body, "query", ["body"], required=True) or ""
        limit = get_int(body, "limit", ["body"], 10, ge=1, le=100) or 10
        filters = dict(_filters_of(body) or {})
        perspective = filters.pop("peer_perspective", None)
        match = _filters.compile_filter(filters, _filters.MESSAGE_SEARCH)
        with self.store.lock:
            ws = self._ws(ctx.w)
            messages = list(ws.messages) if ws else []
            allowed: set[str] | None = None
            if perspective is not None and ws is not None:
                allowed = {s.id for s in ws.sessions.values() if perspective in s.members}
            candidates = [
                m
                for m in messages
                if all(getattr(m, key) == value for key, value in forced.items())
                and (allowed is None or m.session_id in allowed)
                and match(message_row(m))
            ]
            hits = _search.rank(text, candidates, lambda m: m.content)[:limit]
            return json_response(200, [message_json(m) for m in hits])

    def search_workspace(self, ctx: Ctx) -> Response:
        return self._search(ctx, {})

    def search_peer(self, ctx: Ctx) -> Response:
        return self._search(ctx, {"peer_id": ctx.params["p"]})

    def search_session(self, ctx: Ctx) -> Response:
        return self._search(ctx, {"session_id": ctx.params["s"]})

    # ---- conclusions (O8, O9) ----

    def create_conclusions(self, ctx: Ctx) -> Response:
        body = ctx.body()
        key = (
            "conclusions"
            if "conclusions" in body or "observations" not in body
            else ("observations")
        )
        raw = get_list(body, key, ["body"], min_items=1, max_items=MAX_BATCH, required=True) or []
        parsed: list[dict[str, Any]] = []
        for index, item in enumerate(raw):
            loc: list[str | int] = ["body", key, index]
            if not isinstance(item, dict):
                raise validation_error(
                    "model_attributes_type",
                    loc,
                    "Input should be a valid dictionary or object to extract fields from",
                    item,
                )
            parsed.append(
                {
                    "content": get_str(
                        item,
                        "content",
                        loc,
                        required=True,
                        min_len=1,
                        max_len=MAX_CONCLUSION_CHARS,
                    ),
                    "observer_id": get_str(item, "observer_id", loc, required=True),
                    "observed_id": get_str(item, "observed_id", loc, required=True),
                    "session_id": get_str(item, "session_id", loc),
                }
            )
        with self.store.lock:
            ws = self._ws(ctx.w)
            for item in parsed:
                for role in ("observer_id", "observed_id"):
                    if ws is None or item[role] not in ws.peers:
                        raise _peer_missing(item[role], ctx.w)
                if item["session_id"] is not None:
                    assert ws is not None
                    self._active_session(ws, item["session_id"])
            assert ws is not None
            now = utcnow()  # one transaction, one timestamp for the whole batch
            created = [
                Conclusion(
                    id=nanoid(),
                    seq=self.store.next_seq(),
                    content=item["content"],
                    observer_id=item["observer_id"],
                    observed_id=item["observed_id"],
                    session_id=item["session_id"],
                    level="explicit",
                    created_at=now,
                    workspace_id=ws.id,
                )
                for item in parsed
            ]
            ws.conclusions.extend(created)
            return json_response(201, [self._conclusion_json(c) for c in created])

    def list_conclusions(self, ctx: Ctx) -> Response:
        body = ctx.body(required=False)
        match = _filters.compile_filter(_filters_of(body), _filters.CONCLUSION)
        newest_first = not query_bool(ctx.request.query, "reverse", False)
        with self.store.lock:
            ws = self._ws(ctx.w)
            found = [
                c
                for c in (ws.conclusions if ws else [])
                if not c.deleted and match(conclusion_row(c))
            ]
            # Ordered by created_at only (newest first by default); rows sharing a timestamp
            # (one batch) stay in insertion order either way, as the server's do.
            found.sort(key=lambda c: c.created_at, reverse=newest_first)
            items = [self._conclusion_json(c) for c in found]
        return json_response(200, _page(ctx.request.query, items))

    def query_conclusions(self, ctx: Ctx) -> Response:
        body = ctx.body()
        text = get_str(body, "query", ["body"], required=True) or ""
        top_k = get_int(body, "top_k", ["body"], 10, ge=1, le=100) or 10
        get_float(body, "distance", ["body"], ge=0.0, le=1.0)
        filters = _filters_of(body)
        if not isinstance(filters, dict) or not (
            ("observer" in filters or "observer_id" in filters)
            and ("observed" in filters or "observed_id" in filters)
        ):
            raise ApiError(422, CONCLUSIONS_QUERY_DETAIL)
        match = _filters.compile_filter(filters, _filters.CONCLUSION)
        with self.store.lock:
            ws = self._ws(ctx.w)
            candidates = [
                c
                for c in reversed(ws.conclusions if ws else [])
                if not c.deleted and match(conclusion_row(c))
            ]
            # Semantic search always answers its nearest rows: keep non-matching ones last.
            hits = _search.rank(text, candidates, lambda c: c.content, keep_unmatched=True)
            return json_response(200, [self._conclusion_json(c) for c in hits[:top_k]])

    def delete_conclusion(self, ctx: Ctx) -> Response:
        conclusion_id = ctx.params["c"]
        with self.store.lock:
            ws = self._ws(ctx.w)
            found = next((c for c in (ws.conclusions if ws else []) if c.id == conclusion_id), None)
            if found is None or found.deleted:
                raise ApiError(
                    404,
                    f"Document {conclusion_id} not found or does not belong to workspace {ctx.w}",
                )
            found.deleted = True
        # Observed: 204 with Content-Type application/json and an empty body (reference §7).
        return Response(204, b"")

    # ---- queue status (O14) ----

    def queue_status(self, ctx: Ctx) -> Response:
        query = ctx.request.query
        observer = query.get("observer_id") or None
        sender = query.get("sender_id") or None
        session_name = query.get("session_id") or None
        now = time.monotonic()
        totals = {"total": 0, "completed": 0, "in_progress": 0, "pending": 0}
        per_session: dict[str, dict[str, int]] = {}
        with self.store.lock:
            ws = self._ws(ctx.w)
            for item in ws.queue if ws else []:
                if item.visible_at > now:
                    continue
                if session_name is not None and item.session_name != session_name:
                    continue
                if observer is not None or sender is not None:
                    # Reference O14: observer_id matches only dream items' single observer,
                    # sender_id matches the observed peer; both given are OR-ed.
                    observed = item.sender if item.task == "representation" else None
                    if not (sender is not None and observed == sender):
                        continue
                counts = per_session.setdefault(
                    item.session_internal_id,
                    {"total": 0, "completed": 0, "in_progress": 0, "pending": 0},
                )
                for bucket in (totals, counts):
                    bucket["total"] += 1
                    bucket[item.state] += 1
        sessions: JsonDict | None = None
        if session_name is None and per_session:
            sessions = {
                key: {"session_id": key, **_work_units(counts)}
                for key, counts in per_session.items()
            }
        return json_response(200, {**_work_units(totals), "sessions": sessions})

    # ---- chat (O12) ----

    def peer_chat(self, ctx: Ctx) -> Response:
        body = ctx.body()
        options = _chat_options(body)
        target = get_str(body, "target", ["body"])
        session_id = get_str(body, "session_id", ["body"])
        allow = _chat_sessions(body.get("filters"), session_id)
        peer = ctx.params["p"]
        with self.store.lock:
            ws = self._ws_or_create(ctx.w)
            self._peer_or_create(ws, peer)
            try:
                if target is not None and target not in ws.peers:
                    raise _peer_missing(target, ctx.w)
                if session_id is not None:
                    self._active_session(ws, session_id)
            except ApiError:
                if options["stream"]:
                    # Reference O12: in stream mode these checks run inside the generator,
                    # after the 200 headers, so the stream just ends without its final event.
                    return _ended_stream()
                raise
            if session_id is not None:
                self._check_member_access(ctx, ws, session_id)
            for name in sorted(allow or ()):
                self._check_member_access(ctx, ws, name)
            sessions = {session_id} if session_id is not None else allow
            subject = target or peer
            messages = [
                m
                for m in ws.messages
                if m.peer_id == subject and (sessions is None or m.session_id in sessions)
            ]
            conclusions = [
                c
                for c in ws.conclusions
                if not c.deleted
                and c.observed_id == subject
                and (target is None or c.observer_id == peer)
                and (sessions is None or c.session_id in sessions)
            ]
            answer = _compose(options["query"], subject, messages, conclusions)
        return self._chat_response(options, answer)

    def workspace_chat(self, ctx: Ctx) -> Response:
        body = ctx.body()
        options = _chat_options(body)
        session_id = get_str(body, "session_id", ["body"])
        with self.store.lock:
            ws = self._ws(ctx.w)
            messages = [
                m
                for m in (ws.messages if ws else [])
                if session_id is None or m.session_id == session_id
            ]
            conclusions = [
                c
                for c in (ws.conclusions if ws else [])
                if not c.deleted and (session_id is None or c.session_id == session_id)
            ]
            answer = _compose(options["query"], f"workspace {ctx.w}", messages, conclusions)
        return self._chat_response(options, answer)

    def _chat_response(self, options: dict[str, Any], answer: _Answer) -> Response:
        if self.options.chat_delay:
            self.wait(self.options.chat_delay)
        content = answer.text
        schema = options["response_format"]
        if schema is not None:
            content = json.dumps(_fill_schema(schema, content))
        wants_evidence = options["include_evidence"] and self.options.profile.chat_evidence
        evidence = answer.evidence() if wants_evidence else None
        if not options["stream"]:
            payload: JsonDict = {"content": content}
            if evidence is not None:
                payload["evidence"] = evidence
            return json_response(200, payload)
        words = re.findall(r"\S+\s*", content) or [content]
        pieces = [
            "".join(words[i : i + WORDS_PER_PIECE]) for i in range(0, len(words), WORDS_PER_PIECE)
        ]
        events = [_sse({"delta": {"content": piece}, "done": False}) for piece in pieces]
        final: JsonDict = {"done": True}
        if evidence is not None:
            final["evidence"] = evidence
        events.append(_sse(final))
        return Response(
            200,
            content_type="text/event-stream; charset=utf-8",
            events=events,
            event_delay=self.options.stream_chunk_delay,
        )


def _backfilled(ws: Workspace, scope: Scope) -> None:
    """The simulated backfill of a scope: every pending session completes at once."""
    for name, job in scope.backfill.items():
        if job.get("state") == "pending":
            copied = sum(1 for c in ws.conclusions if c.session_id == name and not c.deleted)
            job.update(state="completed", updated_at=iso(utcnow()), docs_copied=copied)


def _upload_text(upload: FilePart) -> str:
    """The text of an uploaded file as the server's processors see it (text/* and JSON)."""
    kind = upload.content_type.split(";")[0].strip().lower()
    if kind.startswith("text/") or kind == "application/json":
        try:
            return upload.data.decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(422, "Could not decode text file") from None
    raise ApiError(
        415,
        f"Unsupported file type: {upload.content_type}. Supported types: "
        "['PDFProcessor', 'TextProcessor', 'JSONProcessor']",
    )


def _json_field(raw: str | None) -> object:
    """A JSON-encoded form field; the server logs and drops one that does not parse."""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _split_chunks(text: str, limit: int) -> list[str]:
    """The server's `split_text_into_chunks`: break at a paragraph, line, sentence or word."""
    if len(text) <= limit:
        return [text]
    chunks: list[str] = []
    pos = 0
    while pos < len(text):
        end = pos + limit
        if end >= len(text):
            chunks.append(text[pos:])
            break
        cut = end
        for delimiter in ("\n\n", "\n", ". ", " "):
            found = text.rfind(delimiter, pos, end)
            if found > pos:
                cut = found + len(delimiter)
                break
        chunks.append(text[pos:cut])
        pos = cut
    return chunks


def _work_units(counts: Mapping[str, int]) -> JsonDict:
    return {
        "total_work_units": counts["total"],
        "completed_work_units": counts["completed"],
        "in_progress_work_units": counts["in_progress"],
        "pending_work_units": counts["pending"],
    }


def _ended_stream() -> Response:
    """A 200 event stream that ends at once, as an error inside the server's generator does."""
    return Response(200, content_type="text/event-stream; charset=utf-8", events=[])


def _sse(payload: JsonDict) -> bytes:
    # Reference O12: `data: <json>\n\n`, json.dumps default separators, ASCII-escaped.
    return b"data: " + json.dumps(payload).encode("ascii") + b"\n\n"


def _chat_options(body: JsonDict) -> dict[str, Any]:
    query = get_str(body, "query", ["body"], required=True, min_len=1, max_len=MAX_QUERY_CHARS)
    get_literal(body, "reasoning_level", ["body"], REASONING_LEVELS, "low")
    response_format = get_dict(body, "response_format", ["body"])
    if response_format is not None and response_format.get("type", "object") != "object":
        raise ApiError(422, "Invalid response_format: root schema must be of type 'object'")
    return {
        "query": query,
        "stream": get_bool(body, "stream", ["body"], False),
        "include_evidence": get_bool(body, "include_evidence", ["body"], False),
        "response_format": response_format,
    }


def _chat_sessions(filters: object, session_id: str | None) -> set[str] | None:
    """Reference O12: chat and representation `filters` are only a `session_id` allowlist."""
    allow = _filters.filters_allowlist(filters, must_include=session_id)
    return None if allow is None else set(allow)


@dataclass(frozen=True, slots=True)
class Search:
    """A representation's `search_query` and `search_top_k` (the semantic part on the server)."""

    query: str | None
    top_k: int | None


def _query_top_k(query: Mapping[str, str]) -> int | None:
    if not query.get("search_top_k"):
        return None
    return query_int(query, "search_top_k", 10, ge=1, le=100)


def representation_markdown(conclusions: list[Conclusion]) -> str:
    """The server's `Representation.format_as_markdown` for explicit conclusions: a heading, a
    blank line, one `[YYYY-MM-DD HH:MM:SS] content` line each (UTC, no fraction) and a final
    newline; "" when there are none."""
    if not conclusions:
        return ""
    lines = [f"[{c.created_at.astimezone(UTC):%Y-%m-%d %H:%M:%S}] {c.content}" for c in conclusions]
    return "\n".join(["## Explicit Observations\n", *lines, ""])


@dataclass(frozen=True, slots=True)
class _Answer:
    text: str
    messages: list[Message]
    conclusions: list[Conclusion]

    def evidence(self) -> JsonDict:
        return {
            "conclusions": [
                {
                    "id": c.id,
                    "level": c.level,
                    "content": c.content,
                    "created_at": iso(c.created_at),
                    "session_id": c.session_id,
                    "observer_id": c.observer_id,
                    "observed_id": c.observed_id,
                    "source_ids": [],
                }
                for c in self.conclusions
            ],
            "messages": [
                {
                    "id": m.id,
                    "session_id": m.session_id,
                    "peer_id": m.peer_id,
                    "created_at": iso(m.created_at),
                }
                for m in self.messages
            ],
            "tool_calls": [],
            "reasoning_trace_id": None,
        }


# How many messages and conclusions a chat answer draws on.
CHAT_EVIDENCE = 3


def _compose(
    query: str, subject: str, messages: list[Message], conclusions: list[Conclusion]
) -> _Answer:
    """A deterministic answer from the best keyword matches (most recent when none match)."""
    chosen_c = _search.rank(query, conclusions, lambda c: c.content)[:CHAT_EVIDENCE]
    chosen_m = _search.rank(query, messages, lambda m: m.content)[:CHAT_EVIDENCE]
    if not chosen_c and not chosen_m:
        chosen_c = conclusions[-CHAT_EVIDENCE:]
        chosen_m = messages[-CHAT_EVIDENCE:]
    if not chosen_c and not chosen_m:
        return _Answer(f"I don't know anything about {subject} yet.", [], [])
    parts = [c.content for c in chosen_c] + [f"{m.peer_id} said: {m.content}" for m in chosen_m]
    text = f"Based on what I know about {subject}: " + " ".join(
        part.strip().rstrip(".") + "." for part in parts
    )
    return _Answer(text, chosen_m, chosen_c)


def _fill_schema(schema: Mapping[str, Any], text: str) -> JsonDict:
    """A JSON object shaped by a response_format schema: strings get the answer text."""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return {"answer": text}
    defaults: dict[str, object] = {
        "number": 0,
        "integer": 0,
        "boolean": False,
        "array": [],
        "object": {},
        "null": None,
    }
    result: JsonDict = {}
    for name, spec in properties.items():
        kind = spec.get("type") if isinstance(spec, dict) else None
        result[name] = text if kind in (None, "string") else defaults.get(str(kind))
    return result
