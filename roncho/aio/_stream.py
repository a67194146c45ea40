"""AsyncChatStream: ChatStream for asyncio, over the same sans-IO exchange and decoder."""

from __future__ import annotations

from .._models import ChatAnswer, ChatChunk
from .._stream import StreamCore
from ._closing import AsyncClosing
from ._transport import AsyncConnection


class AsyncChatStream(StreamCore, AsyncClosing):
    """Async iterator of ChatChunk over one open connection; ``async with`` closes it.

    The same rules as ChatStream: ``text`` and ``evidence`` after the final chunk, a
    stream ending without its final event is a ProtocolError, the idle read timeout
    applies between reads.
    """

    _connection: AsyncConnection

    def __aiter__(self) -> AsyncChatStream:
        return self

    async def __anext__(self) -> ChatChunk:
        try:
            while (chunk := self._exchange.next_chunk(self._closed)) is None:
                self._exchange.feed(await self._connection.recv())
        except StopIteration:
            raise StopAsyncIteration from None
        except BaseException:
            self.close()
            raise
        return self._chunk(chunk)

    async def read_all(self) -> ChatAnswer:
        """Drain the stream into one ChatAnswer."""
        async for _ in self:
            pass
        return self._answer()
