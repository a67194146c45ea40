"""Workspace routes: create (201/200), list, update, delete (202/409), and dream scheduling."""

from __future__ import annotations

from .. import _auth, _filters
from .._backends import workspaces
from .._routing import Route, Services
from .._state import workspace_json, workspace_row
from .._validate import get_bool, get_dict, get_id, get_literal, get_metadata, get_str
from .._web import Ctx, Response, W, check_configuration, filters_of, json_response, paged

DREAM_TYPES = ("omni", "card_refresh")


def create_workspace(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()
    name = get_id(body, ["body"])
    metadata = get_metadata(body, ["body"])
    configuration = check_configuration(get_dict(body, "configuration", ["body"]), ["body"])
    _auth.check_own(ctx.claims, name)
    ws, created = workspaces.get_or_create(services.store, name, metadata, configuration)
    return json_response(201 if created else 200, workspace_json(ws))


def list_workspaces(services: Services, ctx: Ctx) -> Response:
    match = _filters.compile_filter(filters_of(ctx.body(required=False)), _filters.WORKSPACE)
    items = [
        workspace_json(ws) for ws in services.store.workspaces.values() if match(workspace_row(ws))
    ]
    return paged(ctx, items)


def update_workspace(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()
    metadata = get_metadata(body, ["body"])
    configuration = check_configuration(get_dict(body, "configuration", ["body"]), ["body"])
    ws = ctx.made_ws(services.store)
    workspaces.update(ws, metadata, configuration)
    return json_response(200, workspace_json(ws))


def delete_workspace(services: Services, ctx: Ctx) -> Response:
    workspaces.delete(services.store, services.deriver, ctx.ws, ctx.w, services.options.purge_delay)
    return json_response(202, {"message": "Workspace deletion accepted"})


def schedule_dream(services: Services, ctx: Ctx) -> Response:
    """Accepted (204) and checked like the server's `ScheduleDreamRequest`; the emulated
    deriver has no dreams, so nothing else happens."""
    body = ctx.body()
    get_str(body, "observer", ["body"], required=True)
    observed = get_str(body, "observed", ["body"])
    if "dream_type" not in body:
        get_str(body, "dream_type", ["body"], required=True)  # FastAPI's "missing" item
    # `dream_type` is an Enum (3.0.12 `src/schemas/configuration.py:16`): its error type is `enum`.
    get_literal(body, "dream_type", ["body"], DREAM_TYPES, "omni", kind="enum")
    get_str(body, "session_id", ["body"])
    get_bool(body, "rebuild", ["body"], False)
    workspaces.schedule_dream(ctx.ws, observed)
    return Response(204, b"")


ROUTES = (
    Route("POST", "/v3/workspaces", create_workspace, "self"),
    Route("POST", "/v3/workspaces/list", list_workspaces, "admin"),
    Route("PUT", W, update_workspace, "workspace"),
    Route("DELETE", W, delete_workspace, "workspace"),
    Route("POST", W + "/schedule_dream", schedule_dream, "workspace"),
)
