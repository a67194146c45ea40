"""Client: the blocking executor of the operation catalogue.

Each method is an operation from ``_operations`` (its checks, request and decoder) run
here on one new connection: connect, send, read until the sans-IO exchange has its answer,
close. Nothing is retried, no redirect is followed, nothing is logged, and no state
changes after construction except the key being wiped by close().
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, ClassVar, TypeVar

from ._base import ClientCore, encode_json, method_from
from ._checks import MAX_PAGE_SIZE
from ._exchange import Call, Exchange
from ._methods import CALL, STREAM, WALK, Declared
from ._models import Page
from ._ops_shapes import Pages
from ._stream import ChatStream
from ._transport import Connection

__all__ = ["MAX_PAGE_SIZE", "Client"]

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
    _RETURNS: ClassVar = {CALL: "{}", STREAM: "ChatStream", WALK: "Iterator[{}]"}

    @classmethod
    def _method(cls, declared: Declared[Any, Any, Any]) -> Callable[..., Any]:
        """The method of one declared operation: build its call, then run it."""
        build, finish = declared.build, getattr(cls, declared.finisher)

        def method(self: Client, /, *args: Any, **kwargs: Any) -> Any:
            return finish(self, build(self._scope, *args, **kwargs))

        return method_from(build, method, cls._RETURNS[declared.kind])

    def _run(self, call: Call[T]) -> T:
        """One whole call: its result, or the error its answer means."""
        connection, exchange = self._exchange(call)
        connection.close()
        return exchange.result()

    def _open_stream(self, call: Call[None]) -> ChatStream:
        connection, exchange = self._exchange(call)
        if exchange.chat is None:  # not a 2xx answer: the error it means
            connection.close()
            exchange.result()
        return ChatStream(connection, exchange)

    def _walk(self, pages: Pages[T]) -> Iterator[T]:
        call: Call[Page[T]] | None = pages.first()
        while call is not None:
            answer = self._run(call)
            yield from answer.items
            call = pages.after(answer)

    def _exchange(self, call: Call[T]) -> tuple[Connection, Exchange[T]]:
        """Connect, send, and read until the exchange needs no more (a stream: its head)."""
        exchange, deadline = self._start(call)
        connection = Connection(
            self._endpoint, self._limits, deadline, self._tls, call.what, type(self)._new_socket
        )
        with exchange.guard(connection):
            # Only now, connected, is the request with the key built (and wiped once sent).
            with exchange.sending(self._endpoint, encode_json) as wire:
                connection.send(wire)
            while exchange.needs_more:
                exchange.received(connection.read(exchange.room()))
        return connection, exchange
