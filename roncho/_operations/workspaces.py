"""Workspaces: get or create, update, list and delete the client's workspace."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

from .._call import Call, decoded
from .._checks import check_json_object, check_optional_metadata
from .._errors import StatusError, WorkspaceBusyError
from .._models import DeleteAccepted, Page, Workspace
from ._shared import Paths, get_or_create, list_page, update


def get_or_create_workspace(
    paths: Paths,
    metadata: Mapping[str, Any] | None = None,
    configuration: Mapping[str, Any] | None = None,
) -> Call[Workspace]:
    """``POST /v3/workspaces``. ``created`` tells 201 (made now) from 200 (existed).

    An existing workspace ignores the metadata and configuration sent; use
    update_workspace() to change them.
    """
    fields = {
        "metadata": check_optional_metadata(metadata),
        "configuration": check_json_object(configuration, "configuration"),
    }
    return get_or_create(
        "get_or_create_workspace",
        paths.workspaces(),
        paths.workspace,
        Workspace.from_json,
        fields,
    )


def update_workspace(
    paths: Paths,
    metadata: Mapping[str, Any] | None = None,
    configuration: Mapping[str, Any] | None = None,
) -> Call[Workspace]:
    """``PUT /v3/workspaces/{id}``: metadata replaces; configuration merges top-level keys.

    The server creates the workspace if it does not exist.
    """
    return update(
        "update_workspace", paths.in_workspace(), metadata, configuration, Workspace.from_json
    )


def list_workspaces(
    paths: Paths,
    *,
    page: int = 1,
    size: int = 50,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
) -> Call[Page[Workspace]]:
    """``POST /v3/workspaces/list``; admin-only once authentication is on."""
    return list_page(
        "list_workspaces",
        paths.workspaces("list"),
        Workspace.from_json,
        page,
        size,
        reverse,
        filters,
    )


def delete_workspace(paths: Paths) -> Call[DeleteAccepted]:
    """``DELETE /v3/workspaces/{id}``: 202, purged in the background.

    Raises:
        WorkspaceBusyError: 409, the workspace still has active sessions; delete them
            first (a session delete makes it inactive at once).
    """
    op = "delete_workspace"
    decode = decoded(op, DeleteAccepted.from_json, allow_empty=True)
    return Call(
        op, "DELETE", paths.in_workspace(), decode, write=True, on_status={409: _busy_workspace}
    )


def _busy_workspace(exc: StatusError) -> NoReturn:
    """409 on a workspace delete: it still has active sessions (no other 409 means that)."""
    raise WorkspaceBusyError(exc.status, exc.method, exc.path, exc.body) from None
