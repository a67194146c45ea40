"""Sans-IO exchange of one call: a ``Call`` (what an operation is) becomes request bytes,
and the bytes that come back become the operation's result or its error. No sockets here.

Both clients are executors around this: they connect, send ``request()``, and hand what
they read to ``received()`` while ``needs_more``; then ``result()`` (or, for a stream,
``next_chunk()``) finishes the job. A 2xx body of announced length is gathered in one
buffer of that length, and ``room()`` tells the executor where in it the next read may go
(so a large answer is read in place: no pieces to copy and join). The states are drawn in
``Exchange``. Everything the server sends is redacted of the key before any error or model
can hold it.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import TYPE_CHECKING, Final, Generic, TypeVar
from urllib.parse import quote

from ._call import NO_BODY, Call, Response, Upload
from ._checks import Endpoint
from ._errors import (
    MAX_ERROR_BODY_BYTES,
    ProtocolError,
    RedirectError,
    RonchoError,
    StatusError,
    status_error,
)
from ._http import BodyData, ResponseEnd, ResponseHead, ResponseParser, build_request
from ._version import __version__

if TYPE_CHECKING:
    from ._chat import ChatDecoder
    from ._models import ChatChunk

T = TypeVar("T")
B = TypeVar("B", bytes, bytearray)

USER_AGENT: Final = f"roncho/{__version__}"

_JSON: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def encode_json(body: object) -> bytes:
    """Compact UTF-8 JSON; NaN and infinities are refused (they are not JSON)."""
    return _JSON.encode(body).encode("utf-8")


class Sending:
    """A request's bytes for the length of a ``with`` block; a bytearray (it holds the
    key) is zeroed when the block ends."""

    __slots__ = ("data",)

    def __init__(self, data: bytes | bytearray) -> None:
        self.data = data

    def __enter__(self) -> bytes | bytearray:
        return self.data

    def __exit__(self, *exc: object) -> None:
        data, self.data = self.data, b""
        if isinstance(data, bytearray):
            data[:] = bytes(len(data))


class State(Enum):
    """Where one exchange is; see ``Exchange``."""

    HEAD = "waiting for the response head"
    BODY = "reading a 2xx body"
    STREAM = "a 2xx stream, read as its chunks are pulled"
    ERROR = "reading the start of an error body"
    DONE = "nothing more to read"


class Exchange(Generic[T]):
    """The state of one call between the request and its result.

    The client sends ``request()`` and hands every read to ``received()`` while
    ``needs_more``; then ``result()`` is the answer or its error. The states::

                   2xx head                        end of the body
        HEAD ---------------------> BODY ----------------------------> DONE
          |                                                             ^ ^
          |        2xx head, call.stream      final event, end of body  | |
          +-------------------------> STREAM ---------------------------+ |
          |                      (read only as the caller pulls chunks)   |
          |        any other head            4 KiB, end of body or a cut  |
          +-------------------------> ERROR ------------------------------+

    Rule 1: in STREAM the body flows only through ``next_chunk()``, so an error in what
    came with the head is raised by the stream, as later ones are. Rule 2: in ERROR the
    status is the answer: a body that breaks off or is cut by the connection ends it, it
    does not replace it.
    """

    def __init__(self, call: Call[T], key: bytearray | None, max_body: int) -> None:
        self.call = call
        self.state = State.HEAD
        self._key = key
        self._max_body = max_body
        self._parser = ResponseParser(max_body=max_body, request_method=call.method)
        self._chunks: list[bytes] = []  # a body of unknown length, or an error's start
        self._whole: bytearray | None = None  # in BODY: a body of announced length, in place
        self._size = 0  # bytes in _chunks, or in _whole
        self._needs_bytes = True  # the parser has no whole event until more bytes come
        self.head: ResponseHead | None = None
        self.chat: ChatDecoder | None = None  # in STREAM: the decoder of the body
        self.sent = 0  # the request's length, once built to be sent (for on_call)
        self.received_bytes = 0  # every read's, head and body (for on_call)

    def request(self, endpoint: Endpoint) -> bytes | bytearray:
        """The whole request; with a key, a bytearray the caller wipes once it is sent."""
        call = self.call
        target = call.path
        if call.query:
            target += "?" + "&".join(f"{n}={quote(v, safe='')}" for n, v in call.query)
        accept = "text/event-stream" if call.stream is not None else "application/json"
        headers = [("Accept", accept), ("User-Agent", USER_AGENT)]
        payload = None
        if isinstance(call.body, Upload):
            payload = call.body.data
            headers.append(("Content-Type", call.body.content_type))
        elif call.body is not NO_BODY:
            payload = encode_json(call.body)
            headers.append(("Content-Type", "application/json"))
        return build_request(
            call.method, target, endpoint.host_header, headers, payload, bearer=self._key
        )

    def sending(self, endpoint: Endpoint) -> Sending:
        """The request, for a ``with`` block that sends it: with a key, its bytes are
        zeroed when the block ends, sent or not, so no frame a traceback keeps holds it."""
        sending = Sending(self.request(endpoint))
        self.sent = len(sending.data)
        return sending

    @property
    def needs_more(self) -> bool:
        """The client should read again (a stream stops here once its head is in)."""
        return self.state in (State.HEAD, State.BODY, State.ERROR)

    def room(self) -> memoryview | None:
        """Where the next read may go: the rest of a 2xx body of announced length, in its
        own buffer (then hand ``received`` the count read), or None (hand it the bytes).

        Offered once the parser holds none of the body's bytes, and never past the body's
        end, so the size cap holds and no byte after the body is read.
        """
        if self._whole is None or self.state is not State.BODY:
            return None
        left = self._parser.room()
        if not left:
            return None
        return memoryview(self._whole)[self._size : self._size + left]

    def received(self, data: bytes | int) -> None:
        """What one read gave: the bytes, or how many were read into ``room()`` (``b""``
        or 0: the server closed the connection)."""
        self.received_bytes += data if isinstance(data, int) else len(data)
        if isinstance(data, int):
            if data:
                self._parser.took(data)
                self._size += data
            else:
                self._parser.feed(b"")
        else:
            self._parser.feed(data)
            del data  # it may echo the key: no frame a traceback keeps may hold it
        self._needs_bytes = False
        if self.state is not State.STREAM:  # Rule 1
            self._advance()

    def read_failure_ends_it(self) -> bool:
        """A read failed: True if that ends the exchange (Rule 2: in ERROR the status is the
        answer), False if the read's error is the call's."""
        if self.state is State.ERROR:
            self.state = State.DONE
            return True
        return False

    def _advance(self, pulled: bool = False) -> None:
        """Take the parser's events until it needs bytes or the exchange is DONE. In STREAM
        only when ``pulled`` (Rule 1), and only until a chunk waits to be handed out: each
        is handed out before the next event is read, so a bad end cannot hide good chunks."""
        try:
            while self.state is not State.DONE:
                if self.chat is not None and (self.chat.pending or not pulled):
                    return
                event = self._parser.next_event()
                if event is None:
                    self._needs_bytes = True
                    return
                self._take(event)
        except RonchoError as exc:
            event = None  # maybe the head before its scrub: not kept by a traceback's frame
            if self.state is State.ERROR:  # Rule 2: keep whatever body arrived
                self.state = State.DONE
                return
            if exc.request_sent:
                raise
            # The parser's errors know nothing of the request: name it, and say it was sent.
            raise type(exc)(f"{self.call.what}: {exc}", request_sent=True) from None

    def _take(self, event: ResponseHead | BodyData | ResponseEnd) -> None:
        if isinstance(event, BodyData):
            if self.chat is not None:
                self.chat.feed(event.data)
            elif self._whole is not None:
                end = self._size + len(event.data)
                self._whole[self._size : end] = event.data
                self._size = end
            else:
                self._chunks.append(event.data)
                self._size += len(event.data)
                if self.state is State.ERROR and self._size >= MAX_ERROR_BODY_BYTES:
                    self.state = State.DONE
        elif isinstance(event, ResponseHead):
            # The parser keeps the head too, and a frame a reporter records may reach both:
            # the key is scrubbed from it before either holds it.
            event = self.head = self._parser.head = self._scrub(event)
            if not 200 <= event.status < 300:
                self.state = State.ERROR
            elif self.call.stream is not None:
                self.state = State.STREAM
                self.chat = self.call.stream(
                    self.call.op, event.get("content-type"), self._max_body, self.redact
                )
            else:
                self.state = State.BODY
                length = self._parser.length_left()
                if length:  # made with the head: at most max_body, the parser checked
                    self._whole = bytearray(length)
        else:
            self.state = State.DONE
            if self.chat is not None:
                self.chat.end()

    def next_chunk(self, closed: bool) -> ChatChunk | None:
        """In STREAM: the next chunk, or None, either once the final chunk has been handed
        out (``chat.finished``) or until more bytes are ``received``.

        Raises ProtocolError when the stream was ``closed`` before its final event (a cut
        answer never passes as a whole one).
        """
        chat = self.chat
        assert chat is not None
        while (chunk := chat.pop()) is None:
            if chat.finished:
                return None
            if closed:
                raise ProtocolError(
                    f"{self.call.op}: the stream was closed before its final event",
                    request_sent=True,
                )
            if self._needs_bytes:
                return None
            self._advance(pulled=True)
        return chunk

    def result(self) -> T:
        """The decoded answer, or the error the answer means."""
        call, head = self.call, self.head
        assert head is not None
        if not 200 <= head.status < 300:
            failure = self.failure()
            meaning = call.on_status.get(failure.status)
            if meaning is not None:
                return meaning(failure)
            raise failure
        assert self.state is State.DONE
        whole, self._whole = self._whole, None
        if whole is None:
            response = Response(head, self.redact(b"".join(self._chunks)))
        else:
            response = Response(head, self.redact(whole))
            del whole
        self._chunks = []  # so the decoder's take_body() leaves the body's only reference
        return call.decode(response)

    def failure(self) -> StatusError:
        """The error for a non-2xx head; built from the redacted body and Location only."""
        head = self.head
        assert head is not None
        call = self.call
        kept = self.redact(b"".join(self._chunks)[:MAX_ERROR_BODY_BYTES])
        self._chunks = []
        if 300 <= head.status < 400:
            location = head.get("location")  # the head was scrubbed of the key as it arrived
            if location is not None:
                location = location[:200]
            return RedirectError(head.status, call.method, call.path, kept, location=location)
        return status_error(
            head.status, call.method, call.path, kept, key_sent=self._key is not None
        )

    def redact(self, data: B) -> B:
        """A server that echoes the request must not put the key into an error."""
        key = self._key
        if not key or key not in data:
            return data
        return data.replace(key, b"[redacted]")

    def _scrub(self, head: ResponseHead) -> ResponseHead:
        key = self._key
        if not key or not any(key in v.encode("latin-1") for _, v in head.headers):
            return head
        headers = tuple(
            (name, self.redact(value.encode("latin-1")).decode("latin-1"))
            for name, value in head.headers
        )
        return head._replace(headers=headers)
