"""Session routes: create (201/200), list, update, delete (202), members and their
configuration, the context window, summaries and clones."""

from __future__ import annotations

from urllib.parse import parse_qs

from .. import _auth, _filters, _scopes
from .._backends import conclusions, peers, scopes, sessions, workspaces
from .._common import ApiError, validation_error
from .._state import message_json, peer_json, session_json, session_row
from .._validate import (
    get_dict,
    get_id,
    get_metadata,
    query_bool,
    query_float,
    query_int,
    session_peer_config,
)
from .._web import (
    Ctx,
    Response,
    Route,
    S,
    Services,
    W,
    check_configuration,
    filters_of,
    json_response,
    page,
    paged,
    require_member,
)
from .peers import query_top_k


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
        _scopes.check_names(body["scopes"], ["body", "scopes"])
        if body.get("scopes") is not None
        else []
    )
    if ctx.claims.session is not None and ctx.claims.session != name:
        raise ApiError(401, _auth.NOT_PERMITTED)
    claims = ctx.claims
    if scope_names and not (claims.admin or (claims.peer is None and claims.session is None)):
        raise ApiError(401, "Scope membership requires a workspace-level key")
    ws = workspaces.find_or_create(services.store, ctx.w)
    _scopes.refuse(ws, members, _scopes.MEMBERSHIP)
    session, created = sessions.get_or_create(ws, name, metadata, configuration, members)
    for scope_name in scope_names:
        scopes.get_or_create(ws, scope_name, None)
        _scopes.backing_peer(ws, scope_name)
    if scope_names:
        for scope_name in scope_names:
            scopes.add_sessions(
                ws, ctx.w, scope_name, [name], services.deriver, services.options.deriver_delay
            )
    return json_response(201 if created else 200, session_json(session))


def list_sessions(services: Services, ctx: Ctx) -> Response:
    match = _filters.compile_filter(filters_of(ctx.body(required=False)), _filters.SESSION)
    ws = workspaces.find(services.store, ctx.w)
    found = list(ws.sessions.values()) if ws else []
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
    ws = workspaces.find_or_create(services.store, ctx.w)
    session, _ = sessions.find_or_create(ws, ctx.params["s"])
    sessions.update(session, metadata, configuration)
    return json_response(200, session_json(session))


def delete_session(services: Services, ctx: Ctx) -> Response:
    ws = workspaces.find(services.store, ctx.w)
    sessions.delete(ws, ctx.w, ctx.params["s"], services.deriver, services.options.purge_delay)
    return json_response(202, {"message": "Session deleted successfully"})


def _peer_map(ctx: Ctx) -> dict[str, tuple[bool | None, bool | None]]:
    raw = ctx.json()
    if not isinstance(raw, dict):
        raise validation_error("dict_type", ["body"], "Input should be a valid dictionary", raw)
    return {key: session_peer_config(value, ["body", key]) for key, value in raw.items()}


def add_session_peers(services: Services, ctx: Ctx) -> Response:
    members = _peer_map(ctx)
    ws = workspaces.find_or_create(services.store, ctx.w)
    _scopes.refuse(ws, members, _scopes.MEMBERSHIP)
    session, _ = sessions.find_or_create(ws, ctx.params["s"])
    sessions.upsert_members(ws, session, members)
    return json_response(200, session_json(session))


def set_session_peers(services: Services, ctx: Ctx) -> Response:
    members = _peer_map(ctx)
    ws = workspaces.find(services.store, ctx.w)
    _scopes.refuse(ws, members, _scopes.MEMBERSHIP)
    session = sessions.set_members(ws, ctx.w, ctx.params["s"], members)
    return json_response(200, session_json(session))


def remove_session_peers(services: Services, ctx: Ctx) -> Response:
    raw = ctx.json()
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        raise validation_error("list_type", ["body"], "Input should be a valid list", raw)
    ws = workspaces.find(services.store, ctx.w)
    _scopes.refuse(ws, raw, _scopes.MEMBERSHIP)
    session = sessions.remove_members(ws, ctx.w, ctx.params["s"], raw)
    return json_response(200, session_json(session))


def list_session_peers(services: Services, ctx: Ctx) -> Response:
    ws = workspaces.find(services.store, ctx.w)
    items = [
        peer_json(peer)
        for peer in sessions.active_members(ws, ctx.params["s"])
        if not _scopes.is_scope(ws, peer.id)
    ]
    return json_response(200, page(ctx.request.query, items))


def get_peer_config(services: Services, ctx: Ctx) -> Response:
    ws = workspaces.find(services.store, ctx.w)
    _scopes.refuse(ws, [ctx.params["p"]], _scopes.MEMBERSHIP_CONFIG)
    member = sessions.member_config(ws, ctx.w, ctx.params["s"], ctx.params["p"])
    return json_response(
        200, {"observe_me": member.observe_me, "observe_others": member.observe_others}
    )


def put_peer_config(services: Services, ctx: Ctx) -> Response:
    observe_me, observe_others = session_peer_config(ctx.body(), ["body"])
    ws = workspaces.find(services.store, ctx.w)
    _scopes.refuse(ws, [ctx.params["p"]], _scopes.MEMBERSHIP_CONFIG)
    sessions.set_member_config(
        ws, ctx.w, ctx.params["s"], ctx.params["p"], observe_me, observe_others
    )
    # Observed on 3.0.12: 204 with Content-Type application/json and an empty body.
    return Response(204, b"")


def session_context(services: Services, ctx: Ctx) -> Response:
    query = ctx.request.query
    tokens = query_int(query, "tokens", 100000, ge=1, le=100000)
    with_summary = query_bool(query, "summary", True)
    limit_to_session = query_bool(query, "limit_to_session", False)
    search = conclusions.Search(query.get("search_query") or None, query_top_k(query))
    query_float(query, "search_max_distance", ge=0.0, le=1.0)
    query_bool(query, "include_most_frequent", False)
    limit = query_int(query, "max_conclusions", 100, ge=1, le=100)
    peer_target = query.get("peer_target") or None
    peer_perspective = query.get("peer_perspective") or None
    scope = _scopes.parse_option(query.get("scope"), ["query", "scope"])
    name = ctx.params["s"]
    if peer_perspective and not peer_target:
        raise ApiError(422, "peer_target must be provided if peer_perspective is provided")
    ws = workspaces.find(services.store, ctx.w)
    if peer_target is not None:
        _scopes.refuse_observed(ws, [peer_target], _scopes.CONTEXT_TARGET)
    if peer_perspective is not None:
        _scopes.refuse(ws, [peer_perspective], _scopes.PERSPECTIVE)
    if scope is not None:
        if peer_perspective:
            raise ApiError(422, "`scope` and `peer_perspective` are mutually exclusive")
        if not peer_target:
            raise ApiError(422, "peer_target must be provided if scope is provided")
        _scopes.check_key(ctx.claims, session_key_too=True)
    allow = _context_allowlist(services, ctx, name, peer_target, peer_perspective, limit_to_session)
    if scope is not None and "sessions" in parse_qs(ctx.request.raw_query):
        raise ApiError(422, "`sessions` and `scope` are mutually exclusive")
    ws = workspaces.find(services.store, ctx.w)
    if scope is not None:
        allow = sorted(_scopes.resolve(ws, ctx.w, scope))
    if allow is None and peer_target is not None:
        # Seen on 3.0.12: without a session allowlist the perspective and target peers
        # are looked up first (404, before the session's own 404); with one, a missing
        # peer only gives an empty representation.
        for who in (peer_perspective, peer_target):
            if who is not None and (ws is None or who not in ws.peers):
                raise peers.missing(who, ctx.w)
    session = sessions.existing(ws, ctx.w, name)
    assert ws is not None
    representation = None
    card = None
    if peer_target is not None:
        observer = peer_perspective or peer_target
        allowed = set(allow) if allow is not None else None
        held = conclusions.represented(ws, observer, peer_target, limit, allowed, search)
        representation = conclusions.representation_markdown(held)
        card_lines = ws.cards.get((observer, peer_target))
        # Fail closed: a card has no per-session provenance, so under an allowlist
        # (`sessions` or `limit_to_session`) the server withholds it.
        if card_lines is not None and allow is None:
            card = list(card_lines)
        # The representation (as `str(Representation)`) and the card are paid for first.
        count = services.store.count_tokens
        tokens -= count(conclusions.representation_text(held)) + count("\n".join(card or []))
    summary, chosen = sessions.context_window(ws, session, tokens, with_summary)
    return json_response(
        200,
        {
            "id": name,
            "messages": [message_json(m) for m in chosen],
            "summary": summary,
            "peer_representation": representation if peer_target is not None else None,
            "peer_card": card,
        },
    )


def _context_allowlist(
    services: Services,
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
        ws = workspaces.find(services.store, ctx.w)
        for session_name in allow:
            require_member(ctx, ws, session_name)
    return allow


def session_summaries(services: Services, ctx: Ctx) -> Response:
    name = ctx.params["s"]
    ws = workspaces.find(services.store, ctx.w)
    # Seen on 3.0.12 (and Honcho's own route test): a missing session, even in a
    # missing workspace, is 200 with null summaries, not 404.
    session = ws.sessions.get(name) if ws is not None else None
    short = session.short_summary if session is not None else None
    long = session.long_summary if session is not None else None
    return json_response(200, {"id": name, "short_summary": short, "long_summary": long})


def clone_session(services: Services, ctx: Ctx) -> Response:
    cutoff = ctx.request.query.get("message_id") or None
    ws = workspaces.find(services.store, ctx.w)
    copy = sessions.clone(services.store, ws, ctx.params["s"], cutoff)
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
