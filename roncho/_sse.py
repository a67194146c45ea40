"""Sans-IO server-sent events (WHATWG HTML §9.2.6): bytes -> lines -> events.

Two small stateful pieces hand off to each other: ``LineDecoder`` buffers bytes across
network reads and cuts complete lines (CRLF, LF or CR; a CR at the end of one read may
pair with an LF at the start of the next), decoding UTF-8 only at line boundaries, so a
multi-byte character split between reads is never mangled. ``EventDecoder`` turns lines
into events: ``data:`` lines accumulate, a blank line dispatches, ``:`` comments and
unknown fields are ignored. As the spec says, an event not closed by a blank line when
the stream ends is discarded. ``SSEDecoder`` chains the two.
"""

from __future__ import annotations

from typing import NamedTuple

from ._errors import DecodeError, ResponseTooLargeError


class ServerSentEvent(NamedTuple):
    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None


class LineDecoder:
    """Cuts complete lines out of arbitrarily split bytes; caps one line's length."""

    def __init__(self, max_line_bytes: int) -> None:
        self._max = max_line_bytes
        self._buf = bytearray()
        self._skip_lf = False  # the previous read ended in CR; a leading LF belongs to it
        self._first = True  # the stream's first line may start with a BOM (WHATWG §9.2.6)

    def feed(self, data: bytes) -> list[str]:
        if self._skip_lf and data:
            if data.startswith(b"\n"):
                data = data[1:]
            self._skip_lf = False
        self._buf += data
        lines: list[str] = []
        start = 0
        buf = self._buf
        while True:
            cr = buf.find(b"\r", start)
            lf = buf.find(b"\n", start)
            if cr < 0 and lf < 0:
                break
            if lf < 0 or (0 <= cr < lf):
                end, nxt = cr, cr + 1
                if nxt < len(buf):
                    if buf[nxt] == 0x0A:
                        nxt += 1
                else:
                    self._skip_lf = True
            else:
                end, nxt = lf, lf + 1
            lines.append(self._decode(buf[start:end]))
            start = nxt
        del buf[:start]
        if self._first and lines:
            lines[0] = lines[0].removeprefix("\ufeff")  # one leading BOM is ignored
            self._first = False
        if len(buf) > self._max:
            raise ResponseTooLargeError(f"an event-stream line exceeds {self._max} bytes")
        return lines

    def _decode(self, raw: bytes | bytearray) -> str:
        if len(raw) > self._max:
            raise ResponseTooLargeError(f"an event-stream line exceeds {self._max} bytes")
        try:
            return bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            raise DecodeError("event stream is not valid UTF-8") from None

    @property
    def pending(self) -> bool:
        """True when an unterminated line is buffered (it is dropped at the end)."""
        return bool(self._buf)


class EventDecoder:
    """Turns lines into events; caps the data one event may gather."""

    def __init__(self, max_event_chars: int) -> None:
        self._max = max_event_chars
        self._data: list[str] = []
        self._size = 0
        self._event = ""
        self._id: str | None = None
        self._retry: int | None = None

    def decode(self, line: str) -> ServerSentEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None  # a comment, often a keep-alive
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
            self._size += len(value) + 1
            if self._size > self._max:
                raise ResponseTooLargeError(f"an event-stream event exceeds {self._max} characters")
        elif field == "event":
            self._event = value
        elif field == "id":
            if "\0" not in value:
                self._id = value
        elif field == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        if not self._data:
            # The spec dispatches nothing without data; event/retry fields are reset.
            self._event, self._retry = "", None
            return None
        event = ServerSentEvent(
            "\n".join(self._data), self._event or "message", self._id, self._retry
        )
        self._data, self._size, self._event, self._retry = [], 0, "", None
        return event


class SSEDecoder:
    """Bytes in, complete events out."""

    def __init__(self, max_bytes: int) -> None:
        self._lines = LineDecoder(max_bytes)
        self._events = EventDecoder(max_bytes)

    def feed(self, data: bytes) -> list[ServerSentEvent]:
        events = []
        for line in self._lines.feed(data):
            event = self._events.decode(line)
            if event is not None:
                events.append(event)
        return events
