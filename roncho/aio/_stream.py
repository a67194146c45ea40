"""AsyncChatStream: the dialectic's answer as it arrives, one chunk per server-sent event.

It owns one open connection and the call's sans-IO exchange: each pull asks the exchange
for the next chunk and, when it needs bytes, reads once from the connection. The idle read
timeout applies between reads, so a slow answer can be told from a dead one; a stream that
ends before ``{"done": true}`` is a ProtocolError.

Written once, in roncho/aio/_stream.py, for both halves: ``scripts/render_clients.py``
writes roncho/_stream.py from it with the table of ``scripts/_unasync.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._closing import AsyncClosing
from .._errors import ConfigError
from .._exchange import Exchange
from .._models import ChatAnswer, ChatChunk, Evidence
from ._transport import AsyncConnection

__all__ = ["AsyncChatStream"]


class AsyncChatStream(AsyncClosing):
    """ChatChunk after ChatChunk (``async for``) over one open connection; leaving its
    ``async with`` block closes it.

    After the final chunk, ``evidence`` holds what the server sent with it (if anything)
    and ``text`` the whole answer. A stream that ends without its final event raises
    ProtocolError; one that stalls longer than read_timeout raises ReadTimeout.
    """

    def __init__(
        self,
        connection: AsyncConnection,
        exchange: Exchange[Any],
        ended: Callable[[BaseException | None], None] | None = None,
    ) -> None:
        assert exchange.chat is not None
        self._ended = ended  # told once, when the stream ends: what ended it, or None
        self._connection = connection
        self._exchange = exchange
        self._chat = exchange.chat
        self._closed = False
        self._read_out = False  # the end was handed out once: a second read is a mistake

    @property
    def text(self) -> str:
        """The content received so far."""
        return self._chat.text

    @property
    def evidence(self) -> Evidence | None:
        """What the server sent with the final chunk, if anything."""
        return self._chat.evidence

    @property
    def finished(self) -> bool:
        return self._chat.finished

    def __aiter__(self) -> AsyncChatStream:
        return self

    async def __anext__(self) -> ChatChunk:
        if self._read_out:  # iterating it again would silently yield nothing
            raise ConfigError(
                f"{self._exchange.call.op}: this stream was already read to its end; "
                "its whole answer is in text and evidence (or read_all())"
            )
        try:
            while (chunk := self._exchange.next_chunk(self._closed)) is None:
                if self.finished:
                    break  # the final chunk was handed out
                self._exchange.received(await self._connection.read())
        except BaseException as error:
            self._end(error)
            raise
        if chunk is None:
            self._read_out = True
            raise StopAsyncIteration  # the connection closed with the final chunk
        if self.finished:  # the final event is in: the connection has no more to give
            self.close()
        return chunk

    async def read_all(self) -> ChatAnswer:
        """Drain the stream into one ChatAnswer (again the same one once it was read)."""
        if not self._read_out:
            async for _ in self:
                pass
        return ChatAnswer(content=self.text, evidence=self.evidence)

    def close(self) -> None:
        self._end(None)

    def _end(self, error: BaseException | None) -> None:
        ended, self._ended = self._ended, None
        self._closed = True
        self._connection.close()
        if ended is not None:
            ended(error)
