"""Client: the blocking executor of the operation catalogue.

Each method is an operation from ``_operations`` (its checks, request and decoder) run
here on one new connection: connect, send, read until the sans-IO exchange has its answer,
close. Nothing is retried, no redirect is followed, nothing is logged, and no state
changes after construction except the key being wiped by close().
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from . import _operations as ops
from ._base import ClientCore, encode_json, method_from
from ._checks import MAX_PAGE_SIZE
from ._deadline import Deadline
from ._errors import RonchoError
from ._exchange import Call, Exchange
from ._stream import ChatStream
from ._transport import Connection

if TYPE_CHECKING:
    from ._models import Message

__all__ = ["MAX_PAGE_SIZE", "Client"]

P = ParamSpec("P")
T = TypeVar("T")


def _op(build: Callable[Concatenate[ops.Scope, P], Call[T]]) -> Callable[Concatenate[Client, P], T]:
    def method(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._run(build(self._scope, *args, **kwargs))

    return method_from(build, method)


def _stream(
    build: Callable[Concatenate[ops.Scope, P], Call[None]],
) -> Callable[Concatenate[Client, P], ChatStream]:
    def method(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> ChatStream:
        connection, exchange = self._exchange(build(self._scope, *args, **kwargs))
        if exchange.chat is None:  # not a 2xx answer: the error it means
            connection.close()
            exchange.result()
        return ChatStream(connection, exchange)

    return method_from(build, method, "ChatStream")


class Client(ClientCore):
    """A blocking Honcho v3 client for one workspace.

    Immutable and thread-safe: share one instance between threads. Each call opens its
    own connection (``Connection: close``), so calls never wait on each other. Use it as
    a context manager (or call close()) so the key is wiped when you are done.

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

    __slots__ = ()

    def close(self) -> None:
        """Overwrite the key in memory; the client refuses calls afterwards."""
        self._wipe()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the operations, in the catalogue's order --------------------------------------------
    get_or_create_workspace = _op(ops.get_or_create_workspace)
    update_workspace = _op(ops.update_workspace)
    list_workspaces = _op(ops.list_workspaces)
    delete_workspace = _op(ops.delete_workspace)
    get_or_create_peer = _op(ops.get_or_create_peer)
    update_peer = _op(ops.update_peer)
    list_peers = _op(ops.list_peers)
    get_or_create_session = _op(ops.get_or_create_session)
    update_session = _op(ops.update_session)
    list_sessions = _op(ops.list_sessions)
    list_session_peers = _op(ops.list_session_peers)
    get_session_peer_config = _op(ops.get_session_peer_config)
    set_session_peer_config = _op(ops.set_session_peer_config)
    delete_session = _op(ops.delete_session)
    add_messages = _op(ops.add_messages)
    list_messages = _op(ops.list_messages)
    get_message = _op(ops.get_message)
    update_message_metadata = _op(ops.update_message_metadata)
    create_conclusions = _op(ops.create_conclusions)
    list_conclusions = _op(ops.list_conclusions)
    query_conclusions = _op(ops.query_conclusions)
    delete_conclusion = _op(ops.delete_conclusion)
    search = _op(ops.search)
    search_peer = _op(ops.search_peer)
    search_session = _op(ops.search_session)
    chat = _op(ops.chat)
    chat_stream = _stream(ops.chat_stream)
    chat_workspace = _op(ops.chat_workspace)
    chat_workspace_stream = _stream(ops.chat_workspace_stream)
    probe = _op(ops.probe)
    server_version = _op(ops.server_version)
    queue_status = _op(ops.queue_status)
    create_key = _op(ops.create_key)

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

    # -- the executor --------------------------------------------------------------------------
    def _run(self, call: Call[T]) -> T:
        """One whole call: its result, or the error its answer means."""
        connection, exchange = self._exchange(call)
        connection.close()
        return exchange.result()

    def _exchange(self, call: Call[T]) -> tuple[Connection, Exchange[T]]:
        """Connect, send, and read until the exchange needs no more (a stream: its head)."""
        total = self._admit(call)
        deadline = Deadline(self._limits.read_timeout, total, time.monotonic())
        exchange = Exchange(call, self._key, self._limits.max_response_bytes)
        connection = Connection(
            self._endpoint, self._limits, deadline, self._tls, call.what, type(self)._new_socket
        )
        try:
            # Only now, connected, is the request with the key built; the buffer holding it
            # is zeroed once sent (or not), so no frame a traceback keeps holds the key.
            wire = exchange.request(self._endpoint, encode_json)
            try:
                connection.send(wire)
            finally:
                if isinstance(wire, bytearray):
                    wire[:] = bytes(len(wire))
            try:
                while exchange.needs_more:
                    room = exchange.room()
                    if room is None:
                        exchange.feed(connection.recv())
                    else:
                        exchange.filled(connection.recv_into(room))
                        del room
            except RonchoError:
                if not exchange.failing:
                    raise
        except BaseException:
            connection.close()
            raise
        return connection, exchange
