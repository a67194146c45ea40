"""Messages: add a batch to a session, list and walk them, read one, update its metadata,
and upload a file that the server turns into messages."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, NoReturn

from .._call import Call, Upload, decoded
from .._checks import check_id, check_positive_int
from .._errors import ConfigError, StatusError
from .._models import Message, MessageCreate, Page, render_batch
from .._multipart import form_data
from .._request_checks import (
    MAX_PAGE_SIZE,
    check_json_object,
    check_metadata,
    check_string,
    check_timestamp,
)
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


# ``type/subtype`` and ``; name=value`` parameters, as a Content-Type header may carry them.
_TOKEN = r"[A-Za-z0-9!#$&^_.+-]+"
_CONTENT_TYPE = re.compile(rf'{_TOKEN}/{_TOKEN}(\s*;\s*{_TOKEN}=({_TOKEN}|"[^"\\\r\n]*"))*')


def _upload_refused(exc: StatusError) -> NoReturn:
    """413 and 415 with what they mean for the caller, after the server's own words."""
    what = (
        "the file is over the server's size cap (lower max_bytes to match it)"
        if exc.status == 413
        else "the server cannot read this content type (3.0.12 reads text/*, "
        "application/json and application/pdf)"
    )
    raise StatusError(
        exc.status, exc.method, exc.path, exc.body, message=f"{exc}; {what}"
    ) from None


def upload_file(
    paths: Paths,
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
) -> Call[tuple[Message, ...]]:
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
    if not isinstance(content, bytes | bytearray | memoryview):
        raise ConfigError("content must be bytes: read the file in binary mode")
    data = bytes(content)
    if not data:
        # 3.0.12 stores an empty file as one empty message: almost surely a read gone wrong.
        raise ConfigError("content is empty (0 bytes): the server would store an empty message")
    limit = check_positive_int(max_bytes, "max_bytes")
    if len(data) > limit:
        raise ConfigError(f"content is {len(data)} bytes, over max_bytes ({limit})")
    check_string(filename, "filename", 255)
    if not isinstance(content_type, str) or not _CONTENT_TYPE.fullmatch(content_type):
        raise ConfigError("content_type must be a media type such as 'text/plain; charset=utf-8'")
    fields = [("peer_id", check_id(peer_id, "peer_id"))]
    if metadata is not None:
        fields.append(("metadata", json.dumps(check_metadata(metadata), ensure_ascii=False)))
    if configuration is not None:
        config = check_json_object(configuration, "configuration")
        fields.append(("configuration", json.dumps(config, ensure_ascii=False)))
    if created_at is not None:
        fields.append(("created_at", check_timestamp(created_at, "created_at")))
    body, form_type = form_data(fields, "file", filename, content_type, data)
    op = "upload_file"
    path = paths.in_workspace("sessions", check_id(session_id, "session_id"), "messages", "upload")
    return Call(
        op,
        "POST",
        path,
        items_of(op, Message.from_json),
        body=Upload(body, form_type),
        write=True,
        on_status={413: _upload_refused, 415: _upload_refused},
    )
