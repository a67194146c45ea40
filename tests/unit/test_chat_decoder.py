"""The sans-IO chat decoder on its own: body bytes in, ChatChunks out, in any split."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roncho import ChatChunk, DecodeError, ProtocolError, ResponseTooLargeError
from roncho._chat import ChatDecoder

SSE = "text/event-stream"


def event(payload: object) -> bytes:
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


def delta(text: str) -> bytes:
    return event({"delta": {"content": text}, "done": False})


DONE = event({"done": True})


def drain(decoder: ChatDecoder) -> list[ChatChunk]:
    chunks = []
    while (chunk := decoder.pop()) is not None:
        chunks.append(chunk)
    return chunks


def test_chunks_come_out_in_order_and_the_final_event_finishes() -> None:
    decoder = ChatDecoder("chat_stream", SSE, 1 << 20)
    decoder.feed(delta("Hel") + delta("lo"))
    assert [c.content for c in drain(decoder)] == ["Hel", "lo"]
    assert not decoder.finished
    decoder.feed(DONE + delta("after the end"))
    assert [(c.content, c.done) for c in drain(decoder)] == [("", True)]
    assert decoder.finished and decoder.text == "Hello"
    decoder.end()  # a finished stream may end at any time


@settings(max_examples=200)
@given(cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=8))
def test_any_split_of_the_body_gives_the_same_chunks(cuts: list[int]) -> None:
    body = delta("é, ünïcode") + b": keep-alive\n\n" + delta("two\nlines") + DONE
    decoder = ChatDecoder("chat_stream", SSE, 1 << 20)
    chunks = []
    start = 0
    for cut in [*sorted({min(c, len(body)) for c in cuts}), len(body)]:
        decoder.feed(body[start:cut])
        chunks += drain(decoder)
        start = cut
    assert [c.content for c in chunks] == ["é, ünïcode", "two\nlines", ""]
    assert decoder.finished


def test_a_body_ending_without_the_final_event_is_a_protocol_error() -> None:
    decoder = ChatDecoder("chat_stream", SSE, 1 << 20)
    decoder.feed(delta("half an ans"))
    assert [c.content for c in drain(decoder)] == ["half an ans"]
    with pytest.raises(ProtocolError, match="ended without its final event") as info:
        decoder.end()
    assert info.value.request_sent is True
    assert not decoder.finished and decoder.text == "half an ans"


def test_an_event_that_is_not_json_is_a_decode_error_marked_sent() -> None:
    decoder = ChatDecoder("chat_stream", SSE, 1 << 20)
    with pytest.raises(DecodeError, match="not JSON") as info:
        decoder.feed(b"data: {nope\n\n")
    assert info.value.request_sent is True


def test_a_line_over_the_cap_is_refused() -> None:
    decoder = ChatDecoder("chat_stream", SSE, 64)
    with pytest.raises(ResponseTooLargeError) as info:
        decoder.feed(b"data: " + b"x" * 100)
    assert info.value.request_sent is True


def test_a_json_answer_instead_of_a_stream_becomes_one_final_chunk() -> None:
    decoder = ChatDecoder("chat_stream", "application/json; charset=utf-8", 1 << 20)
    body = json.dumps({"content": "whole answer"}).encode()
    decoder.feed(body[:5])
    decoder.feed(body[5:])
    assert decoder.pop() is None  # nothing until the body ends
    decoder.end()
    assert [(c.content, c.done) for c in drain(decoder)] == [("whole answer", True)]
    assert decoder.finished and decoder.text == "whole answer"


def test_a_json_answer_is_redacted_before_it_is_decoded() -> None:
    seen: list[bytes] = []

    def redact(data: bytes) -> bytes:
        seen.append(data)
        return data.replace(b"KEY", b"[redacted]")

    decoder = ChatDecoder("chat_stream", "application/json", 1 << 20, redact)
    decoder.feed(b'{"content": "echo KEY"}')
    decoder.end()
    assert drain(decoder)[0].content == "echo [redacted]" and seen
