"""AsyncChatStream: ChatStream for asyncio, over the same sans-IO exchange and decoder."""

from __future__ import annotations

from typing import Any

from .._chat import ChatDecoder
from .._errors import ProtocolError
from .._exchange import Exchange
from .._models import ChatAnswer, ChatChunk, Evidence
from ._transport import AsyncConnection


class AsyncChatStream:
    """Async iterator of ChatChunk over one open connection; ``async with`` closes it.

    The same rules as ChatStream: ``text`` and ``evidence`` after the final chunk, a
    stream ending without its final event is a ProtocolError, the idle read timeout
    applies between reads.
    """

    def __init__(self, connection: AsyncConnection, exchange: Exchange[Any]) -> None:
        assert exchange.chat is not None
        self._connection = connection
        self._exchange = exchange
        self._chat: ChatDecoder = exchange.chat
        self._closed = False

    @property
    def text(self) -> str:
        """The content received so far."""
        return self._chat.text

    @property
    def evidence(self) -> Evidence | None:
        return self._chat.evidence

    @property
    def finished(self) -> bool:
        return self._chat.finished

    def __aiter__(self) -> AsyncChatStream:
        return self

    async def __anext__(self) -> ChatChunk:
        chat = self._chat
        while (chunk := chat.pop()) is None:
            if chat.finished:
                raise StopAsyncIteration
            if self._closed:
                raise ProtocolError(
                    f"{self._exchange.call.op}: the stream was closed before its final event",
                    request_sent=True,
                )
            try:
                exchange = self._exchange
                if not exchange.streaming:
                    exchange.start_stream()
                elif exchange.starved:
                    exchange.feed(await self._connection.recv())
                else:
                    exchange.pump()
            except BaseException:
                self.close()
                raise
            if self.finished:
                self.close()
        return chunk

    async def read_all(self) -> ChatAnswer:
        """Drain the stream into one ChatAnswer."""
        async for _ in self:
            pass
        return ChatAnswer(content=self.text, evidence=self.evidence)

    def close(self) -> None:
        self._closed = True
        self._connection.close()

    async def aclose(self) -> None:
        self.close()

    async def __aenter__(self) -> AsyncChatStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
