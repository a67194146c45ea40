"""The speed-ups must not change results: the Message fast path against the checked path,
and a Response handing its body over exactly once."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roncho import DecodeError, Message
from roncho._http import ResponseHead
from roncho._models import _Fields
from roncho._transport import Response

FIELDS = (
    "id",
    "content",
    "peer_id",
    "session_id",
    "created_at",
    "metadata",
    "workspace_id",
    "token_count",
)
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=5),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.lists(st.integers(), max_size=2),
)


def checked(data: Any) -> Message:
    """What the general path builds, field by field, with its own checks."""
    f = _Fields(data, "op", "message")
    return Message(
        id=f.text("id"),
        content=f.text("content"),
        peer_id=f.text("peer_id"),
        session_id=f.text("session_id"),
        created_at=f.text("created_at"),
        metadata=f.opt_obj("metadata"),
        workspace_id=f.opt_text("workspace_id"),
        token_count=f.opt_integer("token_count"),
    )


text = st.text(max_size=8)
well_formed = st.fixed_dictionaries(
    {"id": text, "content": text, "peer_id": text, "session_id": text, "created_at": text},
    optional={
        "metadata": st.none() | st.dictionaries(text, st.integers(), max_size=2),
        "workspace_id": st.none() | text,
        "token_count": st.none() | st.integers(),
        "role": text,
        "extra": values,
    },
)
anything = st.fixed_dictionaries({}, optional={name: values for name in FIELDS})


@given(well_formed | anything)
def test_message_fast_path_agrees_with_checked_path(data: dict[str, Any]) -> None:
    try:
        expected: Message | DecodeError = checked(data)
    except DecodeError as exc:
        expected = exc
    try:
        got: Message | DecodeError = Message.from_json(data, "op")
    except DecodeError as exc:
        got = exc
    if isinstance(expected, DecodeError):
        assert isinstance(got, DecodeError)
        assert str(got) == str(expected)
    else:
        assert got == expected


def test_message_fast_path_result_is_still_frozen() -> None:
    message = Message.from_json(
        {
            "id": "m",
            "content": "c",
            "peer_id": "p",
            "session_id": "s",
            "created_at": "2026-11-30T00:00:00Z",
            "metadata": None,
        },
        "op",
    )
    assert message.metadata == {} and message.token_count is None
    with pytest.raises(AttributeError):
        message.content = "changed"  # type: ignore[misc]


def test_response_hands_its_body_over_once() -> None:
    response = Response(ResponseHead(200, "OK", ()), b'{"a":1}')
    assert response.status == 200
    assert response.take_body() == b'{"a":1}'
    assert response.body == b"" and response.take_body() == b""
