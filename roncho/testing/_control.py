"""The emulator's control surface over HTTP, under `/_fake/` (a prefix Honcho never uses).

A test written in any language drives a running emulator through it: reset the state, add
fault rules (or arm the one-shot faults), read the request record and the deriver log. It
answers only when the emulator was started with control on (`--control`, or
`FakeHoncho.control_enabled = True`); otherwise every path under the prefix gets a 404 whose
detail says how to turn it on. With `auth` on, the routes want an admin key, like every other
admin route of the server.

Nothing here touches the emulated API's state except through `FakeHoncho`'s own methods.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from . import _auth
from ._common import ApiError
from ._faults import MAX_FAULT_SECONDS, FaultRule
from ._snapshot import SnapshotError
from ._web import Response, compile_template, error_response, json_response

if TYPE_CHECKING:
    from ._server import FakeHoncho

PREFIX = "/_fake"
DISABLED = (
    "The emulator's control surface is off: start it with --control "
    "(or set FakeHoncho.control_enabled = True)"
)
# Handlers get the emulator, the JSON body and the path parameters (`{id}`).
Handler = Callable[["FakeHoncho", Mapping[str, Any], Mapping[str, str]], object]


def _seconds(body: Mapping[str, Any]) -> float:
    value = body.get("seconds")
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 <= value <= MAX_FAULT_SECONDS
    ):
        raise ApiError(422, f"'seconds' must be a number from 0 to {MAX_FAULT_SECONDS:g}")
    return float(value)


def _info(fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]) -> object:
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


def _reset(fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]) -> object:
    fake.reset()
    return {"reset": True}


def _slow_next(fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]) -> object:
    seconds = _seconds(body)
    fake.faults.slow_next(seconds)
    return {"armed": "slow_next", "seconds": seconds}


def _fail_next(fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]) -> object:
    status = body.get("status", 500)
    if isinstance(status, bool) or not isinstance(status, int) or not 300 <= status <= 599:
        raise ApiError(422, "'status' must be an integer from 300 to 599")
    fake.faults.fail_next(status)
    return {"armed": "fail_next", "status": status}


def _stall_stream_next(
    fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]
) -> object:
    seconds = _seconds(body)
    fake.faults.stall_stream_next(seconds)
    return {"armed": "stall_stream_next", "seconds": seconds}


def _close_mid_body_next(
    fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]
) -> object:
    fake.faults.close_mid_body_next()
    return {"armed": "close_mid_body_next"}


def _add_fault(fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]) -> object:
    try:
        rule = FaultRule.from_json(body)
    except (TypeError, ValueError) as error:
        raise ApiError(422, str(error)) from None
    return {"added": fake.faults.add(rule).to_json()}


def _list_faults(fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]) -> object:
    return [state.to_json() for state in fake.faults.rules()]


def _remove_fault(fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]) -> object:
    text = params["id"]
    if not text.isdigit() or not fake.faults.remove(int(text)):
        raise ApiError(404, f"No fault rule {text}")
    return {"removed": int(text)}


def _clear_faults(fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]) -> object:
    fake.faults.clear()
    return {"cleared": "faults"}


def _requests(fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]) -> object:
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


def _clear_requests(fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]) -> object:
    fake.clear_requests()
    return {"cleared": "requests"}


def _deriver(fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]) -> object:
    return [asdict(record) for record in fake.deriver_log()]


def _deriver_step(fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]) -> object:
    batches = body.get("batches")
    if batches is not None and (
        isinstance(batches, bool) or not isinstance(batches, int) or batches < 1
    ):
        raise ApiError(422, "'batches' must be an integer >= 1 (or absent for all)")
    return [asdict(record) for record in fake.deriver.step(batches)]


def _export_state(fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]) -> object:
    return fake.export_state()


def _restore_state(fake: FakeHoncho, body: Mapping[str, Any], params: Mapping[str, str]) -> object:
    try:
        fake.restore_state(dict(body))
    except SnapshotError as error:
        raise ApiError(422, str(error)) from None
    return {"restored": True}


ROUTES: dict[tuple[str, str], Handler] = {
    ("GET", "/info"): _info,
    ("POST", "/reset"): _reset,
    ("POST", "/faults/slow_next"): _slow_next,
    ("POST", "/faults/fail_next"): _fail_next,
    ("POST", "/faults/stall_stream_next"): _stall_stream_next,
    ("POST", "/faults/close_mid_body_next"): _close_mid_body_next,
    ("POST", "/faults"): _add_fault,
    ("GET", "/faults"): _list_faults,
    ("DELETE", "/faults"): _clear_faults,
    ("DELETE", "/faults/{id}"): _remove_fault,
    ("GET", "/requests"): _requests,
    ("DELETE", "/requests"): _clear_requests,
    ("GET", "/deriver"): _deriver,
    ("POST", "/deriver/step"): _deriver_step,
    ("GET", "/state"): _export_state,
    ("POST", "/state"): _restore_state,
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
    try:
        handler, params, known_path = _match(method, route)
        if handler is None:
            if known_path:
                raise ApiError(405, "Method Not Allowed")
            raise ApiError(404, f"No control route {method} {path}; GET {PREFIX}/info lists them")
        _check_key(fake, headers)
        return json_response(200, handler(fake, _body(body), params))
    except ApiError as error:
        return error_response(error)


def _match(method: str, route: str) -> tuple[Handler | None, dict[str, str], bool]:
    """The handler for (method, route), its path parameters, and whether the path is known."""
    known_path = False
    for (route_method, template), handler in ROUTES.items():
        found = _PATTERNS[template].match(route)
        if found is None:
            continue
        if route_method == method:
            return handler, found.groupdict(), True
        known_path = True
    return None, {}, known_path


_PATTERNS = {template: compile_template(template) for _, template in ROUTES}
