"""The event-stream decoder's caps, sans-IO: through a client the body cap (which these
share) is met first, so only here can a line or an event be seen to stop at its own cap,
with the text that names it."""

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
