"""ChatStream: the dialectic's answer as it arrives, one chunk per server-sent event.

It owns one open connection: it reads body data from the transport, feeds the SSE decoder
(lines buffered across reads, UTF-8 decoded at line boundaries), and turns each event into
a ChatChunk. The idle read timeout applies between reads, so a slow answer can be told from
a dead one; a stream that ends before ``{"done": true}`` is a ProtocolError.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ._errors import DecodeError, ProtocolError, RonchoError
from ._http import BodyData, ResponseEnd, ResponseHead
from ._models import ChatAnswer, ChatChunk, Evidence, parse_json
from ._sse import SSEDecoder
from ._transport import Connection


class ChatStream:
    """Iterator of ChatChunk over one open connection; a context manager that closes it.

    After the final chunk, ``evidence`` holds what the server sent with it (if anything)
    and ``text`` the whole answer. A stream that ends without its final event raises
    ProtocolError; one that stalls longer than read_timeout raises ReadTimeout.
    """

    def __init__(
        self,
        op: str,
        connection: Connection,
        events: Iterator[Any],
        head: ResponseHead,
        max_bytes: int,
        redact: Callable[[bytes], bytes] = bytes,
    ) -> None:
        self._op = op
        self._redact = redact
        self._connection = connection
        self._events = events
        self._decoder = SSEDecoder(max_bytes)
        self._pending: list[ChatChunk] = []
        self._parts: list[str] = []
        self._finished = False
        self._closed = False
        self._body = bytearray()  # only for a server that answered JSON instead of a stream
        self.evidence: Evidence | None = None
        content_type = (head.get("content-type") or "").lower()
        self._json_body = content_type.startswith("application/json")

    @property
    def text(self) -> str:
        """The content received so far."""
        return "".join(self._parts)

    @property
    def finished(self) -> bool:
        return self._finished

    def __iter__(self) -> ChatStream:
        return self

    def __next__(self) -> ChatChunk:
        while not self._pending:
            if self._finished:
                raise StopIteration
            if self._closed:
                # Reading on would hit a closed socket; a short answer must not pass as whole.
                raise ProtocolError(
                    f"{self._op}: the stream was closed before its final event",
                    request_sent=True,
                )
            self._read_more()
        chunk = self._pending.pop(0)
        self._parts.append(chunk.content)
        if chunk.done:
            self.evidence = chunk.evidence
        return chunk

    def _read_more(self) -> None:
        try:
            event = next(self._events)
        except StopIteration:
            event = ResponseEnd()
        except BaseException:
            self.close()
            raise
        if isinstance(event, ResponseEnd):
            self.close()
            if self._json_body:
                self._finish_json()
                return
            raise ProtocolError(
                f"{self._op}: the stream ended without its final event", request_sent=True
            )
        if isinstance(event, BodyData):
            if self._json_body:
                self._body += event.data
                return
            try:
                for sse in self._decoder.feed(event.data):
                    self._take_event(sse.data)
                    if self._finished:
                        break
            except RonchoError as exc:
                self.close()
                exc.request_sent = True
                raise

    def _take_event(self, data: str) -> None:
        try:
            payload = parse_json(data)
        except (ValueError, RecursionError):
            raise DecodeError(f"{self._op}: a stream event is not JSON") from None
        chunk = ChatChunk.from_json(payload, self._op)
        self._pending.append(chunk)
        if chunk.done:
            self._finished = True
            self.close()

    def _finish_json(self) -> None:
        """A server that ignored ``stream: true`` answered with one JSON body."""
        body = self._redact(bytes(self._body))
        self._body = bytearray()
        try:
            data = parse_json(body.decode("utf-8"))
        except (ValueError, RecursionError):
            raise DecodeError(f"{self._op}: the answer is not JSON", request_sent=True) from None
        try:
            answer = ChatAnswer.from_json(data, self._op)
        except DecodeError as exc:
            exc.request_sent = True  # the server answered, so it did receive the request
            raise
        self._pending.append(
            ChatChunk(content=answer.content or "", done=True, evidence=answer.evidence)
        )
        self._finished = True

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
