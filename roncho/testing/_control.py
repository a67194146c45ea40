"""The emulator's control surface over HTTP, under `/_fake/` (a prefix Honcho never uses).

A test written in any language drives a running emulator through it: reset the state, arm the
one-shot faults, read the request record and the deriver log. It answers only when the emulator
was started with control on (`--control`, or `FakeHoncho.control_enabled = True`); otherwise
every path under the prefix gets a 404 whose detail says how to turn it on. With `auth` on, the
routes want an admin key, like every other admin route of the server.

Nothing here touches the emulated API's state except through `FakeHoncho`'s own methods.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from . import _auth
from ._common import ApiError
from ._web import Response, error_response, json_response

if TYPE_CHECKING:
    from ._server import FakeHoncho

PREFIX = "/_fake"
DISABLED = (
    "The emulator's control surface is off: start it with --control "
    "(or set FakeHoncho.control_enabled = True)"
)
# Bounds of what a fault may ask for: a stuck emulator helps no test.
MAX_FAULT_SECONDS = 600.0

Handler = Callable[["FakeHoncho", Mapping[str, Any]], object]


def _seconds(body: Mapping[str, Any]) -> float:
    value = body.get("seconds")
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 <= value <= MAX_FAULT_SECONDS
    ):
        raise ApiError(422, f"'seconds' must be a number from 0 to {MAX_FAULT_SECONDS:g}")
    return float(value)


def _info(fake: FakeHoncho, body: Mapping[str, Any]) -> object:
    return {
        "url": fake.url,
        "version": fake.options.version,
        # Shown as set or not: the webhook secret is one.
        "options": {
            **asdict(fake.options),
            "webhook_secret": fake.options.webhook_secret is not None,
        },
        "routes": [f"{method} {PREFIX}{path}" for method, path in ROUTES],
    }


def _reset(fake: FakeHoncho, body: Mapping[str, Any]) -> object:
    fake.reset()
    return {"reset": True}


def _slow_next(fake: FakeHoncho, body: Mapping[str, Any]) -> object:
    seconds = _seconds(body)
    fake.faults.slow_next(seconds)
    return {"armed": "slow_next", "seconds": seconds}


def _fail_next(fake: FakeHoncho, body: Mapping[str, Any]) -> object:
    status = body.get("status", 500)
    if isinstance(status, bool) or not isinstance(status, int) or not 300 <= status <= 599:
        raise ApiError(422, "'status' must be an integer from 300 to 599")
    fake.faults.fail_next(status)
    return {"armed": "fail_next", "status": status}


def _stall_stream_next(fake: FakeHoncho, body: Mapping[str, Any]) -> object:
    seconds = _seconds(body)
    fake.faults.stall_stream_next(seconds)
    return {"armed": "stall_stream_next", "seconds": seconds}


def _close_mid_body_next(fake: FakeHoncho, body: Mapping[str, Any]) -> object:
    fake.faults.close_mid_body_next()
    return {"armed": "close_mid_body_next"}


def _clear_faults(fake: FakeHoncho, body: Mapping[str, Any]) -> object:
    fake.faults.clear()
    return {"cleared": "faults"}


def _requests(fake: FakeHoncho, body: Mapping[str, Any]) -> object:
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
        for recorded in fake.requests
    ]


def _clear_requests(fake: FakeHoncho, body: Mapping[str, Any]) -> object:
    fake.clear_requests()
    return {"cleared": "requests"}


def _deriver(fake: FakeHoncho, body: Mapping[str, Any]) -> object:
    return [asdict(record) for record in fake.deriver_log()]


ROUTES: dict[tuple[str, str], Handler] = {
    ("GET", "/info"): _info,
    ("POST", "/reset"): _reset,
    ("POST", "/faults/slow_next"): _slow_next,
    ("POST", "/faults/fail_next"): _fail_next,
    ("POST", "/faults/stall_stream_next"): _stall_stream_next,
    ("POST", "/faults/close_mid_body_next"): _close_mid_body_next,
    ("DELETE", "/faults"): _clear_faults,
    ("GET", "/requests"): _requests,
    ("DELETE", "/requests"): _clear_requests,
    ("GET", "/deriver"): _deriver,
}


def _body(raw: bytes) -> Mapping[str, Any]:
    if not raw.strip():
        return {}
    try:
        parsed = json.loads(raw)
    except ValueError:
        raise ApiError(422, "The body must be a JSON object") from None
    if not isinstance(parsed, dict):
        raise ApiError(422, "The body must be a JSON object")
    return parsed


def _check_key(fake: FakeHoncho, headers: Mapping[str, str]) -> None:
    if not fake.options.auth:
        return
    header = next((v for k, v in headers.items() if k.lower() == "authorization"), None)
    if not _auth.decode(fake._secret, _auth.bearer_token(header)).admin:
        raise ApiError(401, _auth.ADMIN_ONLY)


def handle(
    fake: FakeHoncho,
    method: str,
    path: str,
    headers: Mapping[str, str],
    body: bytes,
) -> Response:
    """Answer one request whose path starts with `/_fake`; never raises."""
    if not fake.control_enabled:
        return error_response(ApiError(404, DISABLED))
    route = path[len(PREFIX) :].rstrip("/") or "/"
    handler = ROUTES.get((method, route))
    try:
        if handler is None:
            if any(known == route for _, known in ROUTES):
                raise ApiError(405, "Method Not Allowed")
            raise ApiError(404, f"No control route {method} {path}; GET {PREFIX}/info lists them")
        _check_key(fake, headers)
        return json_response(200, handler(fake, _body(body)))
    except ApiError as error:
        return error_response(error)
