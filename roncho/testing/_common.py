"""Small shared pieces of the emulator: ids, clocks, the API error type.

Everything the route handlers raise to become a non-2xx answer is an `ApiError`; the HTTP layer
turns it into `{"detail": ...}`. The two 422 shapes of the real server are both
made here: `validation_error` builds FastAPI's list form, `ApiError(422, "text")` the string form.
"""

from __future__ import annotations

import re
import secrets
from datetime import UTC, date, datetime
from typing import Any

# The id pattern the server enforces on create bodies, 1-512 characters.
ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,512}$")
ID_PATTERN_TEXT = "^[a-zA-Z0-9_-]+$"
_NANOID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
# Server-made ids are 21-character nanoids.
NANOID_LENGTH = 21

JsonDict = dict[str, Any]


def nanoid() -> str:
    """A 21-character id over `[A-Za-z0-9_-]`, like the server's message and conclusion ids."""
    return "".join(secrets.choice(_NANOID_ALPHABET) for _ in range(NANOID_LENGTH))


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """RFC 3339 in UTC with a `Z`, as 3.0.12's pydantic writes it: `2026-11-30T19:40:01.123456Z`,
    and without the fraction when it is zero (`2001-02-03T04:05:06Z`, seen for a message's
    `created_at` the caller sent)."""
    moment = moment.astimezone(UTC)
    if moment.microsecond == 0:
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_datetime(text: str) -> datetime | None:
    """ISO-8601 datetime or bare date; naive values are UTC. None if unparsable."""
    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        try:
            day = date.fromisoformat(raw)
        except ValueError:
            return None
        moment = datetime(day.year, day.month, day.day)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


class ApiError(Exception):
    """An answer other than success: status plus the `detail` the server would send."""

    def __init__(self, status: int, detail: object) -> None:
        super().__init__(status, detail)
        self.status = status
        self.detail = detail


def error_item(
    kind: str, loc: list[str | int], msg: str, value: object, ctx: JsonDict | None = None
) -> JsonDict:
    """One entry of FastAPI's 422 list: `{"type","loc","msg","input"[,"ctx"]}`."""
    item: JsonDict = {"type": kind, "loc": loc, "msg": msg, "input": value}
    if ctx is not None:
        item["ctx"] = ctx
    return item


def validation_error(
    kind: str, loc: list[str | int], msg: str, value: object, ctx: JsonDict | None = None
) -> ApiError:
    """A 422 in FastAPI's list shape with a single entry."""
    return ApiError(422, [error_item(kind, loc, msg, value, ctx)])


def not_found() -> ApiError:
    return ApiError(404, "Not Found")
