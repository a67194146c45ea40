"""A large 2xx body read straight into its own buffer (``Exchange.room``/``received``, the
parser's ``room``/``took``) gives what feeding the same bytes gives, keeps the cap, reads
no byte past the body, and still refuses a cut answer."""

from __future__ import annotations

import json
from typing import Any

import pytest

from roncho import ProtocolError, ResponseTooLargeError
from roncho import _operations as ops
from roncho._checks import parse_base_url
from roncho._exchange import WHOLE_BODY_BYTES, Exchange
from roncho._http import BodyData, ResponseEnd, ResponseParser

ENDPOINT = parse_base_url("http://127.0.0.1:8000")
PATHS = ops.Paths(ENDPOINT.prefix, "ws")
KEY = bytearray(b"sk-secret")


def page_body(count: int, content: str = "x" * 1000) -> bytes:
    message = {
        "id": "m",
        "content": content,
        "peer_id": "alice",
        "session_id": "s",
        "created_at": "2026-11-30T12:00:00Z",
        "metadata": {},
    }
    page = {"items": [message] * count, "total": count, "page": 1, "size": count, "pages": 1}
    return json.dumps(page).encode()


def answer(body: bytes, length: int | None = None, status: int = 200) -> bytes:
    size = len(body) if length is None else length
    return b"HTTP/1.1 %d X\r\nContent-Length: %d\r\n\r\n" % (status, size) + body


def read_with_room(exchange: Exchange[Any], wire: bytes, first: int, step: int) -> int:
    """Play the blocking executor over ``wire``: ``first`` bytes by feed, then recv_into
    (at most ``step`` bytes a read) while room is offered, else feed. Returns how many bytes
    were left unread, or -1 if room was never offered."""
    exchange.received(wire[:first])
    at = first
    offered = False
    while exchange.needs_more:
        room = exchange.room()
        if room is None:
            exchange.received(wire[at : at + step])
            at = min(at + step, len(wire))
            continue
        offered = True
        count = min(step, len(room), len(wire) - at)
        room[:count] = wire[at : at + count]
        at += count
        exchange.received(count)
        del room
    return len(wire) - at if offered else -1


@pytest.mark.parametrize("first", [10, 60, 5000])
@pytest.mark.parametrize("step", [1000, 65536, 1 << 20])
def test_a_body_read_into_its_buffer_decodes_as_a_fed_one(first: int, step: int) -> None:
    body = page_body(200)
    assert len(body) > 2 * WHOLE_BODY_BYTES
    fed = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    fed.received(answer(body))
    fed.received(b"")
    direct = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    unread = read_with_room(direct, answer(body) + b"trailing", first, step)
    # Read into its buffer, no byte past the body is taken (fed, the parser drops them).
    assert unread in (-1, len(b"trailing"))
    if first == 60:  # the head and a little of the body came first: the rest by room
        assert unread == len(b"trailing")
    assert direct.result() == fed.result()


def test_room_is_offered_only_for_a_large_2xx_body_of_announced_length() -> None:
    small = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    small.received(answer(page_body(3))[:50])
    assert small.room() is None  # the head is not even complete
    chunked = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    chunked.received(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    assert chunked.room() is None
    failing = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    failing.received(answer(b"x" * 10, length=10 * WHOLE_BODY_BYTES, status=500))
    assert failing.room() is None
    large = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    large.received(answer(b"", length=10 * WHOLE_BODY_BYTES))
    room = large.room()
    assert room is not None and len(room) == 10 * WHOLE_BODY_BYTES


def test_the_cap_holds_and_a_cut_body_is_refused() -> None:
    over = Exchange(ops.messages.list_messages(PATHS, "s"), None, 4 * WHOLE_BODY_BYTES)
    with pytest.raises(ResponseTooLargeError) as too_large:
        over.received(answer(b"", length=4 * WHOLE_BODY_BYTES + 1))
        assert over.room() is None  # never a buffer for a length over the cap
        over.received(b"")
    assert too_large.value.request_sent is True
    cut = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    cut.received(answer(b"", length=4 * WHOLE_BODY_BYTES))
    room = cut.room()
    assert room is not None
    room[:100] = b"x" * 100
    cut.received(100)
    del room
    with pytest.raises(ProtocolError, match="still to come") as info:
        cut.received(0)  # the server closed the connection
    assert info.value.request_sent is True


def test_a_body_read_into_its_buffer_is_redacted() -> None:
    body = page_body(100, content="sk-secret " * 100)
    exchange = Exchange(ops.messages.list_messages(PATHS, "s"), KEY, 1 << 24)
    read_with_room(exchange, answer(body), 40, 1 << 16)
    page = exchange.result()
    assert page.items and all("sk-secret" not in m.content for m in page.items)


def test_the_parser_counts_bytes_taken_past_it() -> None:
    parser = ResponseParser(max_body=1000)
    parser.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 300\r\n\r\n" + b"a" * 100)
    assert parser.room() == 0  # the head is not parsed yet
    assert parser.next_event() is not None
    assert parser.room() == 0  # 100 body bytes are still buffered
    event = parser.next_event()
    assert isinstance(event, BodyData) and event.data == b"a" * 100
    assert parser.room() == 200
    with pytest.raises(ValueError):
        parser.took(201)
    parser.took(200)
    assert parser.room() == 0
    assert isinstance(parser.next_event(), ResponseEnd)
