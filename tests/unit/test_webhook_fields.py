"""roncho.webhooks, field by field: each optional field of an event null, absent and of the
wrong type; each required one missing; every event read whole; each error's whole text.
(The survivors of the mutation run over roncho/webhooks.py: each test here fails with one.)
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import roncho
from roncho.webhooks import (
    QueueEmptyEvent,
    TestEvent,
    WebhookEvent,
    WebhookPayloadError,
    WebhookSignatureError,
    sign,
    verify,
)

SECRET = "roncho-kit-webhook-secret"
QUEUE_DATA = {
    "observed": "alice",
    "observer": "bob",
    "queue_type": "representation",
    "session_id": "s1",
    "workspace_id": "w1",
}


def body_of(kind: str, data: object, timestamp: str = "2026-12-01T19:39:51Z") -> bytes:
    return json.dumps(
        {"data": data, "timestamp": timestamp, "type": kind}, separators=(",", ":"), sort_keys=True
    ).encode()


def verified(body: bytes) -> roncho.webhooks.WebhookEvent:
    return verify(body, sign(body, SECRET), SECRET)


def refused(body: bytes) -> str:
    with pytest.raises(WebhookPayloadError) as info:
        verified(body)
    return str(info.value)


@pytest.mark.parametrize("field", ["session_id", "observer", "observed"])
@pytest.mark.parametrize("how", ["null", "absent"])
def test_each_optional_queue_empty_field_may_be_null_or_absent(field: str, how: str) -> None:
    data: dict[str, Any] = dict(QUEUE_DATA)
    if how == "null":
        data[field] = None
    else:
        del data[field]
    event = verified(body_of("queue.empty", data))
    assert isinstance(event, QueueEmptyEvent)
    assert getattr(event, field) is None
    others = {"session_id": "s1", "observer": "bob", "observed": "alice"}
    del others[field]
    assert {name: getattr(event, name) for name in others} == others


@pytest.mark.parametrize("field", ["session_id", "observer", "observed"])
def test_an_optional_queue_empty_field_of_another_type_is_named(field: str) -> None:
    data: dict[str, Any] = {**QUEUE_DATA, field: 7}
    assert refused(body_of("queue.empty", data)) == (
        f"the webhook event's data.{field} is int, not a string"
    )


@pytest.mark.parametrize("field", ["workspace_id", "queue_type"])
def test_a_required_queue_empty_field_missing_is_named(field: str) -> None:
    data = {k: v for k, v in QUEUE_DATA.items() if k != field}
    assert refused(body_of("queue.empty", data)) == (
        f"the webhook event's data.{field} is null, not a string"
    )


def test_a_test_event_is_read_whole() -> None:
    event = verified(body_of("test.event", {"workspace_id": "w1"}, "2026-12-01T19:39:14Z"))
    assert type(event) is TestEvent
    assert event == TestEvent(
        type="test.event",
        timestamp="2026-12-01T19:39:14Z",
        workspace_id="w1",
        data={"workspace_id": "w1"},
    )


def test_an_unknown_event_keeps_its_workspace_and_is_read_whole() -> None:
    data = {"workspace_id": "w9", "n": 1}
    event = verified(body_of("dream.done", data, "2026-12-02T00:00:00Z"))
    assert type(event) is WebhookEvent
    assert event == WebhookEvent(
        type="dream.done", timestamp="2026-12-02T00:00:00Z", workspace_id="w9", data=data
    )


def test_an_unknown_events_workspace_of_another_type_is_named() -> None:
    assert refused(body_of("dream.done", {"workspace_id": 5})) == (
        "the webhook event's data.workspace_id is int, not a string"
    )


@pytest.mark.parametrize("field", ["type", "timestamp"])
def test_a_missing_type_or_timestamp_is_named(field: str) -> None:
    whole = {"data": {"workspace_id": "w1"}, "timestamp": "t", "type": "test.event"}
    del whole[field]
    body = json.dumps(whole).encode()
    assert refused(body) == f"the webhook event's {field} is null, not a string"


def test_a_signature_that_is_not_a_digest_says_its_length() -> None:
    with pytest.raises(WebhookSignatureError) as info:
        verify(b"{}", "abc", SECRET)
    assert str(info.value) == "X-Honcho-Signature is not a hex SHA-256 digest (3 characters)"


def test_a_wrong_signature_says_both_reasons() -> None:
    with pytest.raises(WebhookSignatureError) as info:
        verify(b"{}", "0" * 64, SECRET)
    assert str(info.value) == (
        "X-Honcho-Signature does not match the body: another secret signed it, "
        "or the body was changed after signing"
    )


@pytest.mark.parametrize(
    ("body", "text"),
    [
        (b"\xff", "the webhook body is not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "the webhook body nests too deeply"),
        (
            b"{nope",
            "the webhook body is not JSON (Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1))",
        ),
    ],
)
def test_a_body_that_is_not_json_says_why(body: bytes, text: str) -> None:
    assert refused(body) == text


def test_the_secret_and_body_errors_name_what_was_given() -> None:
    with pytest.raises(roncho.ConfigError) as info:
        verify(b"{}", "0" * 64, 42)  # type: ignore[arg-type]
    assert str(info.value) == "the webhook secret must be str or bytes, not int"
    with pytest.raises(roncho.ConfigError) as info:
        verify(b"{}", "0" * 64, "")
    assert str(info.value) == "the webhook secret is empty; Honcho signs nothing without one"
    with pytest.raises(roncho.ConfigError) as info:
        verify("{}", "0" * 64, SECRET)  # type: ignore[arg-type]
    assert re.fullmatch(r"the webhook body must be the bytes received, not str", str(info.value))
