"""roncho.webhooks: the signature check, the typed events, and errors that never hold the
secret. Bodies are the ones Honcho 3.0.12 sent on the kit (ids changed)."""

from __future__ import annotations

import hashlib
import hmac
import json
import pickle

import pytest

import roncho
from roncho import webhooks
from roncho.webhooks import (
    QueueEmptyEvent,
    TestEvent,
    WebhookError,
    WebhookEvent,
    WebhookPayloadError,
    WebhookSignatureError,
    read_event,
    sign,
    verify,
)

SECRET = "roncho-kit-webhook-secret"
QUEUE_EMPTY = (
    b'{"data":{"observed":"alice","observer":null,"queue_type":"representation",'
    b'"session_id":"s1","workspace_id":"w1"},"timestamp":"2026-12-01T19:39:51Z",'
    b'"type":"queue.empty"}'
)
SUMMARY = (
    b'{"data":{"observed":"None","observer":"None","queue_type":"summary",'
    b'"session_id":"s1","workspace_id":"w1"},"timestamp":"2026-12-01T19:39:51Z",'
    b'"type":"queue.empty"}'
)
TEST = b'{"data":{"workspace_id":"w1"},"timestamp":"2026-12-01T19:39:14Z","type":"test.event"}'


def hexmac(body: bytes, secret: str = SECRET) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def test_sign_is_the_servers_hex_hmac_sha256() -> None:
    assert sign(TEST, SECRET) == hexmac(TEST)
    assert sign(TEST, SECRET.encode()) == hexmac(TEST)


def test_verify_queue_empty() -> None:
    event = verify(QUEUE_EMPTY, hexmac(QUEUE_EMPTY), SECRET)
    assert event == QueueEmptyEvent(
        type="queue.empty",
        timestamp="2026-12-01T19:39:51Z",
        workspace_id="w1",
        data={
            "observed": "alice",
            "observer": None,
            "queue_type": "representation",
            "session_id": "s1",
            "workspace_id": "w1",
        },
        queue_type="representation",
        session_id="s1",
        observer=None,
        observed="alice",
    )
    assert roncho.parse_timestamp(event.timestamp).year == 2026


def test_verify_summary_queue_empty_keeps_the_servers_none_strings() -> None:
    event = verify(SUMMARY, hexmac(SUMMARY), SECRET)
    assert isinstance(event, QueueEmptyEvent)
    assert (event.queue_type, event.observer, event.observed) == ("summary", "None", "None")


def test_verify_test_event() -> None:
    event = verify(TEST, hexmac(TEST), SECRET)
    assert type(event) is TestEvent
    assert event.workspace_id == "w1" and event.type == "test.event"


def test_unknown_type_is_a_plain_event_not_an_error() -> None:
    body = b'{"data":{"n":1},"timestamp":"2026-12-01T00:00:00Z","type":"dream.done"}'
    event = verify(body, hexmac(body), SECRET)
    assert type(event) is WebhookEvent
    assert event.type == "dream.done" and event.workspace_id is None and event.data == {"n": 1}


def test_signature_case_and_spaces_do_not_matter() -> None:
    assert verify(TEST, "  " + hexmac(TEST).upper() + "\t", SECRET).type == "test.event"


def test_bytes_secret_and_bytearray_body() -> None:
    assert verify(bytearray(TEST), hexmac(TEST), SECRET.encode()).type == "test.event"


@pytest.mark.parametrize("signature", [None, "", "   "])
def test_missing_signature(signature: str | None) -> None:
    with pytest.raises(WebhookSignatureError, match="no X-Honcho-Signature"):
        verify(TEST, signature, SECRET)


@pytest.mark.parametrize(
    "signature", ["abc", "z" * 64, "é" * 64, hexmac(TEST)[:-1], hexmac(TEST) + "0"]
)
def test_malformed_signature(signature: str) -> None:
    with pytest.raises(WebhookSignatureError):
        verify(TEST, signature, SECRET)


def test_wrong_secret_or_changed_body() -> None:
    with pytest.raises(WebhookSignatureError, match="does not match"):
        verify(TEST, hexmac(TEST, "another"), SECRET)
    with pytest.raises(WebhookSignatureError, match="does not match"):
        verify(TEST.replace(b"w1", b"w2"), hexmac(TEST), SECRET)


def test_the_signature_is_checked_before_the_body_is_read() -> None:
    """An unsigned body is never parsed: garbage with a wrong signature is a signature error."""
    with pytest.raises(WebhookSignatureError):
        verify(b"\xff not json", "0" * 64, SECRET)


def test_compare_digest_does_the_comparison(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(webhooks.hmac, "compare_digest", spy)
    verify(TEST, hexmac(TEST), SECRET)
    assert calls == [(hexmac(TEST).encode(), hexmac(TEST).encode())]


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"\xff\xfe", "not UTF-8"),
        (b"{not json", "not JSON"),
        (b"[1, 2]", "JSON list"),
        (b'{"timestamp":"t","type":"test.event"}', "data is missing"),
        (b'{"data":[],"timestamp":"t","type":"test.event"}', "data is a JSON list"),
        (b'{"data":{},"timestamp":"t"}', "type is null"),
        (b'{"data":{},"type":"x"}', "timestamp is null"),
        (b'{"data":{},"timestamp":"t","type":"test.event"}', "data.workspace_id is null"),
        (
            b'{"data":{"workspace_id":"w","queue_type":1},"timestamp":"t","type":"queue.empty"}',
            "data.queue_type is int",
        ),
        (
            b'{"data":{"workspace_id":"w","queue_type":"summary","session_id":5},'
            b'"timestamp":"t","type":"queue.empty"}',
            "data.session_id is int",
        ),
        (b"[" * 100_000 + b"]" * 100_000, "nests too deeply"),
    ],
)
def test_signed_body_that_is_not_an_event(body: bytes, why: str) -> None:
    with pytest.raises(WebhookPayloadError, match=why) as info:
        verify(body, hexmac(body), SECRET)
    assert isinstance(info.value, roncho.DecodeError) and isinstance(info.value, WebhookError)


@pytest.mark.parametrize(
    "body", [QUEUE_EMPTY, SUMMARY, TEST, b'{"data":{},"timestamp":"t","type":"x"}']
)
def test_read_event_gives_what_verify_gives(body: bytes) -> None:
    """The parsed body of a delivery checked another way reads as the same typed event."""
    event = read_event(json.loads(body))
    assert event == verify(body, hexmac(body), SECRET)
    assert type(event) is type(verify(body, hexmac(body), SECRET))


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ([1, 2], "list, not a JSON object"),
        ("{}", "str, not a JSON object"),
        (None, "NoneType, not a JSON object"),
        ({"data": {}, "timestamp": "t"}, "type is null"),
        ({"data": {}, "timestamp": "t", "type": "test.event"}, "data.workspace_id is null"),
    ],
)
def test_read_event_refuses_what_is_not_an_event(data: object, why: str) -> None:
    with pytest.raises(WebhookPayloadError, match=why):
        read_event(data)  # type: ignore[arg-type]


@pytest.mark.parametrize("secret", ["", b""])
def test_empty_secret_is_a_config_error(secret: str | bytes) -> None:
    with pytest.raises(roncho.ConfigError, match="empty"):
        verify(TEST, hexmac(TEST), secret)


def test_secret_and_body_types_are_checked() -> None:
    with pytest.raises(roncho.ConfigError):
        verify(TEST, hexmac(TEST), 42)  # type: ignore[arg-type]
    with pytest.raises(roncho.ConfigError, match="bytes received"):
        verify(TEST.decode(), hexmac(TEST), SECRET)  # type: ignore[arg-type]


def test_no_error_holds_the_secret_or_the_expected_signature() -> None:
    secret = "s3cr3t-value-never-shown"
    good = hexmac(TEST, secret)
    attempts = [
        lambda: verify(TEST, None, secret),
        lambda: verify(TEST, "0" * 64, secret),
        lambda: verify(TEST, "abc", secret),
        lambda: verify(b"[1]", hexmac(b"[1]", secret), secret),
    ]
    for attempt in attempts:
        with pytest.raises(WebhookError) as info:
            attempt()
        error = info.value
        texts = [str(error), repr(error), repr(error.args), str(pickle.loads(pickle.dumps(error)))]
        for text in texts:
            assert secret not in text and good not in text
        assert error.__cause__ is None and error.__context__ is None


def test_errors_are_in_the_family() -> None:
    assert issubclass(WebhookError, roncho.RonchoError)
    assert issubclass(WebhookSignatureError, WebhookError)
    assert issubclass(WebhookPayloadError, WebhookError)
    assert not issubclass(WebhookSignatureError, ValueError)
    assert WebhookSignatureError.__module__ == "roncho.webhooks"


def test_events_are_immutable() -> None:
    event = verify(TEST, hexmac(TEST), SECRET)
    with pytest.raises(AttributeError):
        event.type = "x"  # type: ignore[misc]


def test_import_roncho_does_not_import_webhooks() -> None:
    """The receiver side is opt-in: ``import roncho`` stays as small as it was."""
    import subprocess
    import sys

    code = "import sys, roncho; print('roncho.webhooks' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr
