"""The operation catalogue, part 1: workspaces, peers, sessions and messages.

Each function checks its arguments (every check runs before anything is sent) and
returns a ``Call``: method, path, query, body, whether it writes, what a status means, and
the decoder of its answer. It performs no I/O; ``Client`` and ``AsyncClient`` turn these
functions into their methods, so the signature and docstring here are the public ones.
``deadline`` (seconds, optional) bounds the whole call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from . import _checks as check
from ._errors import ConfigError
from ._exchange import Call, decoded, nothing
from ._models import (
    DeleteAccepted,
    Message,
    MessageCreate,
    Page,
    Peer,
    Session,
    SessionPeerConfig,
    Workspace,
    render_batch,
)
from ._ops_shapes import (
    Pages,
    Scope,
    get_or_create,
    items_of,
    list_page,
    page_of,
    path_id,
    update,
)


# -- O1 workspaces -------------------------------------------------------------------------
def get_or_create_workspace(
    scope: Scope,
    metadata: Mapping[str, Any] | None = None,
    configuration: Mapping[str, Any] | None = None,
    *,
    deadline: float | None = None,
) -> Call[Workspace]:
    """``POST /v3/workspaces``. ``created`` tells 201 (made now) from 200 (existed).

    An existing workspace ignores the metadata and configuration sent; use
    update_workspace() to change them.
    """
    fields = {
        "metadata": check.meta(metadata),
        "configuration": check.json_object(configuration, "configuration"),
    }
    return get_or_create(
        "get_or_create_workspace",
        scope.root(),
        scope.workspace,
        Workspace.from_json,
        fields,
        deadline,
    )


def update_workspace(
    scope: Scope,
    metadata: Mapping[str, Any] | None = None,
    configuration: Mapping[str, Any] | None = None,
    *,
    deadline: float | None = None,
) -> Call[Workspace]:
    """``PUT /v3/workspaces/{id}``: metadata replaces; configuration merges top-level keys.

    The server creates the workspace if it does not exist.
    """
    return update(
        "update_workspace", scope.ws(), metadata, configuration, Workspace.from_json, deadline
    )


def list_workspaces(
    scope: Scope,
    *,
    page: int = 1,
    size: int = 50,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
    deadline: float | None = None,
) -> Call[Page[Workspace]]:
    """``POST /v3/workspaces/list``; admin-only once authentication is on."""
    return list_page(
        "list_workspaces",
        scope.root("list"),
        Workspace.from_json,
        page,
        size,
        reverse,
        filters,
        deadline,
    )


def delete_workspace(scope: Scope, *, deadline: float | None = None) -> Call[DeleteAccepted]:
    """``DELETE /v3/workspaces/{id}``: 202, purged in the background.

    Raises:
        WorkspaceBusyError: 409, the workspace still has active sessions; delete them
            first (a session delete makes it inactive at once).
    """
    op = "delete_workspace"
    decode = decoded(op, DeleteAccepted.from_json, allow_empty=True)
    return Call(op, "DELETE", scope.ws(), decode, write=True, busy=True, deadline=deadline)


# -- O2 peers ------------------------------------------------------------------------------
def get_or_create_peer(
    scope: Scope,
    peer_id: str,
    metadata: Mapping[str, Any] | None = None,
    configuration: Mapping[str, Any] | None = None,
    *,
    deadline: float | None = None,
) -> Call[Peer]:
    """``POST .../peers``. Given metadata or configuration replace the stored ones.

    The only configuration key the server reads is ``observe_me`` (default true).
    """
    fields = {
        "metadata": check.meta(metadata),
        "configuration": check.json_object(configuration, "configuration"),
    }
    return get_or_create(
        "get_or_create_peer",
        scope.ws("peers"),
        path_id(peer_id, "peer_id"),
        Peer.from_json,
        fields,
        deadline,
    )


def update_peer(
    scope: Scope,
    peer_id: str,
    metadata: Mapping[str, Any] | None = None,
    configuration: Mapping[str, Any] | None = None,
    *,
    deadline: float | None = None,
) -> Call[Peer]:
    """``PUT .../peers/{peer}``: both fields replace wholesale when given."""
    path = scope.ws("peers", path_id(peer_id, "peer_id"))
    return update("update_peer", path, metadata, configuration, Peer.from_json, deadline)


def list_peers(
    scope: Scope,
    *,
    page: int = 1,
    size: int = 50,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
    deadline: float | None = None,
) -> Call[Page[Peer]]:
    """``POST .../peers/list`` (a POST, as the server has it; there is no GET)."""
    return list_page(
        "list_peers",
        scope.ws("peers", "list"),
        Peer.from_json,
        page,
        size,
        reverse,
        filters,
        deadline,
    )


# -- O3 sessions ---------------------------------------------------------------------------
def get_or_create_session(
    scope: Scope,
    session_id: str,
    peers: Mapping[str, SessionPeerConfig | Mapping[str, Any] | None] | None = None,
    metadata: Mapping[str, Any] | None = None,
    configuration: Mapping[str, Any] | None = None,
    *,
    deadline: float | None = None,
) -> Call[Session]:
    """``POST .../sessions``. ``peers`` maps a peer id to its session config.

    A peer that is already an active member keeps its config: the server ignores the
    map for it. Use set_session_peer_config() to change it. A deleted session answers
    404 until the server has purged it.
    """
    fields = {
        "metadata": check.meta(metadata),
        "peers": check.peer_map(peers),
        "configuration": check.json_object(configuration, "configuration"),
    }
    return get_or_create(
        "get_or_create_session",
        scope.ws("sessions"),
        path_id(session_id, "session_id"),
        Session.from_json,
        fields,
        deadline,
    )


def update_session(
    scope: Scope,
    session_id: str,
    metadata: Mapping[str, Any] | None = None,
    configuration: Mapping[str, Any] | None = None,
    *,
    deadline: float | None = None,
) -> Call[Session]:
    """``PUT .../sessions/{id}``: metadata replaces; configuration merges top-level keys."""
    path = scope.ws("sessions", path_id(session_id, "session_id"))
    return update("update_session", path, metadata, configuration, Session.from_json, deadline)


def list_sessions(
    scope: Scope,
    *,
    page: int = 1,
    size: int = 50,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
    deadline: float | None = None,
) -> Call[Page[Session]]:
    """``POST .../sessions/list``: active sessions only."""
    return list_page(
        "list_sessions",
        scope.ws("sessions", "list"),
        Session.from_json,
        page,
        size,
        reverse,
        filters,
        deadline,
    )


def list_session_peers(
    scope: Scope,
    session_id: str,
    *,
    page: int = 1,
    size: int = 50,
    deadline: float | None = None,
) -> Call[Page[Peer]]:
    """``GET .../sessions/{id}/peers``: active members only."""
    op = "list_session_peers"
    path = scope.ws("sessions", path_id(session_id, "session_id"), "peers")
    query = tuple(check.paging(page, size, None))
    return Call(op, "GET", path, page_of(op, Peer.from_json), query=query, deadline=deadline)


def _peer_config_path(scope: Scope, session_id: str, peer_id: str) -> str:
    session = path_id(session_id, "session_id")
    return scope.ws("sessions", session, "peers", path_id(peer_id, "peer_id"), "config")


def get_session_peer_config(
    scope: Scope, session_id: str, peer_id: str, *, deadline: float | None = None
) -> Call[SessionPeerConfig]:
    """``GET .../sessions/{s}/peers/{p}/config``."""
    op = "get_session_peer_config"
    path = _peer_config_path(scope, session_id, peer_id)
    return Call(op, "GET", path, decoded(op, SessionPeerConfig.from_json), deadline=deadline)


def set_session_peer_config(
    scope: Scope,
    session_id: str,
    peer_id: str,
    *,
    observe_me: bool | None = None,
    observe_others: bool | None = None,
    deadline: float | None = None,
) -> Call[None]:
    """``PUT .../sessions/{s}/peers/{p}/config`` (204). Merges the non-None fields.

    A field cannot be reset to None this way; the server keeps the old value. At least
    one flag must be given (ConfigError otherwise): an empty update would still add
    the peer to the session.
    """
    config = SessionPeerConfig(observe_me=observe_me, observe_others=observe_others)
    if observe_me is None and observe_others is None:
        # The server would change no flag, yet still add the peer to the session.
        raise ConfigError("set_session_peer_config needs observe_me or observe_others")
    path = _peer_config_path(scope, session_id, peer_id)
    return Call(
        "set_session_peer_config",
        "PUT",
        path,
        nothing,
        body=config.to_json(),
        write=True,
        deadline=deadline,
    )


def delete_session(
    scope: Scope, session_id: str, *, deadline: float | None = None
) -> Call[DeleteAccepted]:
    """``DELETE .../sessions/{id}``: 202; the session is inactive at once.

    Its messages stay listable and its id answers 404 until the background purge,
    which also removes conclusions made in that session.
    """
    op = "delete_session"
    path = scope.ws("sessions", path_id(session_id, "session_id"))
    decode = decoded(op, DeleteAccepted.from_json, allow_empty=True)
    return Call(op, "DELETE", path, decode, write=True, deadline=deadline)


# -- O4 / O5 messages ----------------------------------------------------------------------
def add_messages(
    scope: Scope,
    session_id: str,
    messages: Iterable[MessageCreate],
    *,
    deadline: float | None = None,
) -> Call[tuple[Message, ...]]:
    """``POST .../sessions/{id}/messages``: 1 to 100 messages, answered in input order.

    If this raises with ``error.request_sent`` true, the server may have stored the
    batch: list the session's newest messages before sending it again.
    """
    op = "add_messages"
    items, ascii_only = render_batch(messages, MessageCreate, "messages", op)
    path = scope.ws("sessions", path_id(session_id, "session_id"), "messages")
    return Call(
        op,
        "POST",
        path,
        items_of(op, Message.from_json),
        body={"messages": items},
        ascii_body=ascii_only,
        write=True,
        deadline=deadline,
    )


def list_messages(
    scope: Scope,
    session_id: str,
    *,
    page: int = 1,
    size: int = 50,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
    deadline: float | None = None,
) -> Call[Page[Message]]:
    """``POST .../sessions/{id}/messages/list``, oldest first unless ``reverse``.

    An unknown session gives an empty page, not 404.
    """
    path = scope.ws("sessions", path_id(session_id, "session_id"), "messages", "list")
    return list_page(
        "list_messages", path, Message.from_json, page, size, reverse, filters, deadline
    )


def iter_messages(
    scope: Scope,
    session_id: str,
    *,
    size: int = check.MAX_PAGE_SIZE,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
    deadline: float | None = None,
) -> Pages[Message]:
    """Every message of a session, page by page (each page is one call).

    ``deadline`` bounds each page's call, not the whole walk. Messages added while
    walking may shift pages; walk ``reverse=True`` from the newest to see them first.
    """
    return Pages(
        lambda page: list_messages(
            scope,
            session_id,
            page=page,
            size=size,
            reverse=reverse,
            filters=filters,
            deadline=deadline,
        )
    )


def _message_path(scope: Scope, session_id: str, message_id: str) -> str:
    return scope.ws(
        "sessions", path_id(session_id, "session_id"), "messages", path_id(message_id, "message_id")
    )


def get_message(
    scope: Scope, session_id: str, message_id: str, *, deadline: float | None = None
) -> Call[Message]:
    """``GET .../sessions/{s}/messages/{id}``."""
    path = _message_path(scope, session_id, message_id)
    return Call(
        "get_message", "GET", path, decoded("get_message", Message.from_json), deadline=deadline
    )


def update_message_metadata(
    scope: Scope,
    session_id: str,
    message_id: str,
    metadata: Mapping[str, Any],
    *,
    deadline: float | None = None,
) -> Call[Message]:
    """``PUT .../messages/{id}``: replaces the metadata. Content can never be edited."""
    op = "update_message_metadata"
    path = _message_path(scope, session_id, message_id)
    body = {
        "metadata": check.check_metadata(
            dict(metadata) if isinstance(metadata, Mapping) else metadata
        )
    }
    return Call(
        op, "PUT", path, decoded(op, Message.from_json), body=body, write=True, deadline=deadline
    )
