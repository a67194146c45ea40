"""`GET /health` and `GET /openapi.json` (a stub naming the imitated version)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._common import JsonDict
from .._web import Ctx, Response, Route, json_response

if TYPE_CHECKING:
    from .._app import App


def openapi_stub(version: str) -> JsonDict:
    """`/openapi.json` with only `info`: the imitated version, marked as the emulator's."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "Honcho API (roncho emulator)", "version": f"{version}-emulator"},
        "paths": {},
    }


def health(app: App, ctx: Ctx) -> Response:
    return json_response(200, {"status": "ok"})


def openapi(app: App, ctx: Ctx) -> Response:
    return json_response(200, openapi_stub(app.options.version))


ROUTES = (
    Route("GET", "/health", health, "public"),
    Route("GET", "/openapi.json", openapi, "public"),
)
