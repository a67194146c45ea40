"""Client: one method per Honcho operation; endpoint -> request -> transport -> model.

Every method checks its arguments (ids against Honcho's rule, batch sizes, metadata)
before anything is sent, opens one connection, sends one request, and decodes the
answer into frozen dataclasses. Nothing is retried, no redirect is followed, nothing is
logged, and no state changes after construction except the key being wiped by close().
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any, Final, TypeVar
from urllib.parse import quote

from . import __version__
from ._config import (
    Endpoint,
    check_api_key,
    check_id,
    check_positive_int,
    check_timeout,
    parse_base_url,
)
from ._errors import (
    ConfigError,
    DecodeError,
    ReadOnlyError,
    RedirectError,
    RonchoError,
    StatusError,
    status_error,
)
from ._http import BodyData, ResponseHead, ResponseParser, build_request
from ._models import (
    MAX_BATCH,
    MAX_QUERY_CHARS,
    ChatAnswer,
    Conclusion,
    ConclusionCreate,
    DeleteAccepted,
    Health,
    Message,
    MessageCreate,
    Page,
    Peer,
    QueueStatus,
    Session,
    SessionPeerConfig,
    Workspace,
    check_json,
    check_metadata,
    check_text,
    decode_list,
    finite,
    parse_json,
)
from ._stream import ChatStream
from ._transport import ERROR_BODY_BYTES, Connection, Limits, Response, _Clock, tls_context

T = TypeVar("T")
M = TypeVar("M", Workspace, Peer, Session)

DEFAULT_MAX_RESPONSE_BYTES: Final = 8 * 1024 * 1024
REASONING_LEVELS: Final = ("minimal", "low", "medium", "high", "max")
MAX_PAGE_SIZE: Final = 100  # fastapi-pagination's bound on ``size`` (reference §1.5)
_USER_AGENT: Final = f"roncho/{__version__}"
_UNSET: Final = object()
_METHODS_WITH_BODY: Final = frozenset({"POST", "PUT", "PATCH"})


class Client:
    """A blocking Honcho v3 client for one workspace.

    Immutable and thread-safe: share one instance between threads. Each call opens its
    own connection (``Connection: close``), so calls never wait on each other.

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

    Every method also takes ``deadline``: an optional total, in seconds, for that call.
    """

    __slots__ = ("_endpoint", "_key", "_limits", "_read_only", "_tls", "_workspace")
    _endpoint: Endpoint
    _key: bytearray | None
    _limits: Limits
    _read_only: bool
    _tls: Any
    _workspace: str

    def __init__(
        self,
        base_url: str,
        workspace: str,
        *,
        api_key: str | None = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 120.0,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        read_only: bool = False,
    ) -> None:
        endpoint = parse_base_url(base_url)
        limits = Limits(
            connect_timeout=_seconds(connect_timeout, "connect_timeout"),
            read_timeout=_seconds(read_timeout, "read_timeout"),
            max_response_bytes=check_positive_int(max_response_bytes, "max_response_bytes"),
        )
        if not isinstance(read_only, bool):
            raise ConfigError("read_only must be True or False")
        self._init(
            endpoint,
            check_id(workspace, "workspace"),
            check_api_key(api_key),
            limits,
            read_only,
            tls_context() if endpoint.scheme == "https" else None,
        )

    def _init(
        self,
        endpoint: Endpoint,
        workspace: str,
        key: bytearray | None,
        limits: Limits,
        read_only: bool,
        tls: Any,
    ) -> None:
        set_ = object.__setattr__
        set_(self, "_endpoint", endpoint)
        set_(self, "_workspace", workspace)
        set_(self, "_key", key)
        set_(self, "_limits", limits)
        set_(self, "_read_only", read_only)
        set_(self, "_tls", tls)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("roncho.Client is immutable; use with_workspace() or with_options()")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("roncho.Client is immutable; use with_workspace() or with_options()")

    def __repr__(self) -> str:
        key = "set" if self._key is not None else "none"
        mode = ", read_only" if self._read_only else ""
        return f"<roncho.Client {self._endpoint} workspace={self._workspace!r} key={key}{mode}>"

    __str__ = __repr__

    def __reduce__(self) -> Any:
        raise TypeError("a roncho.Client cannot be pickled (it would carry its key)")

    # -- properties and copies -----------------------------------------------------------
    @property
    def base_url(self) -> str:
        return str(self._endpoint)

    @property
    def workspace(self) -> str:
        return self._workspace

    @property
    def read_only(self) -> bool:
        return self._read_only

    @property
    def has_key(self) -> bool:
        return self._key is not None

    @property
    def closed(self) -> bool:
        return self._tls is _CLOSED

    def with_workspace(
        self, workspace: str, *, api_key: Any = _UNSET, read_only: bool | None = None
    ) -> Client:
        """A client for another workspace. Without ``api_key`` it keeps this key (a copy)."""
        key = check_api_key(api_key) if api_key is not _UNSET else self._copy_key()
        return self._copy(
            workspace=check_id(workspace, "workspace"),
            key=key,
            read_only=self._read_only if read_only is None else read_only,
        )

    def with_options(
        self,
        *,
        connect_timeout: float | None = None,
        read_timeout: float | None = None,
        max_response_bytes: int | None = None,
    ) -> Client:
        """The same client with other limits, e.g. a long read timeout for the dialectic."""
        limits = Limits(
            connect_timeout=self._limits.connect_timeout
            if connect_timeout is None
            else _seconds(connect_timeout, "connect_timeout"),
            read_timeout=self._limits.read_timeout
            if read_timeout is None
            else _seconds(read_timeout, "read_timeout"),
            max_response_bytes=self._limits.max_response_bytes
            if max_response_bytes is None
            else check_positive_int(max_response_bytes, "max_response_bytes"),
        )
        return self._copy(limits=limits, key=self._copy_key())

    def _copy_key(self) -> bytearray | None:
        self._check_open()
        return None if self._key is None else bytearray(self._key)

    def _copy(self, **changes: Any) -> Client:
        self._check_open()  # a copy of a closed client would be closed too: say so now
        if not isinstance(changes.get("read_only", False), bool):
            raise ConfigError("read_only must be True or False")
        clone = object.__new__(Client)
        clone._init(
            self._endpoint,
            changes.get("workspace", self._workspace),
            changes["key"],
            changes.get("limits", self._limits),
            changes.get("read_only", self._read_only),
            self._tls,
        )
        return clone

    # -- lifetime ------------------------------------------------------------------------
    def close(self) -> None:
        """Overwrite the key in memory; the client refuses calls afterwards.

        Python cannot promise the key left no other copy (the caller's own string, the
        bytes of a request already sent); this wipes the one roncho keeps.
        """
        if self._key is not None:
            for i in range(len(self._key)):
                self._key[i] = 0
        object.__setattr__(self, "_tls", _CLOSED)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            key = self._key
        except AttributeError:
            return
        if key is not None:
            for i in range(len(key)):
                key[i] = 0

    def _check_open(self) -> None:
        if self._tls is _CLOSED:
            raise ConfigError("this roncho.Client is closed")

    # -- O1 workspaces -------------------------------------------------------------------
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
        return self._get_or_create(
            "get_or_create_workspace",
            self._ws_root(),
            self._workspace,
            Workspace.from_json,
            {"metadata": _meta(metadata), "configuration": _config(configuration, "configuration")},
            deadline,
        )

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
        return self._update(
            "update_workspace", self._ws(), metadata, configuration, Workspace.from_json, deadline
        )

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
        return self._list_page(
            "list_workspaces",
            self._ws_root("list"),
            Workspace.from_json,
            page,
            size,
            reverse,
            filters,
            deadline,
        )

    def delete_workspace(self, *, deadline: float | None = None) -> DeleteAccepted:
        """``DELETE /v3/workspaces/{id}``: 202, purged in the background.

        Raises:
            WorkspaceBusyError: 409, the workspace still has active sessions; delete them
                first (a session delete makes it inactive at once).
        """
        response = self._call(
            "delete_workspace", "DELETE", self._ws(), write=True, deadline=deadline
        )
        return self._decode(
            response, "delete_workspace", DeleteAccepted.from_json, allow_empty=True
        )

    # -- O2 peers ------------------------------------------------------------------------
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
        return self._get_or_create(
            "get_or_create_peer",
            self._ws("peers"),
            check_id(peer_id, "peer_id"),
            Peer.from_json,
            {"metadata": _meta(metadata), "configuration": _config(configuration, "configuration")},
            deadline,
        )

    def update_peer(
        self,
        peer_id: str,
        metadata: Mapping[str, Any] | None = None,
        configuration: Mapping[str, Any] | None = None,
        *,
        deadline: float | None = None,
    ) -> Peer:
        """``PUT .../peers/{peer}``: both fields replace wholesale when given."""
        path = self._ws("peers", _id(peer_id, "peer_id"))
        return self._update("update_peer", path, metadata, configuration, Peer.from_json, deadline)

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
        return self._list_page(
            "list_peers",
            self._ws("peers", "list"),
            Peer.from_json,
            page,
            size,
            reverse,
            filters,
            deadline,
        )

    # -- O3 sessions ---------------------------------------------------------------------
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
        fields = {
            "metadata": _meta(metadata),
            "peers": _peer_map(peers),
            "configuration": _config(configuration, "configuration"),
        }
        return self._get_or_create(
            "get_or_create_session",
            self._ws("sessions"),
            check_id(session_id, "session_id"),
            Session.from_json,
            fields,
            deadline,
        )

    def update_session(
        self,
        session_id: str,
        metadata: Mapping[str, Any] | None = None,
        configuration: Mapping[str, Any] | None = None,
        *,
        deadline: float | None = None,
    ) -> Session:
        """``PUT .../sessions/{id}``: metadata replaces; configuration merges top-level keys."""
        path = self._ws("sessions", _id(session_id, "session_id"))
        return self._update(
            "update_session", path, metadata, configuration, Session.from_json, deadline
        )

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
        return self._list_page(
            "list_sessions",
            self._ws("sessions", "list"),
            Session.from_json,
            page,
            size,
            reverse,
            filters,
            deadline,
        )

    def list_session_peers(
        self, session_id: str, *, page: int = 1, size: int = 50, deadline: float | None = None
    ) -> Page[Peer]:
        """``GET .../sessions/{id}/peers``: active members only."""
        response = self._call(
            "list_session_peers",
            "GET",
            self._ws("sessions", _id(session_id, "session_id"), "peers"),
            query=_paging(page, size, None),
            deadline=deadline,
        )
        return self._page(response, "list_session_peers", Peer.from_json)

    def get_session_peer_config(
        self, session_id: str, peer_id: str, *, deadline: float | None = None
    ) -> SessionPeerConfig:
        """``GET .../sessions/{s}/peers/{p}/config``."""
        path = self._ws(
            "sessions", _id(session_id, "session_id"), "peers", _id(peer_id, "peer_id"), "config"
        )
        response = self._call("get_session_peer_config", "GET", path, deadline=deadline)
        return self._decode(response, "get_session_peer_config", SessionPeerConfig.from_json)

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
        config = SessionPeerConfig(observe_me=observe_me, observe_others=observe_others)
        if observe_me is None and observe_others is None:
            # The server would change no flag, yet still add the peer to the session.
            raise ConfigError("set_session_peer_config needs observe_me or observe_others")
        path = self._ws(
            "sessions", _id(session_id, "session_id"), "peers", _id(peer_id, "peer_id"), "config"
        )
        self._call(
            "set_session_peer_config",
            "PUT",
            path,
            body=config.to_json(),
            write=True,
            deadline=deadline,
        )

    def delete_session(self, session_id: str, *, deadline: float | None = None) -> DeleteAccepted:
        """``DELETE .../sessions/{id}``: 202; the session is inactive at once.

        Its messages stay listable and its id answers 404 until the background purge,
        which also removes conclusions made in that session.
        """
        response = self._call(
            "delete_session",
            "DELETE",
            self._ws("sessions", _id(session_id, "session_id")),
            write=True,
            deadline=deadline,
        )
        return self._decode(response, "delete_session", DeleteAccepted.from_json, allow_empty=True)

    # -- O4 / O5 messages ----------------------------------------------------------------
    def add_messages(
        self, session_id: str, messages: Iterable[MessageCreate], *, deadline: float | None = None
    ) -> tuple[Message, ...]:
        """``POST .../sessions/{id}/messages``: 1 to 100 messages, answered in input order.

        If this raises with ``error.request_sent`` true, the server may have stored the
        batch: list the session's newest messages before sending it again.
        """
        batch = list(messages)
        if not 1 <= len(batch) <= MAX_BATCH:
            raise ConfigError(f"add_messages takes 1 to {MAX_BATCH} messages, got {len(batch)}")
        items = []
        for i, message in enumerate(batch):
            if not isinstance(message, MessageCreate):
                raise ConfigError(f"messages[{i}] must be a MessageCreate")
            items.append(message.to_json(f"messages[{i}]"))
        path = self._ws("sessions", _id(session_id, "session_id"), "messages")
        response = self._call(
            "add_messages", "POST", path, body={"messages": items}, write=True, deadline=deadline
        )
        return self._list(response, "add_messages", Message.from_json)

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
        path = self._ws("sessions", _id(session_id, "session_id"), "messages", "list")
        return self._list_page(
            "list_messages", path, Message.from_json, page, size, reverse, filters, deadline
        )

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
        page = 1
        while True:
            result = self.list_messages(
                session_id,
                page=page,
                size=size,
                reverse=reverse,
                filters=filters,
                deadline=deadline,
            )
            yield from result.items
            if page >= result.pages or not result.items:
                return
            page += 1

    def get_message(
        self, session_id: str, message_id: str, *, deadline: float | None = None
    ) -> Message:
        """``GET .../sessions/{s}/messages/{id}``."""
        path = self._ws(
            "sessions", _id(session_id, "session_id"), "messages", _id(message_id, "message_id")
        )
        return self._decode(
            self._call("get_message", "GET", path, deadline=deadline),
            "get_message",
            Message.from_json,
        )

    def update_message_metadata(
        self,
        session_id: str,
        message_id: str,
        metadata: Mapping[str, Any],
        *,
        deadline: float | None = None,
    ) -> Message:
        """``PUT .../messages/{id}``: replaces the metadata. Content can never be edited."""
        path = self._ws(
            "sessions", _id(session_id, "session_id"), "messages", _id(message_id, "message_id")
        )
        body = {
            "metadata": check_metadata(
                dict(metadata) if isinstance(metadata, Mapping) else metadata
            )
        }
        response = self._call(
            "update_message_metadata", "PUT", path, body=body, write=True, deadline=deadline
        )
        return self._decode(response, "update_message_metadata", Message.from_json)

    # -- O8 / O9 conclusions -------------------------------------------------------------
    def create_conclusions(
        self, conclusions: Iterable[ConclusionCreate], *, deadline: float | None = None
    ) -> tuple[Conclusion, ...]:
        """``POST .../conclusions``: 1 to 100, each stored as ``level: explicit``.

        The server does not deduplicate: after an error with ``request_sent`` true, list
        the conclusions before sending again.
        """
        batch = list(conclusions)
        if not 1 <= len(batch) <= MAX_BATCH:
            raise ConfigError(
                f"create_conclusions takes 1 to {MAX_BATCH} conclusions, got {len(batch)}"
            )
        items = []
        for i, conclusion in enumerate(batch):
            if not isinstance(conclusion, ConclusionCreate):
                raise ConfigError(f"conclusions[{i}] must be a ConclusionCreate")
            items.append(conclusion.to_json(f"conclusions[{i}]"))
        response = self._call(
            "create_conclusions",
            "POST",
            self._ws("conclusions"),
            body={"conclusions": items},
            write=True,
            deadline=deadline,
        )
        return self._list(response, "create_conclusions", Conclusion.from_json)

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
        return self._list_page(
            "list_conclusions",
            self._ws("conclusions", "list"),
            Conclusion.from_json,
            page,
            size,
            reverse,
            filters,
            deadline,
        )

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
        merged = dict(_filters(filters) or {})
        merged["observer_id"] = check_id(observer_id, "observer_id")
        merged["observed_id"] = check_id(observed_id, "observed_id")
        body: dict[str, Any] = {
            "query": _text(query, "query", MAX_QUERY_CHARS * 100),
            "filters": merged,
        }
        if top_k is not None:
            body["top_k"] = check_positive_int(top_k, "top_k", high=100)
        if distance is not None:
            body["distance"] = finite(distance, "distance", 0.0, 1.0)
        response = self._call(
            "query_conclusions",
            "POST",
            self._ws("conclusions", "query"),
            body=body,
            deadline=deadline,
        )
        return self._list(response, "query_conclusions", Conclusion.from_json)

    def delete_conclusion(self, conclusion_id: str, *, deadline: float | None = None) -> None:
        """``DELETE .../conclusions/{id}``: 204 with an empty body."""
        self._call(
            "delete_conclusion",
            "DELETE",
            self._ws("conclusions", _id(conclusion_id, "conclusion_id")),
            write=True,
            deadline=deadline,
        )

    # -- O10 / O11 search ----------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> tuple[Message, ...]:
        """``POST .../search`` across the workspace; the answer is a bare array of messages."""
        return self._search("search", self._ws("search"), query, limit, filters, deadline)

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
        return self._search(
            "search_peer",
            self._ws("peers", _id(peer_id, "peer_id"), "search"),
            query,
            limit,
            filters,
            deadline,
        )

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
        path = self._ws("sessions", _id(session_id, "session_id"), "search")
        return self._search("search_session", path, query, limit, filters, deadline)

    def _search(
        self,
        op: str,
        path: str,
        query: str,
        limit: int,
        filters: Mapping[str, Any] | None,
        deadline: float | None,
    ) -> tuple[Message, ...]:
        body: dict[str, Any] = {
            "query": _text(query, "query", None, allow_empty=True),
            "limit": check_positive_int(limit, "limit", high=100),
        }
        if filters is not None:
            body["filters"] = _filters(filters)
        return self._list(
            self._call(op, "POST", path, body=body, deadline=deadline), op, Message.from_json
        )

    # -- O12 dialectic -------------------------------------------------------------------
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
        body = self._chat_body(
            query,
            target=target,
            session_id=session_id,
            reasoning_level=reasoning_level,
            include_evidence=include_evidence,
            response_format=response_format,
            filters=filters,
        )
        path = self._ws("peers", _id(peer_id, "peer_id"), "chat")
        return self._decode(
            self._call("chat", "POST", path, body=body, deadline=deadline),
            "chat",
            ChatAnswer.from_json,
        )

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
        body = self._chat_body(
            query,
            target=target,
            session_id=session_id,
            reasoning_level=reasoning_level,
            include_evidence=include_evidence,
            response_format=response_format,
            filters=filters,
        )
        body["stream"] = True
        path = self._ws("peers", _id(peer_id, "peer_id"), "chat")
        return self._open_stream("chat_stream", path, body, deadline)

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
        body = self._chat_body(
            query,
            session_id=session_id,
            reasoning_level=reasoning_level,
            include_evidence=include_evidence,
            response_format=response_format,
        )
        try:
            response = self._call(
                "chat_workspace", "POST", self._ws("chat"), body=body, deadline=deadline
            )
        except StatusError as exc:
            raise _no_workspace_chat(exc) from None
        return self._decode(response, "chat_workspace", ChatAnswer.from_json)

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
        body = self._chat_body(
            query,
            session_id=session_id,
            reasoning_level=reasoning_level,
            include_evidence=include_evidence,
            response_format=response_format,
        )
        body["stream"] = True
        try:
            return self._open_stream("chat_workspace_stream", self._ws("chat"), body, deadline)
        except StatusError as exc:
            raise _no_workspace_chat(exc) from None

    def _chat_body(
        self,
        query: str,
        *,
        target: str | None = None,
        session_id: str | None = None,
        reasoning_level: str | None = None,
        include_evidence: bool = False,
        response_format: Mapping[str, Any] | None = None,
        filters: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"query": _text(query, "query", MAX_QUERY_CHARS)}
        if target is not None:
            body["target"] = check_id(target, "target")
        if session_id is not None:
            body["session_id"] = check_id(session_id, "session_id")
        if reasoning_level is not None:
            if reasoning_level not in REASONING_LEVELS:
                raise ConfigError(f"reasoning_level must be one of {', '.join(REASONING_LEVELS)}")
            body["reasoning_level"] = reasoning_level
        if not isinstance(include_evidence, bool):
            raise ConfigError("include_evidence must be True or False")
        if include_evidence:
            body["include_evidence"] = True
        if response_format is not None:
            body["response_format"] = _config(response_format, "response_format")
        if filters is not None:
            chat_filters = _filters(filters) or {}
            extra = set(chat_filters) - {"session_id"}
            if extra:
                raise ConfigError(
                    f"chat filters may hold only 'session_id' (the server refuses {sorted(extra)})"
                )
            body["filters"] = chat_filters
        return body

    def _open_stream(
        self, op: str, path: str, body: dict[str, Any], deadline: float | None
    ) -> ChatStream:
        connection, events, head = self._send(
            op, "POST", path, None, body, deadline, accept="text/event-stream"
        )
        try:
            if not 200 <= head.status < 300:
                failure = self._status_failure(op, "POST", path, head, events)
                del head, events  # as in _call: no unredacted answer left in a local
                raise failure
            return ChatStream(
                op, connection, events, head, self._limits.max_response_bytes, self._redact
            )
        except BaseException:
            connection.close()
            raise

    # -- O13 / O14 and extras ------------------------------------------------------------
    def probe(self, *, deadline: float | None = None) -> Health:
        """``GET /health``: the cheapest call that shows the server is up.

        Honcho 3.2 exposes no version here or in any header; see server_version().
        """
        path = self._endpoint.prefix + "/health"
        return self._decode(
            self._call("probe", "GET", path, deadline=deadline), "probe", Health.from_json
        )

    def server_version(self, *, deadline: float | None = None) -> str | None:
        """``info.version`` from ``GET /openapi.json``, the only place Honcho states it.

        None when the server does not serve the document (404) or it has no version.
        """
        path = self._endpoint.prefix + "/openapi.json"
        try:
            response = self._call("server_version", "GET", path, deadline=deadline)
        except StatusError as exc:
            if exc.status == 404:
                return None
            raise
        data = self._json(response, "server_version")
        info = data.get("info") if isinstance(data, dict) else None
        version = info.get("version") if isinstance(info, dict) else None
        return version if isinstance(version, str) else None

    def queue_status(
        self,
        *,
        observer_id: str | None = None,
        sender_id: str | None = None,
        session_id: str | None = None,
        deadline: float | None = None,
    ) -> QueueStatus:
        """``GET .../queue/status``: the deriver's queue rows for this workspace.

        ``session_id`` is the session name; the answer's ``sessions`` map is keyed by the
        server's internal session ids. ``observer_id`` and ``sender_id`` are OR-ed.
        """
        query = []
        for name, value in (
            ("observer_id", observer_id),
            ("sender_id", sender_id),
            ("session_id", session_id),
        ):
            if value is not None:
                query.append((name, check_id(value, name)))
        response = self._call(
            "queue_status", "GET", self._ws("queue", "status"), query=query, deadline=deadline
        )
        return self._decode(response, "queue_status", QueueStatus.from_json)

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
        query = []
        for name, value in (
            ("workspace_id", workspace_id),
            ("peer_id", peer_id),
            ("session_id", session_id),
        ):
            if value is not None:
                query.append((name, check_id(value, name)))
        if expires_at is not None:
            from ._models import check_timestamp

            query.append(("expires_at", check_timestamp(expires_at, "expires_at")))
        if not query or all(n == "expires_at" for n, _ in query):
            raise ConfigError("create_key needs workspace_id, peer_id or session_id")
        response = self._call(
            "create_key",
            "POST",
            self._endpoint.prefix + "/v3/keys",
            query=query,
            write=True,
            deadline=deadline,
        )
        data = self._json(response, "create_key")
        key = data.get("key") if isinstance(data, dict) else None
        if not isinstance(key, str) or not key:
            raise DecodeError("create_key: the answer has no key", request_sent=True)
        return key

    # -- plumbing ------------------------------------------------------------------------
    def _get_or_create(
        self,
        op: str,
        path: str,
        resource_id: str,
        model: Callable[[object, str], M],
        fields: dict[str, Any],
        deadline: float | None,
    ) -> M:
        """POST a get-or-create; ``created`` on the result says 201 (made) or 200 (existed)."""
        body = {"id": resource_id, **_drop_none(fields)}
        response = self._call(op, "POST", path, body=body, write=True, deadline=deadline)
        return _with_created(self._decode(response, op, model), response)

    def _update(
        self,
        op: str,
        path: str,
        metadata: Mapping[str, Any] | None,
        configuration: Mapping[str, Any] | None,
        model: Callable[[object, str], T],
        deadline: float | None,
    ) -> T:
        """PUT metadata and configuration; None in either means "leave it as it is"."""
        body = {
            "metadata": _meta(metadata),
            "configuration": _config(configuration, "configuration"),
        }
        response = self._call(op, "PUT", path, body=body, write=True, deadline=deadline)
        return self._decode(response, op, model)

    def _list_page(
        self,
        op: str,
        path: str,
        model: Callable[[object, str], T],
        page: int,
        size: int,
        reverse: bool,
        filters: Mapping[str, Any] | None,
        deadline: float | None,
    ) -> Page[T]:
        """The shape every ``POST .../list`` shares: paging in the query, filters in the body."""
        response = self._call(
            op,
            "POST",
            path,
            query=_paging(page, size, reverse),
            body=_filters_body(filters),
            deadline=deadline,
        )
        return self._page(response, op, model)

    def _ws_root(self, *rest: str) -> str:
        return "/".join((self._endpoint.prefix + "/v3/workspaces", *rest))

    def _ws(self, *rest: str) -> str:
        return self._ws_root(self._workspace, *rest)

    def _call(
        self,
        op: str,
        method: str,
        path: str,
        *,
        query: list[tuple[str, str]] | None = None,
        body: object = _UNSET,
        write: bool = False,
        deadline: float | None = None,
    ) -> Response:
        if write and self._read_only:
            raise ReadOnlyError(f"{op} changes server state and this client is read-only")
        target = path + (
            "?" + "&".join(f"{n}={quote(v, safe='')}" for n, v in query) if query else ""
        )
        connection, events, head = self._send(op, method, target, path, body, deadline)
        try:
            if not 200 <= head.status < 300:
                failure = self._status_failure(op, method, path, head, events)
                # No local a traceback keeps (and a reporter may record) holds what the
                # server sent unredacted: a Location or body echoing the key.
                del head, events
                raise failure
            chunks = []
            for event in events:
                if isinstance(event, BodyData):
                    chunks.append(event.data)
            return Response(self._scrub_head(head), self._redact(b"".join(chunks)))
        finally:
            connection.close()

    def _send(
        self,
        op: str,
        method: str,
        target: str,
        path: str | None,
        body: object,
        deadline: float | None,
        accept: str = "application/json",
    ) -> tuple[Connection, Iterator[Any], ResponseHead]:
        self._check_open()
        clock = _Clock(self._limits.read_timeout, _seconds(deadline, "deadline", True))
        payload = None if body is _UNSET else _encode(body)
        headers = [("Accept", accept), ("User-Agent", _USER_AGENT)]
        if payload is not None:
            headers.append(("Content-Type", "application/json"))
        elif method in _METHODS_WITH_BODY:
            # RFC 9110 §8.6: a POST or PUT without content still says so (Content-Length:
            # 0); some proxies answer 411 Length Required otherwise (create_key).
            payload = b""
        request = build_request(method, target, self._endpoint.host_header, headers, payload)
        what = f"{method} {path or target.split('?', 1)[0]}"
        connection = Connection(self._endpoint, self._limits, clock, self._tls, what)
        try:
            # Only now, connected, is the key spliced in; the buffer holding it is zeroed
            # once sent (or not), so no frame a traceback keeps alive still holds the key.
            wire = self._with_key(request)
            try:
                connection.send(wire)
            finally:
                if isinstance(wire, bytearray):
                    wire[:] = bytes(len(wire))
            parser = ResponseParser(max_body=self._limits.max_response_bytes, request_method=method)
            events = connection.events(parser)
            head = next(events)
            assert isinstance(head, ResponseHead)
        except BaseException:
            connection.close()
            raise
        return connection, events, head

    def _with_key(self, request: bytes) -> bytes | bytearray:
        """The request with ``Authorization`` after the Host line, built as a bytearray
        (no str and no bytes copy of the key is made), or the request as it is."""
        if self._key is None:
            return request
        cut = request.index(b"\r\n", request.index(b"\r\n") + 2) + 2
        wire = bytearray(request[:cut])
        wire += b"Authorization: Bearer "
        wire += self._key
        wire += b"\r\n"
        wire += request[cut:]
        return wire

    def _redact(self, data: bytes) -> bytes:
        """A server that echoes the request must not put the key into an error."""
        if self._key is None or not self._key or self._key not in data:
            return data
        return data.replace(self._key, b"[redacted]")

    def _scrub_head(self, head: ResponseHead) -> ResponseHead:
        """The head with the key redacted from any header value that echoes it."""
        if self._key is None or not any(self._key in v.encode("latin-1") for _, v in head.headers):
            return head
        headers = tuple(
            (name, self._redact(value.encode("latin-1")).decode("latin-1"))
            for name, value in head.headers
        )
        return head._replace(headers=headers)

    def _status_failure(
        self, op: str, method: str, path: str, head: ResponseHead, events: Iterator[Any]
    ) -> RonchoError:
        body = bytearray()
        try:
            for event in events:
                if isinstance(event, BodyData):
                    body += event.data
                    if len(body) >= ERROR_BODY_BYTES:
                        break
        except RonchoError:
            pass  # the status is what matters; keep whatever body arrived
        kept = self._redact(bytes(body))
        if 300 <= head.status < 400:
            location = head.get("location")
            if location is not None:
                location = self._redact(location.encode("latin-1")).decode("latin-1")[:200]
            return RedirectError(head.status, method, path, kept, location=location)
        return status_error(head.status, method, path, kept)

    def _json(self, response: Response, op: str, *, allow_empty: bool = False) -> Any:
        encoding = (response.head.get("content-encoding") or "identity").strip().lower()
        if encoding != "identity":
            raise DecodeError(
                f"{op}: the answer is encoded with {encoding[:40]!r}, which roncho never asks for",
                request_sent=True,
            )
        body = response.take_body()  # so only the text and the objects are alive at once
        # isspace() stops at the first other byte; strip() would copy a large body.
        if (not body or body.isspace()) and (allow_empty or response.status == 204):
            return None
        try:
            text = body.decode("utf-8")
            del body
            return parse_json(text)
        except UnicodeDecodeError:
            raise DecodeError(f"{op}: the answer is not UTF-8", request_sent=True) from None
        except RecursionError:
            raise DecodeError(f"{op}: the answer nests too deeply", request_sent=True) from None
        except ValueError as exc:
            raise DecodeError(
                f"{op}: the answer is not JSON ({str(exc)[:120]})", request_sent=True
            ) from None

    def _decode(
        self,
        response: Response,
        op: str,
        model: Callable[[object, str], T],
        *,
        allow_empty: bool = False,
    ) -> T:
        data = self._json(response, op, allow_empty=allow_empty)
        try:
            return model(data, op)
        except DecodeError as exc:
            exc.request_sent = True
            raise
        except RecursionError:
            raise DecodeError(f"{op}: the answer nests too deeply", request_sent=True) from None

    def _page(self, response: Response, op: str, item: Callable[[object, str], T]) -> Page[T]:
        return self._decode(response, op, lambda data, o: Page.decode(data, o, item))

    def _list(self, response: Response, op: str, item: Callable[[object, str], T]) -> tuple[T, ...]:
        return self._decode(response, op, lambda data, o: decode_list(data, o, item))


# -- helpers -----------------------------------------------------------------------------
class _Closed:
    def __repr__(self) -> str:
        return "<closed>"


_CLOSED: Final = _Closed()


def _seconds(value: object, name: str, allow_none: bool = False) -> Any:
    return check_timeout(value, name, allow_none=allow_none)


def _id(value: str, what: str) -> str:
    return check_id(value, what)


def _encode(body: object) -> bytes:
    return json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode(
        "utf-8"
    )


def _drop_none(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if v is not None}


def _meta(metadata: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if metadata is None:
        return None
    return check_metadata(dict(metadata) if isinstance(metadata, Mapping) else metadata)


def _config(value: Mapping[str, Any] | None, what: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ConfigError(f"{what} must be a dict")
    result = dict(value)
    check_json(result, what)
    return result


def _filters(filters: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if filters is None:
        return None
    return _config(filters, "filters")


def _filters_body(filters: Mapping[str, Any] | None) -> dict[str, Any]:
    return {"filters": _filters(filters)} if filters is not None else {}


def _paging(page: int, size: int, reverse: bool | None) -> list[tuple[str, str]]:
    query = [
        ("page", str(check_positive_int(page, "page"))),
        ("size", str(check_positive_int(size, "size", high=MAX_PAGE_SIZE))),
    ]
    if reverse is not None:
        if not isinstance(reverse, bool):
            raise ConfigError("reverse must be True or False")
        query.append(("reverse", "true" if reverse else "false"))
    return query


def _peer_map(peers: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if peers is None:
        return None
    if not isinstance(peers, Mapping):
        raise ConfigError("peers must map peer ids to SessionPeerConfig (or None)")
    result: dict[str, Any] = {}
    for peer_id, config in peers.items():
        check_id(peer_id, "peers key")
        if config is None:
            config = SessionPeerConfig()
        elif isinstance(config, Mapping):
            unknown = set(config) - {"observe_me", "observe_others"}
            if unknown:
                raise ConfigError(f"peers[{peer_id!r}] has unknown keys {sorted(unknown)}")
            config = SessionPeerConfig(**dict(config))
        elif not isinstance(config, SessionPeerConfig):
            raise ConfigError(f"peers[{peer_id!r}] must be a SessionPeerConfig or a dict")
        result[peer_id] = config.to_json()
    return result


def _text(value: object, what: str, limit: int | None, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{what} must be a string")
    if not value and not allow_empty:
        raise ConfigError(f"{what} must not be empty")
    if limit is not None and len(value) > limit:
        raise ConfigError(f"{what} has {len(value)} characters; the server allows {limit}")
    return check_text(value, what)


def _with_created(model: T, response: Response) -> T:
    return replace(model, created=response.status == 201)  # type: ignore[type-var]


def _no_workspace_chat(exc: StatusError) -> StatusError:
    if exc.status in (404, 405) and exc.detail in ("Not Found", "Method Not Allowed", None):
        return StatusError(
            exc.status,
            exc.method,
            exc.path,
            exc.body,
            message=f"{exc.method} {exc.path} answered {exc.status}: this server "
            f"has no workspace chat (added after Honcho 3.0.12)",
        )
    return exc
