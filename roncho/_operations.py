"""The operation catalogue: what each Honcho call *is*, written once for both clients.

Its two parts hold one function per operation (``_ops_store``: workspaces, peers,
sessions, messages; ``_ops_ask``: conclusions, search, the dialectic, the extras). Each
checks its arguments and returns a ``Call`` (``_exchange``); ``Client`` and
``AsyncClient`` make their methods from these functions and only add the I/O.
"""

from __future__ import annotations

from ._ops_ask import (
    chat,
    chat_stream,
    chat_workspace,
    chat_workspace_stream,
    create_conclusions,
    create_key,
    delete_conclusion,
    list_conclusions,
    probe,
    query_conclusions,
    queue_status,
    search,
    search_peer,
    search_session,
    server_version,
)
from ._ops_shapes import Scope
from ._ops_store import (
    add_messages,
    delete_session,
    delete_workspace,
    get_message,
    get_or_create_peer,
    get_or_create_session,
    get_or_create_workspace,
    get_session_peer_config,
    iter_messages,
    list_messages,
    list_peers,
    list_session_peers,
    list_sessions,
    list_workspaces,
    set_session_peer_config,
    update_message_metadata,
    update_peer,
    update_session,
    update_workspace,
)

__all__ = [
    "Scope",
    "add_messages",
    "chat",
    "chat_stream",
    "chat_workspace",
    "chat_workspace_stream",
    "create_conclusions",
    "create_key",
    "delete_conclusion",
    "delete_session",
    "delete_workspace",
    "get_message",
    "get_or_create_peer",
    "get_or_create_session",
    "get_or_create_workspace",
    "get_session_peer_config",
    "iter_messages",
    "list_conclusions",
    "list_messages",
    "list_peers",
    "list_session_peers",
    "list_sessions",
    "list_workspaces",
    "probe",
    "query_conclusions",
    "queue_status",
    "search",
    "search_peer",
    "search_session",
    "server_version",
    "set_session_peer_config",
    "update_message_metadata",
    "update_peer",
    "update_session",
    "update_workspace",
]
