"""chat_stream on the wire: events split anywhere, stalls, early ends, evidence, closing.

Honcho's stream is ``text/event-stream; charset=utf-8``, one ``data: <json>`` line and a
blank line per chunk, the last one ``{"done": true}``; Starlette sends it chunked.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from rawserver import SERVER_WAIT, Conn, RawServer, chunked, reply

import roncho
import roncho._network
from roncho import ChatAnswer, ChatChunk, DecodeError, ProtocolError, ReadTimeout

WS = "w1"
READ_TIMEOUT = 5.0  # seconds, for answers that come at once
STALL_TIMEOUT = 0.3  # seconds, the idle timeout in the stall tests
SPLIT_PAUSE = 0.002  # seconds between the two halves of a split answer

HEAD_UNTIL_CLOSE = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
    b"cache-control: no-cache\r\n\r\n"
)
HEAD_CHUNKED = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
    b"transfer-encoding: chunked\r\n\r\n"
)


def event(payload: dict[str, Any]) -> bytes:
    """One event as Honcho writes it: Python json.dumps defaults (ASCII-escaped)."""
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


def delta(text: str) -> bytes:
    return event({"delta": {"content": text}, "done": False})


DONE = event({"done": True})
EVIDENCE = {
    "conclusions": [
        {
            "id": "c8Xw2LmQ0pR5tY7uI9oPa",
            "level": "explicit",
            "content": "alice likes tea",
            "created_at": "2026-11-30T12:00:00Z",
            "session_id": None,
            "observer_id": "alice",
            "observed_id": "alice",
            "source_ids": [],
        }
    ],
    "messages": [
        {
            "id": "Zq3cU5nX1bA7yQ0vL2kHd",
            "session_id": "s1",
            "peer_id": "alice",
            "created_at": "2026-11-30T12:00:00Z",
        }
    ],
    "tool_calls": [],
    "reasoning_trace_id": None,
}
# Raw UTF-8 (a server that does not ASCII-escape), a 4-byte emoji, CRLF line ends.
STREAM = (
    delta("Alice ")
    + b'data: {"delta": {"content": "likes th\xc3\xa9 \xf0\x9f\x8d\xb5"}, "done": false}\r\n\r\n'
    + b": keep-alive comment\n\n"
    + delta(" and caf\u00e9")
    + event({"done": True, "evidence": EVIDENCE})
)
TEXT = "Alice likes th\u00e9 \U0001f375 and caf\u00e9"


def client_for(server: RawServer, read_timeout: float = READ_TIMEOUT) -> roncho.Client:
    return roncho.Client(server.url, WS, read_timeout=read_timeout)


def check_full_answer(stream: roncho.ChatStream) -> None:
    chunks = list(stream)
    assert [c.content for c in chunks] == [
        "Alice ",
        "likes th\u00e9 \U0001f375",
        " and caf\u00e9",
        "",
    ]
    assert [c.done for c in chunks] == [False, False, False, True]
    assert stream.finished and stream.text == TEXT
    assert stream.evidence is not None
    assert stream.evidence.conclusions[0].content == "alice likes tea"
    assert stream.evidence.messages[0].session_id == "s1"


@pytest.mark.parametrize("framing", ["until-close", "chunked"])
def test_stream_read_one_byte_at_a_time(monkeypatch: pytest.MonkeyPatch, framing: str) -> None:
    """Reads of one byte split every event (and every UTF-8 sequence) at every position."""
    monkeypatch.setattr(roncho._network, "RECV_BYTES", 1)
    body = (
        HEAD_UNTIL_CLOSE + STREAM
        if framing == "until-close"
        else HEAD_CHUNKED + chunked(*[STREAM[i : i + 7] for i in range(0, len(STREAM), 7)])
    )
    with (
        RawServer([lambda conn: (conn.read_request(), conn.send(body))]) as server,
        client_for(server).chat_stream("alice", "tea?") as stream,
    ):
        check_full_answer(stream)
    assert not server.errors


def split_handler(data: bytes, cut: int) -> Any:
    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(data[:cut])
        time.sleep(SPLIT_PAUSE)
        conn.send(data[cut:])

    return handler


def test_stream_split_in_two_at_every_byte_position() -> None:
    """One connection per cut position through a two-event stream (with a 3-byte char)."""
    body = delta("th\u00e9").replace(b"\\u00e9", "\u00e9".encode()) + DONE
    positions = range(1, len(body))
    handlers = [
        split_handler(HEAD_UNTIL_CLOSE + body, len(HEAD_UNTIL_CLOSE) + p) for p in positions
    ]
    with RawServer(handlers) as server:
        client = client_for(server)
        for _ in positions:
            assert client.chat_stream("alice", "q").read_all() == ChatAnswer(content="th\u00e9")
    assert server.connections == len(positions)
    assert not server.errors


def test_multibyte_character_split_across_reads() -> None:
    euro = "\u20ac".encode()  # three bytes: split after the first and after the second
    body = b'data: {"delta": {"content": "5 ' + euro + b'"}, "done": false}\n\n' + DONE
    cut = body.index(euro)
    pieces = [HEAD_CHUNKED, chunked(body[: cut + 1])[:-5], chunked(body[cut + 1 : cut + 2])[:-5]]
    pieces.append(chunked(body[cut + 2 :]))

    def handler(conn: Conn) -> None:
        conn.read_request()
        for piece in pieces:
            conn.send(piece)
            time.sleep(SPLIT_PAUSE)

    with RawServer([handler]) as server:
        answer = client_for(server).chat_stream("alice", "q").read_all()
    assert answer.content == "5 \u20ac"


def test_stall_between_chunks_is_read_timeout() -> None:
    stop = threading.Event()

    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(HEAD_UNTIL_CLOSE + delta("first"))
        conn.wait_closed()  # then silence until the client gives up
        stop.set()

    with RawServer([handler]) as server:
        stream = client_for(server, STALL_TIMEOUT).chat_stream("alice", "q")
        assert next(stream) == ChatChunk(content="first")
        started = time.monotonic()
        with pytest.raises(ReadTimeout) as info:
            next(stream)
        waited = time.monotonic() - started
        assert stop.wait(SERVER_WAIT)  # the client closed the connection
    assert info.value.request_sent is True
    assert STALL_TIMEOUT * 0.9 <= waited < SERVER_WAIT  # a bound, not a speed goal
    assert stream.text == "first" and not stream.finished


def test_deadline_bounds_a_whole_stream() -> None:
    """Events keep coming faster than the idle timeout; the call's deadline still ends it."""

    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(HEAD_UNTIL_CLOSE)
        for _ in range(200):
            if conn.server.stopping.is_set():
                return
            conn.send(delta("."))
            time.sleep(0.05)

    with RawServer([handler]) as server:
        stream = client_for(server, 1.0).chat_stream("alice", "q", deadline=0.5)
        with pytest.raises(roncho.DeadlineExceeded):
            stream.read_all()
    assert 1 <= len(stream.text) < 200


@pytest.mark.parametrize("framing", ["until-close", "chunked"])
def test_stream_ending_without_final_event_is_protocol_error(framing: str) -> None:
    """The real server ends the stream early when e.g. the target is missing (after 200)."""
    body = delta("half an ans")
    data = HEAD_UNTIL_CLOSE + body if framing == "until-close" else HEAD_CHUNKED + chunked(body)
    with RawServer([lambda conn: (conn.read_request(), conn.send(data))]) as server:
        stream = client_for(server).chat_stream("alice", "q")
        with pytest.raises(ProtocolError) as info:
            stream.read_all()
    assert "final event" in str(info.value)
    assert info.value.request_sent is True
    assert stream.text == "half an ans" and not stream.finished


def test_unterminated_final_event_is_not_taken() -> None:
    """``data: {"done": true}`` without its blank line is discarded (WHATWG), so the stream
    is incomplete."""
    data = HEAD_UNTIL_CLOSE + delta("x") + b'data: {"done": true}\n'
    with (
        RawServer([lambda conn: (conn.read_request(), conn.send(data))]) as server,
        pytest.raises(ProtocolError),
    ):
        client_for(server).chat_stream("alice", "q").read_all()


def test_final_event_ends_reading_even_if_the_server_keeps_the_connection() -> None:
    stop = threading.Event()

    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(HEAD_CHUNKED + chunked(delta("ok"))[:-5] + chunked(DONE)[:-5])
        conn.wait_closed()  # never sends the last chunk; waits for the client to hang up
        stop.set()

    with RawServer([handler]) as server:
        answer = client_for(server, STALL_TIMEOUT).chat_stream("alice", "q").read_all()
        assert stop.wait(SERVER_WAIT)
    assert answer == ChatAnswer(content="ok")


def test_evidence_arrives_on_the_final_event() -> None:
    data = HEAD_UNTIL_CLOSE + delta("yes") + event({"done": True, "evidence": EVIDENCE})
    with RawServer([lambda conn: (conn.read_request(), conn.send(data))]) as server:
        stream = client_for(server).chat_stream("alice", "q", include_evidence=True)
        assert stream.evidence is None
        answer = stream.read_all()
    assert json.loads(server.requests[0].body)["include_evidence"] is True
    assert stream.evidence is not None and answer.evidence == stream.evidence
    assert stream.evidence.messages[0].id == "Zq3cU5nX1bA7yQ0vL2kHd"
    assert stream.evidence.conclusions[0].source_ids == ()


def test_context_manager_closes_the_connection_mid_stream() -> None:
    eof = threading.Event()

    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(HEAD_UNTIL_CLOSE + delta("one") + delta("two"))
        conn.sock.settimeout(SERVER_WAIT)
        if conn.sock.recv(1) == b"":
            eof.set()

    with RawServer([handler]) as server:
        with client_for(server).chat_stream("alice", "q") as stream:
            assert next(stream).content == "one"
        assert eof.wait(SERVER_WAIT)
    assert not stream.finished


def test_using_a_stream_after_close_is_a_roncho_error() -> None:
    """Not an AssertionError from inside the transport, and not a silent short answer."""

    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(HEAD_UNTIL_CLOSE + delta("one"))
        conn.wait_closed()

    with RawServer([handler]) as server:
        with client_for(server).chat_stream("alice", "q") as stream:
            next(stream)
        with pytest.raises(ProtocolError) as info:
            next(stream)
        with pytest.raises(ProtocolError):
            stream.read_all()
    assert "closed" in str(info.value)


def test_iterating_a_finished_stream_again_says_it_was_read() -> None:
    """Not a silent empty second pass; read_all() still gives the whole answer."""
    data = HEAD_UNTIL_CLOSE + delta("a") + DONE
    with RawServer([lambda conn: (conn.read_request(), conn.send(data))]) as server:
        stream = client_for(server).chat_stream("alice", "q")
        assert [c.content for c in stream] == ["a", ""]
        with pytest.raises(roncho.ConfigError) as info:
            list(stream)
        with pytest.raises(roncho.ConfigError):
            next(stream)
        assert stream.read_all().content == "a"
    assert str(info.value) == (
        "chat_stream: this stream was already read to its end; "
        "its whole answer is in text and evidence (or read_all())"
    )
    assert len(server.requests) == 1


def test_read_all_twice_gives_the_same_answer_and_then_iterating_is_refused() -> None:
    data = HEAD_UNTIL_CLOSE + delta("a") + DONE
    with RawServer([lambda conn: (conn.read_request(), conn.send(data))]) as server:
        stream = client_for(server).chat_workspace_stream("q")
        assert stream.read_all().content == "a"
        assert stream.read_all().content == "a"
        with pytest.raises(roncho.ConfigError, match=r"^chat_workspace_stream: .*already read"):
            for _ in stream:
                pass


@pytest.mark.parametrize("content", ["She likes tea.", None])
def test_server_ignoring_stream_true_answers_json(content: str | None) -> None:
    with (
        RawServer([reply(200, {"content": content, "evidence": EVIDENCE})]) as server,
        client_for(server).chat_stream("alice", "q") as stream,
    ):
        chunks = list(stream)
    assert json.loads(server.requests[0].body)["stream"] is True
    assert len(chunks) == 1 and chunks[0].done
    assert chunks[0].content == (content or "")
    assert stream.text == (content or "") and stream.finished
    assert stream.evidence is not None and stream.evidence.tool_calls == ()


def test_error_status_before_the_stream_is_status_error() -> None:
    with RawServer(
        [
            reply(404, {"detail": "Peer bob not found in workspace w1"}),
            reply(401, {"detail": "Invalid JWT"}),
        ]
    ) as server:
        client = client_for(server)
        with pytest.raises(roncho.StatusError) as info:
            client.chat_stream("alice", "q", target="bob")
        assert info.value.status == 404 and "bob" in info.value.detail
        with pytest.raises(roncho.UnauthorizedError):
            client.chat_stream("alice", "q")


def test_an_event_that_is_not_json_is_decode_error() -> None:
    data = HEAD_UNTIL_CLOSE + delta("a") + b"data: {oops\n\n" + DONE
    with RawServer([lambda conn: (conn.read_request(), conn.send(data))]) as server:
        stream = client_for(server).chat_stream("alice", "q")
        with pytest.raises(DecodeError) as info:
            stream.read_all()
    assert info.value.request_sent is True


def test_an_event_without_delta_is_decode_error() -> None:
    data = HEAD_UNTIL_CLOSE + event({"done": False}) + DONE
    with (
        RawServer([lambda conn: (conn.read_request(), conn.send(data))]) as server,
        pytest.raises(DecodeError),
    ):
        client_for(server).chat_stream("alice", "q").read_all()


def test_oversized_stream_line_is_refused() -> None:
    data = HEAD_UNTIL_CLOSE + delta("x" * 5000) + DONE
    with RawServer([lambda conn: (conn.read_request(), conn.send(data))]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT, max_response_bytes=1024)
        with pytest.raises(roncho.ResponseTooLargeError):
            client.chat_stream("alice", "q").read_all()


@pytest.mark.parametrize(
    "answer",
    [{"content": 5}, {"content": "x", "evidence": {"messages": [{"no": "id"}]}}, ["x"]],
)
def test_json_fallback_with_a_bad_shape_is_decode_error_after_sending(answer: object) -> None:
    with RawServer([reply(200, answer)]) as server:
        stream = client_for(server).chat_stream("alice", "q")
        with pytest.raises(DecodeError) as info:
            stream.read_all()
    assert info.value.request_sent is True
    assert "chat_stream" in str(info.value)
