# GENERATED WHOLE from roncho/aio/_client.py by scripts/render_clients.py
# (scripts/_unasync.py takes async and await out): edit that module, not this one.
"""Client: the blocking Honcho client, one method per operation, and its executor.

Written once, in roncho/aio/_client.py, for both clients: ``scripts/render_clients.py``
writes roncho/_client.py from it with the table of ``scripts/_unasync.py`` (``async`` and
``await`` out, the asyncio names to the blocking ones), so the two clients differ only
there and in their transports. ``ClientCore`` (``_client_core``) holds what they share
apart from I/O: construction and its defaults, the key, copies and close().

Each method checks its arguments and describes its call (its operation, in
``_operations``), and the executor runs it on one new connection: connect, send, read
until the sans-IO exchange has its answer (the response cap enforced while reading),
close. Nothing is retried, no redirect is followed, nothing is logged, and no state
changes after construction except the key (a bytearray) being wiped by close(); the
request bytes that hold it are wiped once sent. The operation methods are written out by
the same script from the operations' own signatures and docstrings (between the
GENERATED markers; edit the operation, not the method, and run the script).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from . import _operations as ops
from ._call import Call
from ._client_core import (
    DEFAULT_BOUND,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_GRACE,
    DEFAULT_INTERVAL,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_READ_TIMEOUT,
    ClientCore,
)
from ._closing import Closing
from ._errors import RonchoError
from ._exchange import Exchange
from ._operations import Pages
from ._request_checks import MAX_PAGE_SIZE
from ._stream import ChatStream
from ._transport import Connection, connect

if TYPE_CHECKING:
    from collections.abc import Callable

    from ._derivation import DerivationOutcome, DeriverGates
    from ._reports import CallReport

if TYPE_CHECKING:
    # BEGIN GENERATED imports (scripts/render_clients.py)
    from collections.abc import Iterable, Mapping, Sequence
    from datetime import datetime
    from typing import Any

    from ._models import (
        ChatAnswer,
        Conclusion,
        ConclusionCreate,
        DeleteAccepted,
        Health,
        Message,
        MessageCreate,
        Page,
        Peer,
        PeerContext,
        QueueStatus,
        Scope,
        ScopeStatus,
        Session,
        SessionContext,
        SessionPeerConfig,
        Summaries,
        WebhookEndpoint,
        Workspace,
    )
    # END GENERATED imports

__all__ = ["Client"]

T = TypeVar("T")


class Client(ClientCore, Closing):
    """A blocking Honcho v3 client for one workspace.

    Immutable and thread-safe: share one instance between threads or tasks. Each call
    opens its own connection (``Connection: close``), so calls never wait on each other.
    Open it with ``with`` (or call close()) so the key is wiped when you are done.

    Args:
        base_url: ``http://`` or ``https://``, a host, optional port and path prefix.
            Required: roncho has no default server and reads no environment.
        workspace: the workspace id every call works in (Honcho's id rule).
        api_key: sent as ``Authorization: Bearer <key>``; None sends no header. Keys are
            per workspace, so one client carries that workspace's key. The key never
            appears in ``repr()``, ``str()`` or any error, and is overwritten on close().
        connect_timeout: seconds per resolved address (name resolution is not bounded).
        read_timeout: an idle timeout, "no bytes for N seconds", not a total.
        max_response_bytes: the cap on a response body, enforced while reading.
        read_only: refuse every call that changes server state, before sending.
        on_call: called with a ``CallReport`` once per call, after it ended, in the
            thread or task that made it (never a body, a header, an id or the key); what it
            raises reaches the caller. Copies keep it. roncho logs nothing itself.

    Every method also takes ``deadline``: an optional total, in seconds, for that call.
    """

    __slots__ = ()
    _public_name = "roncho.Client"

    def __init__(
        self,
        base_url: str,
        workspace: str,
        *,
        api_key: str | None = None,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        read_only: bool = False,
        on_call: Callable[[CallReport], object] | None = None,
    ) -> None:
        # Spelled out here (ClientCore checks them) so that a call without a workspace
        # fails naming this class, not an internal one.
        self._configure(
            base_url,
            workspace,
            api_key,
            connect_timeout,
            read_timeout,
            max_response_bytes,
            read_only,
            on_call,
        )

    # BEGIN GENERATED methods (scripts/render_clients.py)
    def get_or_create_workspace(
        self,
        metadata: Mapping[str, Any] | None = None,
        configuration: Mapping[str, Any] | None = None,
        *,
        deadline: float | None = None,
    ) -> Workspace:
        """``POST /v3/workspaces``. ``created`` tells 201 (made now) from 200 (existed).

        An existing workspace ignores the metadata and configuration sent; use
        update_workspace() to change them.
        """
        call = ops.workspaces.get_or_create_workspace(self._paths, metadata, configuration)
        return self._run(call, deadline)

    def update_workspace(
        self,
        metadata: Mapping[str, Any] | None = None,
        configuration: Mapping[str, Any] | None = None,
        *,
        deadline: float | None = None,
    ) -> Workspace:
        """``PUT /v3/workspaces/{id}``: metadata replaces; configuration merges top-level keys.

        The server creates the workspace if it does not exist.
        """
        call = ops.workspaces.update_workspace(self._paths, metadata, configuration)
        return self._run(call, deadline)

    def list_workspaces(
        self,
        *,
        page: int = 1,
        size: int = 50,
        reverse: bool = False,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> Page[Workspace]:
        """``POST /v3/workspaces/list``; admin-only once authentication is on."""
        call = ops.workspaces.list_workspaces(
            self._paths, page=page, size=size, reverse=reverse, filters=filters
        )
        return self._run(call, deadline)

    def iter_workspaces(
        self,
        *,
        size: int = MAX_PAGE_SIZE,
        reverse: bool = False,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> Iterator[Workspace]:
        """Every workspace, page by page (each page is one call); admin-only once
        authentication is on.

        ``deadline`` bounds each page's call, not the whole walk.
        """
        pages = ops.workspaces.iter_workspaces(
            self._paths, size=size, reverse=reverse, filters=filters
        )
        return self._walk(pages, deadline)

    def delete_workspace(self, *, deadline: float | None = None) -> DeleteAccepted:
        """``DELETE /v3/workspaces/{id}``: 202, purged in the background.

        Raises:
            WorkspaceBusyError: 409, the workspace still has active sessions; delete them
                first (a session delete makes it inactive at once).
        """
        return self._run(ops.workspaces.delete_workspace(self._paths), deadline)

    def schedule_dream(
        self,
        observer: str,
        *,
        observed: str | None = None,
        dream_type: str = 'omni',
        session_id: str | None = None,
        rebuild: bool = False,
        deadline: float | None = None,
    ) -> None:
        """``POST .../schedule_dream`` (204): ask the deriver to consolidate what ``observer``
        knows of ``observed`` (of itself when None) now, past its automatic conditions.

        ``dream_type`` is ``"omni"`` or ``"card_refresh"`` (the peer card only; ``rebuild``
        then leaves the old card out of the new one). The dream runs later, in the deriver.
        A server with dreams turned off answers 400 (a StatusError).
        """
        call = ops.workspaces.schedule_dream(
            self._paths,
            observer,
            observed=observed,
            dream_type=dream_type,
            session_id=session_id,
            rebuild=rebuild,
        )
        return self._run(call, deadline)

    def get_or_create_peer(
        self,
        peer_id: str,
        metadata: Mapping[str, Any] | None = None,
        configuration: Mapping[str, Any] | None = None,
        *,
        deadline: float | None = None,
    ) -> Peer:
        """``POST .../peers``. Given metadata or configuration replace the stored ones.

        The only configuration key the server reads is ``observe_me`` (default true).
        """
        call = ops.peers.get_or_create_peer(self._paths, peer_id, metadata, configuration)
        return self._run(call, deadline)

    def update_peer(
        self,
        peer_id: str,
        metadata: Mapping[str, Any] | None = None,
        configuration: Mapping[str, Any] | None = None,
        *,
        deadline: float | None = None,
    ) -> Peer:
        """``PUT .../peers/{peer}``: both fields replace wholesale when given."""
        call = ops.peers.update_peer(self._paths, peer_id, metadata, configuration)
        return self._run(call, deadline)

    def list_peers(
        self,
        *,
        page: int = 1,
        size: int = 50,
        reverse: bool = False,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> Page[Peer]:
        """``POST .../peers/list`` (a POST, as the server has it; there is no GET)."""
        call = ops.peers.list_peers(
            self._paths, page=page, size=size, reverse=reverse, filters=filters
        )
        return self._run(call, deadline)

    def iter_peers(
        self,
        *,
        size: int = MAX_PAGE_SIZE,
        reverse: bool = False,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> Iterator[Peer]:
        """Every peer of the workspace, page by page (each page is one call).

        ``deadline`` bounds each page's call, not the whole walk.
        """
        pages = ops.peers.iter_peers(self._paths, size=size, reverse=reverse, filters=filters)
        return self._walk(pages, deadline)

    def list_peer_sessions(
        self,
        peer_id: str,
        *,
        page: int = 1,
        size: int = 50,
        reverse: bool = False,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> Page[Session]:
        """``POST .../peers/{peer}/sessions``: the sessions ``peer_id`` is a member of.

        A read, though it is a POST; ``filters`` as list_sessions() takes them.
        """
        call = ops.peers.list_peer_sessions(
            self._paths, peer_id, page=page, size=size, reverse=reverse, filters=filters
        )
        return self._run(call, deadline)

    def iter_peer_sessions(
        self,
        peer_id: str,
        *,
        size: int = MAX_PAGE_SIZE,
        reverse: bool = False,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> Iterator[Session]:
        """Every session ``peer_id`` is a member of, page by page (each page is one call).

        ``deadline`` bounds each page's call, not the whole walk.
        """
        pages = ops.peers.iter_peer_sessions(
            self._paths, peer_id, size=size, reverse=reverse, filters=filters
        )
        return self._walk(pages, deadline)

    def get_peer_representation(
        self,
        peer_id: str,
        *,
        target: str | None = None,
        session_id: str | None = None,
        sessions: Sequence[str] | None = None,
        scope: str | None = None,
        search_query: str | None = None,
        search_top_k: int | None = None,
        search_max_distance: float | None = None,
        include_most_frequent: bool | None = None,
        max_conclusions: int | None = None,
        deadline: float | None = None,
    ) -> str:
        """``POST .../peers/{peer}/representation``: what ``peer_id`` knows of ``target`` (of
        itself when None), as Markdown text; empty when nothing is known.

        ``session_id`` keeps to what was concluded in that session, ``sessions`` to those
        sessions (with ``session_id`` among them, if both are given), ``scope`` to a named
        scope's view (not with either; needs a workspace or admin key). The server reads at
        most ``max_conclusions`` conclusions (its default 25); ``search_query`` puts the
        nearest first. A read, though it is a POST.
        """
        call = ops.peers.get_peer_representation(
            self._paths,
            peer_id,
            target=target,
            session_id=session_id,
            sessions=sessions,
            scope=scope,
            search_query=search_query,
            search_top_k=search_top_k,
            search_max_distance=search_max_distance,
            include_most_frequent=include_most_frequent,
            max_conclusions=max_conclusions,
        )
        return self._run(call, deadline)

    def get_peer_card(
        self, peer_id: str, *, target: str | None = None, deadline: float | None = None
    ) -> tuple[str, ...] | None:
        """``GET .../peers/{peer}/card``: ``peer_id``'s card about ``target`` (about itself
        when None), its lines in order; None when there is no card.
        """
        return self._run(ops.peers.get_peer_card(self._paths, peer_id, target=target), deadline)

    def set_peer_card(
        self,
        peer_id: str,
        card: Sequence[str],
        *,
        target: str | None = None,
        deadline: float | None = None,
    ) -> tuple[str, ...] | None:
        """``PUT .../peers/{peer}/card``: make ``card`` (its lines, in order) ``peer_id``'s
        card about ``target`` (about itself when None); answers the card as stored.

        The deriver and dreams rewrite cards too, so a card set here may not last.
        """
        call = ops.peers.set_peer_card(self._paths, peer_id, card, target=target)
        return self._run(call, deadline)

    def get_peer_context(
        self,
        peer_id: str,
        *,
        target: str | None = None,
        search_query: str | None = None,
        search_top_k: int | None = None,
        search_max_distance: float | None = None,
        include_most_frequent: bool | None = None,
        max_conclusions: int | None = None,
        deadline: float | None = None,
    ) -> PeerContext:
        """``GET .../peers/{peer}/context``: the representation and the card in one call.

        Of ``target`` as ``peer_id`` sees it (of ``peer_id`` itself when None). The server
        reads at most ``max_conclusions`` conclusions (its default 100) and adds the most
        frequent ones unless ``include_most_frequent`` is False.
        """
        call = ops.peers.get_peer_context(
            self._paths,
            peer_id,
            target=target,
            search_query=search_query,
            search_top_k=search_top_k,
            search_max_distance=search_max_distance,
            include_most_frequent=include_most_frequent,
            max_conclusions=max_conclusions,
        )
        return self._run(call, deadline)

    def get_or_create_session(
        self,
        session_id: str,
        peers: Mapping[str, SessionPeerConfig | Mapping[str, Any] | None] | None = None,
        metadata: Mapping[str, Any] | None = None,
        configuration: Mapping[str, Any] | None = None,
        *,
        deadline: float | None = None,
    ) -> Session:
        """``POST .../sessions``. ``peers`` maps a peer id to its session config.

        A peer that is already an active member keeps its config: the server ignores the
        map for it. Use set_session_peer_config() to change it. A deleted session answers
        404 until the server has purged it.
        """
        call = ops.sessions.get_or_create_session(
            self._paths, session_id, peers, metadata, configuration
        )
        return self._run(call, deadline)

    def update_session(
        self,
        session_id: str,
        metadata: Mapping[str, Any] | None = None,
        configuration: Mapping[str, Any] | None = None,
        *,
        deadline: float | None = None,
    ) -> Session:
        """``PUT .../sessions/{id}``: metadata replaces; configuration merges top-level keys."""
        call = ops.sessions.update_session(self._paths, session_id, metadata, configuration)
        return self._run(call, deadline)

    def list_sessions(
        self,
        *,
        page: int = 1,
        size: int = 50,
        reverse: bool = False,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> Page[Session]:
        """``POST .../sessions/list``: active sessions only."""
        call = ops.sessions.list_sessions(
            self._paths, page=page, size=size, reverse=reverse, filters=filters
        )
        return self._run(call, deadline)

    def iter_sessions(
        self,
        *,
        size: int = MAX_PAGE_SIZE,
        reverse: bool = False,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> Iterator[Session]:
        """Every active session of the workspace, page by page (each page is one call).

        ``deadline`` bounds each page's call, not the whole walk.
        """
        pages = ops.sessions.iter_sessions(self._paths, size=size, reverse=reverse, filters=filters)
        return self._walk(pages, deadline)

    def list_session_peers(
        self, session_id: str, *, page: int = 1, size: int = 50, deadline: float | None = None
    ) -> Page[Peer]:
        """``GET .../sessions/{id}/peers``: active members only.

        In no order: the server sorts this list by nothing, so a page of one and a page of a
        hundred may differ in order (docs/api.md, "Walks over every page").
        """
        call = ops.sessions.list_session_peers(self._paths, session_id, page=page, size=size)
        return self._run(call, deadline)

    def iter_session_peers(
        self, session_id: str, *, size: int = MAX_PAGE_SIZE, deadline: float | None = None
    ) -> Iterator[Peer]:
        """Every active member of a session, page by page (each page is one call).

        ``deadline`` bounds each page's call, not the whole walk. The server sorts members by
        nothing, so pages may overlap: with the default ``size`` a session of up to 100 members
        comes whole in one call.
        """
        pages = ops.sessions.iter_session_peers(self._paths, session_id, size=size)
        return self._walk(pages, deadline)

    def get_session_peer_config(
        self, session_id: str, peer_id: str, *, deadline: float | None = None
    ) -> SessionPeerConfig:
        """``GET .../sessions/{s}/peers/{p}/config``."""
        call = ops.sessions.get_session_peer_config(self._paths, session_id, peer_id)
        return self._run(call, deadline)

    def set_session_peer_config(
        self,
        session_id: str,
        peer_id: str,
        *,
        observe_me: bool | None = None,
        observe_others: bool | None = None,
        deadline: float | None = None,
    ) -> None:
        """``PUT .../sessions/{s}/peers/{p}/config`` (204). Merges the non-None fields.

        A field cannot be reset to None this way; the server keeps the old value. At least
        one flag must be given (ConfigError otherwise): an empty update would still add
        the peer to the session.
        """
        call = ops.sessions.set_session_peer_config(
            self._paths, session_id, peer_id, observe_me=observe_me, observe_others=observe_others
        )
        return self._run(call, deadline)

    def delete_session(self, session_id: str, *, deadline: float | None = None) -> DeleteAccepted:
        """``DELETE .../sessions/{id}``: 202; the session is inactive at once.

        Its messages stay listable and its id answers 404 until the background purge,
        which also removes conclusions made in that session.
        """
        return self._run(ops.sessions.delete_session(self._paths, session_id), deadline)

    def get_session_context(
        self,
        session_id: str,
        *,
        tokens: int | None = None,
        summary: bool = True,
        peer_target: str | None = None,
        peer_perspective: str | None = None,
        scope: str | None = None,
        sessions: Sequence[str] | None = None,
        limit_to_session: bool = False,
        search_query: str | None = None,
        search_top_k: int | None = None,
        search_max_distance: float | None = None,
        include_most_frequent: bool | None = None,
        max_conclusions: int | None = None,
        deadline: float | None = None,
    ) -> SessionContext:
        """``GET .../sessions/{id}/context``: the session cut to ``tokens`` for a prompt.

        The most recent messages that fit, oldest first, and (``summary``, on by default) the
        summary of what came before them, when the deriver has written one that fits in 40%
        of the budget. Without ``tokens`` the server's maximum applies (100,000 by default).
        With ``peer_target`` the answer also holds that peer's representation and card, paid
        for out of the same budget: as ``peer_perspective`` sees it when given, as the named
        ``scope`` sees it when given (not both), else Honcho's own view. ``sessions`` (which
        must include ``session_id``) or ``limit_to_session`` keep the representation to what
        was stated in those sessions; the card is then left out.
        """
        call = ops.sessions.get_session_context(
            self._paths,
            session_id,
            tokens=tokens,
            summary=summary,
            peer_target=peer_target,
            peer_perspective=peer_perspective,
            scope=scope,
            sessions=sessions,
            limit_to_session=limit_to_session,
            search_query=search_query,
            search_top_k=search_top_k,
            search_max_distance=search_max_distance,
            include_most_frequent=include_most_frequent,
            max_conclusions=max_conclusions,
        )
        return self._run(call, deadline)

    def get_session_summaries(self, session_id: str, *, deadline: float | None = None) -> Summaries:
        """``GET .../sessions/{id}/summaries``: the short and the long summary, each None until
        the deriver has written it (by default at every 20th and every 60th message). A
        session that does not exist answers both None on Honcho 3.0.12, not 404.
        """
        return self._run(ops.sessions.get_session_summaries(self._paths, session_id), deadline)

    def clone_session(
        self, session_id: str, *, message_id: str | None = None, deadline: float | None = None
    ) -> Session:
        """``POST .../sessions/{id}/clone`` (201): a new session, named by the server, with this
        one's metadata, configuration, members and messages (up to and including
        ``message_id`` when given). Nothing in the copy is derived again.

        Honcho 3.0.12 picks the messages to copy by the session's name in every workspace:
        give sessions names no other workspace uses (docs/compatibility.md, Server defects).
        It answers 404 "Session not found" for a session that exists when ``message_id`` is
        not one of its messages; the error says so.
        """
        call = ops.sessions.clone_session(self._paths, session_id, message_id=message_id)
        return self._run(call, deadline)

    def add_session_peers(
        self,
        session_id: str,
        peers: Mapping[str, SessionPeerConfig | Mapping[str, Any] | None],
        *,
        deadline: float | None = None,
    ) -> Session:
        """``POST .../sessions/{id}/peers``: add members, each peer id to its SessionPeerConfig
        (None: the defaults). Peers that do not exist yet are made, and so is the session. A
        peer already a member keeps its config: use set_session_peer_config() to change it.
        """
        return self._run(ops.sessions.add_session_peers(self._paths, session_id, peers), deadline)

    def set_session_peers(
        self,
        session_id: str,
        peers: Mapping[str, SessionPeerConfig | Mapping[str, Any] | None],
        *,
        deadline: float | None = None,
    ) -> Session:
        """``PUT .../sessions/{id}/peers``: make ``peers`` the whole member set, with these
        configs; members not named leave the session (an empty map: every member leaves).
        """
        return self._run(ops.sessions.set_session_peers(self._paths, session_id, peers), deadline)

    def remove_session_peers(
        self, session_id: str, peer_ids: Iterable[str], *, deadline: float | None = None
    ) -> Session:
        """``DELETE .../sessions/{id}/peers``: these peers leave the session (their messages
        stay). Naming a peer that is not a member is no error.
        """
        call = ops.sessions.remove_session_peers(self._paths, session_id, peer_ids)
        return self._run(call, deadline)

    def get_or_create_scope(
        self,
        scope_id: str,
        metadata: Mapping[str, Any] | None = None,
        *,
        deadline: float | None = None,
    ) -> Scope:
        """``POST .../scopes``. ``created`` tells 201 (made now) from 200 (existed).

        An existing scope keeps its metadata.
        """
        return self._run(ops.scopes.get_or_create_scope(self._paths, scope_id, metadata), deadline)

    def list_scopes(
        self, *, page: int = 1, size: int = 50, reverse: bool = False, deadline: float | None = None
    ) -> Page[Scope]:
        """``POST .../scopes/list``: one page of the workspace's scopes, oldest first."""
        call = ops.scopes.list_scopes(self._paths, page=page, size=size, reverse=reverse)
        return self._run(call, deadline)

    def iter_scopes(
        self, *, size: int = MAX_PAGE_SIZE, reverse: bool = False, deadline: float | None = None
    ) -> Iterator[Scope]:
        """Every scope of the workspace, page by page (each page is one call).

        ``deadline`` bounds each page's call, not the whole walk.
        """
        return self._walk(ops.scopes.iter_scopes(self._paths, size=size, reverse=reverse), deadline)

    def get_scope(self, scope_id: str, *, deadline: float | None = None) -> Scope:
        """``GET .../scopes/{id}``; 404 (a StatusError) when there is no such scope."""
        return self._run(ops.scopes.get_scope(self._paths, scope_id), deadline)

    def add_scope_sessions(
        self, scope_id: str, session_ids: Iterable[str], *, deadline: float | None = None
    ) -> None:
        """``POST .../scopes/{id}/sessions`` (204): add 1 to 100 existing sessions to the scope
        (a missing one: 404, and none is added). A session already in it is no error.
        """
        call = ops.scopes.add_scope_sessions(self._paths, scope_id, session_ids)
        return self._run(call, deadline)

    def remove_scope_session(
        self, scope_id: str, session_id: str, *, deadline: float | None = None
    ) -> None:
        """``DELETE .../scopes/{id}/sessions/{session}`` (204): take a session out of the scope;
        what was copied from it leaves the scope in the background.
        """
        call = ops.scopes.remove_scope_session(self._paths, scope_id, session_id)
        return self._run(call, deadline)

    def list_scope_sessions(
        self,
        scope_id: str,
        *,
        page: int = 1,
        size: int = 50,
        reverse: bool = False,
        deadline: float | None = None,
    ) -> Page[Session]:
        """``POST .../scopes/{id}/sessions/list``: the scope's sessions, longest-standing member
        first (newest first with ``reverse``). A read, though it is a POST.
        """
        call = ops.scopes.list_scope_sessions(
            self._paths, scope_id, page=page, size=size, reverse=reverse
        )
        return self._run(call, deadline)

    def iter_scope_sessions(
        self,
        scope_id: str,
        *,
        size: int = MAX_PAGE_SIZE,
        reverse: bool = False,
        deadline: float | None = None,
    ) -> Iterator[Session]:
        """Every session of a scope, page by page (each page is one call).

        ``deadline`` bounds each page's call, not the whole walk.
        """
        pages = ops.scopes.iter_scope_sessions(self._paths, scope_id, size=size, reverse=reverse)
        return self._walk(pages, deadline)

    def get_scope_status(self, scope_id: str, *, deadline: float | None = None) -> ScopeStatus:
        """``GET .../scopes/{id}/status``: each added session's backfill (pending, completed
        or failed); empty when no session with messages was ever added.
        """
        return self._run(ops.scopes.get_scope_status(self._paths, scope_id), deadline)

    def add_messages(
        self, session_id: str, messages: Iterable[MessageCreate], *, deadline: float | None = None
    ) -> tuple[Message, ...]:
        """``POST .../sessions/{id}/messages``: 1 to 100 messages, answered in input order.

        If this raises with ``error.request_sent`` true, the server may have stored the
        batch: list the session's newest messages before sending it again.
        """
        return self._run(ops.messages.add_messages(self._paths, session_id, messages), deadline)

    def list_messages(
        self,
        session_id: str,
        *,
        page: int = 1,
        size: int = 50,
        reverse: bool = False,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> Page[Message]:
        """``POST .../sessions/{id}/messages/list``, oldest first unless ``reverse``.

        An unknown session gives an empty page, not 404.
        """
        call = ops.messages.list_messages(
            self._paths, session_id, page=page, size=size, reverse=reverse, filters=filters
        )
        return self._run(call, deadline)

    def iter_messages(
        self,
        session_id: str,
        *,
        size: int = MAX_PAGE_SIZE,
        reverse: bool = False,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> Iterator[Message]:
        """Every message of a session, page by page (each page is one call).

        ``deadline`` bounds each page's call, not the whole walk. Messages added while
        walking may shift pages; walk ``reverse=True`` from the newest to see them first.
        """
        pages = ops.messages.iter_messages(
            self._paths, session_id, size=size, reverse=reverse, filters=filters
        )
        return self._walk(pages, deadline)

    def get_message(
        self, session_id: str, message_id: str, *, deadline: float | None = None
    ) -> Message:
        """``GET .../sessions/{s}/messages/{id}``."""
        return self._run(ops.messages.get_message(self._paths, session_id, message_id), deadline)

    def update_message_metadata(
        self,
        session_id: str,
        message_id: str,
        metadata: Mapping[str, Any],
        *,
        deadline: float | None = None,
    ) -> Message:
        """``PUT .../messages/{id}``: replaces the metadata. Content can never be edited."""
        call = ops.messages.update_message_metadata(self._paths, session_id, message_id, metadata)
        return self._run(call, deadline)

    def upload_file(
        self,
        session_id: str,
        peer_id: str,
        content: bytes,
        filename: str,
        content_type: str,
        *,
        metadata: Mapping[str, Any] | None = None,
        configuration: Mapping[str, Any] | None = None,
        created_at: str | datetime | None = None,
        max_bytes: int = 5 * 1024 * 1024,
        deadline: float | None = None,
    ) -> tuple[Message, ...]:
        """``POST .../sessions/{id}/messages/upload`` (201): a file becomes messages from
        ``peer_id``, answered in order. ``content`` is the file's bytes (reading the file is
        the caller's one line: ``Path(p).read_bytes()``), sent as multipart/form-data with
        ``filename`` and ``content_type``.

        The server turns text, JSON and PDF into text and cuts it into messages of at most
        25,000 characters; each gets ``metadata``, ``configuration`` and ``created_at``.
        Empty ``content``, or ``content`` over ``max_bytes`` (default 5 MiB, the server's own
        cap), is refused before anything is sent. The server's refusals are StatusErrors that
        say why: 413 (too large) and 415 (a type it cannot read).
        """
        call = ops.messages.upload_file(
            self._paths,
            session_id,
            peer_id,
            content,
            filename,
            content_type,
            metadata=metadata,
            configuration=configuration,
            created_at=created_at,
            max_bytes=max_bytes,
        )
        return self._run(call, deadline)

    def create_conclusions(
        self, conclusions: Iterable[ConclusionCreate], *, deadline: float | None = None
    ) -> tuple[Conclusion, ...]:
        """``POST .../conclusions``: 1 to 100, each stored as ``level: explicit``.

        The server does not deduplicate: after an error with ``request_sent`` true, list
        the conclusions before sending again.
        """
        return self._run(ops.conclusions.create_conclusions(self._paths, conclusions), deadline)

    def list_conclusions(
        self,
        filters: Mapping[str, Any] | None = None,
        *,
        page: int = 1,
        size: int = 50,
        reverse: bool = False,
        deadline: float | None = None,
    ) -> Page[Conclusion]:
        """``POST .../conclusions/list``: newest first unless ``reverse`` (unlike other lists)."""
        call = ops.conclusions.list_conclusions(
            self._paths, filters, page=page, size=size, reverse=reverse
        )
        return self._run(call, deadline)

    def iter_conclusions(
        self,
        filters: Mapping[str, Any] | None = None,
        *,
        size: int = MAX_PAGE_SIZE,
        reverse: bool = False,
        deadline: float | None = None,
    ) -> Iterator[Conclusion]:
        """Every conclusion ``filters`` selects, page by page (each page is one call): newest
        first unless ``reverse``, as list_conclusions() has them.

        ``deadline`` bounds each page's call, not the whole walk.
        """
        pages = ops.conclusions.iter_conclusions(self._paths, filters, size=size, reverse=reverse)
        return self._walk(pages, deadline)

    def query_conclusions(
        self,
        query: str,
        observer_id: str,
        observed_id: str,
        *,
        top_k: int | None = None,
        distance: float | None = None,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> tuple[Conclusion, ...]:
        """``POST .../conclusions/query``: semantic search, most similar first.

        The server refuses a query without observer and observed, so both are required;
        they travel inside ``filters``, as the server wants them.
        """
        call = ops.conclusions.query_conclusions(
            self._paths,
            query,
            observer_id,
            observed_id,
            top_k=top_k,
            distance=distance,
            filters=filters,
        )
        return self._run(call, deadline)

    def get_conclusion(self, conclusion_id: str, *, deadline: float | None = None) -> Conclusion:
        """``GET .../conclusions/{id}`` (Honcho 3.2.0 on): one live conclusion of the workspace.

        Raises StatusError 404 (``Conclusion not found``) for an unknown or deleted id, and a
        StatusError that says which version added the route on a server without it (405 on
        Honcho 3.0.12); there, ``list_conclusions({"id": conclusion_id})`` finds it instead.
        """
        return self._run(ops.conclusions.get_conclusion(self._paths, conclusion_id), deadline)

    def delete_conclusion(self, conclusion_id: str, *, deadline: float | None = None) -> None:
        """``DELETE .../conclusions/{id}``: 204 with an empty body."""
        return self._run(ops.conclusions.delete_conclusion(self._paths, conclusion_id), deadline)

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> tuple[Message, ...]:
        """``POST .../search`` across the workspace; the answer is a bare array of messages."""
        call = ops.search.search(self._paths, query, limit=limit, filters=filters)
        return self._run(call, deadline)

    def search_peer(
        self,
        peer_id: str,
        query: str,
        *,
        limit: int = 10,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> tuple[Message, ...]:
        """``POST .../peers/{id}/search``: the server forces ``peer_id`` into the filters."""
        call = ops.search.search_peer(self._paths, peer_id, query, limit=limit, filters=filters)
        return self._run(call, deadline)

    def search_session(
        self,
        session_id: str,
        query: str,
        *,
        limit: int = 10,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> tuple[Message, ...]:
        """``POST .../sessions/{id}/search``: the server forces ``session_id`` into filters."""
        call = ops.search.search_session(
            self._paths, session_id, query, limit=limit, filters=filters
        )
        return self._run(call, deadline)

    def chat(
        self,
        peer_id: str,
        query: str,
        *,
        target: str | None = None,
        session_id: str | None = None,
        reasoning_level: str | None = None,
        include_evidence: bool = False,
        response_format: Mapping[str, Any] | None = None,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> ChatAnswer:
        """``POST .../peers/{id}/chat``: ask the dialectic what ``peer_id`` knows.

        Answers take 30 to 50 s at the higher reasoning levels: give the client a long
        ``read_timeout`` (see with_options()). ``filters`` may hold only ``session_id``.
        ``include_evidence`` needs a server newer than 3.0.12.
        """
        call = ops.chat.chat(
            self._paths,
            peer_id,
            query,
            target=target,
            session_id=session_id,
            reasoning_level=reasoning_level,
            include_evidence=include_evidence,
            response_format=response_format,
            filters=filters,
        )
        return self._run(call, deadline)

    def chat_stream(
        self,
        peer_id: str,
        query: str,
        *,
        target: str | None = None,
        session_id: str | None = None,
        reasoning_level: str | None = None,
        include_evidence: bool = False,
        response_format: Mapping[str, Any] | None = None,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> ChatStream:
        """chat() as a stream of ChatChunk; use it as a context manager so it closes.

        The idle read timeout applies between chunks, so a slow answer can be told from
        a dead one. The final chunk has ``done`` set and carries any evidence.
        """
        call = ops.chat.chat_stream(
            self._paths,
            peer_id,
            query,
            target=target,
            session_id=session_id,
            reasoning_level=reasoning_level,
            include_evidence=include_evidence,
            response_format=response_format,
            filters=filters,
        )
        return self._open_stream(call, deadline)

    def chat_workspace(
        self,
        query: str,
        *,
        session_id: str | None = None,
        reasoning_level: str | None = None,
        include_evidence: bool = False,
        response_format: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> ChatAnswer:
        """``POST /v3/workspaces/{id}/chat`` (Honcho 3.3 OpenAPI; absent from 3.0.12).

        Raises StatusError saying so when the server has no such route (404 or 405).
        """
        call = ops.chat.chat_workspace(
            self._paths,
            query,
            session_id=session_id,
            reasoning_level=reasoning_level,
            include_evidence=include_evidence,
            response_format=response_format,
        )
        return self._run(call, deadline)

    def chat_workspace_stream(
        self,
        query: str,
        *,
        session_id: str | None = None,
        reasoning_level: str | None = None,
        include_evidence: bool = False,
        response_format: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> ChatStream:
        """chat_workspace() as a stream of ChatChunk."""
        call = ops.chat.chat_workspace_stream(
            self._paths,
            query,
            session_id=session_id,
            reasoning_level=reasoning_level,
            include_evidence=include_evidence,
            response_format=response_format,
        )
        return self._open_stream(call, deadline)

    def get_or_create_webhook(self, url: str, *, deadline: float | None = None) -> WebhookEndpoint:
        """``POST .../webhooks``: register ``url`` for this workspace's events.

        ``created`` tells 201 (made now) from 200 (the URL was registered already). The URL must
        be http or https with a host (checked before sending). Each delivery is signed; check
        it with ``roncho.webhooks.verify``.

        Raises:
            WebhookLimitError: 409, the workspace has the most endpoints the server allows.
            StatusError: 422 when the server refuses the URL (a private or loopback IP literal
                among them: the message says what to give instead); 404 for a missing workspace.
        """
        return self._run(ops.webhooks.get_or_create_webhook(self._paths, url), deadline)

    def list_webhooks(
        self, *, page: int = 1, size: int = 50, deadline: float | None = None
    ) -> Page[WebhookEndpoint]:
        """``GET .../webhooks``: one page of this workspace's endpoints (``created`` is None).

        In no order: the server sorts this list by nothing (docs/api.md, "Walks over every page").
        """
        return self._run(ops.webhooks.list_webhooks(self._paths, page=page, size=size), deadline)

    def iter_webhooks(
        self, *, size: int = MAX_PAGE_SIZE, deadline: float | None = None
    ) -> Iterator[WebhookEndpoint]:
        """Every webhook endpoint of this workspace, page by page (each page is one call).

        ``deadline`` bounds each page's call, not the whole walk. The server sorts endpoints by
        nothing, so pages may overlap: with the default ``size`` up to 100 come whole in one call.
        """
        return self._walk(ops.webhooks.iter_webhooks(self._paths, size=size), deadline)

    def delete_webhook(self, endpoint_id: str, *, deadline: float | None = None) -> None:
        """``DELETE .../webhooks/{id}``: 204; an unknown id answers 404 (a StatusError)."""
        return self._run(ops.webhooks.delete_webhook(self._paths, endpoint_id), deadline)

    def trigger_webhook_test(self, *, deadline: float | None = None) -> None:
        """``GET .../webhooks/test``: the server sends a ``test.event`` to every endpoint.

        A write for ``read_only`` (it makes the server post). It answers 200 at once; the
        delivery follows when the server's deriver gets to it (about a second on 3.0.12), and
        not at all if the server has no webhook secret.
        """
        return self._run(ops.webhooks.trigger_webhook_test(self._paths), deadline)

    def probe(self, *, deadline: float | None = None) -> Health:
        """``GET /health``: the cheapest call that shows the server is up.

        Honcho 3.2 exposes no version here or in any header; see server_version().
        """
        return self._run(ops.server.probe(self._paths), deadline)

    def server_version(self, *, deadline: float | None = None) -> str | None:
        """``info.version`` from ``GET /openapi.json``, the only place Honcho states it.

        None when the server does not serve the document (404), it has no version, or it says
        ``"unknown"`` (Honcho's Docker images before 3.1.1 do: they were built without their
        version, so it is unknown, not a version called "unknown").
        """
        return self._run(ops.server.server_version(self._paths), deadline)

    def queue_status(
        self,
        *,
        observer_id: str | None = None,
        sender_id: str | None = None,
        session_id: str | None = None,
        deadline: float | None = None,
    ) -> QueueStatus:
        """``GET .../queue/status``: the deriver's queue rows for this workspace. Its
        ``sessions`` map is keyed by the server's internal session ids, which no other answer
        carries: for one session's rows pass its name as ``session_id`` and read the totals.

        With ``session_id`` the answer's ``sessions`` is empty (Honcho 3.0.12 fills it only for
        the whole workspace). ``observer_id`` and ``sender_id`` are OR-ed.
        On Honcho 3.0.12 ``observer_id`` never counts message work (its filter reads
        ``payload->>'observer'``, which message items lack: they carry ``observers``), so it
        reports zeros for the deriver's main queue; use ``sender_id`` or ``session_id``.
        """
        call = ops.server.queue_status(
            self._paths, observer_id=observer_id, sender_id=sender_id, session_id=session_id
        )
        return self._run(call, deadline)

    def create_key(
        self,
        *,
        workspace_id: str | None = None,
        peer_id: str | None = None,
        session_id: str | None = None,
        expires_at: str | None = None,
        deadline: float | None = None,
    ) -> str:
        """``POST /v3/keys`` (admin key only): mint a scoped key. Treat the result as secret.

        A server with authentication off answers 405 "Feature is disabled".
        """
        call = ops.server.create_key(
            self._paths,
            workspace_id=workspace_id,
            peer_id=peer_id,
            session_id=session_id,
            expires_at=expires_at,
        )
        return self._run(call, deadline)

    # END GENERATED methods

    # -- a wait made of many calls (its loop and logic: add-ons, loaded on the first wait) --
    def wait_for_derivation(
        self,
        session_id: str,
        *,
        since: QueueStatus,
        grace: float = DEFAULT_GRACE,
        interval: float = DEFAULT_INTERVAL,
        gates: DeriverGates | None = None,
        deadline: float = DEFAULT_BOUND,
    ) -> DerivationOutcome:
        """Wait, bounded by ``deadline``, for the deriver to work off a sync, and say how it went.

        ``since`` is ``queue_status(session_id=session_id)`` read before the sync: queue
        status cannot tie items to one add_messages, so the items beyond it are the work
        waited for. Call it right after the sync; no other writer should add to the
        session meanwhile (docs/delivery.md, "Waiting for the deriver"). It reads the
        session's queue status every ``interval`` seconds (and the workspace's while the
        work is pending with none of it in progress), and returns as soon as it can tell:
        ``done`` once the new items were seen and none of the session's are left, or
        ``nothing_queued`` when none appeared within ``grace`` seconds; otherwise, when
        ``deadline`` seconds have passed, ``batching``, ``waiting`` or ``still_working``
        with the counts. ``gates`` tells it the server's deriver settings, so that pending
        work can be called batching and the gates named. Never "done" before the work was
        seen. Raises what queue_status raises, and DeadlineExceeded only when not one read
        of the session was answered within the deadline.
        """
        from ._derivation_wait import wait_for_derivation  # an add-on: loaded by the first wait

        return wait_for_derivation(
            self, session_id, since, grace=grace, interval=interval, gates=gates, deadline=deadline
        )

    # -- how every method runs its operation: one connection per call ----------------------
    def _run(self, call: Call[T], deadline: float | None) -> T:
        """One whole call: its result, or the error its answer means (on_call hears of it)."""
        connection, exchange, started = self._exchange(call, deadline)
        connection.close()
        return self._result(exchange, started)

    def _open_stream(self, call: Call[None], deadline: float | None) -> ChatStream:
        connection, exchange, started = self._exchange(call, deadline)
        if exchange.chat is None:  # not a 2xx answer: the error it means
            connection.close()
            self._result(exchange, started)
        return ChatStream(connection, exchange, partial(self._ended, call, exchange, started))

    def _walk(self, pages: Pages[T], deadline: float | None) -> Iterator[T]:
        """Each page is one call, and ``deadline`` bounds each, not the whole walk."""
        call: Call[Page[T]] | None = pages.first()
        while call is not None:
            answer = self._run(call, deadline)
            yield from answer.items
            call = pages.after(answer)

    def _exchange(
        self, call: Call[T], deadline: float | None
    ) -> tuple[Connection, Exchange[T], float]:
        """Connect, send, and read until the exchange needs no more (a stream: its head);
        with the call's start, for on_call. Whatever ends it early, a cancelled task or
        Ctrl-C included, closes the connection (and on_call hears of it)."""
        started, exchange, connection = time.monotonic(), None, None
        try:
            exchange, timeouts = self._start(call, deadline)
            connection = connect(
                self._endpoint, timeouts, self._tls, call.what, type(self)._new_socket
            )
            # Only now, connected, is the request with the key built (and wiped once sent).
            with exchange.sending(self._endpoint) as wire:
                connection.send(wire)
            while exchange.needs_more:
                try:
                    # A 2xx body of known length is read into its buffer (room), else bytes.
                    data = connection.read(exchange.room())
                except RonchoError:
                    if exchange.read_failure_ends_it():  # an error status arrived: it is the answer
                        break
                    raise
                try:
                    exchange.received(data)
                finally:  # it may echo the key: held by neither the next read nor a traceback
                    del data
        except BaseException as error:
            if connection is not None:
                connection.close()
            self._ended(call, exchange, started, error)
            raise
        return connection, exchange, started
