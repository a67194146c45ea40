"""`GET .../queue/status`: the deriver queue's work units."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._backends import queue, workspaces
from .._web import Ctx, Response, Route, W, json_response

if TYPE_CHECKING:
    from .._app import App


def queue_status(app: App, ctx: Ctx) -> Response:
    query = ctx.request.query
    with app.store.lock:
        body = queue.status(
            workspaces.find(app.store, ctx.w),
            query.get("observer_id") or None,
            query.get("sender_id") or None,
            query.get("session_id") or None,
        )
    return json_response(200, body)


ROUTES = (Route("GET", W + "/queue/status", queue_status, "workspace"),)
