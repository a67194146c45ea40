"""Search: messages by meaning, across the workspace, one peer's or one session's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._call import Call
from .._checks import check_id, check_positive_int
from .._models import Message
from .._request_checks import check_json_object, check_string
from ._shared import Paths, items_of


def _search(
    op: str, path: str, query: str, limit: int, filters: Mapping[str, Any] | None
) -> Call[tuple[Message, ...]]:
    body: dict[str, Any] = {
        "query": check_string(query, "query", None, allow_empty=True),
        "limit": check_positive_int(limit, "limit", high=100),
    }
    if filters is not None:
        body["filters"] = check_json_object(filters, "filters")
    return Call(op, "POST", path, items_of(op, Message.from_json), body=body)


def search(
    paths: Paths,
    query: str,
    *,
    limit: int = 10,
    filters: Mapping[str, Any] | None = None,
) -> Call[tuple[Message, ...]]:
    """``POST .../search`` across the workspace; the answer is a bare array of messages."""
    return _search("search", paths.in_workspace("search"), query, limit, filters)


def search_peer(
    paths: Paths,
    peer_id: str,
    query: str,
    *,
    limit: int = 10,
    filters: Mapping[str, Any] | None = None,
) -> Call[tuple[Message, ...]]:
    """``POST .../peers/{id}/search``: the server forces ``peer_id`` into the filters."""
    path = paths.in_workspace("peers", check_id(peer_id, "peer_id"), "search")
    return _search("search_peer", path, query, limit, filters)


def search_session(
    paths: Paths,
    session_id: str,
    query: str,
    *,
    limit: int = 10,
    filters: Mapping[str, Any] | None = None,
) -> Call[tuple[Message, ...]]:
    """``POST .../sessions/{id}/search``: the server forces ``session_id`` into filters."""
    path = paths.in_workspace("sessions", check_id(session_id, "session_id"), "search")
    return _search("search_session", path, query, limit, filters)
