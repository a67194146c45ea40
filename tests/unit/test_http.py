"""The sans-IO HTTP/1.1 parser and request builder, without sockets.

Every accepted response is fed whole, byte by byte, and (when its framing ends by itself)
with trailing bytes after it, and must give the same result each way (h11's ``tr``).
Every refused response must be refused each way, with the same error class.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

import pytest

from roncho import ConfigError, ProtocolError, ResponseTooLargeError, RonchoError
from roncho._http import (
    MAX_CHUNK_LINE_BYTES,
    MAX_HEADER_BYTES,
    BodyData,
    ResponseEnd,
    ResponseHead,
    ResponseParser,
    build_request,
)
from roncho._sse import SSEDecoder

CAP = 1024  # a small body cap so "one byte over" tests stay cheap
TRAILING = b"HTTP/1.1 500 junk after the response\r\n\r\n"


@dataclass(frozen=True)
class Parsed:
    head: ResponseHead
    body: bytes
    trailers: tuple[tuple[str, str], ...]
    needed_eof: bool


def parse(
    chunks: Iterable[bytes],
    *,
    method: str = "GET",
    max_body: int = CAP,
    max_header: int = MAX_HEADER_BYTES,
) -> Parsed:
    """Feed the chunks, then EOF if the response has not ended; collect the events."""
    parser = ResponseParser(max_body=max_body, request_method=method, max_header_bytes=max_header)
    head: ResponseHead | None = None
    body = bytearray()

    def drain() -> ResponseEnd | None:
        nonlocal head
        while (event := parser.next_event()) is not None:
            if isinstance(event, ResponseHead):
                assert head is None, "two final heads"
                head = event
            elif isinstance(event, BodyData):
                assert head is not None and event.data
                body.extend(event.data)
            else:
                assert isinstance(event, ResponseEnd)
                assert parser.done
                return event
        return None

    for chunk in chunks:
        parser.feed(chunk)
        end = drain()
        if end is not None:
            assert head is not None
            return Parsed(head, bytes(body), end.trailers, needed_eof=False)
    parser.feed(b"")
    end = drain()
    assert end is not None, "no ResponseEnd after EOF"
    assert head is not None
    return Parsed(head, bytes(body), end.trailers, needed_eof=True)


def byte_by_byte(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


def tr(data: bytes, *, method: str = "GET", max_body: int = CAP) -> Parsed:
    """Parse whole, byte by byte and (if self-delimited) with trailing bytes; all agree."""
    whole = parse([data], method=method, max_body=max_body)
    assert parse(byte_by_byte(data), method=method, max_body=max_body) == whole
    if not whole.needed_eof:
        assert parse([data + TRAILING], method=method, max_body=max_body) == whole
        assert parse([data, TRAILING], method=method, max_body=max_body) == whole
    return whole


def tr_error(data: bytes, error: type[RonchoError], *, method: str = "GET", **kw: int) -> None:
    """Refused whole and byte by byte, with this error class (and never another one)."""
    with pytest.raises(error):
        parse([data], method=method, **kw)
    with pytest.raises(error):
        parse(byte_by_byte(data), method=method, **kw)


# -- status line --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("line", "status", "reason", "version"),
    [
        (b"HTTP/1.1 200 OK", 200, "OK", "1.1"),
        (b"HTTP/1.1 404 Not Found Here", 404, "Not Found Here", "1.1"),
        (b"HTTP/1.1 200 ", 200, "", "1.1"),
        (b"HTTP/1.1 200", 200, "", "1.1"),
        (b"HTTP/1.0 503 Service Unavailable", 503, "Service Unavailable", "1.0"),
        (b"HTTP/1.1 599 caf\xe9", 599, "caf\xe9", "1.1"),
        (b"HTTP/1.1 200 tab\there", 200, "tab\there", "1.1"),
    ],
)
def test_http_status_line_forms(line: bytes, status: int, reason: str, version: str) -> None:
    parsed = tr(line + b"\r\nContent-Length: 2\r\n\r\nok")
    assert (parsed.head.status, parsed.head.reason, parsed.head.http_version) == (
        status,
        reason,
        version,
    )
    assert parsed.body == b"ok"


@pytest.mark.parametrize(
    "line",
    [
        b"HTTP/2 200 OK",
        b"HTTP/1.2 200 OK",
        b"HTTP/1.1 20 OK",
        b"HTTP/1.1 2000 OK",
        b"HTTP/1.1  200 OK",
        b" HTTP/1.1 200 OK",
        b"http/1.1 200 OK",
        b"ICY 200 OK",
        b"HTTP/1.1 200 O\x00K",
        b"HTTP/1.1 2x0 OK",
        b"SSH-2.0-OpenSSH_9.6",
    ],
)
def test_http_status_line_malformed_refused(line: bytes) -> None:
    tr_error(line + b"\r\nContent-Length: 0\r\n\r\n", ProtocolError)


def test_http_bare_lf_line_endings_accepted() -> None:
    parsed = tr(b"HTTP/1.1 200 OK\nContent-Length: 3\nX-A: b\n\nabc")
    assert parsed.body == b"abc"
    assert parsed.head.get("x-a") == "b"


# -- interim responses --------------------------------------------------------------------
def test_http_1xx_skipped() -> None:
    data = (
        b"HTTP/1.1 100 Continue\r\n\r\n"
        b"HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n"
        b"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}"
    )
    parsed = tr(data)
    assert parsed.head.status == 201
    assert parsed.head.get("link") is None  # the 103's headers are not merged in
    assert parsed.body == b"{}"


def test_http_101_refused() -> None:
    tr_error(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", ProtocolError)


# -- responses without a body -------------------------------------------------------------
@pytest.mark.parametrize(
    ("status", "method"), [(204, "DELETE"), (304, "GET"), (200, "HEAD"), (404, "HEAD")]
)
def test_http_no_body_whatever_the_headers_say(status: int, method: str) -> None:
    data = f"HTTP/1.1 {status} X\r\nContent-Length: 5\r\n\r\n".encode()
    parsed = tr(data, method=method)
    assert parsed.head.status == status
    assert parsed.body == b""
    assert not parsed.needed_eof  # ends at the blank line; "hello" would be the next response


def test_http_204_without_length_ends_at_once() -> None:
    parsed = tr(b"HTTP/1.1 204 No Content\r\nContent-Type: application/json\r\n\r\n")
    assert parsed.body == b"" and not parsed.needed_eof


def test_http_head_method_is_case_insensitive() -> None:
    parsed = tr(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", method="head")
    assert parsed.body == b""


# -- Content-Length -----------------------------------------------------------------------
@pytest.mark.parametrize("body", [b"", b"x", b'{"status":"ok"}', bytes(range(256))])
def test_http_content_length_body(body: bytes) -> None:
    data = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    parsed = tr(data)
    assert parsed.body == body
    assert not parsed.needed_eof


@pytest.mark.parametrize("value", [b"5, 5", b"5,5", b" 5 "])
def test_http_content_length_repeated_same_value_accepted(value: bytes) -> None:
    parsed = tr(b"HTTP/1.1 200 OK\r\nContent-Length: " + value + b"\r\n\r\nhello")
    assert parsed.body == b"hello"


def test_http_content_length_duplicate_headers_same_value_accepted() -> None:
    parsed = tr(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello")
    assert parsed.body == b"hello"


@pytest.mark.parametrize(
    "headers",
    [
        b"Content-Length: 5\r\nContent-Length: 6\r\n",
        b"Content-Length: 5, 6\r\n",
        b"Content-Length: -5\r\n",
        b"Content-Length: +5\r\n",
        b"Content-Length: 5.0\r\n",
        b"Content-Length: 0x5\r\n",
        b"Content-Length: five\r\n",
        b"Content-Length: \r\n",
        b"Content-Length: 1 2\r\n",
        b"Content-Length: " + b"9" * 30 + b"\r\n",
        b"Content-Length: \xd9\xa5\r\n",  # an Arabic-Indic 5: not an ASCII digit
    ],
)
def test_http_content_length_invalid_refused(headers: bytes) -> None:
    tr_error(b"HTTP/1.1 200 OK\r\n" + headers + b"\r\nhelloo", ProtocolError)


def test_http_body_shorter_than_announced_refused() -> None:
    tr_error(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", ProtocolError)


def test_http_content_length_longer_body_leaves_the_rest_unread() -> None:
    parsed = tr(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcdef")
    assert parsed.body == b"abc"


# -- chunked ------------------------------------------------------------------------------
def test_http_chunked_with_extensions_and_trailers() -> None:
    data = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;name=value\r\nhello\r\n"
        b'1 ; quoted="a;b"\r\n,\r\n'
        b"A\r\n0123456789\r\n"  # upper-case hex
        b"0;last\r\n"
        b"X-Checksum: abc\r\nX-Other:  spaced  \r\n\r\n"
    )
    parsed = tr(data)
    assert parsed.body == b"hello,0123456789"
    assert parsed.trailers == (("x-checksum", "abc"), ("x-other", "spaced"))
    assert not parsed.needed_eof


def test_http_chunked_body_exact() -> None:
    data = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n"
        b"0005\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
    )
    parsed = tr(data)
    assert parsed.body == b"hello world"
    assert parsed.trailers == ()


def test_http_chunked_bare_lf_accepted() -> None:
    parsed = tr(b"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n")
    assert parsed.body == b"abc"


def test_http_chunked_empty_body() -> None:
    parsed = tr(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
    assert parsed.body == b"" and not parsed.needed_eof


@pytest.mark.parametrize(
    "chunks",
    [
        b"5\r\nhello\r\n",  # no final chunk before EOF
        b"5\r\nhel",  # EOF inside a chunk
        b"5\r\nhello",  # EOF before the chunk's CRLF
        b"5\r\nhello\r\n0\r\n",  # EOF before the trailer section's end
        b"5\r\nhello\r\n0\r\nX-T: 1\r\n",  # EOF inside the trailers
        b"5\r\nhelloXX\r\n0\r\n\r\n",  # chunk data longer than its size
        b"-5\r\nhello\r\n0\r\n\r\n",
        b"0x5\r\nhello\r\n0\r\n\r\n",
        b"g\r\n",
        b"\r\n",  # an empty size line
        b" 5\r\nhello\r\n0\r\n\r\n",
        b"1" + b"0" * 16 + b"\r\n",  # 17 hex digits: over 2**64
        b"f" * 17 + b"\r\n",
        b"5\r\nhello\r\n0\r\n bad: fold\r\n\r\n",  # obs-fold in the trailers
        b"5\r\nhello\r\n0\r\nno colon\r\n\r\n",
    ],
)
def test_http_chunked_malformed_refused(chunks: bytes) -> None:
    tr_error(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks, ProtocolError)


def test_http_chunk_size_hex_overflow_refused_before_reading_data() -> None:
    """A huge chunk size is refused at its line, not after waiting for the data."""
    parser = ResponseParser(max_body=2**70)
    parser.feed(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"F" * 17 + b"\r\n")
    assert isinstance(parser.next_event(), ResponseHead)
    with pytest.raises(ProtocolError, match="overflow"):
        parser.next_event()


def test_http_chunk_size_line_at_limit_and_over() -> None:
    ext = b";" + b"e" * (MAX_CHUNK_LINE_BYTES - 2)
    ok = b"1" + ext  # exactly MAX_CHUNK_LINE_BYTES before its CRLF
    assert len(ok) == MAX_CHUNK_LINE_BYTES
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    assert tr(head + ok + b"\r\nx\r\n0\r\n\r\n").body == b"x"
    tr_error(head + ok + b"e\r\nx\r\n0\r\n\r\n", ProtocolError)


# -- transfer codings ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "headers",
    [
        b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
        b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
        b"Transfer-Encoding: gzip\r\n",
        b"Transfer-Encoding: gzip, chunked\r\n",
        b"Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n",
        b"Transfer-Encoding: chunked, chunked\r\n",
        b"Transfer-Encoding: identity\r\n",
        b"Transfer-Encoding: \r\n",
        b"Transfer-Encoding: xchunked\r\n",
    ],
)
def test_http_framing_refusals(headers: bytes) -> None:
    tr_error(b"HTTP/1.1 200 OK\r\n" + headers + b"\r\n5\r\nhello\r\n0\r\n\r\n", ProtocolError)


# -- close-delimited ----------------------------------------------------------------------
@pytest.mark.parametrize("version", [b"1.0", b"1.1"])
def test_http_close_delimited_body(version: bytes) -> None:
    parsed = tr(b"HTTP/" + version + b" 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end")
    assert parsed.body == b"until the end"
    assert parsed.needed_eof


def test_http_close_delimited_empty_body() -> None:
    parsed = tr(b"HTTP/1.0 200 OK\r\n\r\n")
    assert parsed.body == b"" and parsed.needed_eof


# -- header fields ------------------------------------------------------------------------
def test_http_header_fields_parsed() -> None:
    data = (
        b"HTTP/1.1 200 OK\r\n"
        b"Content-Type:application/json\r\n"
        b"X-Empty:\r\n"
        b"X-Spaces: \t a b \t\r\n"
        b"Set-Cookie: a=1\r\nset-cookie: b=2\r\n"
        b"X-Latin: caf\xe9\r\n"
        b"Content-Length: 0\r\n\r\n"
    )
    head = tr(data).head
    assert head.get("content-type") == "application/json"
    assert head.get("CONTENT-TYPE") == "application/json"
    assert head.get("x-empty") == ""
    assert head.get("x-spaces") == "a b"
    assert head.get_all("set-cookie") == ["a=1", "b=2"]
    assert head.get("x-latin") == "caf\xe9"
    assert head.get("missing") is None and head.get_all("missing") == []
    assert all(name == name.lower() for name, _ in head.headers)


@pytest.mark.parametrize(
    "line",
    [
        b"No colon here",
        b": no name",
        b"Bad Name: x",
        b"Content-Length : 0",
        b"X\x00: y",
        b"X-A: b\x00c",
        b"X-A: b\x1bc",
        b"X-A: b\x7fc",
        b"X-A: b\rc",
    ],
)
def test_http_header_line_malformed_refused(line: bytes) -> None:
    tr_error(b"HTTP/1.1 200 OK\r\n" + line + b"\r\nContent-Length: 0\r\n\r\n", ProtocolError)


def test_http_obs_fold_refused() -> None:
    tr_error(b"HTTP/1.1 200 OK\r\nX-A: one\r\n two\r\nContent-Length: 0\r\n\r\n", ProtocolError)
    tr_error(b"HTTP/1.1 200 OK\r\nX-A: one\r\n\ttwo\r\nContent-Length: 0\r\n\r\n", ProtocolError)


# -- size caps ----------------------------------------------------------------------------
_PAD_START = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Pad: "


def _head_of_size(size: int) -> bytes:
    """A status line plus headers of exactly ``size`` bytes (before the blank line)."""
    return _PAD_START + b"p" * (size - len(_PAD_START))


def test_http_header_section_at_cap_accepted_and_over_refused() -> None:
    cap = 300
    at_cap = _head_of_size(cap)
    assert len(at_cap) == cap
    for chunks in ([at_cap + b"\r\n\r\n"], byte_by_byte(at_cap + b"\r\n\r\n")):
        assert parse(chunks, max_header=cap).head.get("x-pad") == "p" * (cap - len(_PAD_START))
    over = _head_of_size(cap + 1) + b"\r\n\r\n"
    tr_error(over, ResponseTooLargeError, max_header=cap)


def test_http_header_section_without_end_refused_once_over_cap() -> None:
    """A server streaming headers forever is cut off at the cap, not at EOF."""
    parser = ResponseParser(max_body=CAP, max_header_bytes=100)
    parser.feed(b"HTTP/1.1 200 OK\r\nX: " + b"a" * 80)
    assert parser.next_event() is None
    parser.feed(b"a" * 30)
    with pytest.raises(ResponseTooLargeError):
        parser.next_event()


def test_http_default_header_cap() -> None:
    big = b"HTTP/1.1 200 OK\r\nX-Big: " + b"b" * MAX_HEADER_BYTES + b"\r\n\r\n"
    with pytest.raises(ResponseTooLargeError):
        parse([big])


def test_http_trailer_section_over_cap_refused() -> None:
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
    tr_error(head + b"X-T: " + b"t" * 300 + b"\r\n\r\n", ResponseTooLargeError, max_header=200)
    assert tr(head + b"X-T: " + b"t" * 100 + b"\r\n\r\n").trailers == (("x-t", "t" * 100),)


def _body_events_until_error(chunks: list[bytes], max_body: int) -> tuple[int, Exception]:
    """How many body bytes came out before the parser refused, and the error."""
    parser = ResponseParser(max_body=max_body)
    seen = 0
    try:
        for chunk in [*chunks, b""]:
            parser.feed(chunk)
            while (event := parser.next_event()) is not None:
                if isinstance(event, BodyData):
                    seen += len(event.data)
                assert not isinstance(event, ResponseEnd), "over-cap body was accepted"
    except RonchoError as exc:
        return seen, exc
    raise AssertionError("no error")


def _framed(framing: str, body: bytes) -> bytes:
    if framing == "length":
        return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    if framing == "chunked":
        chunked = b"".join(
            b"%x\r\n" % len(body[i : i + 100]) + body[i : i + 100] + b"\r\n"
            for i in range(0, len(body), 100)
        )
        return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked + b"0\r\n\r\n"
    return b"HTTP/1.0 200 OK\r\n\r\n" + body


@pytest.mark.parametrize("framing", ["length", "chunked", "close"])
def test_http_body_exactly_at_cap_accepted(framing: str) -> None:
    body = bytes(i % 251 for i in range(CAP))
    assert tr(_framed(framing, body), max_body=CAP).body == body


@pytest.mark.parametrize("framing", ["length", "chunked", "close"])
@pytest.mark.parametrize("split", ["whole", "bytes"])
def test_http_body_one_byte_over_cap_refused(framing: str, split: str) -> None:
    data = _framed(framing, b"z" * (CAP + 1))
    chunks = [data] if split == "whole" else byte_by_byte(data)
    seen, error = _body_events_until_error(chunks, CAP)
    assert isinstance(error, ResponseTooLargeError)
    assert seen <= CAP  # reading stops at the cap: no byte past it is handed out


def test_http_announced_length_over_cap_still_gives_the_head() -> None:
    """The status is known (for an error message) before the too-large error."""
    parser = ResponseParser(max_body=10)
    parser.feed(b"HTTP/1.1 500 Oops\r\nContent-Length: 11\r\n\r\n")
    head = parser.next_event()
    assert isinstance(head, ResponseHead) and head.status == 500
    with pytest.raises(ResponseTooLargeError):
        parser.next_event()
    with pytest.raises(ResponseTooLargeError):  # and it stays refused
        parser.next_event()


# -- end of input -------------------------------------------------------------------------
def test_http_eof_before_anything_refused() -> None:
    parser = ResponseParser(max_body=CAP)
    parser.feed(b"")
    with pytest.raises(ProtocolError, match="without answering"):
        parser.next_event()


@pytest.mark.parametrize("partial", [b"H", b"HTTP/1.1 200 OK", b"HTTP/1.1 200 OK\r\nX: y\r\n"])
def test_http_eof_inside_head_refused(partial: bytes) -> None:
    tr_error(partial, ProtocolError)


def test_http_data_after_eof_refused() -> None:
    parser = ResponseParser(max_body=CAP)
    parser.feed(b"HTTP/1.1 200 OK\r\n")
    parser.feed(b"")
    with pytest.raises(ProtocolError):
        parser.feed(b"more")


def test_http_needs_more_returns_none_until_complete() -> None:
    parser = ResponseParser(max_body=CAP)
    assert parser.next_event() is None
    parser.feed(b"HTTP/1.1 200 OK\r\nContent-Le")
    assert parser.next_event() is None
    assert parser.head is None and not parser.done
    parser.feed(b"ngth: 2\r\n\r\n")
    head = parser.next_event()
    assert isinstance(head, ResponseHead) and parser.head == head
    assert parser.next_event() is None
    parser.feed(b"ok")
    assert parser.next_event() == BodyData(b"ok")
    assert parser.next_event() == ResponseEnd()
    assert parser.done
    assert parser.next_event() is None


# -- request building ---------------------------------------------------------------------
def test_build_request_exact_bytes_with_body() -> None:
    request = build_request(
        "POST",
        "/v3/workspaces/w/peers",
        "127.0.0.1:8000",
        [("Accept", "application/json"), ("Content-Type", "application/json")],
        b'{"id":"p"}',
    )
    assert request == (
        b"POST /v3/workspaces/w/peers HTTP/1.1\r\n"
        b"Host: 127.0.0.1:8000\r\n"
        b"Accept: application/json\r\n"
        b"Content-Type: application/json\r\n"
        b"Content-Length: 10\r\n"
        b"Connection: close\r\n"
        b"\r\n"
        b'{"id":"p"}'
    )


def test_build_request_exact_bytes_without_body() -> None:
    request = build_request("GET", "/v3/workspaces/w/queue/status?session_id=s1", "[::1]", [], None)
    assert request == (
        b"GET /v3/workspaces/w/queue/status?session_id=s1 HTTP/1.1\r\n"
        b"Host: [::1]\r\n"
        b"Connection: close\r\n"
        b"\r\n"
    )


def test_build_request_empty_body_sends_zero_length() -> None:
    request = build_request("DELETE", "/x", "h", [], b"")
    assert request.endswith(b"Content-Length: 0\r\nConnection: close\r\n\r\n")


@pytest.mark.parametrize(
    "target",
    [
        "/a b",
        "/a\r\nX-Injected: 1",
        "/a\nb",
        "/a\rb",
        "/a\x00b",
        "/a\tb",
        "/caf\xe9",
        "/a#frag",
        "a/no/leading/slash",
        "",
        "http://evil.example/",
        "/a\\b",
        '/a"b',
        "/a<b>",
    ],
)
def test_build_request_refuses_unsafe_target(target: str) -> None:
    with pytest.raises(ConfigError) as info:
        build_request("GET", target, "h", [], None)
    assert str(info.value) == "request target holds characters that cannot appear in a path"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("X-A", "v\r\nX-Injected: 1"),
        ("X-A", "v\nw"),
        ("X-A", "v\rw"),
        ("X-A", "v\x00w"),
        ("X-A", "v\x7fw"),
        ("X-A", "v\tw"),
        ("X-A", "caf\xe9"),
        ("X A", "v"),
        ("X-A:", "v"),
        ("", "v"),
        ("X\r\nY", "v"),
        ("X-\xe9", "v"),
    ],
)
def test_build_request_refuses_unsafe_header(name: str, value: str) -> None:
    with pytest.raises(ConfigError):
        build_request("GET", "/", "h", [(name, value)], None)


@pytest.mark.parametrize("method", ["", "GET /x", "GET\r\n", "G\xc9T", "G:T"])
def test_build_request_refuses_bad_method(method: str) -> None:
    with pytest.raises(ConfigError) as info:
        build_request(method, "/", "h", [], None)
    assert str(info.value) == "invalid HTTP method"


def test_bytes_after_the_end_of_input_are_refused() -> None:
    """Once told the peer closed (``b""``), the parser takes no more bytes."""
    parser = ResponseParser(max_body=1024)
    parser.feed(b"HTTP/1.1 200 OK\r\n")
    parser.feed(b"")
    with pytest.raises(ProtocolError) as info:
        parser.feed(b"more")
    assert str(info.value) == "data after end of input"


def test_build_request_header_value_with_spaces_kept() -> None:
    request = build_request("GET", "/", "h", [("User-Agent", "roncho/0.1 (test; x=1)")], None)
    assert b"\r\nUser-Agent: roncho/0.1 (test; x=1)\r\n" in request


# -- what Honcho (uvicorn) actually sends -------------------------------------------------
def test_http_uvicorn_json_answer() -> None:
    data = (
        b"HTTP/1.1 201 Created\r\n"
        b"date: Mon, 30 Nov 2026 12:00:00 GMT\r\n"
        b"server: uvicorn\r\n"
        b"content-length: 39\r\n"
        b"content-type: application/json\r\n"
        b"\r\n"
        b'[{"id":"V1StGXR8_Z5jdHi6B-myT","x":1}]\n'
    )
    parsed = tr(data)
    assert parsed.head.status == 201 and parsed.head.get("server") == "uvicorn"
    assert parsed.body.startswith(b'[{"id"') and len(parsed.body) == 39


def test_http_uvicorn_event_stream_through_both_decoders() -> None:
    """A chunked text/event-stream answer: the HTTP parser's body feeds the SSE decoder."""
    events = [
        b'data: {"delta": {"content": "Li"}, "done": false}\n\n',
        b'data: {"delta": {"content": "sbon"}, "done": false}\n\n',
        b'data: {"done": true}\n\n',
    ]
    data = (
        b"HTTP/1.1 200 OK\r\n"
        b"content-type: text/event-stream; charset=utf-8\r\n"
        b"transfer-encoding: chunked\r\n\r\n"
        + b"".join(b"%x\r\n" % len(e) + e + b"\r\n" for e in events)
        + b"0\r\n\r\n"
    )
    for chunks in ([data], byte_by_byte(data)):
        parser = ResponseParser(max_body=CAP)
        decoder = SSEDecoder(CAP)
        got: list[str] = []
        for chunk in chunks:
            parser.feed(chunk)
            while (event := parser.next_event()) is not None:
                if isinstance(event, BodyData):
                    got += [e.data for e in decoder.feed(event.data)]
        assert parser.done
        assert [json.loads(d) for d in got] == [
            {"delta": {"content": "Li"}, "done": False},
            {"delta": {"content": "sbon"}, "done": False},
            {"done": True},
        ]


def test_parser_refuses_an_endless_run_of_interim_responses() -> None:
    from roncho._http import MAX_INTERIM_RESPONSES

    parser = ResponseParser(max_body=1024)
    parser.feed(b"HTTP/1.1 100 Continue\r\n\r\n" * (MAX_INTERIM_RESPONSES + 1))
    with pytest.raises(ProtocolError, match="interim"):
        parser.next_event()


def test_parser_skips_a_few_interim_responses() -> None:
    parser = ResponseParser(max_body=1024)
    parser.feed(b"HTTP/1.1 100 Continue\r\n\r\n" * 3 + b"HTTP/1.1 204 No Content\r\n\r\n")
    head = parser.next_event()
    assert isinstance(head, ResponseHead) and head.status == 204


def test_parser_refuses_transfer_encoding_on_http_1_0() -> None:
    parser = ResponseParser(max_body=1024)
    parser.feed(b"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
    with pytest.raises(ProtocolError, match=r"HTTP/1\.0"):
        parser.next_event()
