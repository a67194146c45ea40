"""Check what a Honcho server delivers to a webhook endpoint, and read it as a typed event.

Honcho signs each delivery with the server's ``WEBHOOK_SECRET``: the ``X-Honcho-Signature``
header is the hex HMAC-SHA256 of the request body, and the body is compact JSON with sorted
keys, ``{"data": {...}, "timestamp": "...Z", "type": "..."}``. ``verify()`` checks the
signature first, in constant time, and only then reads the body, so nothing unauthenticated
is ever parsed (``read_event()`` reads a body already checked another way). It is pure: no
server, no thread, no I/O (the receiver is yours; see docs/webhooks.md for an example on
``http.server``).

Errors, all under ``RonchoError``::

    WebhookError
      WebhookSignatureError     the signature is missing or does not match the body
      WebhookPayloadError       a signed body that is not the event JSON (also a DecodeError)

The secret never reaches an error's message, ``args`` or ``repr``, and neither does the
signature the body should have had.

The server retries nothing: a delivery the receiver misses or answers with an error is
gone, so a receiver should answer 2xx quickly and treat an event as a hint to look (for
example at ``queue_status``), not as the only record of what happened.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any, Final

from ._errors import ConfigError, DecodeError, RonchoError

SIGNATURE_HEADER: Final = "X-Honcho-Signature"
QUEUE_EMPTY: Final = "queue.empty"
TEST_EVENT: Final = "test.event"
# A SHA-256 digest in hex; anything else cannot be a Honcho signature.
_SIGNATURE_CHARS: Final = 64


class WebhookError(RonchoError):
    """Base of what ``verify()`` raises about a delivery."""


class WebhookSignatureError(WebhookError):
    """The signature header is missing, malformed, or not the body's HMAC with this secret."""


class WebhookPayloadError(WebhookError, DecodeError):
    """The body is correctly signed but is not the event JSON Honcho sends."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WebhookEvent:
    """One delivery. An event type roncho does not know arrives as this class itself.

    Attributes:
        type: the event type, e.g. ``"queue.empty"``.
        timestamp: when the server sent it, RFC 3339 in UTC to the second
            (``roncho.parse_timestamp`` reads it).
        workspace_id: the workspace it is about; None only if an unknown type lacks one.
        data: the whole ``data`` object as sent.
    """

    type: str
    timestamp: str
    workspace_id: str | None
    data: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class TestEvent(WebhookEvent):
    """``test.event``: what ``trigger_webhook_test`` asks the server to send."""

    __test__ = False  # not a pytest test class, despite the name


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueEmptyEvent(WebhookEvent):
    """``queue.empty``: the deriver finished a work unit and its queue drained.

    The server sends one per work unit: ``queue_type`` ``"representation"`` for the
    messages one peer (``observed``) sent in ``session_id``, ``"summary"`` for a session's
    summary. Only ids; never message or conclusion text.
    ``workspace_id`` is always set on this type (the decoder requires it).
    """

    queue_type: str
    session_id: str | None
    observer: str | None
    observed: str | None


def sign(body: bytes, secret: str | bytes) -> str:
    """The signature Honcho sends with ``body``: hex HMAC-SHA256 keyed by ``secret``.

    For tests and emulators that deliver events themselves.
    """
    return hmac.new(_secret_bytes(secret), _body_bytes(body), hashlib.sha256).hexdigest()


def verify(body: bytes, signature: str | None, secret: str | bytes) -> WebhookEvent:
    """Check a delivery's signature and read its event.

    Args:
        body: the request body exactly as received (bytes; do not re-encode parsed JSON).
        signature: the ``X-Honcho-Signature`` header's value, or None when it was absent.
        secret: the server's ``WEBHOOK_SECRET``; a str is encoded as UTF-8, as the server
            does.

    Returns:
        ``QueueEmptyEvent``, ``TestEvent``, or a plain ``WebhookEvent`` for any other type.

    Raises:
        ConfigError: the secret is empty or not a str or bytes (nothing was checked).
        WebhookSignatureError: the signature is missing or wrong.
        WebhookPayloadError: the body is signed but not the JSON of an event.
    """
    key = _secret_bytes(secret)
    data = _body_bytes(body)
    if signature is None or not signature.strip():
        raise WebhookSignatureError(f"the delivery has no {SIGNATURE_HEADER} header")
    given = signature.strip().lower()
    if len(given) != _SIGNATURE_CHARS or not given.isascii():
        raise WebhookSignatureError(
            f"{SIGNATURE_HEADER} is not a hex SHA-256 digest ({len(given)} characters)"
        )
    expected = hmac.new(key, data, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(given.encode("ascii"), expected.encode("ascii")):
        raise WebhookSignatureError(
            f"{SIGNATURE_HEADER} does not match the body: another secret signed it, "
            "or the body was changed after signing"
        )
    return _event(_json_object(data))


def read_event(data: dict[str, Any]) -> WebhookEvent:
    """The typed event of a delivery's body already parsed from JSON. It checks no signature.

    ``verify()`` is the one to use on what arrives. This is for a body whose signature was
    checked another way, or a delivery recorded earlier, read again.

    Raises:
        WebhookPayloadError: ``data`` is not an object with the fields of an event.
    """
    if not isinstance(data, dict):
        raise WebhookPayloadError(
            f"the webhook event is {type(data).__name__}, not a JSON object (a dict)"
        )
    return _event(data)


def _secret_bytes(secret: str | bytes) -> bytes:
    if isinstance(secret, str):
        key = secret.encode("utf-8")
    elif isinstance(secret, (bytes, bytearray)):
        key = bytes(secret)
    else:
        raise ConfigError(f"the webhook secret must be str or bytes, not {type(secret).__name__}")
    if not key:
        raise ConfigError("the webhook secret is empty; Honcho signs nothing without one")
    return key


def _body_bytes(body: bytes) -> bytes:
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    raise ConfigError(f"the webhook body must be the bytes received, not {type(body).__name__}")


def _json_object(data: bytes) -> dict[str, Any]:
    try:
        parsed = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise WebhookPayloadError("the webhook body is not UTF-8") from None
    except RecursionError:
        raise WebhookPayloadError("the webhook body nests too deeply") from None
    except ValueError as exc:
        raise WebhookPayloadError(f"the webhook body is not JSON ({str(exc)[:120]})") from None
    if not isinstance(parsed, dict):
        raise WebhookPayloadError(
            f"the webhook body is a JSON {type(parsed).__name__}, not an object"
        )
    return parsed


def _text(value: object, name: str, *, optional: bool) -> str | None:
    if value is None and optional:
        return None
    if isinstance(value, str):
        return value
    kind = "null" if value is None else type(value).__name__
    raise WebhookPayloadError(f"the webhook event's {name} is {kind}, not a string")


def _event(body: dict[str, Any]) -> WebhookEvent:
    """The typed event of a parsed body (signed, or read by read_event): a known type must
    carry its fields."""
    kind = _text(body.get("type"), "type", optional=False)
    timestamp = _text(body.get("timestamp"), "timestamp", optional=False)
    data = body.get("data")
    if not isinstance(data, dict):
        kind_of = "missing" if data is None else f"a JSON {type(data).__name__}"
        raise WebhookPayloadError(f"the webhook event's data is {kind_of}, not an object")
    assert kind is not None and timestamp is not None
    if kind == QUEUE_EMPTY:
        workspace = _text(data.get("workspace_id"), "data.workspace_id", optional=False)
        queue_type = _text(data.get("queue_type"), "data.queue_type", optional=False)
        assert workspace is not None and queue_type is not None
        return QueueEmptyEvent(
            type=kind,
            timestamp=timestamp,
            workspace_id=workspace,
            data=data,
            queue_type=queue_type,
            session_id=_text(data.get("session_id"), "data.session_id", optional=True),
            observer=_text(data.get("observer"), "data.observer", optional=True),
            observed=_text(data.get("observed"), "data.observed", optional=True),
        )
    if kind == TEST_EVENT:
        workspace = _text(data.get("workspace_id"), "data.workspace_id", optional=False)
        return TestEvent(type=kind, timestamp=timestamp, workspace_id=workspace, data=data)
    workspace = _text(data.get("workspace_id"), "data.workspace_id", optional=True)
    return WebhookEvent(type=kind, timestamp=timestamp, workspace_id=workspace, data=data)


__all__ = [
    "QUEUE_EMPTY",
    "SIGNATURE_HEADER",
    "TEST_EVENT",
    "QueueEmptyEvent",
    "TestEvent",
    "WebhookError",
    "WebhookEvent",
    "WebhookPayloadError",
    "WebhookSignatureError",
    "read_event",
    "sign",
    "verify",
]
