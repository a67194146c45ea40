"""ChatStream: the dialectic's answer as it arrives, one chunk per server-sent event.

It owns one open connection and the call's sans-IO exchange: each pull reads once from the
connection and feeds the exchange, whose chat decoder makes the chunks. The idle read
timeout applies between reads, so a slow answer can be told from a dead one; a stream that
ends before ``{"done": true}`` is a ProtocolError.
"""

from __future__ import annotations

from typing import Any

from ._chat import ChatDecoder
from ._errors import ProtocolError
from ._exchange import Exchange
from ._models import ChatAnswer, ChatChunk, Evidence
from ._transport import Connection


class ChatStream:
    """Iterator of ChatChunk over one open connection; a context manager that closes it.

    After the final chunk, ``evidence`` holds what the server sent with it (if anything)
    and ``text`` the whole answer. A stream that ends without its final event raises
    ProtocolError; one that stalls longer than read_timeout raises ReadTimeout.
    """

    def __init__(self, connection: Connection, exchange: Exchange[Any]) -> None:
        assert exchange.chat is not None
        self._connection = connection
        self._exchange = exchange
        self._chat: ChatDecoder = exchange.chat
        self._closed = False
        if self._chat.finished:  # the whole answer came with the head
            self.close()

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

    def __iter__(self) -> ChatStream:
        return self

    def __next__(self) -> ChatChunk:
        chat = self._chat
        while (chunk := chat.pop()) is None:
            if chat.finished:
                raise StopIteration
            if self._closed:
                # Reading on would hit a closed socket; a short answer must not pass as whole.
                raise ProtocolError(
                    f"{self._exchange.call.op}: the stream was closed before its final event",
                    request_sent=True,
                )
            try:
                exchange = self._exchange
                if not exchange.streaming:
                    exchange.start_stream()
                elif exchange.starved:
                    exchange.feed(self._connection.recv())
                else:
                    exchange.pump()
            except BaseException:
                self.close()
                raise
            if self.finished:  # the final event is in: the connection has no more to give
                self.close()
        return chunk

    def read_all(self) -> ChatAnswer:
        """Drain the stream into one ChatAnswer."""
        for _ in self:
            pass
        return ChatAnswer(content=self.text, evidence=self.evidence)

    def close(self) -> None:
        self._closed = True
        self._connection.close()

    def __enter__(self) -> ChatStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
