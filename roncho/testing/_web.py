"""What every route module shares: the request and answer records, the handler context, and
the small renderings several resources use (a page, an order, a 422). The route table's own
records (`Route`, `Services`, `Access`) are in `_routing`.

A route handler parses the request (`ctx`), calls a backend, and renders the answer.
`App.dispatch` holds the store lock around the whole handler of a route that uses the store
(`Route.store`), so no handler takes it, and none sleeps: a wait before the answer is
`Response.delay`, which the socket server waits out after the lock is released. Nothing here
holds state.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import _auth
from ._backends import workspaces
from ._common import ApiError, JsonDict, validation_error
from ._state import Store, Workspace
from ._validate import body_object, get_bool, get_int, parse_json_body, query_bool, query_int


@dataclass(frozen=True, slots=True)
class Request:
    """A parsed request as the app sees it (path percent-decoded, as Starlette routes it)."""

    method: str
    path: str
    query: Mapping[str, str]
    headers: Mapping[str, str]
    body: bytes
    # The query string as sent, for parameters that may repeat (`sessions=a&sessions=b`).
    raw_query: str = ""
    # The path as sent (not percent-decoded): the control surface is matched on it.
    raw_path: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedRequest:
    """One request as received. `path` is as sent (not percent-decoded), `query` keeps the
    last value of a repeated parameter, `headers` hides the Authorization value."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    json: object | None


@dataclass(slots=True)
class Response:
    """What to send: a JSON or empty body, or (when `events` is set) an SSE stream."""

    status: int
    body: bytes = b""
    content_type: str | None = "application/json"
    events: list[bytes] | None = None
    event_delay: float = 0.0
    # Seconds the server waits before sending this answer (an LLM's think time).
    delay: float = 0.0


def json_response(status: int, payload: object) -> Response:
    # FastAPI's JSONResponse: compact separators, non-ASCII kept.
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return Response(status, text.encode("utf-8"))


def error_response(error: ApiError) -> Response:
    return json_response(error.status, {"detail": error.detail})


@dataclass(slots=True)
class Ctx:
    """One request in a handler: path params, query, body, the caller's claims, and the
    path's workspace `{w}` as `App.dispatch` found it (None: none of that name yet, or a
    route without `{w}`). A route that makes its workspace does so with `workspaces.made`
    once the request has passed its checks."""

    request: Request
    params: dict[str, str]
    claims: _auth.Claims
    ws: Workspace | None = None
    _body: object = field(default=None)
    _parsed: bool = False

    @property
    def w(self) -> str:
        return self.params["w"]

    def made_ws(self, store: Store) -> Workspace:
        """The path's workspace, made empty now if it does not exist yet (as the server's
        write routes make theirs: after the request passed its checks)."""
        if self.ws is None:
            self.ws = workspaces.find_or_create(store, self.w)
        return self.ws

    def json(self) -> object:
        if not self._parsed:
            self._body = parse_json_body(self.request.body)
            self._parsed = True
        return self._body

    def body(self, *, required: bool = True) -> JsonDict:
        return body_object(self.json(), required=required)


def compile_template(template: str) -> re.Pattern[str]:
    """`/v3/workspaces/{w}` as a regex with one named group per path part; the rest is
    literal (as Starlette compiles a path: `/openapi.json` does not match `/openapiXjson`)."""
    pieces = re.split(r"\{(\w+)\}", template)
    regex = "".join(
        f"(?P<{piece}>[^/]+)" if index % 2 else re.escape(piece)
        for index, piece in enumerate(pieces)
    )
    return re.compile(f"^{regex}$")


# Path templates the route modules build on.
W = "/v3/workspaces/{w}"
S = W + "/sessions/{s}"
P = W + "/peers/{p}"


def page(query: Mapping[str, str], items: list[JsonDict]) -> JsonDict:
    """fastapi-pagination's Page: `{items,total,page,size,pages}`."""
    number = query_int(query, "page", 1, ge=1, le=None)
    size = query_int(query, "size", 50, ge=1, le=100)
    total = len(items)
    start = (number - 1) * size
    return {
        "items": items[start : start + size],
        "total": total,
        "page": number,
        "size": size,
        "pages": math.ceil(total / size) if total else 0,
    }


def ordered(query: Mapping[str, str], items: list[Any], *, newest_first: bool = False) -> list[Any]:
    reverse = query_bool(query, "reverse", False)
    return list(reversed(items)) if reverse != newest_first else list(items)


def paged(ctx: Ctx, items: list[JsonDict]) -> Response:
    """A 200 page of `items` in the order the `reverse` query asks."""
    return json_response(200, page(ctx.request.query, ordered(ctx.request.query, items)))


def filters_of(body: JsonDict) -> Any:
    filters = body.get("filters")
    if filters is not None and not isinstance(filters, dict):
        raise validation_error(
            "dict_type", ["body", "filters"], "Input should be a valid dictionary", filters
        )
    return filters


def check_configuration(config: JsonDict | None, loc: list[str | int]) -> JsonDict | None:
    """Light check of a Workspace/SessionConfiguration: `reasoning` must be an object."""
    if config is None:
        return None
    reasoning = config.get("reasoning")
    if reasoning is not None:
        if not isinstance(reasoning, dict):
            raise validation_error(
                "model_type",
                [*loc, "configuration", "reasoning"],
                "Input should be a valid dictionary or instance of ReasoningConfiguration",
                reasoning,
            )
        get_bool(reasoning, "enabled", [*loc, "configuration", "reasoning"], None)
    summary = config.get("summary")
    if isinstance(summary, dict):
        _check_summary(summary, [*loc, "configuration", "summary"])
    return config


def _check_summary(summary: JsonDict, here: list[str | int]) -> None:
    """3.0.12 `SummaryConfiguration` (`src/schemas/configuration.py:53-80`): short `ge=10`,
    long `ge=20`, and short less than long."""
    short = get_int(summary, "messages_per_short_summary", here, None, ge=10)
    long = get_int(summary, "messages_per_long_summary", here, None, ge=20)
    if short is not None and long is not None and short >= long:
        raise validation_error(
            "value_error",
            here,
            "Value error, messages_per_short_summary must be less than messages_per_long_summary",
            summary,
            {"error": {}},
        )
