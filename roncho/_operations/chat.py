"""The dialectic: ask what a peer (or the whole workspace) knows, whole or as a stream."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Concatenate, NoReturn, ParamSpec

from .._call import Call, decoded, nothing
from .._chat import ChatDecoder
from .._checks import check_flag, check_id
from .._errors import ConfigError, StatusError
from .._models import ChatAnswer
from .._request_checks import (
    MAX_QUERY_CHARS,
    check_json_object,
    check_reasoning_level,
    check_string,
)
from ._shared import Paths

P = ParamSpec("P")


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
    ask: Callable[Concatenate[Paths, P], Call[Any]], name: str, doc: str
) -> Callable[Concatenate[Paths, P], Call[None]]:
    """The streamed twin of a dialectic call: the same parameters and checks, with
    ``stream: true`` in the body and the answer read as chat chunks."""

    def build(paths: Paths, /, *args: P.args, **kwargs: P.kwargs) -> Call[None]:
        call: Call[Any] = ask(paths, *args, **kwargs)
        call.op, call.body, call.decode, call.stream = (
            name,
            {**call.body, "stream": True},
            nothing,
            ChatDecoder,
        )
        return call

    build.__name__ = build.__qualname__ = name
    build.__doc__ = doc
    return build


def chat(
    paths: Paths,
    peer_id: str,
    query: str,
    *,
    target: str | None = None,
    session_id: str | None = None,
    reasoning_level: str | None = None,
    include_evidence: bool = False,
    response_format: Mapping[str, Any] | None = None,
    filters: Mapping[str, Any] | None = None,
) -> Call[ChatAnswer]:
    """``POST .../peers/{id}/chat``: ask the dialectic what ``peer_id`` knows.

    Answers take 30 to 50 s at the higher reasoning levels: give the client a long
    ``read_timeout`` (see with_options()). ``filters`` may hold only ``session_id``.
    ``include_evidence`` needs a server newer than 3.0.12.
    """
    body = _chat_body(
        query, target, session_id, reasoning_level, include_evidence, response_format, filters
    )
    path = paths.in_workspace("peers", check_id(peer_id, "peer_id"), "chat")
    decode = decoded("chat", ChatAnswer.from_json)
    return Call("chat", "POST", path, decode, body=body)


chat_stream = streamed(
    chat,
    "chat_stream",
    """chat() as a stream of ChatChunk; use it as a context manager so it closes.

    The idle read timeout applies between chunks, so a slow answer can be told from
    a dead one. The final chunk has ``done`` set and carries any evidence.
    """,
)


def _no_workspace_chat(exc: StatusError) -> NoReturn:
    """A 404 or 405 from a server without the route says so (any other, as it is)."""
    if exc.detail in ("Not Found", "Method Not Allowed", None):
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
    paths: Paths,
    query: str,
    *,
    session_id: str | None = None,
    reasoning_level: str | None = None,
    include_evidence: bool = False,
    response_format: Mapping[str, Any] | None = None,
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
        paths.in_workspace("chat"),
        decode,
        body=body,
        on_status={404: _no_workspace_chat, 405: _no_workspace_chat},
    )


chat_workspace_stream = streamed(
    chat_workspace, "chat_workspace_stream", """chat_workspace() as a stream of ChatChunk."""
)
