"""Sans-IO exchange of one call: a ``Call`` (what an operation is) becomes request bytes,
and the bytes that come back become the operation's result or its error. No sockets here.

Both clients are executors around this: they connect, send ``request()``, and ``feed``
what they read until ``needs_more`` is false; then ``result()`` (or, for a stream, the
chat decoder) finishes the job. Everything the server sends is redacted of the key before
any error or model can hold it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final, Generic, Protocol, TypeVar
from urllib.parse import quote

from ._chat import ChatDecoder
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
from ._models import ChatChunk
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


class Call(Generic[T]):
    """One operation, ready to send: pure data plus its decoder.

    ``ascii_body`` says every string in ``body`` is ASCII without DEL, so the encoder's
    faster ASCII mode gives the same bytes as UTF-8 (set only where that is known for free:
    a batch of plain messages). ``busy`` says a 409 means WorkspaceBusyError;
    ``on_status`` may turn a StatusError into a result (a 404 that means "not served") or a
    clearer error; ``stream`` marks a call whose 2xx body is read as server-sent chat
    events.
    """

    __slots__ = (
        "ascii_body",
        "body",
        "busy",
        "deadline",
        "decode",
        "method",
        "on_status",
        "op",
        "path",
        "query",
        "stream",
        "write",
    )

    def __init__(
        self,
        op: str,
        method: str,
        path: str,
        decode: Callable[[Response], T],
        *,
        query: tuple[tuple[str, str], ...] = (),
        body: Any = NO_BODY,
        ascii_body: bool = False,
        write: bool = False,
        busy: bool = False,
        stream: bool = False,
        on_status: Callable[[StatusError], T] | None = None,
        deadline: float | None = None,
    ) -> None:
        self.op = op
        self.method = method
        self.path = path
        self.decode = decode
        self.query = query
        self.body = body
        self.ascii_body = ascii_body
        self.write = write
        self.busy = busy
        self.stream = stream
        self.on_status = on_status
        self.deadline = deadline

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


class Closable(Protocol):
    def close(self) -> None: ...


class Guard:
    """See ``Exchange.guard``."""

    __slots__ = ("_connection", "_exchange")

    def __init__(self, exchange: Exchange[Any], connection: Closable) -> None:
        self._exchange = exchange
        self._connection = connection

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: BaseException | None, trace: object) -> bool:
        if error is None:
            return False
        if isinstance(error, RonchoError) and self._exchange.failing:
            return True
        self._connection.close()
        return False


class Exchange(Generic[T]):
    """The state of one call between the request and its result."""

    def __init__(self, call: Call[T], key: bytearray | None, max_body: int) -> None:
        self.call = call
        self._key = key
        self._max_body = max_body
        self._parser = ResponseParser(max_body=max_body, request_method=call.method)
        self._chunks: list[bytes] = []
        self._size = 0
        self._whole: bytearray | None = None  # a large 2xx body, filled up to ``_size``
        self.head: ResponseHead | None = None
        self.failing = False  # a non-2xx head arrived: read a little of its body, then stop
        self.ended = False
        self.chat: ChatDecoder | None = None
        self.streaming = False
        self.starved = True  # the parser needs bytes from the connection

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

    @property
    def needs_more(self) -> bool:
        if self.ended:
            return False
        if self.call.stream and not self.failing:
            return self.head is None
        return True

    def feed(self, data: bytes) -> None:
        """Bytes read from the connection; ``b""`` when the server closed it."""
        self._parser.feed(data)
        del data  # it may echo the key: no frame a traceback keeps may hold it
        self.pump()

    def room(self) -> memoryview | None:
        """Where the connection may read the body's next bytes itself (``recv_into``, then
        ``filled``), or None: read some bytes and ``feed`` them.

        Offered only inside a 2xx body of announced length with at least WHOLE_BODY_BYTES
        still to come, and never past its end, so the cap holds as before. The buffer is
        the whole body's, made at the first offer: what came with the head is copied in, and
        the rest is read there with no further copy and no join at the end.
        """
        if self.ended or self.failing or self.call.stream:
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

    def sending(self, endpoint: Endpoint) -> Sending:
        """The request, for a ``with`` block that sends it: with a key, its bytes are
        zeroed when the block ends, sent or not, so no frame a traceback keeps holds it."""
        return Sending(self.request(endpoint))

    def received(self, data: bytes | int) -> None:
        """What a read gave: bytes to ``feed``, or a count read into ``room()``."""
        if isinstance(data, int):
            self.filled(data)
        else:
            self.feed(data)

    def guard(self, connection: Closable) -> Guard:
        """For the ``with`` block that sends the request and reads the answer: an error
        closes ``connection`` and goes on, except a failed read after an error status
        arrived, which ends the block quietly (that status is the answer)."""
        return Guard(self, connection)

    def filled(self, count: int) -> None:
        """``count`` bytes were read into ``room()``; 0 when the server closed the connection."""
        if count == 0:
            self.feed(b"")
            return
        self._parser.took(count)
        self._size += count
        self.pump()

    def start_stream(self) -> None:
        """Let a stream's body flow into its chat decoder (until now only the head was read),
        so an error in what came with the head is raised by the stream, as later ones are."""
        self.streaming = True
        self.pump()

    def pump(self) -> None:
        try:
            self.starved = False
            while not self.ended:
                chat = self.chat
                if chat is not None and (not self.streaming or chat.pending):
                    # A stream's body waits for the stream, and each chunk is handed out
                    # before the next event is read (a bad end must not hide good chunks).
                    return
                event = self._parser.next_event()
                if event is None:
                    self.starved = True
                    return
                self._take(event)
        except RonchoError as exc:
            if self.failing:  # the status is what matters; keep whatever body arrived
                self.ended = True
                return
            if exc.request_sent:
                raise
            # The parser's errors know nothing of the request: name it, and say it was sent.
            raise type(exc)(f"{self.call.what}: {exc}", request_sent=True) from None

    def _take(self, event: ResponseHead | BodyData | ResponseEnd) -> None:
        if isinstance(event, BodyData):
            if self.chat is not None:
                self.chat.feed(event.data)
                return
            if self._whole is not None:
                end = self._size + len(event.data)
                self._whole[self._size : end] = event.data
                self._size = end
                return
            self._chunks.append(event.data)
            self._size += len(event.data)
            if self.failing and self._size >= ERROR_BODY_BYTES:
                self.ended = True
        elif isinstance(event, ResponseHead):
            self.head = event
            if not 200 <= event.status < 300:
                self.failing = True
            elif self.call.stream:
                self.chat = ChatDecoder(
                    self.call.op, event.get("content-type"), self._max_body, self.redact
                )
        else:
            self.ended = True
            if self.chat is not None:
                self.chat.end()

    def next_chunk(self, closed: bool) -> ChatChunk | None:
        """A stream's next chunk, or None when bytes must be read first (``feed``).

        Raises StopIteration once the final chunk has been handed out, and ProtocolError
        when the stream was ``closed`` before its final event (a cut answer never passes
        as a whole one).
        """
        chat = self.chat
        assert chat is not None
        while (chunk := chat.pop()) is None:
            if chat.finished:
                raise StopIteration
            if closed:
                raise ProtocolError(
                    f"{self.call.op}: the stream was closed before its final event",
                    request_sent=True,
                )
            if not self.streaming:
                self.start_stream()
            elif self.starved:
                return None
            else:
                self.pump()
        return chunk

    def result(self) -> T:
        """The decoded answer, or the error the answer means."""
        call = self.call
        if self.failing:
            failure = self.failure()
            if call.on_status is not None and isinstance(failure, StatusError):
                return call.on_status(failure)
            raise failure
        assert self.head is not None and self.ended
        whole, self._whole = self._whole, None
        if whole is None:
            response = Response(self._scrub(self.head), self.redact(b"".join(self._chunks)))
        else:
            response = Response(self._scrub(self.head), self.redact(whole))
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
        # What the exchange keeps (a frame a reporter records may reach it) is redacted too.
        self.head = self._scrub(head)
        if 300 <= head.status < 400:
            location = head.get("location")
            if location is not None:
                location = self.redact(location.encode("latin-1")).decode("latin-1")[:200]
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
