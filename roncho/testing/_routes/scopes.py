"""Scope routes (3.0.12 `routers/scopes.py`): create, list, get, sessions and status."""

from __future__ import annotations

from .._backends import scopes
from .._routing import Route, Services
from .._state import scope_json, session_json
from .._validate import get_list, get_metadata, get_str
from .._web import Ctx, Response, W, json_response, paged

SC = W + "/scopes/{sc}"


def create_scope(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()
    name = get_str(body, "id", ["body"], required=True, min_len=1) or ""
    scopes.check_name(name, ["body", "id"])
    metadata = get_metadata(body, ["body"])
    ws = ctx.made_ws(services.store)
    scope, created = scopes.get_or_create(ws, name, metadata)
    return json_response(201 if created else 200, scope_json(scope))


def list_scopes(services: Services, ctx: Ctx) -> Response:
    items = [scope_json(scope) for scope in (ctx.ws.scopes.values() if ctx.ws else [])]
    return paged(ctx, items)


def get_scope(services: Services, ctx: Ctx) -> Response:
    scope = scopes.find(ctx.ws, ctx.w, ctx.params["sc"])
    return json_response(200, scope_json(scope))


def add_scope_sessions(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()
    names = get_list(body, "session_ids", ["body"], min_items=1, max_items=100, required=True)
    scopes.add_sessions(
        ctx.ws,
        ctx.w,
        ctx.params["sc"],
        [str(name) for name in names or []],
        services.deriver,
        services.options.deriver_delay,
    )
    return Response(204, b"")


def remove_scope_session(services: Services, ctx: Ctx) -> Response:
    scopes.remove_session(ctx.ws, ctx.w, ctx.params["sc"], ctx.params["s"])
    return Response(204, b"")


def list_scope_sessions(services: Services, ctx: Ctx) -> Response:
    items = [session_json(s) for s in scopes.sessions_of(ctx.ws, ctx.w, ctx.params["sc"])]
    return paged(ctx, items)


def scope_status(services: Services, ctx: Ctx) -> Response:
    scope = scopes.find(ctx.ws, ctx.w, ctx.params["sc"])
    return json_response(200, {"backfill_status": {k: dict(v) for k, v in scope.backfill.items()}})


ROUTES = (
    Route("POST", W + "/scopes", create_scope, "workspace_only"),
    Route("POST", W + "/scopes/list", list_scopes, "workspace_only"),
    Route("GET", SC, get_scope, "workspace_only"),
    Route("POST", SC + "/sessions", add_scope_sessions, "workspace_only"),
    Route("DELETE", SC + "/sessions/{s}", remove_scope_session, "workspace_only"),
    Route("POST", SC + "/sessions/list", list_scope_sessions, "workspace_only"),
    Route("GET", SC + "/status", scope_status, "workspace_only"),
)
