"""The operation catalogue: what each Honcho call *is*, written once for both clients.

Each public function whose first parameter is ``scope`` is one operation: it checks its
arguments (every check runs before anything is sent) and returns a ``Call`` (method, path,
query, body, whether it writes, what a status means, and the decoder of its answer), or a
``Pages`` walk over a list. Nothing here does I/O. ``scripts/render_clients.py`` writes
each one out as a method of ``Client`` and ``AsyncClient``, with the parameters and the
docstring it has here (``deadline``, seconds, optional, bounds the whole call), so this is
the one place an operation is written by hand.

The helpers first (where paths start, the shapes several operations share), then the
operations: workspaces, peers, sessions, messages, conclusions, search, the dialectic and
the extras.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar

from ._checks import (
    MAX_PAGE_SIZE,
    MAX_QUERY_CHARS,
    check_batch,
    check_filters_body,
    check_finite,
    check_flag,
    check_id,
    check_id_query,
    check_json_object,
    check_metadata,
    check_optional_metadata,
    check_paging,
    check_positive_int,
    check_reasoning_level,
    check_string,
    check_timestamp,
    render_batch,
)
from ._decode import decode_list
from ._errors import ConfigError, DecodeError, StatusError
from ._exchange import Call, Response, decoded, nothing, read_json
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
    QueueStatus,
    Session,
    SessionPeerConfig,
    Workspace,
)

T = TypeVar("T")
M = TypeVar("M", Workspace, Peer, Session)
P = ParamSpec("P")


class Scope:
    """Where a client's paths start: the base URL's prefix and its workspace."""

    __slots__ = ("prefix", "workspace")

    def __init__(self, prefix: str, workspace: str) -> None:
        self.prefix = prefix
        self.workspace = workspace

    def root(self, *rest: str) -> str:
        return "/".join((self.prefix + "/v3/workspaces", *rest))

    def ws(self, *rest: str) -> str:
        return self.root(self.workspace, *rest)


def get_or_create(
    op: str,
    path: str,
    resource_id: str,
    model: Callable[[object, str, bool | None], M],
    fields: dict[str, Any],
    deadline: float | None,
) -> Call[M]:
    """POST a get-or-create; ``created`` on the result says 201 (made) or 200 (existed)."""
    body = {"id": resource_id, **{k: v for k, v in fields.items() if v is not None}}

    def created(response: Response) -> M:
        made = response.status == 201
        return decoded(op, lambda data, what: model(data, what, made))(response)

    return Call(op, "POST", path, created, body=body, write=True, deadline=deadline)


def update(
    op: str,
    path: str,
    metadata: Mapping[str, Any] | None,
    configuration: Mapping[str, Any] | None,
    model: Callable[[object, str], T],
    deadline: float | None,
) -> Call[T]:
    """PUT metadata and configuration; None in either means "leave it as it is"."""
    body = {
        "metadata": check_optional_metadata(metadata),
        "configuration": check_json_object(configuration, "configuration"),
    }
    return Call(op, "PUT", path, decoded(op, model), body=body, write=True, deadline=deadline)


def list_page(
    op: str,
    path: str,
    model: Callable[[object, str], T],
    page: int,
    size: int,
    reverse: bool,
    filters: Mapping[str, Any] | None,
    deadline: float | None,
) -> Call[Page[T]]:
    """The shape every ``POST .../list`` shares: paging in the query, filters in the body."""
    return Call(
        op,
        "POST",
        path,
        page_of(op, model),
        query=tuple(check_paging(page, size, reverse)),
        body=check_filters_body(filters),
        deadline=deadline,
    )


class Pages(Generic[T]):
    """A walk over every page of a list: the first page's call, then after each answer
    the next page's, or None once an answer was the last page."""

    __slots__ = ("_call_for", "_page")

    def __init__(self, call_for: Callable[[int], Call[Page[T]]]) -> None:
        self._call_for = call_for
        self._page = 1

    def first(self) -> Call[Page[T]]:
        return self._call_for(1)

    def after(self, answer: Page[T]) -> Call[Page[T]] | None:
        if self._page >= answer.pages or not answer.items:
            return None
        self._page += 1
        return self._call_for(self._page)


def page_of(op: str, item: Callable[[object, str], T]) -> Callable[[Response], Page[T]]:
    return decoded(op, lambda data, o: Page.decode(data, o, item))


def items_of(op: str, item: Callable[[object, str], T]) -> Callable[[Response], tuple[T, ...]]:
    return decoded(op, lambda data, o: decode_list(data, o, item))


def _peer_map(peers: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """get_or_create_session's ``peers``: peer ids to SessionPeerConfig, a dict or None."""
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


# -- workspaces -------------------------------------------------------------------------
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
        "metadata": check_optional_metadata(metadata),
        "configuration": check_json_object(configuration, "configuration"),
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


# -- peers ------------------------------------------------------------------------------
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
        "metadata": check_optional_metadata(metadata),
        "configuration": check_json_object(configuration, "configuration"),
    }
    return get_or_create(
        "get_or_create_peer",
        scope.ws("peers"),
        check_id(peer_id, "peer_id"),
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
    path = scope.ws("peers", check_id(peer_id, "peer_id"))
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


# -- sessions ---------------------------------------------------------------------------
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
        "metadata": check_optional_metadata(metadata),
        "peers": _peer_map(peers),
        "configuration": check_json_object(configuration, "configuration"),
    }
    return get_or_create(
        "get_or_create_session",
        scope.ws("sessions"),
        check_id(session_id, "session_id"),
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
    path = scope.ws("sessions", check_id(session_id, "session_id"))
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
    path = scope.ws("sessions", check_id(session_id, "session_id"), "peers")
    query = tuple(check_paging(page, size, None))
    return Call(op, "GET", path, page_of(op, Peer.from_json), query=query, deadline=deadline)


def _peer_config_path(scope: Scope, session_id: str, peer_id: str) -> str:
    session = check_id(session_id, "session_id")
    return scope.ws("sessions", session, "peers", check_id(peer_id, "peer_id"), "config")


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
    path = scope.ws("sessions", check_id(session_id, "session_id"))
    decode = decoded(op, DeleteAccepted.from_json, allow_empty=True)
    return Call(op, "DELETE", path, decode, write=True, deadline=deadline)


# -- messages ----------------------------------------------------------------------
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
    path = scope.ws("sessions", check_id(session_id, "session_id"), "messages")
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
    path = scope.ws("sessions", check_id(session_id, "session_id"), "messages", "list")
    return list_page(
        "list_messages", path, Message.from_json, page, size, reverse, filters, deadline
    )


def iter_messages(
    scope: Scope,
    session_id: str,
    *,
    size: int = MAX_PAGE_SIZE,
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
        "sessions",
        check_id(session_id, "session_id"),
        "messages",
        check_id(message_id, "message_id"),
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
        "metadata": check_metadata(dict(metadata) if isinstance(metadata, Mapping) else metadata)
    }
    return Call(
        op, "PUT", path, decoded(op, Message.from_json), body=body, write=True, deadline=deadline
    )


# -- conclusions -------------------------------------------------------------------
def create_conclusions(
    scope: Scope, conclusions: Iterable[ConclusionCreate], *, deadline: float | None = None
) -> Call[tuple[Conclusion, ...]]:
    """``POST .../conclusions``: 1 to 100, each stored as ``level: explicit``.

    The server does not deduplicate: after an error with ``request_sent`` true, list
    the conclusions before sending again.
    """
    op = "create_conclusions"
    items = check_batch(conclusions, ConclusionCreate, "conclusions", op)
    return Call(
        op,
        "POST",
        scope.ws("conclusions"),
        items_of(op, Conclusion.from_json),
        body={"conclusions": items},
        write=True,
        deadline=deadline,
    )


def list_conclusions(
    scope: Scope,
    filters: Mapping[str, Any] | None = None,
    *,
    page: int = 1,
    size: int = 50,
    reverse: bool = False,
    deadline: float | None = None,
) -> Call[Page[Conclusion]]:
    """``POST .../conclusions/list``: newest first unless ``reverse`` (unlike other lists)."""
    return list_page(
        "list_conclusions",
        scope.ws("conclusions", "list"),
        Conclusion.from_json,
        page,
        size,
        reverse,
        filters,
        deadline,
    )


def query_conclusions(
    scope: Scope,
    query: str,
    observer_id: str,
    observed_id: str,
    *,
    top_k: int | None = None,
    distance: float | None = None,
    filters: Mapping[str, Any] | None = None,
    deadline: float | None = None,
) -> Call[tuple[Conclusion, ...]]:
    """``POST .../conclusions/query``: semantic search, most similar first.

    The server refuses a query without observer and observed, so both are required;
    they travel inside ``filters``, as the server wants them.
    """
    op = "query_conclusions"
    merged = dict(check_json_object(filters, "filters") or {})
    merged["observer_id"] = check_id(observer_id, "observer_id")
    merged["observed_id"] = check_id(observed_id, "observed_id")
    body: dict[str, Any] = {
        "query": check_string(query, "query", MAX_QUERY_CHARS * 100),
        "filters": merged,
    }
    if top_k is not None:
        body["top_k"] = check_positive_int(top_k, "top_k", high=100)
    if distance is not None:
        body["distance"] = check_finite(distance, "distance", 0.0, 1.0)
    path = scope.ws("conclusions", "query")
    return Call(op, "POST", path, items_of(op, Conclusion.from_json), body=body, deadline=deadline)


def delete_conclusion(
    scope: Scope, conclusion_id: str, *, deadline: float | None = None
) -> Call[None]:
    """``DELETE .../conclusions/{id}``: 204 with an empty body."""
    path = scope.ws("conclusions", check_id(conclusion_id, "conclusion_id"))
    return Call("delete_conclusion", "DELETE", path, nothing, write=True, deadline=deadline)


# -- search ----------------------------------------------------------------------
def _search(
    op: str,
    path: str,
    query: str,
    limit: int,
    filters: Mapping[str, Any] | None,
    deadline: float | None,
) -> Call[tuple[Message, ...]]:
    body: dict[str, Any] = {
        "query": check_string(query, "query", None, allow_empty=True),
        "limit": check_positive_int(limit, "limit", high=100),
    }
    if filters is not None:
        body["filters"] = check_json_object(filters, "filters")
    return Call(op, "POST", path, items_of(op, Message.from_json), body=body, deadline=deadline)


def search(
    scope: Scope,
    query: str,
    *,
    limit: int = 10,
    filters: Mapping[str, Any] | None = None,
    deadline: float | None = None,
) -> Call[tuple[Message, ...]]:
    """``POST .../search`` across the workspace; the answer is a bare array of messages."""
    return _search("search", scope.ws("search"), query, limit, filters, deadline)


def search_peer(
    scope: Scope,
    peer_id: str,
    query: str,
    *,
    limit: int = 10,
    filters: Mapping[str, Any] | None = None,
    deadline: float | None = None,
) -> Call[tuple[Message, ...]]:
    """``POST .../peers/{id}/search``: the server forces ``peer_id`` into the filters."""
    path = scope.ws("peers", check_id(peer_id, "peer_id"), "search")
    return _search("search_peer", path, query, limit, filters, deadline)


def search_session(
    scope: Scope,
    session_id: str,
    query: str,
    *,
    limit: int = 10,
    filters: Mapping[str, Any] | None = None,
    deadline: float | None = None,
) -> Call[tuple[Message, ...]]:
    """``POST .../sessions/{id}/search``: the server forces ``session_id`` into filters."""
    path = scope.ws("sessions", check_id(session_id, "session_id"), "search")
    return _search("search_session", path, query, limit, filters, deadline)


# -- dialectic -------------------------------------------------------------------------
def _chat_body(
    query: str,
    target: str | None,
    session_id: str | None,
    reasoning_level: str | None,
    include_evidence: bool,
    response_format: Mapping[str, Any] | None,
    filters: Mapping[str, Any] | None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"query": check_string(query, "query", MAX_QUERY_CHARS)}
    if target is not None:
        body["target"] = check_id(target, "target")
    if session_id is not None:
        body["session_id"] = check_id(session_id, "session_id")
    if reasoning_level is not None:
        body["reasoning_level"] = check_reasoning_level(reasoning_level)
    if check_flag(include_evidence, "include_evidence"):
        body["include_evidence"] = True
    if response_format is not None:
        body["response_format"] = check_json_object(response_format, "response_format")
    if filters is not None:
        chat_filters = check_json_object(filters, "filters") or {}
        extra = set(chat_filters) - {"session_id"}
        if extra:
            raise ConfigError(
                f"chat filters may hold only 'session_id' (the server refuses {sorted(extra)})"
            )
        body["filters"] = chat_filters
    return body


def streamed(
    ask: Callable[Concatenate[Scope, P], Call[Any]], name: str, doc: str
) -> Callable[Concatenate[Scope, P], Call[None]]:
    """The streamed twin of a dialectic call: the same parameters and checks, with
    ``stream: true`` in the body and the answer read as chat chunks."""

    def build(scope: Scope, /, *args: P.args, **kwargs: P.kwargs) -> Call[None]:
        call: Call[Any] = ask(scope, *args, **kwargs)
        call.op, call.body, call.decode, call.stream = (
            name,
            {**call.body, "stream": True},
            nothing,
            True,
        )
        return call

    build.__name__ = build.__qualname__ = name
    build.__doc__ = doc
    return build


def chat(
    scope: Scope,
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
) -> Call[ChatAnswer]:
    """``POST .../peers/{id}/chat``: ask the dialectic what ``peer_id`` knows.

    Answers take 30 to 50 s at the higher reasoning levels: give the client a long
    ``read_timeout`` (see with_options()). ``filters`` may hold only ``session_id``.
    ``include_evidence`` needs a server newer than 3.0.12.
    """
    body = _chat_body(
        query, target, session_id, reasoning_level, include_evidence, response_format, filters
    )
    path = scope.ws("peers", check_id(peer_id, "peer_id"), "chat")
    decode = decoded("chat", ChatAnswer.from_json)
    return Call("chat", "POST", path, decode, body=body, deadline=deadline)


chat_stream = streamed(
    chat,
    "chat_stream",
    """chat() as a stream of ChatChunk; use it as a context manager so it closes.

    The idle read timeout applies between chunks, so a slow answer can be told from
    a dead one. The final chunk has ``done`` set and carries any evidence.
    """,
)


def _no_workspace_chat(exc: StatusError) -> Any:
    """A 404 or 405 from a server without the route says so; any other error is raised."""
    if exc.status in (404, 405) and exc.detail in ("Not Found", "Method Not Allowed", None):
        raise StatusError(
            exc.status,
            exc.method,
            exc.path,
            exc.body,
            message=f"{exc.method} {exc.path} answered {exc.status}: this server "
            f"has no workspace chat (added after Honcho 3.0.12)",
        ) from None
    raise exc


def chat_workspace(
    scope: Scope,
    query: str,
    *,
    session_id: str | None = None,
    reasoning_level: str | None = None,
    include_evidence: bool = False,
    response_format: Mapping[str, Any] | None = None,
    deadline: float | None = None,
) -> Call[ChatAnswer]:
    """``POST /v3/workspaces/{id}/chat`` (Honcho 3.3 OpenAPI; absent from 3.0.12).

    Raises StatusError saying so when the server has no such route (404 or 405).
    """
    body = _chat_body(
        query, None, session_id, reasoning_level, include_evidence, response_format, None
    )
    decode = decoded("chat_workspace", ChatAnswer.from_json)
    return Call(
        "chat_workspace",
        "POST",
        scope.ws("chat"),
        decode,
        body=body,
        on_status=_no_workspace_chat,
        deadline=deadline,
    )


chat_workspace_stream = streamed(
    chat_workspace, "chat_workspace_stream", """chat_workspace() as a stream of ChatChunk."""
)


# -- the extras ------------------------------------------------------------------
def probe(scope: Scope, *, deadline: float | None = None) -> Call[Health]:
    """``GET /health``: the cheapest call that shows the server is up.

    Honcho 3.2 exposes no version here or in any header; see server_version().
    """
    path = scope.prefix + "/health"
    return Call("probe", "GET", path, decoded("probe", Health.from_json), deadline=deadline)


def _version(response: Response) -> str | None:
    data = read_json(response, "server_version")
    info = data.get("info") if isinstance(data, dict) else None
    version = info.get("version") if isinstance(info, dict) else None
    return version if isinstance(version, str) else None


def _not_served(exc: StatusError) -> None:
    if exc.status == 404:
        return None
    raise exc


def server_version(scope: Scope, *, deadline: float | None = None) -> Call[str | None]:
    """``info.version`` from ``GET /openapi.json``, the only place Honcho states it.

    None when the server does not serve the document (404) or it has no version.
    """
    path = scope.prefix + "/openapi.json"
    return Call("server_version", "GET", path, _version, on_status=_not_served, deadline=deadline)


def queue_status(
    scope: Scope,
    *,
    observer_id: str | None = None,
    sender_id: str | None = None,
    session_id: str | None = None,
    deadline: float | None = None,
) -> Call[QueueStatus]:
    """``GET .../queue/status``: the deriver's queue rows for this workspace.

    ``session_id`` is the session name; the answer's ``sessions`` map is keyed by the
    server's internal session ids. ``observer_id`` and ``sender_id`` are OR-ed.
    On Honcho 3.0.12 ``observer_id`` never counts message work (its filter reads
    ``payload->>'observer'``, which message items lack: they carry ``observers``), so it
    reports zeros for the deriver's main queue; use ``sender_id`` or ``session_id``.
    """
    op = "queue_status"
    query = check_id_query(observer_id=observer_id, sender_id=sender_id, session_id=session_id)
    path = scope.ws("queue", "status")
    return Call(
        op,
        "GET",
        path,
        decoded(op, QueueStatus.from_json),
        query=tuple(query),
        deadline=deadline,
    )


def _minted_key(response: Response) -> str:
    data = read_json(response, "create_key")
    key = data.get("key") if isinstance(data, dict) else None
    if not isinstance(key, str) or not key:
        raise DecodeError("create_key: the answer has no key", request_sent=True)
    return key


def create_key(
    scope: Scope,
    *,
    workspace_id: str | None = None,
    peer_id: str | None = None,
    session_id: str | None = None,
    expires_at: str | None = None,
    deadline: float | None = None,
) -> Call[str]:
    """``POST /v3/keys`` (admin key only): mint a scoped key. Treat the result as secret.

    A server with authentication off answers 405 "Feature is disabled".
    """
    query = check_id_query(workspace_id=workspace_id, peer_id=peer_id, session_id=session_id)
    if expires_at is not None:
        query.append(("expires_at", check_timestamp(expires_at, "expires_at")))
    if not query or all(n == "expires_at" for n, _ in query):
        raise ConfigError("create_key needs workspace_id, peer_id or session_id")
    return Call(
        "create_key",
        "POST",
        scope.prefix + "/v3/keys",
        _minted_key,
        query=tuple(query),
        write=True,
        deadline=deadline,
    )
