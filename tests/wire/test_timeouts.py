"""The two clocks: the idle read timeout (no byte for N s) and the optional total deadline.

The read timeout is idle, not total: a server that keeps sending, however slowly, is never
cut off by it. Only ``deadline`` bounds a whole call. These tests show both halves, with
time scaled down (a byte every DRIP_INTERVAL instead of every second) to keep them fast.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from rawserver import SERVER_WAIT, Conn, Handler, RawServer, chunked, sse_events, stream_head

import roncho
from roncho import DeadlineExceeded, DecodeError, ProtocolError, ReadTimeout

KEY = "KEY-must-not-leak-1234"
CONNECT_TIMEOUT = 2.0
# The idle timeout these tests beat by sending a little before it runs out.
READ_TIMEOUT = 1.0
SHORT_READ_TIMEOUT = 0.3
# A pause between pieces: well under READ_TIMEOUT, so only a total clock could end the call.
PAUSE = 0.4
DRIP_INTERVAL = 0.1
DEADLINE = 0.5
OK = b'{"status":"ok"}'


def client(url: str, **options: Any) -> roncho.Client:
    settings: dict[str, Any] = {
        "api_key": KEY,
        "connect_timeout": CONNECT_TIMEOUT,
        "read_timeout": READ_TIMEOUT,
        **options,
    }
    return roncho.Client(url, "w", **settings)


def in_pieces(pieces: list[bytes], pause: float) -> Handler:
    def handler(conn: Conn) -> None:
        conn.read_request()
        for piece in pieces:
            conn.send(piece)
            if conn.server.stopping.wait(pause):
                return

    return handler


def test_read_timeout_is_idle_not_total() -> None:
    response = b"HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n" + OK
    pieces = [response[:10], response[10:30], response[30:45], response[45:]]
    with RawServer([in_pieces(pieces, PAUSE)]) as server:
        started = time.monotonic()
        assert client(server.url).probe().ok
        took = time.monotonic() - started
    assert took > READ_TIMEOUT, "the answer took longer than read_timeout, and still arrived"


def test_drip_without_deadline_is_not_ended_by_the_idle_timeout() -> None:
    """A byte every DRIP_INTERVAL keeps the call alive past many read timeouts; only the
    server stopping ends it (then the short body is a ProtocolError). This is the case
    ``deadline`` exists for."""
    stop_dripping = threading.Event()
    dripped: list[int] = []

    def drip(conn: Conn) -> None:
        conn.read_request()
        conn.send(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        while not stop_dripping.wait(DRIP_INTERVAL):
            conn.send(b" ")
            dripped.append(1)

    outcome: list[BaseException | object] = []

    def call(url: str) -> None:
        try:
            outcome.append(client(url, read_timeout=SHORT_READ_TIMEOUT).probe())
        except BaseException as exc:
            outcome.append(exc)

    with RawServer([drip]) as server:
        worker = threading.Thread(target=call, args=(server.url,), daemon=True)
        worker.start()
        worker.join(SHORT_READ_TIMEOUT * 5)
        still_reading = worker.is_alive()
        stop_dripping.set()  # the server gives up and closes
        worker.join(SERVER_WAIT)
    assert still_reading, "the client was still reading after 5 read timeouts"
    assert len(dripped) >= 5
    assert not worker.is_alive()
    assert len(outcome) == 1 and type(outcome[0]) is ProtocolError


def test_drip_slower_than_deadline_is_deadline_exceeded() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n" + OK

    def drip(conn: Conn) -> None:
        conn.read_request()
        conn.drip(head, DRIP_INTERVAL, stop=conn.server.stopping)

    with RawServer([drip]) as server:
        started = time.monotonic()
        with pytest.raises(DeadlineExceeded) as caught:
            client(server.url).probe(deadline=DEADLINE)
        took = time.monotonic() - started
    assert DEADLINE <= took < SERVER_WAIT
    assert caught.value.request_sent is True
    assert "deadline" in str(caught.value)


def test_deadline_spans_a_stream() -> None:
    """On a stream the deadline bounds the whole answer, however steady the chunks."""
    event = sse_events({"delta": {"content": "x"}, "done": False})

    def steady(conn: Conn) -> None:
        conn.read_request()
        conn.send(stream_head())
        while not conn.server.stopping.wait(DRIP_INTERVAL):
            conn.send(chunked(event)[: -len(b"0\r\n\r\n")])

    with RawServer([steady]) as server, pytest.raises(DeadlineExceeded) as caught:
        stream = client(server.url).chat_stream("alice", "q", deadline=DEADLINE)
        try:
            for _ in stream:
                pass
        finally:
            stream.close()
    assert caught.value.request_sent is True


def test_stream_read_timeout_applies_between_chunks_only() -> None:
    """Chunks that each come within read_timeout make a stream longer than read_timeout."""
    deltas = [{"delta": {"content": c}, "done": False} for c in "abc"]
    pieces = [stream_head()] + [chunked(sse_events(d))[:-5] for d in deltas]
    pieces.append(chunked(sse_events({"done": True})))
    with RawServer([in_pieces(pieces, PAUSE)]) as server:
        started = time.monotonic()
        with client(server.url).chat_stream("alice", "q") as stream:
            answer = stream.read_all()
        took = time.monotonic() - started
    assert answer.content == "abc"
    assert took > READ_TIMEOUT


# A body cut short, in each framing: a close is a ProtocolError where the framing says more
# was due; a close-delimited body has no such promise, so the cut shows up as bad JSON.
HEADS = {
    "content-length": b"HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n",
    "chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nf\r\n",
    "close-delimited": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n",
}
CLOSED_MID_BODY = {
    "content-length": ProtocolError,
    "chunked": ProtocolError,
    "close-delimited": DecodeError,
}


@pytest.mark.parametrize("framing", list(HEADS))
def test_server_closes_mid_body(framing: str) -> None:
    def cut(conn: Conn) -> None:
        conn.read_request()
        conn.send(HEADS[framing] + OK[:7])

    with RawServer([cut]) as server, pytest.raises(roncho.RonchoError) as caught:
        client(server.url).probe()
    assert type(caught.value) is CLOSED_MID_BODY[framing]
    assert caught.value.request_sent is True


@pytest.mark.parametrize("framing", list(HEADS))
def test_server_stalls_mid_body(framing: str) -> None:
    def stall(conn: Conn) -> None:
        conn.read_request()
        conn.send(HEADS[framing] + OK[:7])
        conn.wait_closed()

    with RawServer([stall]) as server:
        started = time.monotonic()
        with pytest.raises(ReadTimeout) as caught:
            client(server.url, read_timeout=SHORT_READ_TIMEOUT).probe()
        took = time.monotonic() - started
    assert took < SERVER_WAIT
    assert caught.value.request_sent is True
    assert "no bytes for 0.3 s" in str(caught.value)


def test_deadline_passing_while_the_caller_holds_a_stream() -> None:
    """The deadline can run out between reads (the caller is slow to iterate): the error
    still says the request was sent and names it. (It used to come from the clock bare,
    with request_sent False.)"""
    deltas = [{"delta": {"content": c}, "done": False} for c in "ab"]
    first = chunked(sse_events(deltas[0]))[:-5]
    rest = chunked(sse_events(deltas[1]))[:-5] + chunked(sse_events({"done": True}))
    with RawServer([in_pieces([stream_head() + first, rest], DRIP_INTERVAL)]) as server:
        stream = client(server.url).chat_stream("alice", "q", deadline=DEADLINE)
        try:
            with pytest.raises(DeadlineExceeded) as caught:
                for _ in stream:
                    time.sleep(DEADLINE * 1.5)  # the caller dawdles past the deadline
        finally:
            stream.close()
    assert caught.value.request_sent is True
    assert str(caught.value) == (
        f"POST /v3/workspaces/w/peers/alice/chat: the call's deadline of {DEADLINE} s passed "
        "while waiting for the response"
    )
