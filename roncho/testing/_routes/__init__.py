"""The emulator's HTTP glue, one module per resource, the way moto has a `responses.py` per
service: each handler parses the request, calls its backend (`roncho.testing._backends`),
and renders the answer the server would send (`App.dispatch` holds the store lock around
it). Each module lists its endpoints in `ROUTES`; `all_routes` gathers them into the one
table of `App`, the emulator's own control surface (`control`, under `/_fake`) with them.

A new resource (webhooks, say) is a backend module, a route module here with its `ROUTES`,
and one entry in `ROUTE_MODULES`.
"""

from __future__ import annotations

from .._options import Options
from .._routing import Route
from . import (
    chat,
    conclusions,
    control,
    keys,
    messages,
    peers,
    queue,
    scopes,
    search,
    service,
    sessions,
    webhooks,
    workspaces,
)

ROUTE_MODULES = (
    service,
    keys,
    workspaces,
    peers,
    sessions,
    messages,
    conclusions,
    search,
    chat,
    queue,
    scopes,
    webhooks,
    control,
)


def all_routes(options: Options) -> list[Route]:
    """Every endpoint this emulator serves under `options` (some depend on the version)."""
    return [
        route
        for module in ROUTE_MODULES
        for route in module.ROUTES
        if route.served is None or route.served(options)
    ]
