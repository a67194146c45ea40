"""Named scopes (Honcho 3.1): a scope groups sessions, and reads given its name draw only on
what was said in them. Every route wants a workspace or admin key (a peer or session key
gets 401). Adding a session that already has messages copies what was derived from them
into the scope in the background; get_scope_status() says how far that has got.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._call import Call, decoded, nothing
from .._checks import check_flag, check_id
from .._errors import ConfigError
from .._models import Page, Scope, ScopeStatus, Session
from .._request_checks import MAX_PAGE_SIZE, check_optional_metadata, check_paging
from ._shared import Pages, Paths, check_scope_id, get_or_create, id_list, page_of

# How many sessions one add may name (the server's ``ScopeSessionsAdd``).
MAX_SCOPE_SESSIONS = 100


def get_or_create_scope(
    paths: Paths, scope_id: str, metadata: Mapping[str, Any] | None = None
) -> Call[Scope]:
    """``POST .../scopes``. ``created`` tells 201 (made now) from 200 (existed).

    An existing scope keeps its metadata.
    """
    fields = {"metadata": check_optional_metadata(metadata)}
    path = paths.in_workspace("scopes")
    return get_or_create(
        "get_or_create_scope", path, check_scope_id(scope_id, "scope_id"), Scope.from_json, fields
    )


def list_scopes(
    paths: Paths, *, page: int = 1, size: int = 50, reverse: bool = False
) -> Call[Page[Scope]]:
    """``POST .../scopes/list``: one page of the workspace's scopes, oldest first."""
    op = "list_scopes"
    query = tuple(check_paging(page, size, check_flag(reverse, "reverse")))
    path = paths.in_workspace("scopes", "list")
    return Call(op, "POST", path, page_of(op, Scope.from_json), query=query)


def iter_scopes(paths: Paths, *, size: int = MAX_PAGE_SIZE, reverse: bool = False) -> Pages[Scope]:
    """Every scope of the workspace, page by page (each page is one call).

    ``deadline`` bounds each page's call, not the whole walk.
    """
    return Pages(lambda page: list_scopes(paths, page=page, size=size, reverse=reverse))


def get_scope(paths: Paths, scope_id: str) -> Call[Scope]:
    """``GET .../scopes/{id}``; 404 (a StatusError) when there is no such scope."""
    op = "get_scope"
    path = paths.in_workspace("scopes", check_scope_id(scope_id, "scope_id"))
    return Call(op, "GET", path, decoded(op, Scope.from_json))


def add_scope_sessions(paths: Paths, scope_id: str, session_ids: Iterable[str]) -> Call[None]:
    """``POST .../scopes/{id}/sessions`` (204): add 1 to 100 existing sessions to the scope
    (a missing one: 404, and none is added). A session already in it is no error.
    """
    names = id_list(session_ids, "session_ids")
    if not 1 <= len(names) <= MAX_SCOPE_SESSIONS:
        raise ConfigError(f"session_ids must name 1 to {MAX_SCOPE_SESSIONS} sessions")
    op = "add_scope_sessions"
    path = paths.in_workspace("scopes", check_scope_id(scope_id, "scope_id"), "sessions")
    return Call(op, "POST", path, nothing, body={"session_ids": names}, write=True)


def remove_scope_session(paths: Paths, scope_id: str, session_id: str) -> Call[None]:
    """``DELETE .../scopes/{id}/sessions/{session}`` (204): take a session out of the scope;
    what was copied from it leaves the scope in the background.
    """
    scope = check_scope_id(scope_id, "scope_id")
    path = paths.in_workspace("scopes", scope, "sessions", check_id(session_id, "session_id"))
    return Call("remove_scope_session", "DELETE", path, nothing, write=True)


def list_scope_sessions(
    paths: Paths, scope_id: str, *, page: int = 1, size: int = 50, reverse: bool = False
) -> Call[Page[Session]]:
    """``POST .../scopes/{id}/sessions/list``: the scope's sessions, longest-standing member
    first (newest first with ``reverse``). A read, though it is a POST.
    """
    op = "list_scope_sessions"
    query = tuple(check_paging(page, size, check_flag(reverse, "reverse")))
    path = paths.in_workspace("scopes", check_scope_id(scope_id, "scope_id"), "sessions", "list")
    return Call(op, "POST", path, page_of(op, Session.from_json), query=query)


def iter_scope_sessions(
    paths: Paths, scope_id: str, *, size: int = MAX_PAGE_SIZE, reverse: bool = False
) -> Pages[Session]:
    """Every session of a scope, page by page (each page is one call).

    ``deadline`` bounds each page's call, not the whole walk.
    """
    return Pages(
        lambda page: list_scope_sessions(paths, scope_id, page=page, size=size, reverse=reverse)
    )


def get_scope_status(paths: Paths, scope_id: str) -> Call[ScopeStatus]:
    """``GET .../scopes/{id}/status``: each added session's backfill (pending, completed
    or failed); empty when no session with messages was ever added.
    """
    op = "get_scope_status"
    path = paths.in_workspace("scopes", check_scope_id(scope_id, "scope_id"), "status")
    return Call(op, "GET", path, decoded(op, ScopeStatus.from_json))
