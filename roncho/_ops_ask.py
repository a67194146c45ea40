"""The operation catalogue, part 2: conclusions, search, the dialectic and the extras.

The same rules as part 1 (``_ops_store``): checks first, then a ``Call``; no I/O here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, Concatenate, ParamSpec, TypeVar

from . import _checks as check
from ._errors import ConfigError, DecodeError, StatusError
from ._exchange import Call, Response, decoded, nothing, read_json
from ._models import (
    ChatAnswer,
    Conclusion,
    ConclusionCreate,
    Health,
    Message,
    Page,
    QueueStatus,
    render_batch,
)
from ._ops_shapes import Scope, items_of, list_page, path_id

T = TypeVar("T")
P = ParamSpec("P")


# -- O8 / O9 conclusions -------------------------------------------------------------------
def create_conclusions(
    scope: Scope, conclusions: Iterable[ConclusionCreate], *, deadline: float | None = None
) -> Call[tuple[Conclusion, ...]]:
    """``POST .../conclusions``: 1 to 100, each stored as ``level: explicit``.

    The server does not deduplicate: after an error with ``request_sent`` true, list
    the conclusions before sending again.
    """
    op = "create_conclusions"
    items, _ = render_batch(conclusions, ConclusionCreate, "conclusions", op)
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
    merged = dict(check.json_object(filters, "filters") or {})
    merged["observer_id"] = check.check_id(observer_id, "observer_id")
    merged["observed_id"] = check.check_id(observed_id, "observed_id")
    body: dict[str, Any] = {
        "query": check.text(query, "query", check.MAX_QUERY_CHARS * 100),
        "filters": merged,
    }
    if top_k is not None:
        body["top_k"] = check.check_positive_int(top_k, "top_k", high=100)
    if distance is not None:
        body["distance"] = check.finite(distance, "distance", 0.0, 1.0)
    path = scope.ws("conclusions", "query")
    return Call(op, "POST", path, items_of(op, Conclusion.from_json), body=body, deadline=deadline)


def delete_conclusion(
    scope: Scope, conclusion_id: str, *, deadline: float | None = None
) -> Call[None]:
    """``DELETE .../conclusions/{id}``: 204 with an empty body."""
    path = scope.ws("conclusions", path_id(conclusion_id, "conclusion_id"))
    return Call("delete_conclusion", "DELETE", path, nothing, write=True, deadline=deadline)


# -- O10 / O11 search ----------------------------------------------------------------------
def _search(
    op: str,
    path: str,
    query: str,
    limit: int,
    filters: Mapping[str, Any] | None,
    deadline: float | None,
) -> Call[tuple[Message, ...]]:
    body: dict[str, Any] = {
        "query": check.text(query, "query", None, allow_empty=True),
        "limit": check.check_positive_int(limit, "limit", high=100),
    }
    if filters is not None:
        body["filters"] = check.json_object(filters, "filters")
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
    path = scope.ws("peers", path_id(peer_id, "peer_id"), "search")
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
    path = scope.ws("sessions", path_id(session_id, "session_id"), "search")
    return _search("search_session", path, query, limit, filters, deadline)


# -- O12 dialectic -------------------------------------------------------------------------
def _chat_body(
    query: str,
    target: str | None,
    session_id: str | None,
    reasoning_level: str | None,
    include_evidence: bool,
    response_format: Mapping[str, Any] | None,
    filters: Mapping[str, Any] | None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"query": check.text(query, "query", check.MAX_QUERY_CHARS)}
    if target is not None:
        body["target"] = check.check_id(target, "target")
    if session_id is not None:
        body["session_id"] = check.check_id(session_id, "session_id")
    if reasoning_level is not None:
        body["reasoning_level"] = check.reasoning_level(reasoning_level)
    if check.check_flag(include_evidence, "include_evidence"):
        body["include_evidence"] = True
    if response_format is not None:
        body["response_format"] = check.json_object(response_format, "response_format")
    if filters is not None:
        chat_filters = check.json_object(filters, "filters") or {}
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
        call = ask(scope, *args, **kwargs)
        body = {**call.body, "stream": True}
        return replace(call, op=name, body=body, decode=nothing, stream=True)

    build.__name__ = build.__qualname__ = name
    build.__doc__ = doc
    build.__signature_from__ = ask  # type: ignore[attr-defined]  # what method_from shows
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
    path = scope.ws("peers", path_id(peer_id, "peer_id"), "chat")
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


# -- O13 / O14 and extras ------------------------------------------------------------------
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
    query = check.id_query(observer_id=observer_id, sender_id=sender_id, session_id=session_id)
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
    query = check.id_query(workspace_id=workspace_id, peer_id=peer_id, session_id=session_id)
    if expires_at is not None:
        query.append(("expires_at", check.check_timestamp(expires_at, "expires_at")))
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
