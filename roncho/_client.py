"""Client: the blocking executor of the operation catalogue.

Each method is an operation from ``_operations`` (its checks, request and decoder) run
here on one new connection: connect, send, read until the sans-IO exchange has its answer,
close. Nothing is retried, no redirect is followed, nothing is logged, and no state
changes after construction except the key being wiped by close().
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Concatenate, ParamSpec, TypeVar

from . import _operations as ops
from ._base import ClientCore, encode_json, method_from
from ._checks import MAX_PAGE_SIZE
from ._deadline import Deadline
from ._errors import RonchoError
from ._exchange import Call, Exchange
from ._models import Page
from ._ops_store import Pages
from ._stream import ChatStream
from ._transport import Connection

__all__ = ["MAX_PAGE_SIZE", "Client"]

P = ParamSpec("P")
T = TypeVar("T")


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

    # -- the executor --------------------------------------------------------------------------
    @staticmethod
    def _method(build: Callable[Concatenate[ops.Scope, P], Call[T]]) -> Callable[..., T]:
        def method(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> T:
            return self._run(build(self._scope, *args, **kwargs))

        return method_from(build, method)

    @staticmethod
    def _stream_method(
        build: Callable[Concatenate[ops.Scope, P], Call[None]],
    ) -> Callable[..., ChatStream]:
        def method(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> ChatStream:
            connection, exchange = self._exchange(build(self._scope, *args, **kwargs))
            if exchange.chat is None:  # not a 2xx answer: the error it means
                connection.close()
                exchange.result()
            return ChatStream(connection, exchange)

        return method_from(build, method, "ChatStream")

    @staticmethod
    def _walk_method(
        build: Callable[Concatenate[ops.Scope, P], Pages[T]],
    ) -> Callable[..., Iterator[T]]:
        def method(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
            pages = build(self._scope, *args, **kwargs)
            call: Call[Page[T]] | None = pages.first()
            while call is not None:
                answer = self._run(call)
                yield from answer.items
                call = pages.after(answer)

        return method_from(build, method, "Iterator[{}]")

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
