"""Every argument check, in one place: each raises ConfigError naming the field, before
anything is sent, so a bad input loses nothing.

The configuration checks (base URL, id, key, timeouts) live in ``_config`` and are
re-exported here; this module adds the checks of what an operation sends: metadata and
other JSON, text, timestamps, batches, paging, filters and the chat options.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from ._config import (
    ID_PATTERN,
    check_api_key,
    check_id,
    check_positive_int,
    check_timeout,
    parse_base_url,
)
from ._decode import parse_timestamp
from ._errors import ConfigError

__all__ = [
    "ID_PATTERN",
    "check_api_key",
    "check_id",
    "check_positive_int",
    "check_timeout",
    "parse_base_url",
]

JSON = dict[str, Any]

# Server limits (reference §1.3, O4, O8): checked before sending, so nothing is refused late.
MAX_METADATA_KEYS: Final = 100
MAX_METADATA_DEPTH: Final = 5
MAX_MESSAGE_CHARS: Final = 25_000
MAX_BATCH: Final = 100
MAX_CONCLUSION_CHARS: Final = 65_535
MAX_QUERY_CHARS: Final = 10_000
MAX_PAGE_SIZE: Final = 100  # fastapi-pagination's bound on ``size`` (reference §1.5)
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


def finite(value: float, what: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"{what} must be a finite number")
    if not low <= value <= high:
        raise ConfigError(f"{what} must be between {low} and {high}")
    return float(value)


# -- what operations send (batches of messages and conclusions: _models.render_batch) --
def check_seconds(value: object, name: str, allow_none: bool = False) -> Any:
    return check_timeout(value, name, allow_none=allow_none)


def check_flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be True or False")
    return value


def meta(metadata: Mapping[str, Any] | None) -> JSON | None:
    if metadata is None:
        return None
    return check_metadata(dict(metadata) if isinstance(metadata, Mapping) else metadata)


def json_object(value: Mapping[str, Any] | None, what: str) -> JSON | None:
    """A caller's dict (configuration, response_format, filters), copied and checked."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ConfigError(f"{what} must be a dict")
    result = dict(value)
    check_json(result, what)
    return result


def filters_body(filters: Mapping[str, Any] | None) -> JSON:
    return {"filters": json_object(filters, "filters")} if filters is not None else {}


def paging(page: int, size: int, reverse: bool | None) -> list[tuple[str, str]]:
    query = [
        ("page", str(check_positive_int(page, "page"))),
        ("size", str(check_positive_int(size, "size", high=MAX_PAGE_SIZE))),
    ]
    if reverse is not None:
        query.append(("reverse", "true" if check_flag(reverse, "reverse") else "false"))
    return query


def id_query(**ids: str | None) -> list[tuple[str, str]]:
    """The given ids as query pairs, in order, each checked against Honcho's id rule."""
    return [(name, check_id(value, name)) for name, value in ids.items() if value is not None]


def text(value: object, what: str, limit: int | None, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{what} must be a string")
    if not value and not allow_empty:
        raise ConfigError(f"{what} must not be empty")
    if limit is not None and len(value) > limit:
        raise ConfigError(f"{what} has {len(value)} characters; the server allows {limit}")
    return check_text(value, what)


def reasoning_level(value: str) -> str:
    if value not in REASONING_LEVELS:
        raise ConfigError(f"reasoning_level must be one of {', '.join(REASONING_LEVELS)}")
    return value


def peer_map(peers: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """get_or_create_session's ``peers``: peer ids to SessionPeerConfig, a dict or None."""
    from ._models import SessionPeerConfig  # models import these checks; not the reverse

    if peers is None:
        return None
    if not isinstance(peers, Mapping):
        raise ConfigError("peers must map peer ids to SessionPeerConfig (or None)")
    result: dict[str, Any] = {}
    for peer_id, config in peers.items():
        check_id(peer_id, "peers key")
        if config is None:
            config = SessionPeerConfig()
        elif isinstance(config, Mapping):
            unknown = set(config) - {"observe_me", "observe_others"}
            if unknown:
                raise ConfigError(f"peers[{peer_id!r}] has unknown keys {sorted(unknown)}")
            config = SessionPeerConfig(**dict(config))
        elif not isinstance(config, SessionPeerConfig):
            raise ConfigError(f"peers[{peer_id!r}] must be a SessionPeerConfig or a dict")
        result[peer_id] = config.to_json()
    return result
