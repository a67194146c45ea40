"""Paging arguments and chat streams, as the caller sees them: what goes on the wire, and
the exact text of each refusal (it names the argument and the bound, or what went wrong)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rawserver import RawServer, Trap, reply, send_raw, sse_events, stream_head

import roncho
from roncho import ConfigError, DecodeError, ProtocolError

PAGE = {"items": [], "total": 0, "page": 1, "size": 50, "pages": 0}
pytestmark = pytest.mark.timeout(30)


def refused(call: Callable[[roncho.Client], Any]) -> str:
    with Trap() as trap:
        client = roncho.Client(trap.url, "w", connect_timeout=1.0, read_timeout=1.0)
        with pytest.raises(ConfigError) as info:
            call(client)
        assert trap.connections() == 0
    assert type(info.value) is ConfigError
    assert info.value.request_sent is False
    return str(info.value)


def test_paging_goes_to_the_query_with_reverse_as_true_or_false() -> None:
    with RawServer([reply(200, PAGE), reply(200, PAGE), reply(200, PAGE)]) as server:
        client = roncho.Client(server.url, "w", read_timeout=10.0)
        client.list_messages("s", reverse=True, page=2, size=7)
        client.list_messages("s", reverse=False, size=100)
        client.list_session_peers("s", page=3)  # no reverse: none is sent
    path = "POST /v3/workspaces/w/sessions/s/messages/list"
    assert [r.request_line for r in server.requests] == [
        f"{path}?page=2&size=7&reverse=true HTTP/1.1",
        f"{path}?page=1&size=100&reverse=false HTTP/1.1",
        "GET /v3/workspaces/w/sessions/s/peers?page=3&size=50 HTTP/1.1",
    ]


@pytest.mark.parametrize(
    ("arguments", "text"),
    [
        ({"page": 0}, "page must be at least 1, got 0"),
        ({"size": 0}, "size must be between 1 and 100, got 0"),
        ({"size": 101}, "size must be between 1 and 100, got 101"),
        ({"page": True}, "page must be an integer, not bool"),
        ({"reverse": 1}, "reverse must be True or False"),
    ],
    ids=["page-0", "size-0", "size-101", "page-bool", "reverse-int"],
)
def test_paging_out_of_range_is_refused_with_its_bound(
    arguments: dict[str, Any], text: str
) -> None:
    assert refused(lambda c: c.list_messages("s", **arguments)) == text


def test_an_empty_or_too_long_query_is_refused_with_its_limit() -> None:
    assert refused(lambda c: c.chat("alice", "")) == "query must not be empty"
    assert refused(lambda c: c.chat("alice", "x" * 10_001)) == (
        "query has 10001 characters; the server allows 10000"
    )


def test_reading_a_stream_after_closing_it_early_says_it_was_cut_and_sent() -> None:
    body = sse_events({"delta": {"content": "a"}, "done": False})
    answer = stream_head() + b"%x\r\n%s\r\n" % (len(body), body)
    with RawServer([send_raw(answer)]) as server:
        client = roncho.Client(server.url, "w", read_timeout=10.0)
        stream = client.chat_stream("alice", "hi")
        assert next(stream).content == "a"
        stream.close()
        with pytest.raises(ProtocolError) as info:
            next(stream)
    assert type(info.value) is ProtocolError
    assert info.value.request_sent is True
    assert str(info.value) == "chat_stream: the stream was closed before its final event"


def test_a_chat_event_without_its_delta_names_the_field() -> None:
    body = sse_events({"done": False})
    answer = stream_head() + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    with RawServer([send_raw(answer)]) as server:
        client = roncho.Client(server.url, "w", read_timeout=10.0)
        with pytest.raises(DecodeError) as info, client.chat_stream("alice", "hi") as stream:
            list(stream)
    assert type(info.value) is DecodeError
    assert info.value.request_sent is True
    assert str(info.value) == "chat_stream: chat event.delta should be an object, got nothing"
