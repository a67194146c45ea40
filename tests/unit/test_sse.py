"""The sans-IO server-sent events decoder (WHATWG HTML §9.2), without sockets.

Examples from the spec's own text (§9.2.4, §9.2.6) and the stream format Honcho sends
(its streamed chat): one ``data: <json>`` line and a blank line per event.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from roncho import DecodeError, ResponseTooLargeError
from roncho._sse import EventDecoder, LineDecoder, ServerSentEvent, SSEDecoder

CAP = 4096


def decode(chunks: Iterable[bytes], cap: int = CAP) -> list[ServerSentEvent]:
    decoder = SSEDecoder(cap)
    events: list[ServerSentEvent] = []
    for chunk in chunks:
        events.extend(decoder.feed(chunk))
    return events


def every_split(stream: bytes) -> list[list[bytes]]:
    """The stream whole, byte by byte, and cut in two at every position."""
    splits = [[stream], [stream[i : i + 1] for i in range(len(stream))]]
    splits += [[stream[:i], stream[i:]] for i in range(1, len(stream))]
    return splits


def same_for_every_split(stream: bytes) -> list[ServerSentEvent]:
    expected = decode([stream])
    for chunks in every_split(stream):
        assert decode(chunks) == expected, chunks
    return expected


# -- WHATWG examples ----------------------------------------------------------------------
def test_sse_spec_multiline_data() -> None:
    events = same_for_every_split(b"data: YHOO\ndata: +2\ndata: 10\n\n")
    assert events == [ServerSentEvent("YHOO\n+2\n10")]


def test_sse_spec_ids_and_leading_space() -> None:
    stream = (
        b": test stream\n\n"
        b"data: first event\nid: 1\n\n"
        b"data:second event\nid\n\n"
        b"data:  third event\n\n"
    )
    events = same_for_every_split(stream)
    assert events == [
        ServerSentEvent("first event", id="1"),
        ServerSentEvent("second event", id=""),  # "id" alone resets the last event id
        ServerSentEvent(" third event", id=""),  # only one leading space is removed
    ]


def test_sse_spec_empty_data_and_unterminated_last_block() -> None:
    events = same_for_every_split(b"data\n\ndata\ndata\n\ndata:")
    assert events == [ServerSentEvent(""), ServerSentEvent("\n")]


def test_sse_spec_space_after_colon_optional() -> None:
    events = same_for_every_split(b"data:test\n\ndata: test\n\n")
    assert events == [ServerSentEvent("test"), ServerSentEvent("test")]


def test_sse_spec_event_types() -> None:
    stream = (
        b"event: add\ndata: 73857293\n\n"
        b"event: remove\ndata: 2153\n\n"
        b"event: add\ndata: 113411\n\n"
        b"data: plain\n\n"
    )
    events = same_for_every_split(stream)
    assert [(e.event, e.data) for e in events] == [
        ("add", "73857293"),
        ("remove", "2153"),
        ("add", "113411"),
        ("message", "plain"),  # the event type does not carry over
    ]


def test_sse_honcho_stream_shape() -> None:
    stream = (
        b'data: {"delta": {"content": "Hel"}, "done": false}\n\n'
        b'data: {"delta": {"content": "lo \\u00e9"}, "done": false}\n\n'
        b'data: {"done": true}\n\n'
    )
    events = same_for_every_split(stream)
    assert [e.data for e in events] == [
        '{"delta": {"content": "Hel"}, "done": false}',
        '{"delta": {"content": "lo \\u00e9"}, "done": false}',
        '{"done": true}',
    ]


# -- line endings -------------------------------------------------------------------------
@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_sse_line_endings(eol: bytes) -> None:
    stream = b"data: a" + eol + b"data: b" + eol + eol + b"data: c" + eol + eol
    assert same_for_every_split(stream) == [ServerSentEvent("a\nb"), ServerSentEvent("c")]


def test_sse_mixed_line_endings() -> None:
    stream = b"data: a\r\ndata: b\rdata: c\n\r\n"
    assert same_for_every_split(stream) == [ServerSentEvent("a\nb\nc")]


def test_sse_cr_at_end_of_read_and_lf_at_start_of_next_is_one_break() -> None:
    """Were the LF a second line ending, "a" would be dispatched alone."""
    assert decode([b"data: a\r", b"\ndata: b\r\n\r\n"]) == [ServerSentEvent("a\nb")]


def test_sse_cr_at_end_of_read_then_other_byte() -> None:
    assert decode([b"data: a\r", b"data: b\r", b"\r"]) == [ServerSentEvent("a\nb")]


def test_sse_cr_then_empty_read_then_lf() -> None:
    assert decode([b"data: a\r", b"", b"\n", b"\n"]) == [ServerSentEvent("a")]


def test_sse_line_decoder_cuts_lines() -> None:
    lines = LineDecoder(100)
    assert lines.feed(b"one\r\ntwo\rthree\nfour") == ["one", "two", "three"]
    assert lines.pending
    assert lines.feed(b"\r") == ["four"]
    assert lines.feed(b"\n") == []  # the LF belongs to the CR
    assert not lines.pending


# -- fields -------------------------------------------------------------------------------
def test_sse_comments_ignored() -> None:
    stream = b": keep-alive\n:\n: another\ndata: x\n: inside an event\n\n:\n\n"
    assert same_for_every_split(stream) == [ServerSentEvent("x")]


def test_sse_comment_only_stream_gives_nothing() -> None:
    assert decode([b": ping\n\n: ping\n\n"]) == []


def test_sse_unknown_fields_ignored() -> None:
    assert decode([b"foo: bar\nDATA: no\ndata : no\ndata: yes\n\n"]) == [ServerSentEvent("yes")]


def test_sse_event_without_data_not_dispatched() -> None:
    events = decode([b"event: ping\n\nid: 7\n\ndata: x\n\n"])
    assert events == [ServerSentEvent("x", id="7")]  # the id persists, the type does not


def test_sse_id_with_nul_ignored() -> None:
    assert decode([b"id: 1\n\ndata: a\nid: b\x00c\n\n"]) == [ServerSentEvent("a", id="1")]


@pytest.mark.parametrize(("value", "retry"), [(b"1500", 1500), (b"15x", None), (b"", None)])
def test_sse_retry(value: bytes, retry: int | None) -> None:
    assert decode([b"retry: " + value + b"\ndata: x\n\n"]) == [ServerSentEvent("x", retry=retry)]


def test_sse_leading_bom_ignored_once() -> None:
    bom = "\ufeff".encode()
    assert same_for_every_split(bom + b"data: x\n\n") == [ServerSentEvent("x")]
    # only the first: a BOM later is part of a field name, which is then unknown
    assert decode([bom + b"data: a\n\n" + bom + b"data: b\n\n"]) == [ServerSentEvent("a")]


def test_sse_colon_inside_value_kept() -> None:
    assert decode([b'data: {"a": "b:c"}\n\n']) == [ServerSentEvent('{"a": "b:c"}')]


# -- splits and UTF-8 ---------------------------------------------------------------------
def test_sse_event_split_at_every_byte_position() -> None:
    stream = b"id: 42\nevent: chunk\ndata: first line\ndata: second\r\n\r\ndata: next\r\r"
    events = same_for_every_split(stream)
    assert events == [
        ServerSentEvent("first line\nsecond", event="chunk", id="42"),
        ServerSentEvent("next", id="42"),
    ]


def test_sse_multibyte_utf8_split_across_reads() -> None:
    text = "héllo — 😀 日本"
    events = same_for_every_split(b"data: " + text.encode() + b"\n\n")
    assert events == [ServerSentEvent(text)]


@pytest.mark.parametrize(
    "raw",
    [b"data: \xff\n\n", b"data: \xc3\n\n", b"data: \xed\xa0\x80\n\n", b": \xfe comment\n"],
)
def test_sse_invalid_utf8_refused(raw: bytes) -> None:
    with pytest.raises(DecodeError):
        decode([raw])
    with pytest.raises(DecodeError):
        decode([raw[i : i + 1] for i in range(len(raw))])


# -- end of stream ------------------------------------------------------------------------
def test_sse_unterminated_final_line_discarded() -> None:
    decoder = SSEDecoder(CAP)
    assert decoder.feed(b"data: complete\n\ndata: never finished") == [ServerSentEvent("complete")]
    assert decoder.feed(b"") == []


def test_sse_event_without_blank_line_discarded() -> None:
    assert decode([b"data: one\ndata: two\n"]) == []


# -- caps ---------------------------------------------------------------------------------
def test_sse_line_at_cap_accepted() -> None:
    cap = 64
    line = b"data: " + b"x" * (cap - 6)
    assert len(line) == cap
    for chunks in every_split(line + b"\n\n"):
        assert decode(chunks, cap) == [ServerSentEvent("x" * (cap - 6))]


def test_sse_line_over_cap_refused_whatever_the_split() -> None:
    cap = 64
    stream = b"data: " + b"x" * (cap - 5) + b"\n\n"
    for chunks in every_split(stream):
        with pytest.raises(ResponseTooLargeError):
            decode(chunks, cap)


def test_sse_unterminated_line_over_cap_refused_without_waiting() -> None:
    """A server sending one endless line is cut off once the buffer passes the cap."""
    decoder = SSEDecoder(64)
    assert decoder.feed(b"data: " + b"y" * 58) == []
    with pytest.raises(ResponseTooLargeError):
        decoder.feed(b"y")


def test_sse_event_over_cap_refused() -> None:
    """Many short data lines may not add up to more than the cap either."""
    cap = 64
    stream = b"data: 0123456789\n" * 10 + b"\n"
    with pytest.raises(ResponseTooLargeError):
        decode([stream], cap)
    assert decode([b"data: 0123456789\n" * 5 + b"\n"], cap)[0].data.count("\n") == 4


def test_sse_event_decoder_cap_counts_characters() -> None:
    events = EventDecoder(10)
    assert events.decode("data: 123456789") is None  # 9 characters plus the newline
    with pytest.raises(ResponseTooLargeError):
        events.decode("data: x")
