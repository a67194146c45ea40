"""`GET /health` and `GET /openapi.json` (a stub naming the imitated version)."""

from __future__ import annotations

from .._common import JsonDict
from .._routing import Route, Services
from .._web import Ctx, Response, json_response


def openapi_stub(version: str) -> JsonDict:
    """`/openapi.json` with only `info`: the imitated version, marked as the emulator's."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "Honcho API (roncho emulator)", "version": f"{version}-emulator"},
        "paths": {},
    }


def health(services: Services, ctx: Ctx) -> Response:
    return json_response(200, {"status": "ok"})


def openapi(services: Services, ctx: Ctx) -> Response:
    return json_response(200, openapi_stub(services.options.version))


ROUTES = (
    Route("GET", "/health", health, "public", store=False),
    Route("GET", "/openapi.json", openapi, "public", store=False),
)
