"""AsyncChatStream: ChatStream for asyncio, over the same sans-IO exchange and decoder,
and ``async with`` / ``aclose()`` for the asyncio objects whose close() is immediate."""

from __future__ import annotations

from typing import NoReturn, Self

from .._models import ChatAnswer, ChatChunk
from .._network import AsyncStream
from .._stream import StreamCore


class AsyncClosing:
    """Closes on leaving ``async with``; ``aclose()`` is close() for asyncio's habits."""

    __slots__ = ()

    def close(self) -> None:
        raise NotImplementedError

    async def aclose(self) -> None:
        """The same as close(), which never waits."""
        self.close()

    async def __aenter__(self) -> Self:
        return self

    # A plain `with` would otherwise end in Python's generic protocol error.
    def __enter__(self) -> NoReturn:
        raise TypeError(
            f"{type(self).__name__} is an asynchronous context manager: write `async with`, "
            "inside an async function, not `with`"
        )

    def __exit__(self, *exc: object) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        self.close()


class AsyncChatStream(StreamCore, AsyncClosing):
    """Async iterator of ChatChunk over one open connection; ``async with`` closes it.

    The same rules as ChatStream: ``text`` and ``evidence`` after the final chunk, a
    stream ending without its final event is a ProtocolError, the idle read timeout
    applies between reads.
    """

    _connection: AsyncStream

    def __aiter__(self) -> AsyncChatStream:
        return self

    async def __anext__(self) -> ChatChunk:
        self._check_unread()
        try:
            while (chunk := self._exchange.next_chunk(self._closed)) is None:
                if self.finished:
                    break  # the final chunk was handed out
                self._exchange.received(await self._connection.read())
        except BaseException:
            self.close()
            raise
        if chunk is None:
            self._read_out = True
            raise StopAsyncIteration  # the connection closed with the final chunk
        return self._chunk(chunk)

    async def read_all(self) -> ChatAnswer:
        """Drain the stream into one ChatAnswer (again the same one once it was read)."""
        if not self._read_out:
            async for _ in self:
                pass
        return self._answer()
