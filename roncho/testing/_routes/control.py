"""The emulator's control surface over HTTP, under `/_fake/` (a prefix Honcho never uses).

A test written in any language drives a running emulator through it: reset the state, add
fault rules (or arm the one-shot faults), read the request record and the deriver log. It
answers only when the emulator was started with control on (`--control`, or
`FakeHoncho.control_enabled = True`); otherwise every path under the prefix gets a 404 whose
detail says how to turn it on. They are routes of the one table (`App.dispatch`) with the
`admin` access level: with `auth` on they want an admin key, like every other admin route of
the server. They are matched on the path as sent (a trailing slash ignored, HEAD not served
as GET) and the socket server neither records nor faults them.

Nothing here touches the emulated API's state except through the host's (`FakeHoncho`'s)
own methods and the deriver.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import Any

from .._common import ApiError
from .._faults import MAX_FAULT_SECONDS, FaultRule
from .._routing import Route, Services
from .._snapshot import SnapshotError
from .._web import Ctx, Request, Response, json_response

PREFIX = "/_fake"
DISABLED = (
    "The emulator's control surface is off: start it with --control "
    "(or set FakeHoncho.control_enabled = True)"
)
# An action gets the services (the host among them), the JSON body and the path parameters
# (`{id}`); what it returns is the 200 answer's JSON.
Body = Mapping[str, Any]
Params = Mapping[str, str]
Action = Callable[[Services, Body, Params], object]


def addressed(raw_path: str) -> bool:
    """Whether a path as sent is the control surface's: the prefix itself or under it
    (`/_fakeish` is Honcho's, and so is `/%5Ffake`)."""
    return raw_path == PREFIX or raw_path.startswith(PREFIX + "/")


def route_path(raw_path: str) -> str:
    """The path the control routes are matched on: as sent, without a trailing slash."""
    return raw_path.rstrip("/")


def no_route(request: Request) -> ApiError:
    return ApiError(
        404, f"No control route {request.method} {request.raw_path}; GET {PREFIX}/info lists them"
    )


def _seconds(body: Body) -> float:
    value = body.get("seconds")
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 <= value <= MAX_FAULT_SECONDS
    ):
        raise ApiError(422, f"'seconds' must be a number from 0 to {MAX_FAULT_SECONDS:g}")
    return float(value)


def _info(services: Services, body: Body, params: Params) -> object:
    return {
        "url": services.host.url,
        "version": services.host.options.version,
        # Shown as set or not: the webhook secret is one.
        "options": {
            **asdict(services.host.options),
            "webhook_secret": services.host.options.webhook_secret is not None,
        },
        "routes": [f"{route.method} {route.template}" for route in ROUTES],
    }


def _reset(services: Services, body: Body, params: Params) -> object:
    services.host.reset()
    return {"reset": True}


def _slow_next(services: Services, body: Body, params: Params) -> object:
    seconds = _seconds(body)
    services.host.faults.slow_next(seconds)
    return {"armed": "slow_next", "seconds": seconds}


def _fail_next(services: Services, body: Body, params: Params) -> object:
    status = body.get("status", 500)
    if isinstance(status, bool) or not isinstance(status, int) or not 300 <= status <= 599:
        raise ApiError(422, "'status' must be an integer from 300 to 599")
    services.host.faults.fail_next(status)
    return {"armed": "fail_next", "status": status}


def _stall_stream_next(services: Services, body: Body, params: Params) -> object:
    seconds = _seconds(body)
    services.host.faults.stall_stream_next(seconds)
    return {"armed": "stall_stream_next", "seconds": seconds}


def _close_mid_body_next(services: Services, body: Body, params: Params) -> object:
    services.host.faults.close_mid_body_next()
    return {"armed": "close_mid_body_next"}


def _add_fault(services: Services, body: Body, params: Params) -> object:
    try:
        rule = FaultRule.from_json(body)
    except (TypeError, ValueError) as error:
        raise ApiError(422, str(error)) from None
    return {"added": services.host.faults.add(rule).to_json()}


def _list_faults(services: Services, body: Body, params: Params) -> object:
    return [state.to_json() for state in services.host.faults.rules()]


def _remove_fault(services: Services, body: Body, params: Params) -> object:
    text = params["id"]
    if not text.isdigit() or not services.host.faults.remove(int(text)):
        raise ApiError(404, f"No fault rule {text}")
    return {"removed": int(text)}


def _clear_faults(services: Services, body: Body, params: Params) -> object:
    services.host.faults.clear()
    return {"cleared": "faults"}


def _requests(services: Services, body: Body, params: Params) -> object:
    # RecordedRequest already holds "[redacted]" in place of the Authorization value.
    return [
        {
            "method": recorded.method,
            "path": recorded.path,
            "query": recorded.query,
            "headers": recorded.headers,
            "body": recorded.body.decode("utf-8", "replace"),
            "json": recorded.json,
        }
        for recorded in services.host.requests
    ]


def _clear_requests(services: Services, body: Body, params: Params) -> object:
    services.host.clear_requests()
    return {"cleared": "requests"}


def _deriver(services: Services, body: Body, params: Params) -> object:
    return [asdict(record) for record in services.deriver.log()]


def _deriver_step(services: Services, body: Body, params: Params) -> object:
    batches = body.get("batches")
    if batches is not None and (
        isinstance(batches, bool) or not isinstance(batches, int) or batches < 1
    ):
        raise ApiError(422, "'batches' must be an integer >= 1 (or absent for all)")
    return [asdict(record) for record in services.deriver.step(batches)]


def _export_state(services: Services, body: Body, params: Params) -> object:
    return services.host.export_state()


def _restore_state(services: Services, body: Body, params: Params) -> object:
    try:
        services.host.restore_state(dict(body))
    except SnapshotError as error:
        raise ApiError(422, str(error)) from None
    return {"restored": True}


def _body(raw: bytes) -> Body:
    if not raw.strip():
        return {}
    try:
        parsed = json.loads(raw)
    except ValueError:
        raise ApiError(422, "The body must be a JSON object") from None
    if not isinstance(parsed, dict):
        raise ApiError(422, "The body must be a JSON object")
    return parsed


def _route(method: str, path: str, action: Action) -> Route:
    """A control route: admin only (when auth is on), no store lock (the actions lock what
    they touch), its answer a 200 with the action's JSON."""

    def handler(services: Services, ctx: Ctx) -> Response:
        body = _body(ctx.request.body)
        return json_response(200, action(services, body, ctx.params))

    return Route(method, PREFIX + path, handler, "admin", store=False)


ROUTES = (
    _route("GET", "/info", _info),
    _route("POST", "/reset", _reset),
    _route("POST", "/faults/slow_next", _slow_next),
    _route("POST", "/faults/fail_next", _fail_next),
    _route("POST", "/faults/stall_stream_next", _stall_stream_next),
    _route("POST", "/faults/close_mid_body_next", _close_mid_body_next),
    _route("POST", "/faults", _add_fault),
    _route("GET", "/faults", _list_faults),
    _route("DELETE", "/faults", _clear_faults),
    _route("DELETE", "/faults/{id}", _remove_fault),
    _route("GET", "/requests", _requests),
    _route("DELETE", "/requests", _clear_requests),
    _route("GET", "/deriver", _deriver),
    _route("POST", "/deriver/step", _deriver_step),
    _route("GET", "/state", _export_state),
    _route("POST", "/state", _restore_state),
)
