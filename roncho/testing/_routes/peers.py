"""Peer routes: create (201/200), list, update, the peer's sessions, its card, and its
representation (`/context` and `/representation`)."""

from __future__ import annotations

from .. import _auth, _filters
from .._backends import context, peers, scopes
from .._common import ApiError, error_item, validation_error
from .._routing import Route, Services
from .._state import peer_json, peer_row, session_json, session_row
from .._validate import (
    get_bool,
    get_dict,
    get_float,
    get_id,
    get_int,
    get_list,
    get_metadata,
    get_str,
    query_bool,
    query_float,
    query_int,
    query_top_k,
)
from .._web import Ctx, P, Response, W, filters_of, json_response, paged


def create_peer(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()
    name = get_id(body, ["body"])
    metadata = get_metadata(body, ["body"])
    configuration = get_dict(body, "configuration", ["body"])
    _auth.check_own(ctx.claims, ctx.w, peer=name)
    ws = ctx.made_ws(services.store)
    peer, created = peers.upsert(ws, name, metadata, configuration)
    return json_response(201 if created else 200, peer_json(peer))


def list_peers(services: Services, ctx: Ctx) -> Response:
    body = ctx.body(required=False)
    match = _filters.compile_filter(filters_of(body), _filters.PEER)
    kind = body.get("kind")
    if kind is not None and kind not in ("scope", "all"):
        raise validation_error(
            "literal_error",
            ["body", "kind"],
            "Input should be 'scope' or 'all'",
            kind,
            {"expected": "'scope' or 'all'"},
        )
    items = [peer_json(peer) for peer in peers.listed(ctx.ws, kind) if match(peer_row(peer))]
    return paged(ctx, items)


def update_peer(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()
    metadata = get_metadata(body, ["body"])
    configuration = get_dict(body, "configuration", ["body"])
    peer = peers.update(ctx.made_ws(services.store), ctx.params["p"], metadata, configuration)
    return json_response(200, peer_json(peer))


def peer_sessions(services: Services, ctx: Ctx) -> Response:
    match = _filters.compile_filter(filters_of(ctx.body(required=False)), _filters.SESSION)
    items = [
        session_json(session)
        for session in peers.sessions_of(ctx.ws, ctx.params["p"])
        if match(session_row(session))
    ]
    return paged(ctx, items)


def get_card(services: Services, ctx: Ctx) -> Response:
    target = ctx.request.query.get("target") or ctx.params["p"]
    card = peers.card(ctx.ws, ctx.params["p"], target, ctx.w)
    return json_response(200, {"peer_card": card})


def put_card(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()
    if body.get("peer_card") is None and "peer_card" in body:
        raise validation_error(
            "list_type", ["body", "peer_card"], "Input should be a valid list", None
        )
    card = get_list(body, "peer_card", ["body"], required=True) or []
    wrong = [
        error_item(
            "string_type", ["body", "peer_card", index], "Input should be a valid string", line
        )
        for index, line in enumerate(card)
        if not isinstance(line, str)
    ]
    if wrong:
        raise ApiError(422, wrong)
    target = ctx.request.query.get("target") or ctx.params["p"]
    stored = peers.set_card(services.store, ctx.ws, ctx.params["p"], target, card, ctx.w)
    return json_response(200, {"peer_card": stored})


def peer_context(services: Services, ctx: Ctx) -> Response:
    query = ctx.request.query
    peer = ctx.params["p"]
    target = query.get("target") or peer
    limit = query_int(query, "max_conclusions", 100, ge=1, le=100)
    search = context.Search(query.get("search_query") or None, query_top_k(query))
    query_float(query, "search_max_distance", ge=0.0, le=1.0)
    query_bool(query, "include_most_frequent", True)
    found = context.peer_context(ctx.ws, ctx.w, peer, target, limit, search)
    return json_response(
        200,
        {
            "peer_id": peer,
            "target_id": target,
            "representation": found.representation,
            "peer_card": found.card,
        },
    )


def peer_representation(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()  # `Body(...)` in 3.0.12: no body, or JSON null, is 422 "missing"
    session_id = get_str(body, "session_id", ["body"])
    target = get_str(body, "target", ["body"])
    limit = get_int(body, "max_conclusions", ["body"], 25, ge=1, le=100) or 25
    top_k = get_int(body, "search_top_k", ["body"], None, ge=1, le=100)
    search = context.Search(get_str(body, "search_query", ["body"]), top_k)
    get_float(body, "search_max_distance", ["body"], ge=0.0, le=1.0)
    get_bool(body, "include_most_frequent", ["body"], None)
    scope = scopes.parse_read_option(body.get("scope"), ["body", "scope"])
    recall = context.Recall(session_id, body.get("filters"), scope)
    text = context.peer_representation(
        ctx.ws, ctx.w, ctx.claims, ctx.params["p"], target, limit, search, recall
    )
    return json_response(200, {"representation": text})


ROUTES = (
    Route("POST", W + "/peers", create_peer, "self"),
    Route("POST", W + "/peers/list", list_peers, "workspace"),
    Route("PUT", P, update_peer, "peer"),
    Route("POST", P + "/sessions", peer_sessions, "peer"),
    Route("GET", P + "/context", peer_context, "peer"),
    Route("POST", P + "/representation", peer_representation, "peer"),
    Route("GET", P + "/card", get_card, "peer"),
    Route("PUT", P + "/card", put_card, "peer"),
)
