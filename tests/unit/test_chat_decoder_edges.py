"""The chat decoder at its edges: an event that carries the server's failure is an error in
the server's own words; ``finished`` is a real bool from the start; events whose data is
valid JSON but not an object are refused in the error family.
"""

from __future__ import annotations

import json

import pytest

from roncho import DecodeError, ProtocolError
from roncho._chat import ChatDecoder

SSE = "text/event-stream"


def event(payload: object) -> bytes:
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


def decoder() -> ChatDecoder:
    return ChatDecoder("chat_stream", SSE, 1 << 20)


@pytest.mark.parametrize("said", ["the LLM call failed", "délai dépassé: « réessayez »"])
def test_a_failure_event_with_text_is_an_error_in_the_servers_own_words(said: str) -> None:
    """A failure the server describes in text is shown as it said it: not quoted, not
    escaped, so the caller reads (and can match on) the server's own words."""
    chat = decoder()
    with pytest.raises(ProtocolError) as info:
        chat.feed(event({"error": said, "done": True}))
    assert str(info.value) == f"chat_stream: the server ended the stream with an error: {said}"
    assert info.value.request_sent is True
    assert chat.finished is False


def test_a_failure_event_with_an_object_is_shown_as_json() -> None:
    """A structured failure is rendered as JSON, so none of it is lost."""
    with pytest.raises(ProtocolError) as info:
        decoder().feed(event({"error": {"type": "timeout", "after": 30}, "done": True}))
    assert str(info.value) == (
        'chat_stream: the server ended the stream with an error: {"type": "timeout", "after": 30}'
    )


@pytest.mark.parametrize("error", [None, "", 0, False, {}])
def test_an_empty_error_field_is_no_failure(error: object) -> None:
    """Only an error that says something fails the stream: an empty one is a clean end."""
    chat = decoder()
    chat.feed(event({"error": error, "done": True}))
    assert chat.finished is True
    assert [c.done for c in iter(chat.pop, None)] == [True]


def test_finished_is_false_until_the_final_event_and_true_after() -> None:
    """``finished`` (ChatStream.finished) is a bool at every point: False, not merely
    falsy, before the final event."""
    chat = decoder()
    assert chat.finished is False
    chat.feed(event({"delta": {"content": "Hel"}, "done": False}))
    assert chat.finished is False
    chat.feed(event({"done": True}))
    assert chat.finished is True


def test_a_json_answer_instead_of_a_stream_is_not_finished_until_its_body_ends() -> None:
    """A server that ignored ``stream: true``: the answer is one JSON body, finished only once
    the whole body is in."""
    chat = ChatDecoder("chat_stream", "application/json", 1 << 20)
    assert chat.finished is False
    chat.feed(b'{"content": "all at')
    assert chat.finished is False
    chat.feed(b' once"}')
    chat.end()
    assert chat.finished is True


@pytest.mark.parametrize("data", [b"[1, 2]", b"5", b'"done"', b"null", b"true", b"[]"])
def test_an_event_that_is_json_but_not_an_object_is_a_decode_error(data: bytes) -> None:
    """Valid JSON of the wrong kind is the server's answer being wrong: a DecodeError that
    says the request was sent, never an AttributeError, and the stream is not finished."""
    chat = decoder()
    with pytest.raises(DecodeError) as info:
        chat.feed(b"data: " + data + b"\n\n")
    assert str(info.value).startswith("chat_stream: ")
    assert info.value.request_sent is True
    assert chat.finished is False
