"""A response whose framing breaks is refused at once, never read forever.

Each server here breaks HTTP/1.1 framing in a way a careless client would answer by waiting:
an error status whose body the server cuts short, a chunk that runs past its size, a lone
CR before the close, a chunk-size line or trailer section at its cap, a stream of interim
responses. The idle timeout is long on purpose (``PATIENT``): an error that arrives is the
parser's verdict, not a clock's, and a client that waited instead would fail the test's own
timeout. Every error says the request was sent (the server answered it).
"""

from __future__ import annotations

import socket
import struct
import time

import pytest
from rawserver import Conn, Handler, RawServer, send_raw

import roncho
from roncho import ProtocolError, RedirectError, ResponseTooLargeError, StatusError

# Long enough that no error below can be a ReadTimeout on a loaded machine.
PATIENT = 30.0
# A hang (reading a closed socket, waiting for bytes that never come) fails here instead.
pytestmark = pytest.mark.timeout(20)

HEALTH = b'{"status": "ok"}'
CHUNKED_200 = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
)


def held_open(data: bytes) -> Handler:
    """Read the request, send ``data``, then keep the connection open until the client
    closes it: only the parser can end the call."""

    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(data)
        conn.wait_closed()

    return handler


def probe_error(handler: Handler, kind: type[Exception]) -> roncho.RonchoError:
    with RawServer([handler]) as server:
        client = roncho.Client(server.url, "w", read_timeout=PATIENT)
        with pytest.raises(kind) as info:
            client.probe()
    err = info.value
    assert type(err) is kind
    assert isinstance(err, roncho.RonchoError)
    assert err.request_sent is True
    return err


# -- an error status stays the answer when its body is cut short --------------------------
@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n" + b'{"detail": "bo',
        b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + b'e\r\n{"detail": "bo',
    ],
    ids=["content-length", "chunked"],
)
def test_an_error_status_whose_body_is_cut_short_is_that_status_at_once(answer: bytes) -> None:
    err = probe_error(send_raw(answer), StatusError)
    assert isinstance(err, StatusError)
    assert err.status == 500
    assert err.body == b'{"detail": "bo'  # what arrived is kept
    assert str(err) == "GET /health answered 500"


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_an_error_body_that_arrives_in_pieces_is_kept_whole(framing: str) -> None:
    detail = b'{"detail": "workspace w is busy"}'
    if framing == "chunked":
        head = b"HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n"
        pieces = [
            head + b"%x\r\n%s\r\n" % (10, detail[:10]),
            b"%x\r\n%s\r\n0\r\n\r\n" % (len(detail) - 10, detail[10:]),
        ]
    else:
        head = b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: %d\r\n\r\n" % len(detail)
        pieces = [head + detail[:10], detail[10:]]
    err = probe_error(send_raw(pieces, pause=0.2), StatusError)
    assert isinstance(err, StatusError)
    assert err.body == detail
    assert err.detail == "workspace w is busy"
    assert str(err) == "GET /health answered 500: workspace w is busy"


def test_an_error_status_whose_chunk_runs_past_its_size_is_that_status() -> None:
    answer = b"HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nbusy"
    err = probe_error(held_open(answer), StatusError)
    assert isinstance(err, StatusError)
    assert err.status == 503
    assert err.body == b"bu"


@pytest.mark.parametrize("status", [300, 500])
def test_an_error_body_is_read_to_its_first_4_kib_and_no_further(status: int) -> None:
    """A long error body of which 5,000 bytes arrive, the rest never: the error (with the
    first 4 KiB of the body) comes at once, without waiting for the rest."""
    head = b"HTTP/1.1 %d X\r\nLocation: /x\r\nContent-Length: 100000\r\n\r\n" % status
    kind = RedirectError if status == 300 else StatusError
    err = probe_error(held_open(head + b"e" * 5000), kind)
    assert isinstance(err, StatusError)
    assert err.status == status
    assert err.body == b"e" * 4096


def test_an_error_status_then_a_reset_is_that_status() -> None:
    """The head and part of the body arrive; then the server resets the connection. The
    status is the answer, not the reset."""

    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(
            b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 100\r\n\r\n" + b'{"detail": "bu'
        )
        time.sleep(0.3)  # the client has read it
        conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    err = probe_error(handler, StatusError)
    assert isinstance(err, StatusError)
    assert err.status == 503
    assert err.body == b'{"detail": "bu'


def test_an_error_answer_whose_body_comes_after_its_head_keeps_the_body() -> None:
    """The head in one read, its announced body in the next: an error's body is read as
    bytes (only a 2xx body gets a buffer of its own), and kept whole."""
    body = b'{"detail": "busy"}'
    head = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
    head += b"Content-Length: %d\r\n\r\n" % len(body)
    err = probe_error(send_raw([head, body], pause=0.2), StatusError)
    assert isinstance(err, StatusError)
    assert (err.status, err.body, err.detail) == (503, body, "busy")


# -- chunk sizes and ends -------------------------------------------------------------------
def test_a_chunk_announced_over_the_cap_is_refused_before_its_data() -> None:
    with RawServer([held_open(CHUNKED_200 + b"100\r\n")]) as server:
        client = roncho.Client(server.url, "w", read_timeout=PATIENT, max_response_bytes=64)
        with pytest.raises(ResponseTooLargeError) as info:
            client.probe()
    assert type(info.value) is ResponseTooLargeError
    assert info.value.request_sent is True
    assert str(info.value) == "GET /health: response body exceeds the cap of 64 bytes"


def test_a_body_read_until_close_is_refused_once_past_the_cap() -> None:
    """No length to refuse at the head: the cap is counted as the body comes."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
    with RawServer([held_open(head + b" " * 100)]) as server:
        client = roncho.Client(server.url, "w", read_timeout=PATIENT, max_response_bytes=64)
        with pytest.raises(ResponseTooLargeError) as info:
            client.probe()
    assert info.value.request_sent is True
    assert str(info.value) == "GET /health: response body exceeds the cap of 64 bytes"


def test_a_close_in_the_middle_of_a_chunk_is_refused() -> None:
    err = probe_error(send_raw(CHUNKED_200 + b"a\r\nabc"), ProtocolError)
    assert str(err) == "GET /health: connection closed in the middle of a chunk"


def test_chunk_data_longer_than_its_size_is_refused_while_the_connection_is_open() -> None:
    err = probe_error(held_open(CHUNKED_200 + b"1\r\n{x"), ProtocolError)
    assert str(err) == "GET /health: chunk data is longer than its announced size"


def test_a_lone_cr_after_a_chunk_then_the_close_is_refused_at_once() -> None:
    err = probe_error(send_raw(CHUNKED_200 + b"1\r\n{\r"), ProtocolError)
    assert str(err) == "GET /health: chunk data is longer than its announced size"


def test_a_chunk_ended_by_a_bare_lf_is_read() -> None:
    body = CHUNKED_200 + b"%x\n%s\n0\n\n" % (len(HEALTH), HEALTH)
    with RawServer([send_raw(body)]) as server:
        health = roncho.Client(server.url, "w", read_timeout=PATIENT).probe()
    assert health.status == "ok"


def test_a_close_after_a_chunk_before_the_final_chunk_is_refused() -> None:
    start = CHUNKED_200 + b"%x\r\n%s" % (len(HEALTH), HEALTH)
    err = probe_error(send_raw(start), ProtocolError)
    assert str(err) == "GET /health: connection closed after a chunk, before the final chunk"
    err = probe_error(send_raw(start + b"\r\n"), ProtocolError)
    assert str(err) == "GET /health: connection closed in a chunk size line"


# -- chunk-size lines ---------------------------------------------------------------------
def test_a_chunk_size_line_at_its_cap_is_read_and_one_byte_over_is_refused_at_once() -> None:
    cap = 4096  # MAX_CHUNK_LINE_BYTES: the size line with its extensions
    at_cap = b"%x;" % len(HEALTH) + b"e" * (cap - 3)
    assert len(at_cap) == cap
    for newline in (b"\r\n", b"\n"):
        body = CHUNKED_200 + at_cap + newline + HEALTH + b"\r\n0\r\n\r\n"
        with RawServer([send_raw(body)]) as server:
            health = roncho.Client(server.url, "w", read_timeout=PATIENT).probe()
        assert health.status == "ok"
    # Past the cap with no line end in sight: refused without waiting for more.
    over = CHUNKED_200 + at_cap + b"ee"
    err = probe_error(held_open(over), ProtocolError)
    assert str(err) == "GET /health: chunk size line is too long"


def test_a_bare_lf_chunk_size_line_one_byte_past_the_cap_is_refused_at_once() -> None:
    cap = 4096
    line = b"%x;" % len(HEALTH) + b"e" * (cap - 1)  # two bytes over; its LF comes next
    err = probe_error(held_open(CHUNKED_200 + line + b"\n"), ProtocolError)
    assert str(err) == "GET /health: chunk size line is too long"


@pytest.mark.parametrize(
    "line", [b"zz\r\n", b"\n", b"\r\n", b"-1\n"], ids=["letters", "bare-lf", "crlf", "negative"]
)
def test_a_malformed_chunk_size_line_is_refused_while_the_connection_is_open(line: bytes) -> None:
    """An empty size line (a bare LF) is refused as it arrives, not waited past."""
    err = probe_error(held_open(CHUNKED_200 + line), ProtocolError)
    assert str(err) == "GET /health: malformed chunk size line"


# -- the response head ---------------------------------------------------------------------
HEAD_CAP = 64 * 1024  # MAX_HEADER_BYTES: the status line and headers, before the blank line


def head_of(size: int) -> bytes:
    """A 200's status line and headers, ``size`` bytes without their closing blank line."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nx-h: " % (
        len(HEALTH)
    )
    return head + b"v" * (size - len(head))


def test_a_head_at_its_cap_is_read_whatever_the_split_of_its_blank_line() -> None:
    """Three bytes past the cap may be the blank line's first three (CR LF CR): not over yet."""
    for first, rest in ((b"", b"\r\n\r\n"), (b"\r\n\r", b"\n")):
        pieces = [head_of(HEAD_CAP) + first, rest + HEALTH]
        with RawServer([send_raw(pieces, pause=0.3)]) as server:
            health = roncho.Client(server.url, "w", read_timeout=PATIENT).probe()
        assert health.status == "ok"


def test_an_unfinished_head_four_bytes_past_its_cap_is_refused_at_once() -> None:
    """Four bytes past the cap with no blank line cannot be a head within it: refused as they
    arrive, while the server holds the connection open, not after an idle timeout."""
    err = probe_error(held_open(head_of(HEAD_CAP + 4)), ResponseTooLargeError)
    assert str(err) == f"GET /health: response header section exceeds {HEAD_CAP} bytes"


# -- trailers -----------------------------------------------------------------------------
def test_trailers_up_to_the_header_cap_are_read_and_past_it_refused() -> None:
    cap = 64 * 1024  # MAX_HEADER_BYTES, which the trailer section shares
    start = CHUNKED_200 + b"%x\r\n%s\r\n0\r\n" % (len(HEALTH), HEALTH)
    name = b"x-t: "
    at_cap = name + b"v" * (cap - len(name))
    with RawServer([send_raw(start + at_cap + b"\r\n\r\n")]) as server:
        health = roncho.Client(server.url, "w", read_timeout=PATIENT).probe()
    assert health.status == "ok"
    # One byte over, still unterminated: refused as it arrives, not after more bytes.
    err = probe_error(held_open(start + at_cap + b"v" + b"\r\n\r"), ResponseTooLargeError)
    assert str(err) == "GET /health: response trailer section is too large"
    # Over the cap, terminated in the same read.
    err = probe_error(held_open(start + at_cap + b"v\r\n\r\n"), ResponseTooLargeError)
    assert str(err) == "GET /health: response trailer section is too large"


def test_trailers_are_judged_against_the_cap_as_they_arrive_whatever_the_split() -> None:
    """The section arrives in two pieces; the first ends exactly at the cap, or three bytes
    past it with the terminator's first three bytes: neither is over the cap yet."""
    cap = 64 * 1024
    start = CHUNKED_200 + b"%x\r\n%s\r\n0\r\n" % (len(HEALTH), HEALTH)
    at_cap = b"x-t: " + b"v" * (cap - 5)
    for first, rest in ((at_cap, b"\r\n\r\n"), (at_cap + b"\r\n\r", b"\n")):
        with RawServer([send_raw([start + first, rest], pause=0.3)]) as server:
            health = roncho.Client(server.url, "w", read_timeout=PATIENT).probe()
        assert health.status == "ok"


def test_a_close_inside_the_trailers_is_refused() -> None:
    start = CHUNKED_200 + b"%x\r\n%s\r\n0\r\n" % (len(HEALTH), HEALTH)
    err = probe_error(send_raw(start + b"x-t: v\r\n"), ProtocolError)
    assert str(err) == "GET /health: connection closed before the final chunk's trailers ended"


# -- interim responses ------------------------------------------------------------------
def test_sixteen_interim_responses_are_skipped_and_the_seventeenth_refused() -> None:
    interim = b"HTTP/1.1 100 Continue\r\n\r\n"
    final = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(HEALTH), HEALTH)
    with RawServer([send_raw(interim * 16 + final)]) as server:
        health = roncho.Client(server.url, "w", read_timeout=PATIENT).probe()
    assert health.status == "ok"
    err = probe_error(held_open(interim * 17 + final), ProtocolError)
    assert str(err) == "GET /health: more than 16 interim (1xx) responses"


# -- header values ------------------------------------------------------------------------
def test_only_spaces_and_tabs_are_stripped_from_a_header_value() -> None:
    """A value padded with SP and HTAB is read without them; a vertical tab or form feed
    around it is a control character, refused, not stripped as whitespace."""
    good = b"HTTP/1.1 200 OK\r\nContent-Length: \t %d \t\r\n\r\n%s" % (len(HEALTH), HEALTH)
    with RawServer([send_raw(good)]) as server:
        health = roncho.Client(server.url, "w", read_timeout=PATIENT).probe()
    assert health.status == "ok"
    # Nothing but SP and HTAB: a value's own first and last characters stay.
    redirect = b"HTTP/1.1 302 Found\r\nLocation: \t X/aX \t\r\nContent-Length: 0\r\n\r\n"
    err = probe_error(send_raw(redirect), RedirectError)
    assert isinstance(err, RedirectError)
    assert err.location == "X/aX"
    for pad in (b"\x0b", b"\x0c"):
        bad = b"HTTP/1.1 200 OK\r\nContent-Length: %d%s\r\n\r\n%s" % (len(HEALTH), pad, HEALTH)
        err = probe_error(send_raw(bad), ProtocolError)
        assert str(err) == "GET /health: control character in a header value"


# -- a reset after the request arrived ----------------------------------------------------
def reset_after_reading(conn: Conn) -> None:
    """Read the whole request, then reset the connection (SO_LINGER 0: RST, not FIN)."""
    conn.read_request()
    conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def test_a_reset_after_the_server_read_the_request_says_the_request_was_sent() -> None:
    """The one answer that must never read "not sent": the server had the request, so a
    caller that resent a write on the strength of it could store it twice."""
    with RawServer([reset_after_reading]) as server:
        client = roncho.Client(server.url, "w", read_timeout=PATIENT)
        with pytest.raises(ProtocolError) as info:
            client.add_messages("s", [roncho.MessageCreate("alice", "hello")])
    err = info.value
    assert type(err) is ProtocolError
    assert err.request_sent is True
    assert str(err) == (
        "POST /v3/workspaces/w/sessions/s/messages: connection lost while reading "
        "(Connection reset by peer)"
    )


# -- what the parser refuses, word for word ----------------------------------------------
def close_after(data: bytes) -> Handler:
    def handler(conn: Conn) -> None:
        conn.read_request()
        if data:
            conn.send(data)

    return handler


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        (
            b"HTTP/1.1 101 Switching Protocols\r\n\r\n",
            "server switched protocols, which roncho never asks for",
        ),
        (b"", "server closed the connection without answering"),
        (
            b"HTTP/1.1 200 OK\r\nContent-Le",
            "connection closed before the response headers were complete",
        ),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n",
            "response has both Content-Length and Transfer-Encoding",
        ),
        (
            b"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            "an HTTP/1.0 response cannot use Transfer-Encoding",
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
            "unsupported Transfer-Encoding 'gzip, chunked'",
        ),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n",
            "conflicting Content-Length values",
        ),
        (b"HTTP/1.1 200 OK\r\nContent-Length: two\r\n\r\n", "invalid Content-Length"),
        (b"HTTP/1.1 200 OK\r\nX-A: b\r\n c\r\n\r\n", "obsolete line folding in a header"),
        (b"HTTP/1.1 200 OK\r\nX-A: b\r\n\tc\r\n\r\n", "obsolete line folding in a header"),
        (b"HTTP/1.1 200 OK\r\nX A: b\r\n\r\n", "malformed header line"),
        (b"HTTP/1.1 2000 OK\r\n\r\n", "malformed status line"),
    ],
    ids=[
        "101",
        "no-answer",
        "cut-head",
        "both-framings",
        "http10-chunked",
        "other-coding",
        "two-lengths",
        "length-not-digits",
        "folded-by-space",
        "folded-by-tab",
        "bad-header-name",
        "bad-status-line",
    ],
)
def test_each_framing_the_parser_refuses_is_named(answer: bytes, text: str) -> None:
    err = probe_error(close_after(answer), ProtocolError)
    assert str(err) == f"GET /health: {text}"


def test_empty_elements_of_the_transfer_encoding_list_are_ignored() -> None:
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: , chunked ,\r\n\r\n"
    answer = head + b"%x\r\n%s\r\n0\r\n\r\n" % (len(HEALTH), HEALTH)
    with RawServer([send_raw(answer)]) as server:
        assert roncho.Client(server.url, "w", read_timeout=PATIENT).probe().status == "ok"
