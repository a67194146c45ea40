"""Search routes: messages of a workspace, a peer or a session matching a query."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from .. import _filters
from .._backends import search, workspaces
from .._state import message_json, message_row
from .._validate import get_int, get_str
from .._web import Ctx, P, Response, Route, S, W, filters_of, json_response

if TYPE_CHECKING:
    from .._app import App


def _search(app: App, ctx: Ctx, forced: Mapping[str, str]) -> Response:
    body = ctx.body()
    text = get_str(body, "query", ["body"], required=True) or ""
    limit = get_int(body, "limit", ["body"], 10, ge=1, le=100) or 10
    filters = dict(filters_of(body) or {})
    perspective = filters.pop("peer_perspective", None)
    match = _filters.compile_filter(filters, _filters.MESSAGE_SEARCH)
    with app.store.lock:
        ws = workspaces.find(app.store, ctx.w)
        hits = search.messages(
            ws, text, limit, forced, perspective, lambda m: match(message_row(m))
        )
        return json_response(200, [message_json(m) for m in hits])


def search_workspace(app: App, ctx: Ctx) -> Response:
    return _search(app, ctx, {})


def search_peer(app: App, ctx: Ctx) -> Response:
    return _search(app, ctx, {"peer_id": ctx.params["p"]})


def search_session(app: App, ctx: Ctx) -> Response:
    return _search(app, ctx, {"session_id": ctx.params["s"]})


ROUTES = (
    Route("POST", W + "/search", search_workspace, "workspace"),
    Route("POST", P + "/search", search_peer, "peer"),
    Route("POST", S + "/search", search_session, "member_read"),
)
