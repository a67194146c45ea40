"""Conclusion routes: create (201), list (newest first), query (semantic), get (3.2.0),
delete (204)."""

from __future__ import annotations

from collections.abc import Callable

from .. import _filters, _tokens
from .._backends import conclusions
from .._backends.conclusions import NewConclusion
from .._common import ApiError, JsonDict, validation_error
from .._options import Options
from .._routing import Route, Services
from .._state import Conclusion
from .._validate import get_float, get_int, get_list, get_str, query_bool
from .._web import Ctx, Response, W, filters_of, json_response, page

# The server's batch limit and conclusion size.
MAX_BATCH = 100
MAX_CONCLUSION_CHARS = 65535
CONCLUSIONS_QUERY_DETAIL = (
    "observer and observed must be specified for semantic search. Pass them inside the "
    "'filters' object, e.g. "
    '{"query": "...", "filters": {"observer": "alice", "observed": "bob"}}. '
    "Both 'observer'/'observer_id' and 'observed'/'observed_id' are accepted."
)


def render(services: Services, conclusion: Conclusion) -> JsonDict:
    """A conclusion as this emulator's version shapes it."""
    return conclusions.shaped(conclusion, services.options.profile)


def _matcher(services: Services, filters: object) -> conclusions.RowMatch:
    profile = services.options.profile
    match = _filters.compile_filter(filters, conclusions.filter_resource(profile))
    return lambda c: match(conclusions.filter_row(c, profile))


def _conclusion_input(
    item: object, loc: list[str | int], count: Callable[[str], int]
) -> NewConclusion:
    if not isinstance(item, dict):
        raise validation_error(
            "model_attributes_type",
            loc,
            "Input should be a valid dictionary or object to extract fields from",
            item,
        )
    content = get_str(item, "content", loc, required=True, min_len=1, max_len=MAX_CONCLUSION_CHARS)
    observer = get_str(item, "observer_id", loc, required=True)
    observed = get_str(item, "observed_id", loc, required=True)
    session = get_str(item, "session_id", loc)
    refused = _tokens.embedding_refusal(str(content), count)  # the schema's model validator
    if refused is not None:
        raise validation_error("value_error", loc, f"Value error, {refused}", item, {"error": {}})
    return NewConclusion(str(content), str(observer), str(observed), session)


def create_conclusions(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()
    key = "conclusions" if "conclusions" in body or "observations" not in body else "observations"
    raw = get_list(body, key, ["body"], min_items=1, max_items=MAX_BATCH, required=True) or []
    count = services.store.count_tokens
    batch = [_conclusion_input(item, ["body", key, i], count) for i, item in enumerate(raw)]
    created = conclusions.create(services.store, ctx.ws, ctx.w, batch)
    return json_response(201, [render(services, c) for c in created])


def list_conclusions(services: Services, ctx: Ctx) -> Response:
    match = _matcher(services, filters_of(ctx.body(required=False)))
    newest_first = not query_bool(ctx.request.query, "reverse", False)
    found = conclusions.listed(ctx.ws, match, newest_first=newest_first)
    items = [render(services, c) for c in found]
    return json_response(200, page(ctx.request.query, items))


def query_conclusions(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()
    text = get_str(body, "query", ["body"], required=True) or ""
    top_k = get_int(body, "top_k", ["body"], 10, ge=1, le=100) or 10
    distance = get_float(body, "distance", ["body"], ge=0.0, le=1.0)
    filters = filters_of(body)
    if not isinstance(filters, dict) or not (
        ("observer" in filters or "observer_id" in filters)
        and ("observed" in filters or "observed_id" in filters)
    ):
        raise ApiError(422, CONCLUSIONS_QUERY_DETAIL)
    match = _matcher(services, filters)
    hits = conclusions.query(ctx.ws, text, match, top_k, max_distance=distance)
    return json_response(200, [render(services, c) for c in hits])


def get_conclusion(services: Services, ctx: Ctx) -> Response:
    return json_response(200, render(services, conclusions.get(ctx.ws, ctx.params["c"])))


def _serves_get(options: Options) -> bool:
    return options.profile.conclusion_get  # 3.2.0 (PR 952); 3.0.12: 405, DELETE only


def delete_conclusion(services: Services, ctx: Ctx) -> Response:
    conclusions.delete(ctx.ws, ctx.w, ctx.params["c"])
    # Observed: 204 with Content-Type application/json and an empty body.
    return Response(204, b"")


ROUTES = (
    Route("POST", W + "/conclusions", create_conclusions, "workspace"),
    Route("POST", W + "/conclusions/list", list_conclusions, "workspace"),
    Route("POST", W + "/conclusions/query", query_conclusions, "workspace"),
    Route("GET", W + "/conclusions/{c}", get_conclusion, "workspace", served=_serves_get),
    Route("DELETE", W + "/conclusions/{c}", delete_conclusion, "workspace"),
)
