"""How the edges differential normalises an answer: only what differs from run to run, by field.

The happy-path differential masks every nanoid- or timestamp-like text anywhere
(`diff_script.mask`). Here the edges are the point, so only named fields are normalised:

- the run's own names (`{W}`, `{S1}`, the long ids made from them, saved ids): everywhere,
  since they are ours and differ per run by construction;
- `TIMESTAMP_FIELDS` (a time the server stamps): `{ts}`;
- `NANOID_FIELDS` when the value is a 21-character nanoid (ids the server makes; a name we
  chose stays as it is): `{id}`;
- `KEY_FIELDS` holding a JWT (signed with each server's own secret): `{jwt}`;
- `TEXT_TIMESTAMP_FIELDS`, texts that quote a stamped time (a representation's lines): the
  times inside them become `{ts}`;
- a string longer than `LONG_TEXT` characters becomes its length and hash (the same text
  compares equal, a different one does not; the recording stays small).
"""

from __future__ import annotations

import hashlib
from typing import Any

from diff_script import JWT, NANOID, TIMESTAMP, _unfill

TIMESTAMP_FIELDS = frozenset({"created_at", "updated_at"})
NANOID_FIELDS = frozenset(
    {"id", "ids", "public_id", "message_public_id", "message_id", "session_id"}
)
KEY_FIELDS = frozenset({"key"})
TEXT_TIMESTAMP_FIELDS = frozenset({"representation", "peer_representation"})
LONG_TEXT = 300


def mask_fields(value: Any, variables: dict[str, str], field: str | None = None) -> Any:
    """`value` with the named fields normalised (see the module's docstring)."""
    if isinstance(value, dict):
        return {
            _text(key, variables): mask_fields(item, variables, key) for key, item in value.items()
        }
    if isinstance(value, list):
        return [mask_fields(item, variables, field) for item in value]
    if not isinstance(value, str):
        return value
    if field in TIMESTAMP_FIELDS and TIMESTAMP.fullmatch(value):
        return "{ts}"
    if field in NANOID_FIELDS and NANOID.fullmatch(value) and value not in variables.values():
        return "{id}"
    if field in KEY_FIELDS and JWT.fullmatch(value):
        return "{jwt}"
    return _text(value, variables, times=field in TEXT_TIMESTAMP_FIELDS)


def _text(value: str, variables: dict[str, str], *, times: bool = False) -> str:
    text = _unfill(value, variables)
    if times:
        text = TIMESTAMP.sub("{ts}", text)
    if len(text) > LONG_TEXT:
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        return f"{{text: {len(text)} chars, sha256 {digest}}}"
    return text


def keep_times(value: Any, variables: dict[str, str]) -> Any:
    """Only the run's own names put back: for a step whose timestamps are the caller's own
    (a message sent with `created_at`), compared as they are."""
    if isinstance(value, dict):
        return {key: keep_times(item, variables) for key, item in value.items()}
    if isinstance(value, list):
        return [keep_times(item, variables) for item in value]
    return _unfill(value, variables) if isinstance(value, str) else value
