"""Reading what Honcho answers: JSON text in, checked Python values out. No models here.

The models (``_models``) decode their fields through ``_Fields``, whose every failure is a
DecodeError naming the operation and the field; ``parse_json`` refuses what ``json.loads``
lets through but is not JSON (NaN, Infinity); timestamps stay RFC 3339 strings until
``parse_timestamp`` (in ``_checks``) turns one into a datetime. Kept apart from the models
so each module has one job: the models say what a resource is, this one how it is read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Container, Iterable
from typing import Any, ClassVar, TypeVar

from ._errors import DecodeError

T = TypeVar("T")
JSON = dict[str, Any]

Read = Callable[["_Fields", str], T]


class _Fields:
    """Typed reads from one JSON object, each failure a DecodeError naming the field."""

    def __init__(self, data: object, op: str, what: str) -> None:
        if not isinstance(data, dict):
            raise DecodeError(f"{op}: expected a JSON object for {what}, got {_kind(data)}")
        self.data: JSON = data
        self.op = op
        self.what = what

    def _fail(self, key: str, expected: str) -> DecodeError:
        got = "nothing" if key not in self.data else _kind(self.data[key])
        return DecodeError(f"{self.op}: {self.what}.{key} should be {expected}, got {got}")

    def obj(self, key: str) -> JSON:
        value = self.data.get(key)
        if not isinstance(value, dict):
            raise self._fail(key, "an object")
        return value

    def opt_obj(self, key: str) -> JSON:
        """An object, with null or absent read as empty."""
        value = self.data.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self._fail(key, "an object or null")
        return value

    # One read per JSON type, set below by _typed: ``text`` (a string), ``integer``,
    # ``flag`` (true or false), and each ``opt_`` one, which also takes null.
    text: ClassVar[Read[str]]
    opt_text: ClassVar[Read[str | None]]
    integer: ClassVar[Read[int]]
    opt_integer: ClassVar[Read[int | None]]
    flag: ClassVar[Read[bool]]
    opt_flag: ClassVar[Read[bool | None]]

    def opt_text_list(self, key: str) -> tuple[str, ...] | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._fail(key, "a list of strings or null")
        return tuple(value)

    def array(self, key: str) -> list[Any]:
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self._fail(key, "a list")
        return value


def _typed(kind: type, expected: str, optional: bool) -> Read[Any]:
    """A read of one JSON type (a boolean is never an integer), null allowed if ``optional``."""

    def read(fields: _Fields, key: str) -> Any:
        value = fields.data.get(key)
        if isinstance(value, kind) and (kind is bool or type(value) is not bool):
            return value
        if value is None and optional:
            return None
        raise fields._fail(key, f"{expected} or null" if optional else expected)

    return read


for _kind_of, _expected, _name in (
    (str, "a string", "text"),
    (int, "an integer", "integer"),
    (bool, "true or false", "flag"),
):
    setattr(_Fields, _name, _typed(_kind_of, _expected, False))
    setattr(_Fields, f"opt_{_name}", _typed(_kind_of, _expected, True))


# How a model's field is read, by its annotation (a string: the models are written with
# ``from __future__ import annotations``). A field with a default reads null or absent as
# that default, so a plain ``bool`` with a default is read as ``bool | None``.
_READERS: dict[str, Callable[[_Fields, str], Any]] = {
    "str": _Fields.text,
    "str | None": _Fields.opt_text,
    "int": _Fields.integer,
    "int | None": _Fields.opt_integer,
    "bool": _Fields.flag,
    "bool | None": _Fields.opt_flag,
    "JSON": _Fields.opt_obj,
    "tuple[str, ...] | None": _Fields.opt_text_list,
}


def reader_of(annotation: str, has_default: bool) -> Callable[[_Fields, str], Any]:
    """The read for a field of this annotation (KeyError: no read is written for it)."""
    if has_default and annotation in ("str", "int", "bool"):
        annotation += " | None"
    return _READERS[annotation]


# Each field a decoder reads: its name, its read, and its default (a factory when
# ``factory``) for null or absent, or ``required``.
Plan = tuple[tuple[str, Callable[[_Fields, str], Any], Any, bool], ...]
_REQUIRED: Any = object()


def plan_of(fields: Iterable[Any], skip: Container[str] = ()) -> Plan:
    """How to read a Record's fields (its ``__record__.fields``, but those in ``skip``)."""
    return tuple(
        (
            f.name,
            reader_of(f.annotation, bool(f.how)),
            f.default if f.how else _REQUIRED,
            f.how == 2,  # _record's _FACTORY: a fresh default each time
        )
        for f in fields
        if f.name not in skip
    )


def read_into(record: Any, plan: Plan, f: _Fields) -> None:
    """Set each field of ``plan`` on ``record`` (a blank of the Record's storage, see
    ``_record.storage``) as read from ``f``; null or absent gives a field its default.
    The reads have checked every value, so the Record's __init__ need not again."""
    for name, read, default, factory in plan:
        value = read(f, name)
        if value is None and default is not _REQUIRED:
            value = default() if factory else default
        setattr(record, name, value)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


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
        raise DecodeError(f"{op}: expected a JSON array, got {_kind(data)}")
    return tuple([item(entry, op) for entry in data])
