"""AsyncClient: the asyncio executor of the operation catalogue, ``Client``'s twin.

The operations (checks, requests, decoders), the configuration, the key handling and the
errors are the blocking client's own; only the I/O differs. One connection per call, no
retry, no redirect, the response cap enforced while reading, the key in a bytearray
wiped on close and the request bytes holding it wiped once sent. A cancelled call aborts
its connection at once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any, ClassVar, TypeVar

from .._base import ClientCore, encode_json, method_from
from .._exchange import Call, Exchange
from .._methods import CALL, STREAM, WALK, Declared
from .._models import Page
from .._ops_shapes import Pages
from ._closing import AsyncClosing
from ._stream import AsyncChatStream
from ._transport import AsyncConnection

T = TypeVar("T")


class AsyncClient(ClientCore, AsyncClosing):
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

    # -- the executor --------------------------------------------------------------------------
    _RETURNS: ClassVar = {CALL: "{}", STREAM: "AsyncChatStream", WALK: "AsyncIterator[{}]"}

    @classmethod
    def _method(cls, declared: Declared[Any, Any, Any]) -> Callable[..., Any]:
        """The method of one declared operation: a coroutine, or an async generator for a
        walk over pages."""
        build, finish = declared.build, getattr(cls, declared.finisher)

        async def method(self: AsyncClient, /, *args: Any, **kwargs: Any) -> Any:
            return await finish(self, build(self._scope, *args, **kwargs))

        async def walk(self: AsyncClient, /, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            async for item in finish(self, build(self._scope, *args, **kwargs)):
                yield item

        chosen = walk if declared.kind == WALK else method
        return method_from(build, chosen, cls._RETURNS[declared.kind])

    async def _run(self, call: Call[T]) -> T:
        """One whole call: its result, or the error its answer means."""
        connection, exchange = await self._exchange(call)
        connection.close()
        return exchange.result()

    async def _open_stream(self, call: Call[None]) -> AsyncChatStream:
        connection, exchange = await self._exchange(call)
        if exchange.chat is None:  # not a 2xx answer: the error it means
            connection.close()
            exchange.result()
        return AsyncChatStream(connection, exchange)

    async def _walk(self, pages: Pages[T]) -> AsyncIterator[T]:
        call: Call[Page[T]] | None = pages.first()
        while call is not None:
            answer = await self._run(call)
            for item in answer.items:
                yield item
            call = pages.after(answer)

    async def _exchange(self, call: Call[T]) -> tuple[AsyncConnection, Exchange[T]]:
        """Connect, send, and read until the exchange needs no more (a stream: its head)."""
        exchange, deadline = self._start(call)
        connection = AsyncConnection(self._limits, deadline, call.what)
        with exchange.guard(connection):
            await connection.connect(self._endpoint, self._tls, type(self)._new_socket)
            with exchange.sending(self._endpoint, encode_json) as wire:
                await connection.send(wire)
            while exchange.needs_more:
                exchange.received(await connection.read(exchange.room()))
        return connection, exchange
