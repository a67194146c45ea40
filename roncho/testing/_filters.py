"""Honcho's list/search filter grammar, evaluated over plain dict rows.

`compile_filter(filters, resource)` checks the whole filter once (unknown keys, bad shapes and
operand types are a 422 with a string detail, as the real server's `FilterError`) and returns a
predicate `row -> bool`. A row is a dict of column values as the resource's Model has them.

Grammar:
- top-level keys are AND-ed; `AND`/`OR`/`NOT` take lists of filter objects (depth <= 5);
- a column value is a scalar (equality), `"*"` (no condition), `null` (IS NULL), a bare list
  (`in`) or an operator object `{gte|lte|gt|lt|ne|in|contains|icontains: v}`;
- `metadata: {...}` is JSON containment per key, or an operator object per key (numbers compare
  as numbers, everything else as text); `metadata.key` is the same on one key;
- `created_at` operands are ISO strings (bare dates allowed, naive = UTC).
`NOT` is `IS NOT TRUE`: a comparison with a null column counts as not matching.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ._common import ID_PATTERN, ApiError, parse_datetime

Row = Mapping[str, Any]
Predicate = Callable[[Row], bool]

# The server limits the nesting of AND/OR/NOT to depth 5.
MAX_FILTER_DEPTH = 5
OPERATORS = frozenset({"gte", "lte", "gt", "lt", "ne", "in", "contains", "icontains"})
CONCLUSION_LEVELS = ("explicit", "deductive", "inductive", "contradiction")
# JSONB columns that are not metadata: containment of an object or list, as the server's
# `_coerce_operand` allows (`utils/filter.py`, 3.0.12); anything else is this 422.
JSONB_COLUMNS = frozenset({"source_ids"})
# Recall endpoints: at most this many sessions in an allowlist (`MAX_SESSION_ALLOWLIST_ENTRIES`).
MAX_SESSION_ALLOWLIST = 1000
SESSION_NAME_PATTERN = "^[a-zA-Z0-9_-]+$"


@dataclass(frozen=True, slots=True)
class Resource:
    """A filterable resource: the Model name used in error text and its allowed keys."""

    model: str
    keys: frozenset[str]
    datetime_keys: frozenset[str] = frozenset({"created_at"})
    # Columns holding a list of ids matched by membership (3.2.0's `source_ids`), not JSONB.
    id_list_keys: frozenset[str] = frozenset()


WORKSPACE = Resource("Workspace", frozenset({"id", "created_at", "metadata"}))
PEER = Resource("Peer", frozenset({"id", "created_at", "metadata", "workspace_id"}))
SESSION = Resource("Session", frozenset({"id", "created_at", "is_active", "metadata"}))
MESSAGE = Resource(
    "Message",
    frozenset({"session_id", "peer_id", "token_count", "created_at", "metadata", "workspace_id"}),
)
MESSAGE_SEARCH = Resource("Message", MESSAGE.keys | {"peer_perspective"})
CONCLUSION = Resource(
    "Document",
    frozenset(
        {
            "session_id",
            "observer_id",
            "observed_id",
            "metadata",
            "level",
            "content",
            "observer",
            "observed",
            "created_at",
            "id",
            "times_derived",
            "session_name",
            "workspace_name",
            "source_ids",
        }
    ),
)
# Honcho 3.2.0's conclusions (PR 952): `source_ids` holds premise conclusion ids, matched by
# membership (`_build_source_ids_condition`, plastic-labs/honcho branch abigail/dev-2219).
CONCLUSION_ATTRIBUTED = Resource(
    CONCLUSION.model, CONCLUSION.keys, id_list_keys=frozenset({"source_ids"})
)


def _fail(text: str) -> ApiError:
    return ApiError(422, text)


def compile_filter(filters: object, resource: Resource) -> Predicate:
    """Check `filters` and return a predicate over rows. None or `{}` matches everything."""
    if filters is None:
        return lambda row: True
    if not isinstance(filters, dict):
        raise _fail("Filters must be a dictionary")
    return _compile_object(filters, resource, 0)


def _compile_object(filters: Mapping[str, Any], resource: Resource, depth: int) -> Predicate:
    if depth > MAX_FILTER_DEPTH:
        raise _fail(f"Filter nesting exceeds maximum depth of {MAX_FILTER_DEPTH}")
    parts: list[Predicate] = []
    for key, value in filters.items():
        if key in ("AND", "OR", "NOT"):
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                raise _fail(f"{key} filter must be a list of filter objects")
            subs = [_compile_object(v, resource, depth + 1) for v in value]
            parts.append(_logical(key, subs))
        elif key == "metadata":
            parts.append(_compile_metadata(value))
        elif key.startswith("metadata."):
            path = key.split(".")[1:]
            parts.append(_compile_metadata_key(path, value))
        else:
            if key not in resource.keys:
                raise _fail(_unknown_column(key, resource))
            parts.append(_compile_column(key, value, resource))
    return lambda row: all(p(row) for p in parts)


# 3.0.12 `src/utils/filter.py:41-49`: the names every model but Message and Document maps.
_MAPPED_KEYS = frozenset(
    {"id", "created_at", "is_active", "workspace_id", "session_id", "peer_id", "metadata"}
)


def _unknown_column(key: str, resource: Resource) -> str:
    """Why `key` cannot be filtered on (3.0.12 `src/utils/filter.py:545-552`): a name the
    model's mapping knows (a Document's maps every name to itself) but the model lacks
    "does not exist"; any other is "not allowed"."""
    mapped = resource.model == "Document" or (resource.model != "Message" and key in _MAPPED_KEYS)
    if mapped:
        return f"Column '{key}' does not exist on {resource.model}"
    return f"Column '{key}' is not allowed to be filtered on or does not exist on {resource.model}"


def _logical(kind: str, subs: list[Predicate]) -> Predicate:
    if kind == "AND":
        return lambda row: all(p(row) for p in subs)
    if kind == "OR":
        return lambda row: any(p(row) for p in subs)
    # NOT [a, b] is NOT (a AND b) evaluated as IS NOT TRUE.
    return lambda row: not all(p(row) for p in subs)


def _operand(key: str, value: object, resource: Resource) -> object:
    """Type-check and convert an operand for `key` (datetimes parsed, levels checked)."""
    if value is None:
        return None
    if key in resource.datetime_keys:
        # 3.0.12 `src/utils/filter.py:188-198`.
        if not isinstance(value, str):
            raise _fail(
                f"Invalid value for column '{key}': expected a datetime, got {type(value).__name__}"
            )
        moment = parse_datetime(value)
        if moment is None:
            raise _fail(f"Invalid datetime value: {value}")
        return moment
    if key == "level" and value not in CONCLUSION_LEVELS:
        raise _fail(f"Invalid value for 'level': {value!r}")
    if key == "is_active" and not isinstance(value, bool):
        raise _fail(f"Invalid boolean value for '{key}': {value!r}")
    if key in ("token_count", "times_derived") and (
        isinstance(value, bool) or not isinstance(value, int | float)
    ):
        raise _fail(f"Invalid numeric value for '{key}': {value!r}")
    if isinstance(value, dict | list):
        raise _fail(f"Invalid value for '{key}': {value!r}")
    return value


def _jsonb_error(key: str) -> ApiError:
    return _fail(
        f"Invalid filter for column '{key}': a JSONB column takes an object, optionally under "
        "'contains'"
    )


def _compile_jsonb(key: str, value: object) -> Predicate:
    """A JSONB column: `null` is IS NULL, a plain object is JSON equality, `{"contains": obj or
    list}` is containment (`@>`); a bare list, a scalar or any other operator is a 422."""
    if value is None:
        return lambda row: row.get(key) is None
    if isinstance(value, dict) and not (set(value) & OPERATORS):
        return lambda row: row.get(key) == value
    if isinstance(value, dict):
        wants: list[object] = []
        for op, operand in value.items():
            if op != "contains" or not isinstance(operand, dict | list):
                raise _jsonb_error(key)
            wants.append(operand)
        return lambda row: (
            row.get(key) is not None and all(contains_json(row.get(key), want) for want in wants)
        )
    raise _jsonb_error(key)


def _compile_id_list(key: str, value: object) -> Predicate:
    """3.2.0's `source_ids` filter (PR 952's `_build_source_ids_condition`): a string is one
    id the list must hold, a list needs all of them, `{"contains": id}` one, `{"in": [...]}`
    any; `"*"` is no condition. `null` stays IS NULL, as on 3.0.12 (3.2.0's is not known)."""
    if value is None:
        return lambda row: row.get(key) is None

    def member(sid: object) -> Predicate:
        if not isinstance(sid, str) or not sid:
            raise _fail(f"{key} filter entries must be non-empty strings")
        return lambda row: sid in (row.get(key) or ())

    def every(checks: list[Predicate]) -> Predicate:
        return lambda row: all(check(row) for check in checks)

    if isinstance(value, str):
        return member(value)
    if isinstance(value, list):
        return every([] if "*" in value else [member(v) for v in value])
    if isinstance(value, dict):
        checks: list[Predicate] = []
        for op, operand in value.items():
            if operand == "*":
                continue
            if op == "contains":
                checks.append(member(operand))
            elif op == "in":
                if not isinstance(operand, list):
                    raise _fail(f"Invalid value for 'in' operator: {operand}. Expected an iterable")
                anyof = [] if "*" in operand else [member(v) for v in operand]
                if anyof:
                    checks.append(_any_of(anyof))
            else:
                raise _fail(f"Operator '{op}' is not supported on {key}")
        return every(checks)
    raise _fail(f"Invalid {key} filter value: {value}")


def _any_of(checks: list[Predicate]) -> Predicate:
    return lambda row: any(check(row) for check in checks)


def _compile_column(key: str, value: object, resource: Resource) -> Predicate:
    if value == "*":
        return lambda row: True
    if key in resource.id_list_keys:
        return _compile_id_list(key, value)
    if key in JSONB_COLUMNS:
        return _compile_jsonb(key, value)
    if isinstance(value, list):
        options = [_operand(key, v, resource) for v in value]
        return lambda row: row.get(key) in options
    if isinstance(value, dict):
        if not set(value) & OPERATORS:
            # 3.0.12 `src/utils/filter.py:586-593`: no operator among the keys.
            raise _fail(
                f"Invalid filter for column '{key}': unsupported operator(s) {sorted(value)}. "
                f"Expected one of {sorted(OPERATORS)} or a scalar value."
            )
        if not set(value) <= OPERATORS:
            bad = sorted(set(value) - OPERATORS)
            raise _fail(f"Unsupported filter operator(s) for '{key}': {bad}")
        checks = [_column_operator(key, op, operand, resource) for op, operand in value.items()]
        return lambda row: all(c(row.get(key)) for c in checks)
    operand = _operand(key, value, resource)
    if operand is None:
        return lambda row: row.get(key) is None
    return lambda row: row.get(key) == operand


def _column_operator(
    key: str, op: str, operand: object, resource: Resource
) -> Callable[[object], bool]:
    if op == "in":
        if not isinstance(operand, list):
            raise _fail(f"'in' operator for '{key}' requires a list")
        options = [_operand(key, v, resource) for v in operand]
        return lambda v: v is not None and v in options
    if op in ("contains", "icontains"):
        if not isinstance(operand, str):
            raise _fail(f"'{op}' operator for '{key}' requires a string")
        needle = operand.lower()
        return lambda v: isinstance(v, str) and needle in v.lower()
    converted = _operand(key, operand, resource)
    if op == "ne":
        return lambda v: v != converted
    if converted is None:
        raise _fail(f"'{op}' operator for '{key}' requires a value")
    return _ordering(op, converted)


def _ordering(op: str, operand: object) -> Callable[[object], bool]:
    def check(value: object) -> bool:
        if value is None:
            return False
        try:
            if op == "gte":
                return bool(value >= operand)  # type: ignore[operator]
            if op == "lte":
                return bool(value <= operand)  # type: ignore[operator]
            if op == "gt":
                return bool(value > operand)  # type: ignore[operator]
            return bool(value < operand)  # type: ignore[operator]
        except TypeError:
            return False

    return check


def contains_json(have: object, want: object) -> bool:
    """PostgreSQL JSONB containment `have @> want`."""
    if isinstance(want, dict):
        return isinstance(have, dict) and all(
            k in have and contains_json(have[k], v) for k, v in want.items()
        )
    if isinstance(want, list):
        return isinstance(have, list) and all(any(contains_json(h, w) for h in have) for w in want)
    if isinstance(have, list):
        return any(contains_json(h, want) for h in have)
    if isinstance(want, bool) or isinstance(have, bool):
        return type(want) is type(have) and want == have
    return have == want


def _compile_metadata(value: object) -> Predicate:
    if not isinstance(value, dict):
        raise _fail("Metadata filter must be a dictionary")
    parts: list[Predicate] = []
    for key, sub in value.items():
        if isinstance(sub, dict) and sub and set(sub) <= OPERATORS:
            parts.append(_compile_metadata_key([key], sub))
        elif sub == "*":
            continue
        else:
            parts.append(_containment({key: sub}))
    return lambda row: all(p(row) for p in parts)


def _containment(want: dict[str, Any]) -> Predicate:
    return lambda row: contains_json(row.get("metadata") or {}, want)


def _dig(meta: object, path: list[str]) -> object:
    for part in path:
        if not isinstance(meta, dict) or part not in meta:
            return None
        meta = meta[part]
    return meta


def _as_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _metadata_compare(op: str, have: object, operand: object) -> bool:
    """`metadata->>key` compared as a number when the operand is one, else as text."""
    if have is None:
        return op == "ne" and operand is not None
    if op in ("contains", "icontains"):
        text = _as_text(have)
        return text is not None and str(operand).lower() in text.lower()
    if op == "in":
        texts = {_as_text(v) for v in operand} if isinstance(operand, list) else set()
        return _as_text(have) in texts
    if isinstance(operand, int | float) and not isinstance(operand, bool):
        try:
            number = float(have) if not isinstance(have, bool) else None  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return op == "ne"
        if number is None:
            return op == "ne"
        left: Any = number
        right: Any = float(operand)
    else:
        left, right = _as_text(have), _as_text(operand)
    if op == "ne":
        return bool(left != right)
    return _ordering(op, right)(left)


def _compile_metadata_key(path: list[str], value: object) -> Predicate:
    if isinstance(value, dict) and value and set(value) <= OPERATORS:
        for op, operand in value.items():
            if op == "in" and not isinstance(operand, list):
                raise _fail("'in' operator requires a list")
        ops = list(value.items())
        return lambda row: all(
            _metadata_compare(op, _dig(row.get("metadata"), path), operand) for op, operand in ops
        )
    if value == "*":
        return lambda row: True
    if value is None:
        return lambda row: _dig(row.get("metadata"), path) is None
    if isinstance(value, list):
        return lambda row: _dig(row.get("metadata"), path) in value
    return lambda row: contains_json(_dig(row.get("metadata"), path), value)


def session_allowlist(
    entries: list[object], *, field: str, must_include: str | None = None
) -> list[str]:
    """Check a session allowlist as the server's `normalize_session_allowlist` does: the cap,
    non-empty id-shaped strings, `must_include` present; de-duplicated in first-seen order. An
    empty list stays empty, so whoever reads it fails closed."""
    if len(entries) > MAX_SESSION_ALLOWLIST:
        raise _fail(f"{field} supports at most {MAX_SESSION_ALLOWLIST} sessions per request")
    allowlist: list[str] = []
    for entry in entries:
        if not isinstance(entry, str) or not entry:
            raise _fail(f"{field} entries must be non-empty strings")
        if not ID_PATTERN.match(entry):
            raise _fail(
                f"Invalid session id in {field}: {entry!r}. Session ids match "
                f"{SESSION_NAME_PATTERN}"
            )
        if entry not in allowlist:
            allowlist.append(entry)
    if must_include is not None and must_include not in allowlist:
        raise _fail(f"session_id must be included in {field}")
    return allowlist


def filters_allowlist(filters: object, must_include: str | None = None) -> list[str] | None:
    """The recall endpoints' `filters` (chat, representation): only a `session_id` allowlist
    (an id, a list of ids or `{"in": [...]}`), texts as the server's
    `extract_session_allowlist`. None when no filters were given."""
    if filters is None:
        return None
    if not isinstance(filters, dict):
        raise _fail("Filters must be a dictionary")
    unsupported = sorted(set(filters) - {"session_id"})
    if unsupported:
        raise _fail(
            f"Unsupported filter key(s) for this endpoint: {unsupported}. Only 'session_id' is "
            "supported."
        )
    if "session_id" not in filters:
        raise _fail("filters must contain 'session_id'")
    value = filters["session_id"]
    if isinstance(value, str):
        entries: list[object] = [value]
    elif isinstance(value, list):
        entries = list(value)
    elif isinstance(value, dict) and set(value) == {"in"} and isinstance(value["in"], list):
        entries = list(value["in"])
    else:
        raise _fail(
            'filters.session_id must be a session id, a list of session ids, or {"in": [...]}'
        )
    return session_allowlist(entries, field="filters.session_id", must_include=must_include)
