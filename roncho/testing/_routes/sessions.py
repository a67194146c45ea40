"""Session routes: create (201/200), list, update, delete (202), members and their
configuration, the context window, summaries and clones."""

from __future__ import annotations

from urllib.parse import parse_qs

from .. import _auth, _filters
from .._backends import context, scopes, sessions
from .._common import validation_error
from .._routing import Route, Services
from .._state import message_json, peer_json, session_json, session_row
from .._validate import (
    get_dict,
    get_id,
    get_metadata,
    query_bool,
    query_float,
    query_int,
    query_top_k,
    session_peer_config,
)
from .._web import (
    Ctx,
    Response,
    S,
    W,
    check_configuration,
    filters_of,
    json_response,
    page,
    paged,
)


def create_session(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()
    name = get_id(body, ["body"])
    metadata = get_metadata(body, ["body"])
    configuration = check_configuration(get_dict(body, "configuration", ["body"]), ["body"])
    peers_key = "peers" if "peers" in body or "peer_names" not in body else "peer_names"
    raw_peers = get_dict(body, peers_key, ["body"])
    members = {
        key: session_peer_config(value, ["body", peers_key, key])
        for key, value in (raw_peers or {}).items()
    }
    scope_names = (
        scopes.check_names(body["scopes"], ["body", "scopes"])
        if body.get("scopes") is not None
        else []
    )
    _auth.check_own(ctx.claims, ctx.w, session=name)
    if scope_names:
        scopes.check_membership_key(ctx.claims)
    session, created = sessions.get_or_create(
        ctx.made_ws(services.store),
        ctx.w,
        name,
        metadata,
        configuration,
        members,
        scope_names,
        services.deriver,
        services.options.deriver_delay,
    )
    return json_response(201 if created else 200, session_json(session))


def list_sessions(services: Services, ctx: Ctx) -> Response:
    match = _filters.compile_filter(filters_of(ctx.body(required=False)), _filters.SESSION)
    found = list(ctx.ws.sessions.values()) if ctx.ws else []
    items = [
        session_json(session)
        for session in found
        if session.is_active and match(session_row(session))
    ]
    return paged(ctx, items)


def update_session(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()
    metadata = get_metadata(body, ["body"])
    configuration = check_configuration(get_dict(body, "configuration", ["body"]), ["body"])
    ws = ctx.made_ws(services.store)
    session, _ = sessions.find_or_create(ws, ctx.params["s"])
    sessions.update(session, metadata, configuration)
    return json_response(200, session_json(session))


def delete_session(services: Services, ctx: Ctx) -> Response:
    sessions.delete(ctx.ws, ctx.w, ctx.params["s"], services.deriver, services.options.purge_delay)
    return json_response(202, {"message": "Session deleted successfully"})


def _peer_map(ctx: Ctx) -> dict[str, tuple[bool | None, bool | None]]:
    raw = ctx.json()
    if raw is None:  # `Body(...)`: no body, or JSON null, is FastAPI's "missing"
        raise validation_error("missing", ["body"], "Field required", None)
    if not isinstance(raw, dict):
        raise validation_error("dict_type", ["body"], "Input should be a valid dictionary", raw)
    return {key: session_peer_config(value, ["body", key]) for key, value in raw.items()}


def add_session_peers(services: Services, ctx: Ctx) -> Response:
    members = _peer_map(ctx)
    session = sessions.add_members(ctx.made_ws(services.store), ctx.params["s"], members)
    return json_response(200, session_json(session))


def set_session_peers(services: Services, ctx: Ctx) -> Response:
    members = _peer_map(ctx)
    session = sessions.set_members(ctx.ws, ctx.w, ctx.params["s"], members)
    return json_response(200, session_json(session))


def remove_session_peers(services: Services, ctx: Ctx) -> Response:
    raw = ctx.json()
    if raw is None:  # `Body(...)`: no body, or JSON null, is FastAPI's "missing"
        raise validation_error("missing", ["body"], "Field required", None)
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        raise validation_error("list_type", ["body"], "Input should be a valid list", raw)
    session = sessions.remove_members(ctx.ws, ctx.w, ctx.params["s"], raw)
    return json_response(200, session_json(session))


def list_session_peers(services: Services, ctx: Ctx) -> Response:
    items = [peer_json(peer) for peer in sessions.active_members(ctx.ws, ctx.params["s"])]
    return json_response(200, page(ctx.request.query, items))


def get_peer_config(services: Services, ctx: Ctx) -> Response:
    member = sessions.member_config(ctx.ws, ctx.w, ctx.params["s"], ctx.params["p"])
    return json_response(
        200, {"observe_me": member.observe_me, "observe_others": member.observe_others}
    )


def put_peer_config(services: Services, ctx: Ctx) -> Response:
    observe_me, observe_others = session_peer_config(ctx.body(), ["body"])
    sessions.set_member_config(
        ctx.ws, ctx.w, ctx.params["s"], ctx.params["p"], observe_me, observe_others
    )
    # Observed on 3.0.12: 204 with Content-Type application/json and an empty body.
    return Response(204, b"")


def session_context(services: Services, ctx: Ctx) -> Response:
    query = ctx.request.query
    # 3.0.12 `src/routers/sessions.py:692-696` declares only `le=`: 0 and below give an
    # empty context.
    tokens = query_int(query, "tokens", 100000, ge=None, le=100000)
    with_summary = query_bool(query, "summary", True)
    limit_to_session = query_bool(query, "limit_to_session", False)
    search = context.Search(query.get("search_query") or None, query_top_k(query))
    query_float(query, "search_max_distance", ge=0.0, le=1.0)
    query_bool(query, "include_most_frequent", False)
    ask = context.ContextAsk(
        tokens=tokens,
        with_summary=with_summary,
        limit_to_session=limit_to_session,
        search=search,
        limit=query_int(query, "max_conclusions", 100, ge=1, le=100),
        peer_target=query.get("peer_target") or None,
        peer_perspective=query.get("peer_perspective") or None,
        scope=scopes.parse_option(query.get("scope"), ["query", "scope"]),
        sessions=parse_qs(ctx.request.raw_query, keep_blank_values=True).get("sessions"),
    )
    name = ctx.params["s"]
    found = context.session_context(
        ctx.ws, ctx.w, name, ctx.claims, ask, services.store.count_tokens
    )
    return json_response(
        200,
        {
            "id": name,
            "messages": [message_json(m) for m in found.messages],
            "summary": found.summary,
            "peer_representation": found.representation,
            "peer_card": found.card,
        },
    )


def session_summaries(services: Services, ctx: Ctx) -> Response:
    name = ctx.params["s"]
    short, long = sessions.summaries(ctx.ws, name)
    return json_response(200, {"id": name, "short_summary": short, "long_summary": long})


def clone_session(services: Services, ctx: Ctx) -> Response:
    cutoff = ctx.request.query.get("message_id")
    copy = sessions.clone(services.store, ctx.ws, ctx.params["s"], cutoff)
    return json_response(201, session_json(copy))


ROUTES = (
    Route("POST", W + "/sessions", create_session, "self"),
    Route("POST", W + "/sessions/list", list_sessions, "workspace"),
    Route("PUT", S, update_session, "workspace"),
    Route("DELETE", S, delete_session, "workspace"),
    Route("POST", S + "/peers", add_session_peers, "workspace"),
    Route("PUT", S + "/peers", set_session_peers, "workspace"),
    Route("DELETE", S + "/peers", remove_session_peers, "workspace"),
    Route("GET", S + "/peers", list_session_peers, "member_read"),
    Route("GET", S + "/peers/{p}/config", get_peer_config, "own_config"),
    Route("PUT", S + "/peers/{p}/config", put_peer_config, "workspace"),
    Route("GET", S + "/context", session_context, "member_read"),
    Route("GET", S + "/summaries", session_summaries, "member_read"),
    Route("POST", S + "/clone", clone_session, "workspace"),
)
