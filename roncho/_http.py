"""Sans-IO HTTP/1.1: request bytes out, response events in. No sockets here.

Strategy: ``build_request`` renders one request (always ``Connection: close``). A
``ResponseParser`` is fed whatever bytes arrive, in any split, and hands back events::

    ResponseHead -> BodyData* -> ResponseEnd

``next_event()`` returns None when it needs more bytes. A Content-Length body may also be
read past the parser: ``room()`` says how many of its bytes the caller may read into a
buffer of its own, ``took()`` counts them in (they are not handed out again as events).
The parser's states::

    HEAD --1xx--> HEAD
    HEAD --(HEAD request, 204, 304)--> LENGTH(0) -> DONE
    HEAD --Transfer-Encoding: chunked--> CHUNK_SIZE -> CHUNK_DATA -> CHUNK_END -> CHUNK_SIZE ...
                                         CHUNK_SIZE(0) -> TRAILERS -> DONE
    HEAD --Content-Length--> LENGTH -> DONE
    HEAD --neither--> UNTIL_CLOSE -> DONE (at EOF)

It refuses what a careful parser refuses (RFC 9112 §6.3): both Content-Length and
Transfer-Encoding, conflicting or non-numeric lengths, transfer codings other than
chunked, bad chunk sizes, obsolete line folding, and a body shorter than announced.
Size caps are enforced as bytes arrive, so reading stops at the cap.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum, auto
from typing import NamedTuple

from ._errors import ConfigError, ProtocolError, ResponseTooLargeError

# The whole status line plus header section (and, separately, the trailer section).
# CPython's http.client allows 100 headers of 64 KiB each; a Honcho answer needs < 1 KiB.
MAX_HEADER_BYTES = 64 * 1024
# A chunk-size line with its extensions; RFC 9112 sets no limit, h11 uses the header cap.
MAX_CHUNK_LINE_BYTES = 4096
# More hex digits than this would describe a chunk over 2**64 bytes.
MAX_CHUNK_SIZE_DIGITS = 16
# Interim responses skipped before the real one; servers send at most one or two.
MAX_INTERIM_RESPONSES = 16
# A Content-Length longer than this is not a number anyone means.
MAX_LENGTH_DIGITS = 20

_STATUS_LINE = re.compile(rb"HTTP/1\.([01]) ([0-9]{3})(?: ([^\x00-\x08\x0a-\x1f\x7f]*))?")
_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_BAD_VALUE = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_CHUNK_SIZE = re.compile(rb"([0-9A-Fa-f]+)[ \t]*(?:;[^\r\n]*)?")
_DIGITS = re.compile(r"[0-9]+")
# What may appear in a request target, header name or header value we send.
_SAFE_TARGET = re.compile(r"/[A-Za-z0-9._~!$&'()*+,;=:@/%-]*(\?[A-Za-z0-9._~!$&'()*+,;=:@/?%-]*)?")
_SAFE_HEADER_VALUE = re.compile(r"[\x20-\x7e]*")
_METHODS_WITH_BODY = frozenset({"POST", "PUT", "PATCH"})


def build_request(
    method: str,
    target: str,
    host_header: str,
    headers: list[tuple[str, str]],
    body: bytes | None,
    *,
    bearer: bytearray | None = None,
) -> bytes | bytearray:
    """Render one HTTP/1.1 request, the whole byte layout. Refuses anything that could
    split a line.

    The ids in ``target`` were already checked against Honcho's rule; this is the last
    guard, so no argument can ever add a header or a second request. With ``bearer``
    (already checked as a b64token) the ``Authorization`` header follows ``Host`` and the
    result is a bytearray the caller wipes once sent: no str or bytes copy of the key is
    made. A POST, PUT or PATCH without a body still says ``Content-Length: 0`` (RFC 9110
    §8.6; some proxies answer 411 otherwise).
    """
    if not _TOKEN.fullmatch(method.encode("ascii", "replace")):
        raise ConfigError("invalid HTTP method")
    if not _SAFE_TARGET.fullmatch(target):
        raise ConfigError("request target holds characters that cannot appear in a path")
    lines = []
    for name, value in headers:
        bad_name = not _TOKEN.fullmatch(name.encode("ascii", "replace"))
        if bad_name or not _SAFE_HEADER_VALUE.fullmatch(value):
            raise ConfigError(f"header {name!r} holds characters a header cannot carry")
        lines.append(f"{name}: {value}")
    if body is None and method in _METHODS_WITH_BODY:
        body = b""
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    lines.append("Connection: close")
    start = f"{method} {target} HTTP/1.1\r\nHost: {host_header}\r\n".encode("ascii")
    rest = ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")
    if bearer is None:
        return start + rest + body if body else start + rest
    wire = bytearray(start + b"Authorization: Bearer ")
    wire += bearer  # into the bytearray only: no bytes object ever holds the key
    wire += b"\r\n" + rest
    if body:
        wire += body
    return wire


# Internal records are NamedTuples, not dataclasses: they cost less to create at import, and
# callers never see them (benchmarks/RESULTS.md has the import figures).
class ResponseHead(NamedTuple):
    """Status line and headers; names are lower-cased, values latin-1 decoded."""

    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    http_version: str = "1.1"

    def get(self, name: str) -> str | None:
        """The first value of a header, or None."""
        values = self.get_all(name)
        return values[0] if values else None

    def get_all(self, name: str) -> list[str]:
        name = name.lower()
        return [value for key, value in self.headers if key == name]


class BodyData(NamedTuple):
    data: bytes


class ResponseEnd(NamedTuple):
    trailers: tuple[tuple[str, str], ...] = ()


Event = ResponseHead | BodyData | ResponseEnd


class _State(Enum):
    HEAD = auto()
    LENGTH = auto()
    CHUNK_SIZE = auto()
    CHUNK_DATA = auto()
    CHUNK_END = auto()
    TRAILERS = auto()
    UNTIL_CLOSE = auto()
    DONE = auto()


class ResponseParser:
    """Incremental parser for one response to one request.

    Args:
        max_body: the cap on body bytes; one byte more raises ResponseTooLargeError.
        request_method: a response to HEAD has no body, whatever its headers say.
        max_header_bytes: the cap on the status line plus headers, and on trailers.
    """

    def __init__(
        self,
        *,
        max_body: int,
        request_method: str = "GET",
        max_header_bytes: int = MAX_HEADER_BYTES,
    ) -> None:
        self._max_body = max_body
        self._max_header = max_header_bytes
        self._head_request = request_method.upper() == "HEAD"
        self._buf = bytearray()
        self._eof = False
        self._state = _State.HEAD
        self._scan_from = 0  # where the search for the end of the head resumes
        self._remaining = 0  # bytes left in the Content-Length body or current chunk
        self._body_seen = 0
        self._pending_error: Exception | None = None
        self._interim = 0
        self.head: ResponseHead | None = None

    # -- input ---------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """Add received bytes; ``b""`` means the peer closed the connection."""
        if data:
            if self._eof:
                raise ProtocolError("data after end of input")
            self._buf += data
        else:
            self._eof = True

    @property
    def done(self) -> bool:
        return self._state is _State.DONE

    def length_left(self) -> int | None:
        """Bytes of a Content-Length body not yet handed out or taken, buffered ones
        included; None for any other framing, and for a length over the cap (its error
        comes with the next event)."""
        if self._state is _State.LENGTH and self._pending_error is None:
            return self._remaining
        return None

    def room(self) -> int:
        """How many bytes of a Content-Length body the caller may read past the parser,
        into a buffer of its own, and then report with ``took``: the rest of the body once
        nothing is buffered here, else 0. Never more than the body still announced, so
        the cap holds and no byte after the body is taken."""
        if self._buf or self._eof:
            return 0
        return self.length_left() or 0

    def took(self, count: int) -> None:
        """``count`` body bytes (1 to ``room()``) were read past the parser."""
        if not 0 < count <= self.room():
            raise ValueError(f"took {count} bytes with room for {self.room()}")
        self._remaining -= count
        self._body_seen += count

    # -- output --------------------------------------------------------------------------
    def next_event(self) -> Event | None:
        """The next event, or None when more bytes are needed."""
        if self._pending_error is not None:
            raise self._pending_error
        return _READ_NEXT[self._state](self)

    # -- head ----------------------------------------------------------------------------
    def _maybe_read_head(self) -> Event | None:
        while True:
            head = self._maybe_read_one_head()
            if head is None or not 100 <= head.status < 200:
                return head
            if head.status == 101:
                raise ProtocolError("server switched protocols, which roncho never asks for")
            # An interim response (RFC 9110 §15.2): skip it and read the real one, but not
            # forever: a stream of them would otherwise hold the caller past every idle timeout.
            self._interim += 1
            if self._interim > MAX_INTERIM_RESPONSES:
                raise ProtocolError(f"more than {MAX_INTERIM_RESPONSES} interim (1xx) responses")

    def _maybe_read_one_head(self) -> ResponseHead | None:
        lines = self._maybe_take_section(
            f"response header section exceeds {self._max_header} bytes"
        )
        if lines is None:
            if self._eof:
                if not self._buf:
                    raise ProtocolError("server closed the connection without answering")
                raise ProtocolError("connection closed before the response headers were complete")
            return None
        status_match = _STATUS_LINE.fullmatch(lines[0])
        if status_match is None:
            raise ProtocolError("malformed status line")
        status = int(status_match.group(2))
        reason = (status_match.group(3) or b"").decode("latin-1")
        headers = _parse_fields(lines[1:], "header")
        head = ResponseHead(status, reason, headers, "1." + status_match.group(1).decode())
        if 100 <= status < 200:
            return head
        self.head = head
        self._choose_framing(head)
        return head

    def _choose_framing(self, head: ResponseHead) -> None:
        lengths = head.get_all("content-length")
        codings = head.get_all("transfer-encoding")
        if self._head_request or head.status in (204, 304):
            # No body whatever the headers say (RFC 9112 §6.3); still end with ResponseEnd.
            self._remaining = 0
            self._state = _State.LENGTH
            return
        if codings:
            if lengths:
                raise ProtocolError("response has both Content-Length and Transfer-Encoding")
            if head.http_version == "1.0":  # RFC 9112 §6.1: treat the framing as faulty
                raise ProtocolError("an HTTP/1.0 response cannot use Transfer-Encoding")
            coding = [c.strip().lower() for v in codings for c in v.split(",") if c.strip()]
            if coding != ["chunked"]:
                raise ProtocolError(f"unsupported Transfer-Encoding {', '.join(coding)!r}")
            self._state = _State.CHUNK_SIZE
            return
        if lengths:
            values = {v.strip() for line in lengths for v in line.split(",")}
            if len(values) != 1:
                raise ProtocolError("conflicting Content-Length values")
            (value,) = values
            if not _DIGITS.fullmatch(value) or len(value) > MAX_LENGTH_DIGITS:
                raise ProtocolError("invalid Content-Length")
            length = int(value)
            if length > self._max_body:
                # Raised on the next call, so the caller still sees the head (and status).
                self._pending_error = ResponseTooLargeError(
                    f"response announces {length} bytes, over the cap of {self._max_body}"
                )
            self._remaining = length
            self._state = _State.LENGTH  # a zero length ends with ResponseEnd at once
            return
        self._state = _State.UNTIL_CLOSE

    # -- bodies --------------------------------------------------------------------------
    def _take(self, count: int) -> BodyData:
        if count == len(self._buf):  # the usual case in a body: one copy, not two
            data = bytes(self._buf)
            self._buf.clear()
        else:
            data = bytes(self._buf[:count])
            del self._buf[:count]
        self._body_seen += count
        if self._body_seen > self._max_body:
            raise ResponseTooLargeError(f"response body exceeds the cap of {self._max_body} bytes")
        return BodyData(data)

    def _maybe_read_length_body(self) -> Event | None:
        if self._remaining == 0:
            self._state = _State.DONE
            return ResponseEnd()
        if self._buf:
            event = self._take(min(self._remaining, len(self._buf)))
            self._remaining -= len(event.data)
            return event
        if self._eof:
            raise ProtocolError(
                f"connection closed with {self._remaining} bytes of the body still to come"
            )
        return None

    def _maybe_read_until_close(self) -> Event | None:
        if self._buf:
            return self._take(len(self._buf))
        if self._eof:
            self._state = _State.DONE
            return ResponseEnd()
        return None

    def _maybe_read_chunk_size(self) -> Event | None:
        line = self._maybe_take_line(MAX_CHUNK_LINE_BYTES, "chunk size line")
        if line is None:
            return None
        match = _CHUNK_SIZE.fullmatch(line)
        if match is None:
            raise ProtocolError("malformed chunk size line")
        digits = match.group(1)
        if len(digits) > MAX_CHUNK_SIZE_DIGITS:
            raise ProtocolError("chunk size overflows")
        size = int(digits, 16)
        if size == 0:
            self._state = _State.TRAILERS
            self._scan_from = 0
            return self.next_event()
        if self._body_seen + size > self._max_body:
            raise ResponseTooLargeError(f"response body exceeds the cap of {self._max_body} bytes")
        self._remaining = size
        self._state = _State.CHUNK_DATA
        return self.next_event()

    def _maybe_read_chunk_data(self) -> Event | None:
        if self._buf:
            event = self._take(min(self._remaining, len(self._buf)))
            self._remaining -= len(event.data)
            if self._remaining == 0:
                self._state = _State.CHUNK_END
            return event
        if self._eof:
            raise ProtocolError("connection closed in the middle of a chunk")
        return None

    def _maybe_read_chunk_end(self) -> Event | None:
        if self._buf.startswith(b"\r\n"):
            del self._buf[:2]
        elif self._buf.startswith(b"\n"):
            del self._buf[:1]
        elif self._buf == b"\r" and not self._eof:
            return None
        elif self._buf:
            raise ProtocolError("chunk data is longer than its announced size")
        elif self._eof:
            raise ProtocolError("connection closed after a chunk, before the final chunk")
        else:
            return None
        self._state = _State.CHUNK_SIZE
        return self.next_event()

    def _maybe_read_trailers(self) -> Event | None:
        # The trailer section ends with an empty line; it may be empty itself.
        if self._buf.startswith(b"\r\n") or self._buf.startswith(b"\n"):
            del self._buf[: 2 if self._buf.startswith(b"\r\n") else 1]
            self._state = _State.DONE
            return ResponseEnd()
        lines = self._maybe_take_section("response trailer section is too large")
        if lines is None:
            if self._eof:
                raise ProtocolError("connection closed before the final chunk's trailers ended")
            return None
        self._state = _State.DONE
        return ResponseEnd(_parse_fields(lines, "trailer"))

    def _maybe_take_section(self, too_large: str) -> list[bytes] | None:
        """The lines of a header or trailer section once its blank line is in, else None
        (the caller says what an end of input there means)."""
        match = _HEAD_END.search(self._buf, self._scan_from)
        if match is None:
            # Up to 3 bytes of the blank-line terminator may already be here (CR LF CR),
            # so the cap is judged the same way whatever the split of the reads.
            if len(self._buf) - 3 > self._max_header:
                raise ResponseTooLargeError(too_large)
            self._scan_from = max(0, len(self._buf) - 3)
            return None
        if match.start() > self._max_header:
            raise ResponseTooLargeError(too_large)
        raw = bytes(self._buf[: match.start()])
        del self._buf[: match.end()]
        self._scan_from = 0
        return [line[:-1] if line.endswith(b"\r") else line for line in raw.split(b"\n")]

    def _maybe_take_line(self, limit: int, what: str) -> bytes | None:
        end = self._buf.find(b"\n", 0, limit + 2)
        if end < 0:
            if len(self._buf) > limit + 1:  # the line and its CR, LF still to come
                raise ProtocolError(f"{what} is too long")
            if self._eof:
                raise ProtocolError(f"connection closed in a {what}")
            return None
        line = bytes(self._buf[:end])
        del self._buf[: end + 1]
        return line[:-1] if line.endswith(b"\r") else line


def _done(parser: ResponseParser) -> None:
    return None


# What the parser reads next in each state.
_READ_NEXT: dict[_State, Callable[[ResponseParser], Event | None]] = {
    _State.HEAD: ResponseParser._maybe_read_head,
    _State.LENGTH: ResponseParser._maybe_read_length_body,
    _State.UNTIL_CLOSE: ResponseParser._maybe_read_until_close,
    _State.CHUNK_SIZE: ResponseParser._maybe_read_chunk_size,
    _State.CHUNK_DATA: ResponseParser._maybe_read_chunk_data,
    _State.CHUNK_END: ResponseParser._maybe_read_chunk_end,
    _State.TRAILERS: ResponseParser._maybe_read_trailers,
    _State.DONE: _done,
}


def _parse_fields(lines: list[bytes], what: str) -> tuple[tuple[str, str], ...]:
    fields: list[tuple[str, str]] = []
    for line in lines:
        if line[:1] in (b" ", b"\t"):
            raise ProtocolError(f"obsolete line folding in a {what}")
        name, sep, value = line.partition(b":")
        if not sep or not _TOKEN.fullmatch(name):
            raise ProtocolError(f"malformed {what} line")
        value = value.strip(b" \t")
        if _BAD_VALUE.search(value):
            raise ProtocolError(f"control character in a {what} value")
        fields.append((name.decode("ascii").lower(), value.decode("latin-1")))
    return tuple(fields)
