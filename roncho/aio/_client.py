"""AsyncClient: the asyncio executor of the operation catalogue, ``Client``'s twin.

The operations (checks, requests, decoders), the configuration, the key handling and the
errors are the blocking client's own; only the I/O differs. One connection per call, no
retry, no redirect, the response cap enforced while reading, the key in a bytearray
wiped on close and the request bytes holding it wiped once sent. A cancelled call aborts
its connection at once.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

from .. import _operations as ops
from .._base import ClientCore, encode_json, method_from
from .._deadline import Deadline
from .._errors import RonchoError
from .._exchange import Call, Exchange
from .._models import Page
from .._ops_store import Pages
from ._stream import AsyncChatStream
from ._transport import AsyncConnection

P = ParamSpec("P")
T = TypeVar("T")


class AsyncClient(ClientCore):
    """An asyncio Honcho v3 client for one workspace: ``Client``'s methods as coroutines.

    Immutable; share one instance between tasks. Each call opens its own connection, so
    calls never wait on each other. Use ``async with`` (or close()) so the key is wiped.
    The arguments are Client's, with the same meaning and checks.
    """

    __slots__ = ()
    _public_name = "roncho.aio.AsyncClient"

    def close(self) -> None:
        """Overwrite the key in memory; the client refuses calls afterwards."""
        self._wipe()

    async def aclose(self) -> None:
        self._wipe()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    # -- the executor --------------------------------------------------------------------------
    @staticmethod
    def _method(
        build: Callable[Concatenate[ops.Scope, P], Call[T]],
    ) -> Callable[..., Coroutine[Any, Any, T]]:
        async def method(self: AsyncClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
            return await self._run(build(self._scope, *args, **kwargs))

        return method_from(build, method)

    @staticmethod
    def _stream_method(
        build: Callable[Concatenate[ops.Scope, P], Call[None]],
    ) -> Callable[..., Coroutine[Any, Any, AsyncChatStream]]:
        async def method(
            self: AsyncClient, /, *args: P.args, **kwargs: P.kwargs
        ) -> AsyncChatStream:
            connection, exchange = await self._exchange(build(self._scope, *args, **kwargs))
            if exchange.chat is None:  # not a 2xx answer: the error it means
                connection.close()
                exchange.result()
            return AsyncChatStream(connection, exchange)

        return method_from(build, method, "AsyncChatStream")

    @staticmethod
    def _walk_method(
        build: Callable[Concatenate[ops.Scope, P], Pages[T]],
    ) -> Callable[..., AsyncIterator[T]]:
        async def method(
            self: AsyncClient, /, *args: P.args, **kwargs: P.kwargs
        ) -> AsyncIterator[T]:
            pages = build(self._scope, *args, **kwargs)
            call: Call[Page[T]] | None = pages.first()
            while call is not None:
                answer = await self._run(call)
                for item in answer.items:
                    yield item
                call = pages.after(answer)

        return method_from(build, method, "AsyncIterator[{}]")

    async def _run(self, call: Call[T]) -> T:
        """One whole call: its result, or the error its answer means."""
        connection, exchange = await self._exchange(call)
        connection.close()
        return exchange.result()

    async def _exchange(self, call: Call[T]) -> tuple[AsyncConnection, Exchange[T]]:
        """Connect, send, and read until the exchange needs no more (a stream: its head)."""
        total = self._admit(call)
        deadline = Deadline(self._limits.read_timeout, total, time.monotonic())
        exchange = Exchange(call, self._key, self._limits.max_response_bytes)
        connection = AsyncConnection(self._limits, deadline, call.what)
        try:
            await connection.connect(self._endpoint, self._tls, type(self)._new_socket)
            wire = exchange.request(self._endpoint, encode_json)
            try:
                await connection.send(wire)
            finally:
                if isinstance(wire, bytearray):
                    wire[:] = bytes(len(wire))
            try:
                while exchange.needs_more:
                    room = exchange.room()
                    if room is None:
                        exchange.feed(await connection.recv())
                    else:
                        exchange.filled(await connection.recv_into(room))
                        del room
            except RonchoError:
                if not exchange.failing:
                    raise
        except BaseException:
            connection.close()
            raise
        return connection, exchange
