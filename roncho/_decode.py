"""Reading what Honcho answers: JSON text in, checked Python values out. No models here.

Each model's ``from_json`` (``_models``) reads the keys it relies on through ``Fields``,
whose every failure is a DecodeError naming the operation and the field
(``field_error``); ``parse_json`` refuses what ``json.loads`` lets through but is not JSON
(NaN, Infinity); timestamps stay RFC 3339 strings until ``parse_timestamp`` (in
``_checks``) turns one into a datetime. Kept apart from the models so each module has one
job: the models say what a resource is, this module how an answer is read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from ._errors import DecodeError

T = TypeVar("T")
JSON = dict[str, Any]


def kind(value: object) -> str:
    """What a JSON value is, as an error message says it."""
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


def not_an_object(data: object, op: str, what: str) -> DecodeError:
    return DecodeError(f"{op}: expected a JSON object for {what}, got {kind(data)}")


def field_error(data: JSON, op: str, what: str, key: str, expected: str) -> DecodeError:
    """``op: what.key should be expected, got ...``: the one shape of a bad-field error."""
    got = "nothing" if key not in data else kind(data[key])
    return DecodeError(f"{op}: {what}.{key} should be {expected}, got {got}")


class Fields:
    """Typed reads from one JSON object, each failure a DecodeError naming the field.

    A boolean is never read as an integer; an ``opt_`` read also takes null (or absence)
    and gives None, or an empty container where that is what null means.
    """

    __slots__ = ("data", "op", "what")

    def __init__(self, data: object, op: str, what: str) -> None:
        if not isinstance(data, dict):
            raise not_an_object(data, op, what)
        self.data: JSON = data
        self.op = op
        self.what = what  # what an error calls it: "peer", "queue status.sessions[x]", ...

    def fail(self, key: str, expected: str) -> DecodeError:
        return field_error(self.data, self.op, self.what, key, expected)

    def text(self, key: str) -> str:
        value = self.data.get(key)
        if not isinstance(value, str):
            raise self.fail(key, "a string")
        return value

    def opt_text(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is not None and not isinstance(value, str):
            raise self.fail(key, "a string or null")
        return value

    def integer(self, key: str) -> int:
        value = self.data.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(key, "an integer")
        return value

    def opt_integer(self, key: str) -> int | None:
        value = self.data.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise self.fail(key, "an integer or null")
        return value

    def opt_flag(self, key: str) -> bool | None:
        value = self.data.get(key)
        if value is not None and not isinstance(value, bool):
            raise self.fail(key, "true or false or null")
        return value

    def opt_obj(self, key: str) -> JSON:
        """An object, with null or absent read as empty."""
        value = self.data.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(key, "an object or null")
        return value

    def opt_text_list(self, key: str) -> tuple[str, ...] | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(key, "a list of strings or null")
        return tuple(value)

    def array(self, key: str) -> list[Any]:
        """A list, with null or absent read as empty."""
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(key, "a list")
        return value


def parse_json(text: str) -> Any:
    """json.loads that refuses NaN and Infinity, which are not JSON (ValueError).

    One decoder serves every call (json.loads with ``parse_constant`` would build a new
    one, and its scanner, each time); it keeps no state between calls."""
    return _DECODER.decode(text)


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def decode_list(data: object, op: str, item: Callable[[object, str], T]) -> tuple[T, ...]:
    """A bare JSON array (search, message and conclusion creates, conclusion query)."""
    if not isinstance(data, list):
        raise DecodeError(f"{op}: expected a JSON array, got {kind(data)}")
    return tuple([item(entry, op) for entry in data])
