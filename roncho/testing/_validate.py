"""Request-shape checks that answer like FastAPI/pydantic v2 (422, list detail).

Each helper reads one field, checks type and limits, and raises `ApiError` on the first
problem (FastAPI reports every problem; one is enough for a client to branch on).
Messages copy pydantic v2's wording so a client's error text looks the same.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._common import ID_PATTERN, ID_PATTERN_TEXT, ApiError, JsonDict, validation_error

Loc = list[str | int]
_MISSING: Any = object()

# The server's metadata limits.
METADATA_MAX_KEYS = 100
METADATA_MAX_DEPTH = 5


def parse_json_body(raw: bytes) -> object:
    """Decode a request body; an empty body is `None`, broken JSON a FastAPI 422."""
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        position = getattr(exc, "pos", 0)
        message = getattr(exc, "msg", "Invalid JSON")
        raise validation_error(
            "json_invalid", ["body", position], "JSON decode error", {}, {"error": message}
        ) from None


def body_object(body: object, *, required: bool = True) -> JsonDict:
    """The body as an object; a missing body is 422 `missing` when required, else `{}`."""
    if body is None:
        if required:
            raise validation_error("missing", ["body"], "Field required", None)
        return {}
    if not isinstance(body, dict):
        raise validation_error(
            "model_attributes_type",
            ["body"],
            "Input should be a valid dictionary or object to extract fields from",
            body,
        )
    return body


def _missing(parent: Mapping[str, object], loc: Loc) -> ApiError:
    return validation_error("missing", loc, "Field required", dict(parent))


def get_str(
    data: Mapping[str, object],
    key: str,
    loc: Loc,
    *,
    required: bool = False,
    min_len: int = 0,
    max_len: int | None = None,
    id_pattern: bool = False,
) -> str | None:
    """A string field (None if absent or null and not required)."""
    value = data.get(key, _MISSING)
    here = [*loc, key]
    if value is _MISSING or value is None:
        if required:
            if value is None:
                raise validation_error("string_type", here, "Input should be a valid string", None)
            raise _missing(data, here)
        return None
    if not isinstance(value, str):
        raise validation_error("string_type", here, "Input should be a valid string", value)
    value = value.replace("\x00", "")
    if len(value) < min_len:
        plural = "character" if min_len == 1 else "characters"
        raise validation_error(
            "string_too_short",
            here,
            f"String should have at least {min_len} {plural}",
            value,
            {"min_length": min_len},
        )
    if max_len is not None and len(value) > max_len:
        raise validation_error(
            "string_too_long",
            here,
            f"String should have at most {max_len} characters",
            value,
            {"max_length": max_len},
        )
    if id_pattern and not ID_PATTERN.match(value):
        raise validation_error(
            "string_pattern_mismatch",
            here,
            f"String should match pattern '{ID_PATTERN_TEXT}'",
            value,
            {"pattern": ID_PATTERN_TEXT},
        )
    return value


def get_id(data: Mapping[str, object], loc: Loc, *, alias: str = "name") -> str:
    """A create body's `id` (or its alias): required, 1-512, the id pattern."""
    key = "id" if "id" in data or alias not in data else alias
    value = get_str(data, key, loc, required=True, min_len=1, max_len=512, id_pattern=True)
    assert value is not None
    return value


def get_bool(data: Mapping[str, object], key: str, loc: Loc, default: bool | None) -> bool | None:
    value = data.get(key, _MISSING)
    if value is _MISSING or value is None:
        return default
    if isinstance(value, bool):
        return value
    # pydantic's lax mode, as 3.0.12's request models parse a bool: 0/1 and the words of
    # `_TRUE`/`_FALSE` are booleans; another number or string is `bool_parsing`.
    if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
        return value.lower() in _TRUE
    if isinstance(value, int | float) and value in (0, 1):
        return value == 1
    if isinstance(value, str | int | float):
        raise validation_error(
            "bool_parsing",
            [*loc, key],
            "Input should be a valid boolean, unable to interpret input",
            value,
        )
    raise validation_error("bool_type", [*loc, key], "Input should be a valid boolean", value)


def get_int(
    data: Mapping[str, object],
    key: str,
    loc: Loc,
    default: int | None,
    *,
    ge: int | None = None,
    le: int | None = None,
) -> int | None:
    value = data.get(key, _MISSING)
    here = [*loc, key]
    if value is _MISSING or value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise validation_error("int_type", here, "Input should be a valid integer", value)
    if isinstance(value, float):
        if not value.is_integer():
            raise validation_error(
                "int_from_float",
                here,
                "Input should be a valid integer, got a number with a fractional part",
                value,
            )
        value = int(value)
    return check_range(value, here, ge, le)


def check_range(value: int, here: Loc, ge: int | None, le: int | None) -> int:
    if ge is not None and value < ge:
        raise validation_error(
            "greater_than_equal",
            here,
            f"Input should be greater than or equal to {ge}",
            value,
            {"ge": ge},
        )
    if le is not None and value > le:
        raise validation_error(
            "less_than_equal",
            here,
            f"Input should be less than or equal to {le}",
            value,
            {"le": le},
        )
    return value


def get_float(
    data: Mapping[str, object], key: str, loc: Loc, *, ge: float, le: float
) -> float | None:
    value = data.get(key, _MISSING)
    here = [*loc, key]
    if value is _MISSING or value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise validation_error("float_type", here, "Input should be a valid number", value)
    if value < ge:
        raise validation_error(
            "greater_than_equal",
            here,
            f"Input should be greater than or equal to {_bound(ge)}",
            value,
            {"ge": ge},
        )
    if value > le:
        raise validation_error(
            "less_than_equal",
            here,
            f"Input should be less than or equal to {_bound(le)}",
            value,
            {"le": le},
        )
    return float(value)


def _bound(value: float) -> str:
    """A float bound as pydantic prints it in a message: `1` for 1.0, `0.5` for 0.5."""
    return str(int(value)) if float(value).is_integer() else repr(value)


def get_dict(data: Mapping[str, object], key: str, loc: Loc) -> JsonDict | None:
    value = data.get(key, _MISSING)
    if value is _MISSING or value is None:
        return None
    if not isinstance(value, dict):
        raise validation_error(
            "dict_type", [*loc, key], "Input should be a valid dictionary", value
        )
    return value


def get_metadata(data: Mapping[str, object], loc: Loc, key: str = "metadata") -> JsonDict | None:
    """Metadata: an object of at most 100 keys, nested at most 5 deep."""
    value = get_dict(data, key, loc)
    if value is None:
        return None
    if len(value) > METADATA_MAX_KEYS:
        raise validation_error(
            "value_error",
            [*loc, key],
            f"Value error, Metadata exceeds maximum of {METADATA_MAX_KEYS} top-level keys",
            value,
            {"error": {}},
        )
    if _depth(value) > METADATA_MAX_DEPTH:
        raise validation_error(
            "value_error",
            [*loc, key],
            f"Value error, Metadata nesting exceeds maximum depth of {METADATA_MAX_DEPTH}",
            value,
            {"error": {}},
        )
    return value


def _depth(value: object) -> int:
    """Objects and arrays on the deepest path, as the source's _check_metadata_limits counts."""
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def get_list(
    data: Mapping[str, object],
    key: str,
    loc: Loc,
    *,
    min_items: int = 0,
    max_items: int | None = None,
    required: bool = False,
) -> list[Any] | None:
    value = data.get(key, _MISSING)
    here = [*loc, key]
    if value is _MISSING or value is None:
        if required:
            raise _missing(data, here)
        return None
    if not isinstance(value, list):
        raise validation_error("list_type", here, "Input should be a valid list", value)
    if len(value) < min_items:
        raise validation_error(
            "too_short",
            here,
            f"List should have at least {min_items} item after validation, not {len(value)}",
            value,
            {"field_type": "List", "min_length": min_items, "actual_length": len(value)},
        )
    if max_items is not None and len(value) > max_items:
        raise validation_error(
            "too_long",
            here,
            f"List should have at most {max_items} items after validation, not {len(value)}",
            value,
            {"field_type": "List", "max_length": max_items, "actual_length": len(value)},
        )
    return value


def get_literal(
    data: Mapping[str, object],
    key: str,
    loc: Loc,
    choices: tuple[str, ...],
    default: str,
    *,
    kind: str = "literal_error",
) -> str:
    """One of `choices`; `kind` is the error type: `literal_error` for a `Literal`, `enum`
    for an `Enum` field."""
    value = data.get(key, _MISSING)
    if value is _MISSING or value is None:
        return default
    if value not in choices:
        expected = ", ".join(f"'{c}'" for c in choices[:-1]) + f" or '{choices[-1]}'"
        raise validation_error(
            kind,
            [*loc, key],
            f"Input should be {expected}",
            value,
            {"expected": expected},
        )
    assert isinstance(value, str)
    return value


def query_int(
    query: Mapping[str, str], key: str, default: int, *, ge: int | None, le: int | None
) -> int:
    raw = query.get(key)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise validation_error(
            "int_parsing",
            ["query", key],
            "Input should be a valid integer, unable to parse string as an integer",
            raw,
        ) from None
    try:
        return check_range(value, ["query", key], ge, le)
    except ApiError as error:
        raise _echo_raw(error, raw) from None


def query_top_k(query: Mapping[str, str]) -> int | None:
    """`search_top_k` of a representation query string (absent or empty: None)."""
    if not query.get("search_top_k"):
        return None
    return query_int(query, "search_top_k", 10, ge=1, le=100)


def _echo_raw(error: ApiError, raw: str) -> ApiError:
    """FastAPI echoes a query parameter as it was sent (the string), not as parsed."""
    if isinstance(error.detail, list):
        for item in error.detail:
            if isinstance(item, dict):
                item["input"] = raw
    return error


def query_float(query: Mapping[str, str], key: str, *, ge: float, le: float) -> float | None:
    """An optional float query parameter in [ge, le]; FastAPI's 422 items otherwise."""
    raw = query.get(key)
    if raw is None or raw == "":
        return None
    try:
        value = float(raw)
    except ValueError:
        raise validation_error(
            "float_parsing",
            ["query", key],
            "Input should be a valid number, unable to parse string as a number",
            raw,
        ) from None
    if value < ge:
        raise validation_error(
            "greater_than_equal",
            ["query", key],
            f"Input should be greater than or equal to {_bound(ge)}",
            raw,
            {"ge": ge},
        )
    if value > le:
        raise validation_error(
            "less_than_equal",
            ["query", key],
            f"Input should be less than or equal to {_bound(le)}",
            raw,
            {"le": le},
        )
    return value


_TRUE = {"true", "1", "yes", "on", "t", "y"}
_FALSE = {"false", "0", "no", "off", "f", "n"}


def query_bool(query: Mapping[str, str], key: str, default: bool) -> bool:
    raw = query.get(key)
    if raw is None or raw == "":
        return default
    if raw.lower() in _TRUE:
        return True
    if raw.lower() in _FALSE:
        return False
    raise validation_error(
        "bool_parsing",
        ["query", key],
        "Input should be a valid boolean, unable to interpret input",
        raw,
    )


def session_peer_config(value: object, loc: Loc) -> tuple[bool | None, bool | None]:
    """A `SessionPeerConfig` object: `(observe_me, observe_others)`, each possibly None."""
    if value is None:
        return (None, None)
    if not isinstance(value, dict):
        raise validation_error(
            "model_attributes_type",
            loc,
            "Input should be a valid dictionary or object to extract fields from",
            value,
        )
    return (get_bool(value, "observe_me", loc, None), get_bool(value, "observe_others", loc, None))


def datetime_error(loc: Loc, raw: object) -> ApiError:
    """A datetime field that does not parse, as pydantic words it: the date parser's reason
    in `ctx` and the message when it is the common one (speedate wants at least the 10
    characters of a date: `input is too short`), else the bare message."""
    if isinstance(raw, str) and len(raw) < 10:
        return validation_error(
            "datetime_from_date_parsing",
            loc,
            "Input should be a valid datetime or date, input is too short",
            raw,
            {"error": "input is too short"},
        )
    return validation_error(
        "datetime_from_date_parsing", loc, "Input should be a valid datetime or date", raw
    )
