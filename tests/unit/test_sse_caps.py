"""The event-stream decoder, sans-IO, where a client cannot show it: a line's and an
event's caps (through a client the body cap, which these share, is met first) with the
texts that name them, and the one leading BOM the stream may start with (however the
bytes are split between reads, only the stream's first line loses it)."""

from __future__ import annotations

import pytest

from roncho import ResponseTooLargeError
from roncho._sse import SSEDecoder


@pytest.mark.parametrize(
    "data",
    [b"data: 0123456789\n", b"data: 0123456789", b"data: 01234\r"],
    ids=["complete-line", "unterminated-line", "line-ended-by-cr"],
)
def test_a_line_over_its_cap_is_refused_naming_the_cap(data: bytes) -> None:
    decoder = SSEDecoder(10)
    with pytest.raises(ResponseTooLargeError) as info:
        decoder.feed(data)
    assert str(info.value) == "an event-stream line exceeds 10 bytes"


def test_a_line_at_its_cap_is_read() -> None:
    assert [e.data for e in SSEDecoder(10).feed(b"data: 0123\n\n")] == ["0123"]


def test_an_event_over_its_cap_is_refused_naming_the_cap() -> None:
    decoder = SSEDecoder(20)
    with pytest.raises(ResponseTooLargeError) as info:
        decoder.feed(b"data: 0123456789\ndata: 0123456789\n\n")
    assert str(info.value) == "an event-stream event exceeds 20 characters"


def test_only_the_streams_first_line_loses_a_leading_bom() -> None:
    decoder = SSEDecoder(1000)
    assert [e.data for e in decoder.feed(b"\xef\xbb\xbfdata: a\n\n")] == ["a"]
    # A later read that starts with a BOM: that line's field is "\ufeffdata", not data.
    assert decoder.feed(b"\xef\xbb\xbfdata: b\n\n") == []
    assert [e.data for e in decoder.feed(b"data: c\n\n")] == ["c"]
