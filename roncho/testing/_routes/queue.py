"""`GET .../queue/status`: the deriver queue's work units."""

from __future__ import annotations

from .._backends import queue
from .._routing import Route, Services
from .._web import Ctx, Response, W, json_response


def queue_status(services: Services, ctx: Ctx) -> Response:
    query = ctx.request.query
    body = queue.status(
        ctx.ws,
        query.get("observer_id") or None,
        query.get("sender_id") or None,
        query.get("session_id") or None,
    )
    return json_response(200, body)


ROUTES = (Route("GET", W + "/queue/status", queue_status, "workspace"),)
