"""Server-sent events at the edges the whole mutation run found unheld."""

from __future__ import annotations

import pytest

from roncho import ResponseTooLargeError
from roncho._sse import EventDecoder, LineDecoder


def test_a_stream_that_starts_with_an_empty_line_keeps_it() -> None:
    """Only an LF after a CR that ended the previous read is dropped, never the first byte."""
    assert LineDecoder(100).feed(b"\nabc\n") == ["", "abc"]


def test_a_bom_after_a_leading_empty_line_is_not_the_streams_bom() -> None:
    """WHATWG ignores one BOM at the very start of the stream only."""
    assert LineDecoder(100).feed(b"\n\xef\xbb\xbfdata: x\n") == ["", "\ufeffdata: x"]


def test_each_event_gets_the_whole_data_cap_after_an_earlier_event() -> None:
    """The cap counts one event's data: the count starts again at zero after a dispatch."""
    cap = 10
    decoder = EventDecoder(cap)
    assert decoder.decode("data: 12345678") is None
    first = decoder.decode("")
    assert first is not None and first.data == "12345678"
    assert decoder.decode("data: 123456789") is None  # 9 characters and its newline: 10
    second = decoder.decode("")
    assert second is not None and second.data == "123456789"


def test_an_event_over_the_data_cap_is_refused() -> None:
    decoder = EventDecoder(10)
    with pytest.raises(ResponseTooLargeError, match="exceeds 10 characters"):
        decoder.decode("data: 1234567890")
