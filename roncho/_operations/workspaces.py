"""Workspaces: get or create, update, list and delete the client's workspace, and ask its
deriver for a dream."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

from .._call import Call, decoded, nothing
from .._checks import check_flag, check_id
from .._errors import ConfigError, StatusError, WorkspaceBusyError
from .._models import DeleteAccepted, Page, Workspace
from .._request_checks import MAX_PAGE_SIZE, check_json_object, check_optional_metadata
from ._shared import Pages, Paths, get_or_create, list_page, update


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


def iter_workspaces(
    paths: Paths,
    *,
    size: int = MAX_PAGE_SIZE,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
) -> Pages[Workspace]:
    """Every workspace, page by page (each page is one call); admin-only once
    authentication is on.

    ``deadline`` bounds each page's call, not the whole walk.
    """
    return Pages(
        lambda page: list_workspaces(paths, page=page, size=size, reverse=reverse, filters=filters)
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


DREAM_TYPES = ("omni", "card_refresh")


def schedule_dream(
    paths: Paths,
    observer: str,
    *,
    observed: str | None = None,
    dream_type: str = "omni",
    session_id: str | None = None,
    rebuild: bool = False,
) -> Call[None]:
    """``POST .../schedule_dream`` (204): ask the deriver to consolidate what ``observer``
    knows of ``observed`` (of itself when None) now, past its automatic conditions.

    ``dream_type`` is ``"omni"`` or ``"card_refresh"`` (the peer card only; ``rebuild``
    then leaves the old card out of the new one). The dream runs later, in the deriver.
    A server with dreams turned off answers 400 (a StatusError).
    """
    body: dict[str, Any] = {"observer": check_id(observer, "observer")}
    if observed is not None:
        body["observed"] = check_id(observed, "observed")
    if dream_type not in DREAM_TYPES:
        raise ConfigError(f"dream_type must be one of {DREAM_TYPES}, got {dream_type!r}")
    body["dream_type"] = dream_type
    if session_id is not None:
        body["session_id"] = check_id(session_id, "session_id")
    if check_flag(rebuild, "rebuild"):
        body["rebuild"] = True
    path = paths.in_workspace("schedule_dream")
    return Call("schedule_dream", "POST", path, nothing, body=body, write=True)
