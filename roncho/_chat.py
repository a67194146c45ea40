"""The body of a streamed dialectic answer in, ChatChunks out: sans-IO, no sockets.

Both clients' streams pull chunks through ``Exchange.next_chunk``, which feeds this decoder
the body bytes. It owns the SSE decoding, the JSON of each event, the final
``{"done": true}`` event, and the case of a server that ignored ``stream: true`` and
answered one JSON body. A body that ends before the final event is a ProtocolError: a
short answer never passes as a whole one.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable

from ._decode import parse_json
from ._errors import DecodeError, ProtocolError, RonchoError
from ._models import ChatAnswer, ChatChunk, Evidence
from ._sse import SSEDecoder


class ChatDecoder:
    """Body bytes in (``feed``, then ``end`` at the end of the body), chunks out (``pop``).

    Every error it raises has ``request_sent`` true: the server answered, so it had the
    request. ``finished`` turns true with the final event; ``text`` and ``evidence`` hold
    what arrived so far. An event that carries an error is a ProtocolError with the
    server's words.
    """

    def __init__(
        self,
        op: str,
        content_type: str | None,
        max_bytes: int,
        redact: Callable[[bytes], bytes] = bytes,
    ) -> None:
        self._op = op
        self._redact = redact
        self._sse = SSEDecoder(max_bytes)
        self._pending: deque[ChatChunk] = deque()
        self._parts: list[str] = []
        self._json_body = (content_type or "").lower().startswith("application/json")
        self._body = bytearray()  # only for a server that answered JSON instead of a stream
        self.finished = False
        self.evidence: Evidence | None = None

    @property
    def text(self) -> str:
        """The content handed out so far."""
        return "".join(self._parts)

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def pop(self) -> ChatChunk | None:
        """The next chunk, or None until more bytes are fed."""
        if not self._pending:
            return None
        chunk = self._pending.popleft()
        self._parts.append(chunk.content)
        if chunk.done:
            self.evidence = chunk.evidence
        return chunk

    def feed(self, data: bytes) -> None:
        if self.finished:
            return
        if self._json_body:
            self._body += data
            return
        try:
            for event in self._sse.feed(data):
                if self._take_event(event.data):
                    return  # nothing after the final event counts
        except RonchoError as exc:
            exc.request_sent = True
            raise

    def end(self) -> None:
        """The body ended: finish a JSON answer, or refuse a stream without its final event."""
        if self.finished:
            return
        if self._json_body:
            self._finish_json()
            return
        raise ProtocolError(
            f"{self._op}: the stream ended without its final event", request_sent=True
        )

    def _take_event(self, data: str) -> bool:
        try:
            payload = parse_json(data)
        except (ValueError, RecursionError):
            raise DecodeError(f"{self._op}: a stream event is not JSON") from None
        # A server that fails while answering may end the stream with
        # {"error": "...", "done": true}: an error, with its words, never a clean end.
        failure = payload.get("error") if isinstance(payload, dict) else None
        if failure:
            said = failure if isinstance(failure, str) else json.dumps(failure)
            raise ProtocolError(
                f"{self._op}: the server ended the stream with an error: {said[:300]}",
                request_sent=True,
            )
        chunk = ChatChunk.from_json(payload, self._op)
        self._pending.append(chunk)
        if chunk.done:
            self.finished = True
        return chunk.done

    def _finish_json(self) -> None:
        body = self._redact(bytes(self._body))
        self._body = bytearray()
        try:
            data = parse_json(body.decode("utf-8"))
        except (ValueError, RecursionError):
            raise DecodeError(f"{self._op}: the answer is not JSON", request_sent=True) from None
        try:
            answer = ChatAnswer.from_json(data, self._op)
        except DecodeError as exc:
            exc.request_sent = True
            raise
        self._pending.append(
            ChatChunk(content=answer.content or "", done=True, evidence=answer.evidence)
        )
        self.finished = True
