"""The sans-IO exchange and the pure pieces both executors share: the request bytes
(Authorization included) from one function, the answer from bytes in any split, errors
chosen by the operation, and the deadline as a pure object."""

from __future__ import annotations

import json

import pytest

import roncho
from roncho import (
    DeadlineExceeded,
    DecodeError,
    MessageCreate,
    ProtocolError,
    RedirectError,
    ResponseTooLargeError,
    StatusError,
    WorkspaceBusyError,
)
from roncho import _operations as ops
from roncho._call import Response, decoded
from roncho._checks import parse_base_url
from roncho._errors import MAX_ERROR_BODY_BYTES as ERROR_BODY_BYTES
from roncho._exchange import Exchange, encode_json
from roncho._http import BodyData, ResponseEnd, ResponseHead, ResponseParser, build_request
from roncho._models import render_batch
from roncho._network import Timeouts

ENDPOINT = parse_base_url("http://127.0.0.1:8000/pre")
PATHS = ops.Paths(ENDPOINT.prefix, "ws")
KEY = bytearray(b"sk-secret")


def answer(status: int, body: bytes, *headers: str) -> bytes:
    head = [f"HTTP/1.1 {status} X", f"Content-Length: {len(body)}", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def run(exchange: Exchange[object], data: bytes, step: int = 1) -> None:
    for i in range(0, len(data), step):
        if not exchange.needs_more:
            return
        exchange.received(data[i : i + step])
    if exchange.needs_more:
        exchange.received(b"")


def test_the_whole_request_comes_from_one_function_with_the_key_after_host() -> None:
    call = ops.peers.get_or_create_peer(PATHS, "alice")
    wire = Exchange(call, KEY, 1024).request(ENDPOINT)
    assert isinstance(wire, bytearray)  # so the executor can wipe it once sent
    body = b'{"id":"alice"}'
    assert bytes(wire) == (
        b"POST /pre/v3/workspaces/ws/peers HTTP/1.1\r\n"
        b"Host: 127.0.0.1:8000\r\n"
        b"Authorization: Bearer sk-secret\r\n"
        b"Accept: application/json\r\n"
        b"User-Agent: roncho/" + roncho.__version__.encode() + b"\r\n"
        b"Content-Type: application/json\r\n"
        b"Content-Length: %d\r\n"
        b"Connection: close\r\n\r\n" % len(body) + body
    )


def test_without_a_key_no_authorization_and_a_bodiless_post_says_length_zero() -> None:
    wire = build_request("POST", "/v3/keys?peer_id=p", "h", [], None)
    assert isinstance(wire, bytes) and b"Authorization" not in wire
    assert b"\r\nContent-Length: 0\r\n" in wire
    assert b"Content-Length" not in build_request("GET", "/x", "h", [], None)


@pytest.mark.parametrize("step", [1, 7, 10_000])
def test_an_answer_in_any_split_decodes(step: int) -> None:
    exchange = Exchange(ops.peers.get_or_create_peer(PATHS, "alice"), None, 1 << 20)
    body = json.dumps({"id": "alice", "workspace_id": "ws", "created_at": "2026-11-30T12:00:00Z"})
    run(exchange, answer(201, body.encode(), "Content-Type: application/json"), step)
    peer = exchange.result()
    assert (peer.id, peer.created) == ("alice", True)


def test_busy_is_the_operations_word_not_the_paths() -> None:
    for call, expected in [
        (ops.workspaces.delete_workspace(PATHS), WorkspaceBusyError),
        (ops.sessions.delete_session(PATHS, "workspaces"), StatusError),
    ]:
        exchange = Exchange(call, None, 1 << 20)
        run(exchange, answer(409, b'{"detail":"busy"}'))
        with pytest.raises(StatusError) as info:
            exchange.result()
        assert type(info.value) is expected and info.value.request_sent is True


def test_an_error_body_is_read_only_so_far_and_redacted() -> None:
    exchange = Exchange(ops.server.probe(PATHS), KEY, 1 << 20)
    exchange.received(answer(500, b"sk-secret " + b"x" * 10 * ERROR_BODY_BYTES))
    assert not exchange.needs_more  # it stops reading once it has what an error keeps
    with pytest.raises(StatusError) as info:
        exchange.result()
    assert b"sk-secret" not in info.value.body and info.value.body.startswith(b"[redacted]")


def test_a_redirect_is_an_error_with_its_location_redacted() -> None:
    exchange = Exchange(ops.server.probe(PATHS), KEY, 1 << 20)
    run(exchange, answer(302, b"", "Location: http://elsewhere/?k=sk-secret"))
    with pytest.raises(RedirectError) as info:
        exchange.result()
    assert info.value.location == "http://elsewhere/?k=[redacted]"


def test_a_parser_error_names_the_request_and_says_it_was_sent() -> None:
    exchange = Exchange(ops.server.probe(PATHS), None, 1 << 20)
    with pytest.raises(ProtocolError, match=r"^GET /pre/health: malformed status line") as info:
        exchange.received(b"HTTP/9 200 OK\r\n\r\n")
    assert info.value.request_sent is True


def test_on_status_turns_a_404_into_a_result() -> None:
    exchange = Exchange(ops.server.server_version(PATHS), None, 1 << 20)
    run(exchange, answer(404, b'{"detail":"Not Found"}'))
    assert exchange.result() is None


def test_a_decode_failure_says_the_request_was_sent() -> None:
    exchange = Exchange(ops.server.probe(PATHS), None, 1 << 20)
    run(exchange, answer(200, b"[1, 2]"))
    with pytest.raises(DecodeError) as info:
        exchange.result()
    assert info.value.request_sent is True


def test_a_stream_stops_at_its_head_until_the_stream_pulls() -> None:
    exchange = Exchange(ops.chat.chat_stream(PATHS, "alice", "q"), None, 1 << 20)
    exchange.received(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
        b'data: {"delta": {"content": "hi"}, "done": false}\n\n'
    )
    assert not exchange.needs_more and exchange.chat is not None
    assert exchange.chat.pop() is None  # the body waits for the stream
    chunk = exchange.next_chunk(closed=False)  # the stream pulls
    assert chunk is not None and chunk.content == "hi"


def test_the_deadline_is_pure() -> None:
    client = Timeouts(connect=1.0, read=5.0)
    clock = client.for_call(None, now=100.0)
    assert clock.read_wait(now=1e9) == (5.0, False)
    clock = client.for_call(2.0, now=100.0)
    assert clock.read_wait(now=100.5) == (1.5, True)
    assert clock.connect_wait(now=100.5) == (1.0, False)
    with pytest.raises(DeadlineExceeded):
        clock.read_wait(now=102.0)


def test_response_hands_its_body_over_once() -> None:
    response = Response(ResponseHead(200, "OK", ()), b'{"a":1}')
    assert response.status == 200
    assert response.take_body() == b'{"a":1}'
    assert response.body == b"" and response.take_body() == b""


def test_a_model_that_recurses_too_deep_is_a_decode_error_naming_the_operation() -> None:
    """A model reading an answer nested past the interpreter's recursion limit (json.loads
    took it) fails as the parser's own too-deep answer does: a DecodeError, request sent."""

    def recursing(data: object, op: str) -> object:
        raise RecursionError("maximum recursion depth exceeded")

    decode = decoded("get_thing", recursing)
    with pytest.raises(DecodeError) as info:
        decode(Response(ResponseHead(200, "OK", ()), b'{"a":1}'))
    assert info.value.request_sent is True
    assert str(info.value) == "get_thing: the answer nests too deeply"


@pytest.mark.parametrize("content", ["caf\u00e9", "bell\x07", "del\x7f", "\\u00e9", 'q"\\'])
def test_a_batch_is_encoded_as_compact_utf8_json(content: str) -> None:
    """Non-ASCII and DEL are written raw, control characters and backslashes escaped."""
    batch = [MessageCreate(peer_id="alice", content=content)]
    body = {"messages": render_batch(batch, MessageCreate, "messages", "op")}
    assert encode_json(body).decode("utf-8") == json.dumps(
        body, ensure_ascii=False, separators=(",", ":")
    )


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


@pytest.mark.parametrize("step", [1000, 65536, 1 << 20])
def test_a_large_body_decodes_in_any_split_and_bytes_after_it_are_not_taken(step: int) -> None:
    body = page_body(200)
    exchange = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    run(exchange, answer(200, body) + b"trailing", step)
    page = exchange.result()
    assert len(page.items) == 200 and page.items[0].content == "x" * 1000


def test_a_large_body_keeps_the_cap_and_a_cut_one_is_refused() -> None:
    over = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 18)
    with pytest.raises(ResponseTooLargeError) as too_large:
        over.received(b"HTTP/1.1 200 X\r\nContent-Length: %d\r\n\r\n" % ((1 << 18) + 1))
        over.received(b"")
    assert too_large.value.request_sent is True
    cut = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    cut.received(b"HTTP/1.1 200 X\r\nContent-Length: %d\r\n\r\n" % (1 << 18) + b"x" * 100)
    with pytest.raises(ProtocolError, match="still to come") as info:
        cut.received(b"")  # the server closed the connection
    assert info.value.request_sent is True


def test_a_large_body_is_redacted() -> None:
    body = page_body(100, content="sk-secret " * 100)
    exchange = Exchange(ops.messages.list_messages(PATHS, "s"), KEY, 1 << 24)
    run(exchange, answer(200, body), 1 << 16)
    page = exchange.result()
    assert page.items and all("sk-secret" not in m.content for m in page.items)


def read_as_the_executor_does(exchange: Exchange[object], wire: bytes, most: int) -> list[int]:
    """The executors' loop over a socket that holds ``wire`` and gives at most ``most`` bytes
    a read: into ``room()`` when it is offered, else as bytes. Returns each room's size; the
    exchange took ``sum`` of what it was handed (checked by the caller against ``wire``)."""
    rooms = []
    at = 0
    while exchange.needs_more:
        room = exchange.room()
        piece = wire[at : at + most]
        if room is None:
            exchange.received(piece)
            at += len(piece)
        else:
            rooms.append(len(room))
            count = min(len(room), len(piece))
            room[:count] = piece[:count]
            exchange.received(count)
            at += count
    rooms.append(at)  # last: how many bytes of the wire were taken
    return rooms


@pytest.mark.parametrize("most", [1000, 4096, 65536])  # the body is about 220 KB
def test_a_body_read_into_its_room_decodes_and_no_byte_after_it_is_read(most: int) -> None:
    body = page_body(200)
    wire = answer(200, body)
    exchange = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    *rooms, taken = read_as_the_executor_does(exchange, wire + b"trailing", most)
    assert taken == len(wire)  # "trailing" stayed on the socket
    assert rooms and all(0 < size <= len(body) for size in rooms)
    page = exchange.result()
    assert len(page.items) == 200 and page.items[-1].content == "x" * 1000


def test_room_is_offered_only_inside_a_2xx_body_of_announced_length() -> None:
    fresh = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    assert fresh.room() is None  # the head is not in yet
    error = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    error.received(b"HTTP/1.1 500 X\r\nContent-Length: 100000\r\n\r\n")
    assert error.needs_more and error.room() is None  # an error keeps its first 4 KiB only
    chunked = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    chunked.received(b"HTTP/1.1 200 X\r\nTransfer-Encoding: chunked\r\n\r\n")
    assert chunked.needs_more and chunked.room() is None
    stream = Exchange(ops.chat.chat_stream(PATHS, "alice", "q"), None, 1 << 24)
    stream.received(b"HTTP/1.1 200 X\r\nContent-Type: text/event-stream\r\n\r\n")
    assert stream.room() is None
    over = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 18)
    with pytest.raises(ResponseTooLargeError):
        over.received(b"HTTP/1.1 200 X\r\nContent-Length: %d\r\n\r\n" % ((1 << 18) + 1))
    assert over.room() is None  # nothing is read past the cap


def test_room_waits_until_the_body_bytes_that_came_with_the_head_are_taken() -> None:
    exchange = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    exchange.received(b"HTTP/1.1 200 X\r\nContent-Length: 10\r\n\r\n" + b"0123")
    room = exchange.room()
    assert room is not None and len(room) == 6
    room[:6] = b"456789"
    exchange.received(6)
    assert not exchange.needs_more and exchange.room() is None


def test_a_body_cut_while_read_into_its_room_is_refused() -> None:
    exchange = Exchange(ops.messages.list_messages(PATHS, "s"), None, 1 << 24)
    exchange.received(b"HTTP/1.1 200 X\r\nContent-Length: 100\r\n\r\n")
    room = exchange.room()
    assert room is not None and len(room) == 100
    room[:40] = b"x" * 40
    exchange.received(40)
    with pytest.raises(ProtocolError, match="60 bytes of the body still to come") as info:
        exchange.received(0)  # the server closed the connection
    assert info.value.request_sent is True


def test_a_body_read_into_its_room_is_redacted() -> None:
    body = page_body(100, content="sk-secret " * 100)
    exchange = Exchange(ops.messages.list_messages(PATHS, "s"), KEY, 1 << 24)
    read_as_the_executor_does(exchange, answer(200, body), 1 << 16)
    page = exchange.result()
    assert page.items and all("sk-secret" not in m.content for m in page.items)


def test_the_parser_counts_in_what_was_read_past_it_and_never_more_than_the_body() -> None:
    parser = ResponseParser(max_body=100)
    parser.feed(b"HTTP/1.1 200 X\r\nContent-Length: 10\r\n\r\nab")
    assert isinstance(parser.next_event(), ResponseHead)
    assert parser.length_left() == 10 and parser.room() == 0  # "ab" is still buffered
    assert parser.next_event() == BodyData(b"ab")
    assert parser.length_left() == 8 and parser.room() == 8
    for wrong in (0, 9):
        with pytest.raises(ValueError, match="room for 8"):
            parser.took(wrong)
    parser.took(8)
    assert parser.next_event() == ResponseEnd() and parser.done
    chunked = ResponseParser(max_body=100)
    chunked.feed(b"HTTP/1.1 200 X\r\nTransfer-Encoding: chunked\r\n\r\n")
    assert isinstance(chunked.next_event(), ResponseHead)
    assert chunked.length_left() is None and chunked.room() == 0
