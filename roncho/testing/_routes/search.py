"""Search routes: messages of a workspace, a peer or a session matching a query."""

from __future__ import annotations

from collections.abc import Mapping

from .. import _filters
from .._backends import scopes, search
from .._common import ApiError, validation_error
from .._routing import Route, Services
from .._state import message_json, message_row
from .._validate import get_int, get_str
from .._web import Ctx, P, Response, S, W, filters_of, json_response


def _search(services: Services, ctx: Ctx, forced: Mapping[str, str]) -> Response:
    body = ctx.body()
    text = get_str(body, "query", ["body"], required=True) or ""
    limit = get_int(body, "limit", ["body"], 10, ge=1, le=100) or 10
    filters = dict(filters_of(body) or {})
    perspective = filters.pop("peer_perspective", None)
    scope = scopes.parse_option(body.get("scope"), ["body", "scope"]) if not forced else None
    if isinstance(scope, list):
        raise validation_error(
            "string_type", ["body", "scope"], "Input should be a valid string", scope
        )
    if scope is not None and "session_id" in filters:
        raise ApiError(422, "`scope` and a 'session_id' filter are mutually exclusive")
    match = _filters.compile_filter(filters, _filters.MESSAGE_SEARCH)
    hits = search.messages(
        ctx.ws, ctx.w, text, limit, forced, perspective, scope, lambda m: match(message_row(m))
    )
    return json_response(200, [message_json(m) for m in hits])


def search_workspace(services: Services, ctx: Ctx) -> Response:
    return _search(services, ctx, {})


def search_peer(services: Services, ctx: Ctx) -> Response:
    return _search(services, ctx, {"peer_id": ctx.params["p"]})


def search_session(services: Services, ctx: Ctx) -> Response:
    return _search(services, ctx, {"session_id": ctx.params["s"]})


ROUTES = (
    Route("POST", W + "/search", search_workspace, "workspace"),
    Route("POST", P + "/search", search_peer, "peer"),
    Route("POST", S + "/search", search_session, "member_read"),
)
