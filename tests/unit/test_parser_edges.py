"""The HTTP parser at the exact edges the whole mutation run found unheld.

Each test feeds a response that sits on a boundary (a length of exactly the digit cap, a
head whose end is its first bytes) and says what a caller sees there: a value read, or an
error at once rather than a wait for bytes that will not come.
"""

from __future__ import annotations

import pytest

from roncho import ProtocolError, ResponseTooLargeError
from roncho._http import (
    MAX_CHUNK_SIZE_DIGITS,
    MAX_LENGTH_DIGITS,
    BodyData,
    ResponseEnd,
    ResponseHead,
    ResponseParser,
)

CAP = 1024


def events(parser: ResponseParser) -> list[object]:
    """Every event the parser can give from what it holds."""
    out: list[object] = []
    while (event := parser.next_event()) is not None:
        out.append(event)
        if isinstance(event, ResponseEnd):
            break
    return out


def test_a_blank_line_where_the_status_line_belongs_is_refused_at_once() -> None:
    """A server that answers an empty head and stalls is told apart from a slow one."""
    parser = ResponseParser(max_body=CAP)
    parser.feed(b"\n\n")
    with pytest.raises(ProtocolError, match="malformed status line"):
        parser.next_event()


def test_a_blank_head_split_after_its_first_byte_is_refused_when_its_end_arrives() -> None:
    parser = ResponseParser(max_body=CAP)
    parser.feed(b"\n")
    assert parser.next_event() is None
    parser.feed(b"\n")
    with pytest.raises(ProtocolError, match="malformed status line"):
        parser.next_event()


def test_a_blank_head_after_an_interim_response_is_refused_at_once() -> None:
    """The search for the real head's end starts at its first byte, not one after."""
    parser = ResponseParser(max_body=CAP)
    parser.feed(b"HTTP/1.1 100 Continue\r\n\r\n\n\n")
    with pytest.raises(ProtocolError, match="malformed status line"):
        parser.next_event()


def test_a_content_length_of_exactly_the_digit_cap_is_read() -> None:
    """Leading zeros are allowed; only a longer number than the cap is refused."""
    length = "5".rjust(MAX_LENGTH_DIGITS, "0")
    parser = ResponseParser(max_body=CAP)
    parser.feed(f"HTTP/1.1 200 OK\r\nContent-Length: {length}\r\n\r\nhello".encode())
    got = events(parser)
    assert isinstance(got[0], ResponseHead) and got[0].status == 200
    assert b"".join(e.data for e in got if isinstance(e, BodyData)) == b"hello"
    assert isinstance(got[-1], ResponseEnd)


def test_a_content_length_one_digit_over_the_cap_is_refused() -> None:
    length = "5".rjust(MAX_LENGTH_DIGITS + 1, "0")
    parser = ResponseParser(max_body=CAP)
    parser.feed(f"HTTP/1.1 200 OK\r\nContent-Length: {length}\r\n\r\nhello".encode())
    with pytest.raises(ProtocolError, match="invalid Content-Length"):
        parser.next_event()


def test_an_announced_length_over_the_cap_is_refused_naming_length_and_cap() -> None:
    """The caller learns how big the answer was and which cap to raise."""
    parser = ResponseParser(max_body=CAP)
    parser.feed(f"HTTP/1.1 200 OK\r\nContent-Length: {CAP + 1}\r\n\r\n".encode())
    assert isinstance(parser.next_event(), ResponseHead)
    with pytest.raises(ResponseTooLargeError) as caught:
        parser.next_event()
    assert str(caught.value) == f"response announces {CAP + 1} bytes, over the cap of {CAP}"


def test_a_chunk_size_of_exactly_the_digit_cap_is_read() -> None:
    size = "a".rjust(MAX_CHUNK_SIZE_DIGITS, "0")
    parser = ResponseParser(max_body=CAP)
    parser.feed(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + size.encode()
        + b"\r\n0123456789\r\n0\r\n\r\n"
    )
    got = events(parser)
    assert b"".join(e.data for e in got if isinstance(e, BodyData)) == b"0123456789"
    assert isinstance(got[-1], ResponseEnd)


def test_a_chunk_size_one_digit_over_the_cap_is_refused() -> None:
    size = "a".rjust(MAX_CHUNK_SIZE_DIGITS + 1, "0")
    parser = ResponseParser(max_body=CAP)
    parser.feed(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + size.encode() + b"\r\n")
    assert isinstance(parser.next_event(), ResponseHead)
    with pytest.raises(ProtocolError) as info:
        parser.next_event()
    assert str(info.value) == "chunk size overflows"


def test_a_malformed_trailer_is_refused_naming_the_trailer() -> None:
    """The text says the fault is in the trailers, not in the head the caller saw."""
    parser = ResponseParser(max_body=CAP)
    parser.feed(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"2\r\nhi\r\n0\r\nno colon here\r\n\r\n"
    )
    with pytest.raises(ProtocolError) as caught:
        events(parser)
    assert str(caught.value) == "malformed trailer line"
