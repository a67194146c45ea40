"""CallReport: what the caller's ``on_call`` hears of each call once it has ended.

An add-on beside the call path: loaded by a client's first report (or by
``roncho.CallReport``), so a client without ``on_call`` never loads it. A report holds the
shape of a call, never its content: the path as Honcho's route names it (ids left as
``{session_id}``), never the path with the ids filled in, a query, a header, a body or the
key. roncho logs nothing itself; what to do with a report is the caller's.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Final

from ._errors import RonchoError
from ._record import Record, store

if TYPE_CHECKING:
    from ._call import Call
    from ._exchange import Exchange

# In a Honcho v3 path the segment after a collection's name is one of its ids, named as
# the server's routes name it ...
_IDS: Final = {
    "workspaces": "{workspace_id}",
    "peers": "{peer_id}",
    "sessions": "{session_id}",
    "messages": "{message_id}",
    "conclusions": "{conclusion_id}",
    "scopes": "{scope_id}",
    "webhooks": "{endpoint_id}",
}
# ... except where a route ends with an action there, with that method. An id may be
# spelt like an action ("list" is a good session id), and these routes have no twin that
# ends with an id, so the method and the place tell them apart.
_ACTIONS: Final = frozenset(
    {
        "POST workspaces/list",
        "POST peers/list",
        "POST sessions/list",
        "POST messages/list",
        "POST conclusions/list",
        "POST scopes/list",
        "POST conclusions/query",
        "POST messages/upload",
        "GET webhooks/test",
    }
)


def path_template(method: str, path: str, prefix: str = "") -> str:
    """``/v3/workspaces/{workspace_id}/sessions/{session_id}/messages`` for a filled-in
    path: the base URL's path ``prefix`` and every id taken out, the route's words kept."""
    segments = path[len(prefix) :].split("/")
    last = len(segments) - 1
    collection = None  # the collection whose id the next segment is
    for i, segment in enumerate(segments):
        action = i == last and f"{method} {collection}/{segment}" in _ACTIONS
        if collection is not None and not action:
            segments[i], collection = _IDS[collection], None
        else:
            collection = segment if segment in _IDS else None
    return "/".join(segments)


class CallReport(Record):
    """One call, once it has ended (answered, refused or failed), as ``on_call`` gets it.

    A call is one request: each page of an ``iter_*`` walk and each read of
    ``wait_for_derivation`` is one. A chat stream reports when it ends: its final chunk,
    an error, or ``close()``. Only calls whose arguments passed their checks are reported
    (a ConfigError about an argument is raised before there is a call).
    """

    __slots__ = (
        "op",
        "method",
        "path",
        "status",
        "seconds",
        "bytes_sent",
        "bytes_received",
        "request_sent",
        "error",
    )

    op: str
    """The method's name: ``add_messages``."""
    method: str
    """The HTTP method: ``POST``."""
    path: str
    """The route, ids not filled in and without the base URL's path prefix:
    ``/v3/workspaces/{workspace_id}/sessions/{session_id}/messages``."""
    status: int | None
    """The answer's status, or None when no answer's head arrived."""
    seconds: float
    """From the start of the call (after its argument checks) to its end, by the monotonic
    clock; a stream's until it ended."""
    bytes_sent: int
    """The request's length, headers included, once it was handed to the connection (0
    before); when sending it failed, not all of it may have left."""
    bytes_received: int
    """What was read from the connection: head and body as they came (TLS records are not
    counted)."""
    request_sent: bool
    """As on the errors: False means no byte of the request left this process."""
    error: type[BaseException] | None
    """The class of what the call raised (a RonchoError, or what cancelled it), or None."""

    def __init__(
        self,
        *,
        op: str,
        method: str,
        path: str,
        status: int | None,
        seconds: float,
        bytes_sent: int,
        bytes_received: int,
        request_sent: bool,
        error: type[BaseException] | None,
    ) -> None:
        store(self, "op", op)
        store(self, "method", method)
        store(self, "path", path)
        store(self, "status", status)
        store(self, "seconds", seconds)
        store(self, "bytes_sent", bytes_sent)
        store(self, "bytes_received", bytes_received)
        store(self, "request_sent", request_sent)
        store(self, "error", error)


def report(
    call: Call[Any],
    exchange: Exchange[Any] | None,
    prefix: str,
    started: float,
    error: BaseException | None,
) -> CallReport:
    """The report of a call that started at ``started`` (the monotonic clock) and has just
    ended with ``error`` (None: its result). ``exchange`` is None when the call was refused
    before it had one (a read-only client, a closed one, a bad deadline)."""
    seconds = time.monotonic() - started
    handed = 0 if exchange is None else exchange.sent
    if error is None:
        sent = True
    elif isinstance(error, RonchoError):
        sent = error.request_sent
    else:  # cancelled, or interrupted: it may have left once it was handed over
        sent = handed > 0
    head = None if exchange is None else exchange.head
    return CallReport(
        op=call.op,
        method=call.method,
        path=path_template(call.method, call.path, prefix),
        status=None if head is None else head.status,
        seconds=seconds,
        bytes_sent=handed if sent else 0,
        bytes_received=0 if exchange is None else exchange.received_bytes,
        request_sent=sent,
        error=None if error is None else type(error),
    )
