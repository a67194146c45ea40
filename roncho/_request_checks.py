"""The request-content checks: what the catalogue's operations (``_operations/``) and the
input records (``MessageCreate``, ``ConclusionCreate``) send, checked against the server's
limits before anything is sent. Each raises ConfigError naming the field, so a bad input
loses nothing. What a caller configures is checked by ``_checks``.

It sits beside the catalogue, not in it: the input records use it too, and the catalogue
imports the records.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Final
from urllib.parse import urlsplit

from ._checks import JSON, check_flag, check_id, check_positive_int, parse_timestamp
from ._errors import ConfigError

# The server's limits (src/schemas/api.py): checked before sending, so nothing is refused late.
MAX_METADATA_KEYS: Final = 100
MAX_METADATA_DEPTH: Final = 5
MAX_MESSAGE_CHARS: Final = 25_000
MAX_BATCH: Final = 100
MAX_CONCLUSION_CHARS: Final = 65_535
MAX_QUERY_CHARS: Final = 10_000
MAX_PAGE_SIZE: Final = 100  # fastapi-pagination's bound on ``size``
REASONING_LEVELS: Final = ("minimal", "low", "medium", "high", "max")


# -- JSON, text and timestamps ----------------------------------------------------------
def check_metadata(value: object, what: str = "metadata") -> JSON:
    """A JSON object the server will take: finite, serialisable, ≤100 keys, depth ≤5."""
    if not isinstance(value, dict):
        raise ConfigError(f"{what} must be a dict (a JSON object), not {type(value).__name__}")
    depth = _json_depth(value, what)
    if len(value) > MAX_METADATA_KEYS:
        raise ConfigError(
            f"{what} has {len(value)} top-level keys; the server allows {MAX_METADATA_KEYS}"
        )
    if depth > MAX_METADATA_DEPTH:
        raise ConfigError(f"{what} nests deeper than {MAX_METADATA_DEPTH} levels")
    return value


def check_json(value: object, what: str) -> None:
    """Serialisable with string keys and no NaN or Infinity (which JSON cannot carry)."""
    _json_depth(value, what)


def _json_depth(value: object, what: str) -> int:
    """Check ``value`` is what the client can send as JSON; return its object nesting depth.

    One walk instead of a trial json.dumps: it is several times faster on the small
    metadata every message carries, and it names the problem. Depth counts every object
    and array on the deepest path, as the server's own check does (api.py
    ``_check_metadata_limits``: a list inside a dict is one level deeper).
    """
    try:
        return _walk(value, what)
    except RecursionError:
        raise ConfigError(
            f"{what} is not JSON-serialisable: it nests too deeply or refers to itself"
        ) from None


def _walk(value: object, what: str) -> int:
    kind = type(value)
    if kind is str:
        if not value.isascii():  # type: ignore[attr-defined]
            _check_surrogates(value, what)  # type: ignore[arg-type]
        return 0
    if value is None or kind is bool or kind is int:
        return 0
    if kind is float:
        if not math.isfinite(value):  # type: ignore[arg-type]
            raise ConfigError(f"{what} is not JSON-serialisable: NaN and Infinity cannot be sent")
        return 0
    if isinstance(value, dict):
        deepest = 0
        for key, item in value.items():
            if not isinstance(key, str):
                raise ConfigError(f"{what} must use only string keys")
            if not key.isascii():
                _check_surrogates(key, what)
            deepest = max(deepest, _walk(item, what))
        return deepest + 1
    if isinstance(value, (list, tuple)):
        return 1 + max((_walk(item, what) for item in value), default=0)
    if isinstance(value, str):  # subclasses of the plain kinds, as json.dumps takes them
        return _walk(str(value), what)
    if isinstance(value, (bool, int)):
        return 0
    if isinstance(value, float):
        return _walk(float(value), what)
    raise ConfigError(f"{what} is not JSON-serialisable: {type(value).__name__} is not a JSON type")


def _check_surrogates(text: str, what: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(
            f"{what} is not JSON-serialisable: a string holds a lone surrogate, which UTF-8 "
            f"cannot carry"
        ) from None


def check_text(value: str, what: str) -> str:
    """Text UTF-8 can carry: a lone surrogate (left by a bad decode upstream) is refused."""
    if value.isascii():  # O(1) in CPython (a flag on the string), and the common case
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(f"{what} holds a lone surrogate, which UTF-8 cannot carry") from None
    return value


def check_content(value: object, what: str, limit: int, *, empty: bool) -> str:
    """A message's or conclusion's text: a string (``empty`` or not) of at most ``limit``
    characters that UTF-8 can carry."""
    if not isinstance(value, str) or not (empty or value):
        raise ConfigError(f"{what} must be a {'' if empty else 'non-empty '}string")
    if len(value) > limit:
        raise ConfigError(f"{what} has {len(value)} characters; the server allows {limit}")
    return check_text(value, what)


def check_timestamp(value: object, what: str = "created_at") -> str:
    """An RFC 3339 string, or a timezone-aware datetime rendered as one."""
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ConfigError(f"{what} must be timezone-aware (a naive datetime is ambiguous)")
        return value.isoformat()
    if isinstance(value, str):
        try:
            parse_timestamp(value)
        except ValueError:
            raise ConfigError(
                f"{what} must be an RFC 3339 timestamp with a timezone, "
                f"such as 2026-11-30T12:00:00Z"
            ) from None
        return value
    raise ConfigError(f"{what} must be an RFC 3339 string or an aware datetime")


def check_reasoning_config(value: object, what: str) -> JSON:
    check_json(value, what)
    if not isinstance(value, dict):
        raise ConfigError(f"{what} must be a dict")
    return value


def check_finite(value: float, what: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"{what} must be a finite number")
    if not low <= value <= high:
        raise ConfigError(f"{what} must be between {low} and {high}")
    return float(value)


# -- what operations send (batches of messages and conclusions: _models.render_batch) --
def check_items(value: object, what: str, item: str) -> list[object]:
    """A batch as a list: any iterable of items, but not one item on its own, nor a str,
    bytes or a dict (each iterable, and each would be read as a batch of something else)."""
    if isinstance(value, (str, bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        got = type(value).__name__
        if got == item:
            raise ConfigError(
                f"{what} must be a list of {item}, not a single one: pass [{what[:-1]}]"
            )
        raise ConfigError(f"{what} must be a list of {item}, not {got}")
    return list(value)


def check_optional_metadata(metadata: Mapping[str, Any] | None) -> JSON | None:
    """Metadata a caller may leave out (None); a Mapping is copied into a dict."""
    if metadata is None:
        return None
    return check_metadata(dict(metadata) if isinstance(metadata, Mapping) else metadata)


def check_json_object(value: Mapping[str, Any] | None, what: str) -> JSON | None:
    """A caller's dict (configuration, response_format, filters), copied and checked."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ConfigError(f"{what} must be a dict")
    result = dict(value)
    check_json(result, what)
    return result


def check_filters_body(filters: Mapping[str, Any] | None) -> JSON:
    return {"filters": check_json_object(filters, "filters")} if filters is not None else {}


def check_paging(page: int, size: int, reverse: bool | None) -> list[tuple[str, str]]:
    query = [
        ("page", str(check_positive_int(page, "page"))),
        ("size", str(check_positive_int(size, "size", high=MAX_PAGE_SIZE))),
    ]
    if reverse is not None:
        query.append(("reverse", "true" if check_flag(reverse, "reverse") else "false"))
    return query


def check_webhook_url(url: object) -> str:
    """A webhook endpoint URL as far as the server's rule is known before asking it: http
    or https, with a host. The server also refuses IP literals of private, loopback and
    other internal addresses (422); that it says itself. The URL is never echoed: it may
    hold credentials."""
    if not isinstance(url, str):
        raise ConfigError(f"the webhook url must be a string, not {type(url).__name__}")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        raise ConfigError("the webhook url is not a valid URL") from None
    if parts.scheme not in ("http", "https"):
        raise ConfigError("the webhook url must start with http:// or https://")
    if not host or not parts.netloc:
        raise ConfigError("the webhook url has no host")
    return check_text(url, "the webhook url")


def check_id_query(**ids: str | None) -> list[tuple[str, str]]:
    """The given ids as query pairs, in order, each checked against Honcho's id rule."""
    return [(name, check_id(value, name)) for name, value in ids.items() if value is not None]


def check_string(value: object, what: str, limit: int | None, *, allow_empty: bool = False) -> str:
    """A string (non-empty unless ``allow_empty``) of at most ``limit`` characters."""
    if not isinstance(value, str):
        raise ConfigError(f"{what} must be a string")
    if not value and not allow_empty:
        raise ConfigError(f"{what} must not be empty")
    if limit is not None and len(value) > limit:
        raise ConfigError(f"{what} has {len(value)} characters; the server allows {limit}")
    return check_text(value, what)


def check_reasoning_level(value: str) -> str:
    if value not in REASONING_LEVELS:
        raise ConfigError(f"reasoning_level must be one of {', '.join(REASONING_LEVELS)}")
    return value
