"""Sans-IO exchange of one call: a ``Call`` (what an operation is) becomes request bytes,
and the bytes that come back become the operation's result or its error. No sockets here.

Both clients are executors around this: they connect, send ``request()``, and hand what
they read to ``received()`` while ``needs_more``; then ``result()`` (or, for a stream,
``next_chunk()``) finishes the job. The states are drawn in ``Exchange``. Everything the
server sends is redacted of the key before any error or model can hold it.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from enum import Enum
from typing import Any, Final, Generic, TypeVar
from urllib.parse import quote

from ._checks import Endpoint
from ._decode import parse_json
from ._errors import (
    DecodeError,
    ProtocolError,
    RedirectError,
    RonchoError,
    StatusError,
    status_error,
)
from ._http import BodyData, ResponseEnd, ResponseHead, ResponseParser, build_request
from ._models import ChatAnswer, ChatChunk, Evidence
from ._sse import SSEDecoder
from ._version import __version__

T = TypeVar("T")
B = TypeVar("B", bytes, bytearray)

# How much of an error body is worth reading: StatusError keeps 4 KiB of it.
ERROR_BODY_BYTES: Final = 4096
# With this much of a 2xx body still to come, the blocking client reads it into one buffer
# of the body's exact size (see ``room``) instead of joining received chunks: less of a
# body mostly arrives in one read, and joining one chunk costs nothing (no copy).
WHOLE_BODY_BYTES: Final = 64 * 1024
USER_AGENT: Final = f"roncho/{__version__}"
NO_BODY: Final[Any] = object()

_UTF8_JSON: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
_ASCII_JSON: Final = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def encode_json(body: object, ascii_only: bool = False) -> bytes:
    """Compact UTF-8 JSON. ``ascii_only``: the caller knows every string in ``body`` is
    ASCII without DEL, for which CPython's ASCII encoder writes the same bytes, faster."""
    encoder = _ASCII_JSON if ascii_only else _UTF8_JSON
    return encoder.encode(body).encode("utf-8")


class Response:
    """A complete 2xx answer. ``take_body()`` hands the bytes over, so the decoder can let
    them go while parsing: holding the bytes, the text and the objects at once costs 3x.
    A large body is the bytearray it was read into (copying it to bytes would cost a pass
    over it and a second body's worth of memory)."""

    __slots__ = ("_body", "head")

    def __init__(self, head: ResponseHead, body: bytes | bytearray) -> None:
        self.head = head
        self._body = body

    @property
    def status(self) -> int:
        return self.head.status

    @property
    def body(self) -> bytes | bytearray:
        return self._body

    def take_body(self) -> bytes | bytearray:
        body, self._body = self._body, b""
        return body


@dataclass(slots=True, repr=False)
class Call(Generic[T]):
    """One operation, ready to send: pure data plus its decoder.

    ``ascii_body`` says every string in ``body`` is ASCII without DEL, so the encoder's
    faster ASCII mode gives the same bytes as UTF-8 (set only where that is known for free:
    a batch of plain messages). ``busy`` says a 409 means WorkspaceBusyError;
    ``on_status`` may turn a StatusError into a result (a 404 that means "not served") or a
    clearer error; ``stream`` marks a call whose 2xx body is read as server-sent chat
    events.
    """

    op: str
    method: str
    path: str
    decode: Callable[[Response], T]
    _: KW_ONLY
    query: tuple[tuple[str, str], ...] = ()
    body: Any = NO_BODY
    ascii_body: bool = False
    write: bool = False
    busy: bool = False
    stream: bool = False
    on_status: Callable[[StatusError], T] | None = None
    deadline: float | None = None

    @property
    def what(self) -> str:
        """``METHOD /path`` for messages: never the query, never a header."""
        return f"{self.method} {self.path}"

    def __repr__(self) -> str:  # never the body: it is memory text
        return f"<Call {self.op} {self.what}>"


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
        self._chunks: list[bytes] = []
        self._size = 0
        self._whole: bytearray | None = None  # a large 2xx body, filled up to ``_size``
        self._starved = True  # the parser has no whole event until more bytes come
        self.head: ResponseHead | None = None
        self.chat: ChatDecoder | None = None  # in STREAM: the decoder of the body

    def request(self, endpoint: Endpoint) -> bytes | bytearray:
        """The whole request; with a key, a bytearray the caller wipes once it is sent."""
        call = self.call
        target = call.path
        if call.query:
            target += "?" + "&".join(f"{n}={quote(v, safe='')}" for n, v in call.query)
        accept = "text/event-stream" if call.stream else "application/json"
        headers = [("Accept", accept), ("User-Agent", USER_AGENT)]
        payload = None
        if call.body is not NO_BODY:
            payload = encode_json(call.body, call.ascii_body)
            headers.append(("Content-Type", "application/json"))
        return build_request(
            call.method, target, endpoint.host_header, headers, payload, bearer=self._key
        )

    def sending(self, endpoint: Endpoint) -> Sending:
        """The request, for a ``with`` block that sends it: with a key, its bytes are
        zeroed when the block ends, sent or not, so no frame a traceback keeps holds it."""
        return Sending(self.request(endpoint))

    @property
    def needs_more(self) -> bool:
        """The client should read again (a stream stops here once its head is in)."""
        return self.state in (State.HEAD, State.BODY, State.ERROR)

    def room(self) -> memoryview | None:
        """Where the connection may read the body's next bytes itself (``recv_into``, then
        ``received`` of the count), or None: read some bytes and hand them to ``received``.

        Offered only inside a 2xx body of announced length with at least WHOLE_BODY_BYTES
        still to come, and never past its end, so the cap holds as before. The buffer is
        the whole body's, made at the first offer: what came with the head is copied in, and
        the rest is read there with no further copy and no join at the end.
        """
        if self.state is not State.BODY:
            return None
        left = self._parser.room()
        if not left:
            return None
        whole = self._whole
        if whole is None:
            if left < WHOLE_BODY_BYTES:
                return None
            whole = self._whole = bytearray(self._size + left)
            whole[: self._size] = b"".join(self._chunks)
            self._chunks = []
        return memoryview(whole)[self._size :]

    def received(self, data: bytes | int) -> None:
        """What one read gave: the bytes (``b""``: the server closed the connection), or the
        count read into ``room()`` (0: closed)."""
        if data == 0 or data == b"":
            self._parser.feed(b"")
        elif isinstance(data, int):
            self._parser.took(data)
            self._size += data
        else:
            self._parser.feed(data)
            del data  # it may echo the key: no frame a traceback keeps may hold it
        self._starved = False
        if self.state is not State.STREAM:  # Rule 1
            self._advance()

    def cut(self) -> bool:
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
                    self._starved = True
                    return
                self._take(event)
        except RonchoError as exc:
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
                if self.state is State.ERROR and self._size >= ERROR_BODY_BYTES:
                    self.state = State.DONE
        elif isinstance(event, ResponseHead):
            # The parser keeps the head too, and a frame a reporter records may reach both:
            # the key is scrubbed from it before either holds it.
            event = self.head = self._parser.head = self._scrub(event)
            if not 200 <= event.status < 300:
                self.state = State.ERROR
            elif self.call.stream:
                self.state = State.STREAM
                self.chat = ChatDecoder(
                    self.call.op, event.get("content-type"), self._max_body, self.redact
                )
            else:
                self.state = State.BODY
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
            if self._starved:
                return None
            self._advance(pulled=True)
        return chunk

    @property
    def failing(self) -> bool:
        """The head arrived and is not 2xx."""
        return self.head is not None and not 200 <= self.head.status < 300

    def result(self) -> T:
        """The decoded answer, or the error the answer means."""
        call = self.call
        if self.failing:
            failure = self.failure()
            if call.on_status is not None and isinstance(failure, StatusError):
                return call.on_status(failure)
            raise failure
        assert self.head is not None and self.state is State.DONE
        whole, self._whole = self._whole, None
        if whole is None:
            response = Response(self.head, self.redact(b"".join(self._chunks)))
        else:
            response = Response(self.head, self.redact(whole))
            del whole  # so the decoder's take_body() leaves the only reference
        self._chunks = []
        return call.decode(response)

    def failure(self) -> RonchoError:
        """The error for a non-2xx head; built from the redacted body and Location only."""
        head = self.head
        assert head is not None
        call = self.call
        kept = self.redact(b"".join(self._chunks)[:ERROR_BODY_BYTES])
        self._chunks = []
        if 300 <= head.status < 400:
            location = head.get("location")  # the head was scrubbed of the key as it arrived
            if location is not None:
                location = location[:200]
            return RedirectError(head.status, call.method, call.path, kept, location=location)
        return status_error(head.status, call.method, call.path, kept, busy=call.busy)

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


# -- decoders every operation shares -------------------------------------------------------
def read_json(response: Response, op: str, *, allow_empty: bool = False) -> Any:
    encoding = (response.head.get("content-encoding") or "identity").strip().lower()
    if encoding != "identity":
        raise DecodeError(
            f"{op}: the answer is encoded with {encoding[:40]!r}, which roncho never asks for",
            request_sent=True,
        )
    body = response.take_body()  # so only the text and the objects are alive at once
    # isspace() stops at the first other byte; strip() would copy a large body.
    if (not body or body.isspace()) and (allow_empty or response.status == 204):
        return None
    try:
        text = body.decode("utf-8")
        del body
        return parse_json(text)
    except UnicodeDecodeError:
        raise DecodeError(f"{op}: the answer is not UTF-8", request_sent=True) from None
    except RecursionError:
        raise DecodeError(f"{op}: the answer nests too deeply", request_sent=True) from None
    except ValueError as exc:
        raise DecodeError(
            f"{op}: the answer is not JSON ({str(exc)[:120]})", request_sent=True
        ) from None


def decoded(
    op: str, model: Callable[[object, str], T], *, allow_empty: bool = False
) -> Callable[[Response], T]:
    """A decoder: the answer's JSON through ``model``; every failure says request_sent."""

    def decode(response: Response) -> T:
        data = read_json(response, op, allow_empty=allow_empty)
        try:
            return model(data, op)
        except DecodeError as exc:
            exc.request_sent = True
            raise
        except RecursionError:
            raise DecodeError(f"{op}: the answer nests too deeply", request_sent=True) from None

    return decode


def nothing(response: Response) -> None:
    """For 204 answers (and any other 2xx): the body is not read."""
    return None


# -- a streamed chat answer ----------------------------------------------------------------
# The body of a streamed dialectic answer in, ChatChunks out. Both clients' streams pull
# chunks through ``Exchange.next_chunk``, which feeds this decoder the body bytes. It owns
# the SSE decoding, the JSON of each event, the final ``{"done": true}`` event, and the case
# of a server that ignored ``stream: true`` and answered one JSON body. A body that ends
# before the final event is a ProtocolError: a short answer never passes as a whole one.


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
