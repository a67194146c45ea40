"""`POST /v3/keys`: parse the scope and expiry from the query, mint a key."""

from __future__ import annotations

from .._backends import keys
from .._common import ApiError, iso, parse_datetime
from .._routing import Route, Services
from .._validate import datetime_error
from .._web import Ctx, Response, json_response


def create_key(services: Services, ctx: Ctx) -> Response:
    query = ctx.request.query
    expires = query.get("expires_at") or None
    # FastAPI parses the query before the handler's "Feature is disabled" (3.0.12
    # `src/routers/keys.py:29-38`): a bad expiry is 422 with auth off too.
    moment = parse_datetime(expires) if expires is not None else None
    if expires is not None and moment is None:
        raise datetime_error(["query", "expires_at"], expires)
    if not services.options.auth:
        raise ApiError(405, "Feature is disabled")
    workspace = query.get("workspace_id") or None
    peer = query.get("peer_id") or None
    session = query.get("session_id") or None
    keys.check_scope(workspace, peer, session)
    if moment is not None:
        expires = iso(moment)
    return json_response(
        200, {"key": keys.mint(services.secret, workspace, peer, session, expires)}
    )


ROUTES = (Route("POST", "/v3/keys", create_key, "admin", store=False),)
