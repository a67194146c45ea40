"""``Record``: what every model of ``_models`` is, written once as a plain base class.

A record declares its fields as annotations (a default in a comment after one); its
``__slots__`` (the fields, in order) and its keyword-only ``__init__`` are written out in
the class by scripts/render_records.py, as committed text a reader sees. This base adds
what a frozen dataclass would: assignment and deletion refused, equality and hashing by
the fields in order, a repr of them, copying and pickling by them, and ``replace()``.
Nothing is made at import time: creating a dataclass runs generated code for every class,
which cost most of ``import roncho``.
"""

from __future__ import annotations

from typing import Any, ClassVar, NoReturn, Self, dataclass_transform

# Stores a field from a record's own __init__: ``__setattr__`` below refuses every other store.
store = object.__setattr__


# The type checker reads each record as a frozen, keyword-only dataclass of its annotated
# fields (assignment an error, the constructor's parameters checked); at run time this
# decorator does nothing but mark the class.
@dataclass_transform(kw_only_default=True, frozen_default=True)
class Record:
    """A frozen record of the fields named in ``__slots__``."""

    __slots__: ClassVar[tuple[str, ...]] = ()
    __match_args__: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"cannot delete field {name!r}")

    def _fields(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self.__slots__])

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Record)
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())  # unhashable (TypeError) when a field is a dict

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({shown})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self._fields()))

    def replace(self, **changes: Any) -> Self:
        """A copy with some fields changed, made (and so checked) by the constructor."""
        fields = dict(zip(self.__slots__, self._fields(), strict=True))
        return type(self)(**{**fields, **changes})


def _rebuild(cls: type[Record], values: tuple[Any, ...]) -> Record:
    """Unpickle and copy: the values as they were, not through the constructor again."""
    record = object.__new__(cls)
    for name, value in zip(cls.__slots__, values, strict=True):
        store(record, name, value)
    return record
