"""`POST /v3/keys`: parse the scope and expiry from the query, mint a key."""

from __future__ import annotations

from .._backends import keys
from .._common import ApiError, iso, parse_datetime, validation_error
from .._routing import Route, Services
from .._web import Ctx, Response, json_response


def create_key(services: Services, ctx: Ctx) -> Response:
    if not services.options.auth:
        raise ApiError(405, "Feature is disabled")
    query = ctx.request.query
    workspace = query.get("workspace_id") or None
    peer = query.get("peer_id") or None
    session = query.get("session_id") or None
    expires = query.get("expires_at") or None
    keys.check_scope(workspace, peer, session)
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
    return json_response(
        200, {"key": keys.mint(services.secret, workspace, peer, session, expires)}
    )


ROUTES = (Route("POST", "/v3/keys", create_key, "admin", store=False),)
