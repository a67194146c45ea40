"""Messages: add a batch to a session, list and walk them, read one, update its metadata."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._call import Call, decoded
from .._checks import MAX_PAGE_SIZE, check_id, check_metadata
from .._models import Message, MessageCreate, Page, render_batch
from ._shared import Pages, Paths, items_of, list_page


def add_messages(
    paths: Paths,
    session_id: str,
    messages: Iterable[MessageCreate],
) -> Call[tuple[Message, ...]]:
    """``POST .../sessions/{id}/messages``: 1 to 100 messages, answered in input order.

    If this raises with ``error.request_sent`` true, the server may have stored the
    batch: list the session's newest messages before sending it again.
    """
    op = "add_messages"
    items = render_batch(messages, MessageCreate, "messages", op)
    path = paths.in_workspace("sessions", check_id(session_id, "session_id"), "messages")
    return Call(
        op,
        "POST",
        path,
        items_of(op, Message.from_json),
        body={"messages": items},
        write=True,
    )


def list_messages(
    paths: Paths,
    session_id: str,
    *,
    page: int = 1,
    size: int = 50,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
) -> Call[Page[Message]]:
    """``POST .../sessions/{id}/messages/list``, oldest first unless ``reverse``.

    An unknown session gives an empty page, not 404.
    """
    path = paths.in_workspace("sessions", check_id(session_id, "session_id"), "messages", "list")
    return list_page("list_messages", path, Message.from_json, page, size, reverse, filters)


def iter_messages(
    paths: Paths,
    session_id: str,
    *,
    size: int = MAX_PAGE_SIZE,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
) -> Pages[Message]:
    """Every message of a session, page by page (each page is one call).

    ``deadline`` bounds each page's call, not the whole walk. Messages added while
    walking may shift pages; walk ``reverse=True`` from the newest to see them first.
    """
    return Pages(
        lambda page: list_messages(
            paths,
            session_id,
            page=page,
            size=size,
            reverse=reverse,
            filters=filters,
        )
    )


def _message_path(paths: Paths, session_id: str, message_id: str) -> str:
    return paths.in_workspace(
        "sessions",
        check_id(session_id, "session_id"),
        "messages",
        check_id(message_id, "message_id"),
    )


def get_message(paths: Paths, session_id: str, message_id: str) -> Call[Message]:
    """``GET .../sessions/{s}/messages/{id}``."""
    path = _message_path(paths, session_id, message_id)
    return Call("get_message", "GET", path, decoded("get_message", Message.from_json))


def update_message_metadata(
    paths: Paths,
    session_id: str,
    message_id: str,
    metadata: Mapping[str, Any],
) -> Call[Message]:
    """``PUT .../messages/{id}``: replaces the metadata. Content can never be edited."""
    op = "update_message_metadata"
    path = _message_path(paths, session_id, message_id)
    body = {
        "metadata": check_metadata(dict(metadata) if isinstance(metadata, Mapping) else metadata)
    }
    return Call(op, "PUT", path, decoded(op, Message.from_json), body=body, write=True)
