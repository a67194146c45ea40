"""The speed-ups must not change results: Message's decoder against one read through
``Fields`` and built by the constructor, the plain-message batch against ``to_json``, and a
Response handing its body over exactly once."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roncho import ConfigError, DecodeError, Message, MessageCreate
from roncho._call import Response
from roncho._checks import check_json, check_metadata
from roncho._decode import Fields
from roncho._exchange import encode_json
from roncho._http import ResponseHead
from roncho._models import ConclusionCreate, render_batch

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


def checked(data: dict[str, Any]) -> Message:
    """The reference: each field read through Fields (the reads every other model's
    decoder uses), in field order, and the message built by its own constructor."""
    f = Fields(data, "op", "message")
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
def test_message_decoder_agrees_with_the_checked_reads(data: dict[str, Any]) -> None:
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


def test_message_decoded_is_still_frozen() -> None:
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


def test_message_decoder_sets_every_field() -> None:
    """It fills a blank slot by slot, so a field it forgot would raise AttributeError when
    read: every field must be set, also from the smallest body."""
    body = {"id": "m", "content": "c", "peer_id": "p", "session_id": "s", "created_at": "t"}
    message = Message.from_json(body, "op")
    assert [getattr(message, f.name) for f in dataclasses.fields(Message)] == [
        "m", "c", "p", "s", "t", {}, None, None,
    ]  # fmt: skip


def test_response_hands_its_body_over_once() -> None:
    response = Response(ResponseHead(200, "OK", ()), b'{"a":1}')
    assert response.status == 200
    assert response.take_body() == b'{"a":1}'
    assert response.body == b"" and response.take_body() == b""


def _dumps_accepts(value: object) -> bool:
    """The reference: what the request encoder can send, with string keys only."""

    def string_keys(v: object) -> bool:
        if isinstance(v, dict):
            return all(isinstance(k, str) and string_keys(x) for k, x in v.items())
        if isinstance(v, (list, tuple)):
            return all(string_keys(x) for x in v)
        return True

    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError):
        return False
    return string_keys(value)


json_ish = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=4)
    | st.sampled_from(["\ud800", "é", b"bytes", {1, 2}]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=3) | st.integers(), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(json_ish)
def test_json_check_walk_agrees_with_the_encoder(value: object) -> None:
    try:
        check_json(value, "metadata")
        accepted = True
    except ConfigError:
        accepted = False
    assert accepted == _dumps_accepts(value)


def test_json_check_refuses_a_cycle_instead_of_recursing_forever() -> None:
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    with pytest.raises(ConfigError, match="refers to itself"):
        check_json(cycle, "metadata")


def test_metadata_depth_counts_arrays_as_the_server_does() -> None:
    """Honcho's _check_metadata_limits enters lists as well as dicts, one level each."""
    five = {"a": [[[{"b": 1}]]]}  # dict, list, list, list, dict: five levels
    assert check_metadata(five) is five
    with pytest.raises(ConfigError, match="deeper than 5"):
        check_metadata({"a": [[[[[]]]]]})  # dict and five lists: six levels


# -- the outgoing fast path: a batch of plain messages ---------------------------------------
peer_ids = st.one_of(
    st.sampled_from(["alice", "bob", "x" * 512, "x" * 513, "", "a b", "é", "a/b"]),
    st.text(max_size=6),
    st.integers(),
    st.just(["alice"]),
)
contents = st.one_of(
    st.text(max_size=10),
    st.sampled_from(["x" * 25_000, "x" * 25_001, "", "\ud800"]),
    st.integers(),
    st.none(),
)
messages = st.builds(
    MessageCreate,
    peer_id=peer_ids,
    content=contents,
    metadata=st.none() | st.just({"k": 1}),
    created_at=st.none() | st.just("2026-11-30T12:00:00Z"),
)


def _slow_batch(batch: list[MessageCreate]) -> list[dict[str, Any]] | str:
    try:
        return [m.to_json(f"messages[{i}]") for i, m in enumerate(batch)]
    except ConfigError as exc:
        return str(exc)


@given(st.lists(messages, min_size=1, max_size=5))
def test_plain_message_fast_path_agrees_with_to_json(batch: list[MessageCreate]) -> None:
    """The same bodies, or the same refusal (the fast path hands refusals to to_json)."""
    expected = _slow_batch(batch)
    try:
        got: list[dict[str, Any]] | str = render_batch(batch, MessageCreate, "messages", "op")
    except ConfigError as exc:
        got = str(exc)
    assert got == expected


@pytest.mark.parametrize("content", ["caf\u00e9", "bell\x07", "del\x7f", "\\u00e9", 'q"\\'])
def test_a_batch_is_encoded_as_compact_utf8_json(content: str) -> None:
    """Non-ASCII and DEL are written raw, control characters and backslashes escaped."""
    batch = [MessageCreate(peer_id="alice", content=content)]
    body = {"messages": render_batch(batch, MessageCreate, "messages", "op")}
    assert encode_json(body).decode("utf-8") == json.dumps(
        body, ensure_ascii=False, separators=(",", ":")
    )


def test_a_message_in_a_batch_of_conclusions_is_refused() -> None:
    """The plain-message path serves message batches only."""
    with pytest.raises(ConfigError, match=r"^conclusions\[0\] must be a ConclusionCreate$"):
        render_batch([MessageCreate("alice", "hi")], ConclusionCreate, "conclusions", "op")
