"""Record: a frozen, slotted model base that behaves like a frozen dataclass but costs
almost nothing to define.

Why not ``@dataclass(frozen=True, slots=True)``: it compiles each class's methods with
``exec`` and builds a second class for the slots, about 0.5 ms a class, which made up
most of ``import roncho`` (issue 13). A Record class is set up by plain dict and tuple
work in its metaclass; the methods are shared functions that read the class's field
table, so nothing is compiled at import.

What it keeps of a frozen dataclass (and what the tests hold it to): keyword (and, unless
``kw_only=True``, positional) construction with defaults and ``field(default_factory=...)``,
``__post_init__``, ``__eq__``, ``__hash__`` and ``__repr__`` over the fields in order,
``__match_args__``, assignment and deletion raising ``dataclasses.FrozenInstanceError``,
pickling and copying, and ``dataclasses.fields``/``replace``/``asdict``/``is_dataclass``.
The ``dataclasses`` module (and ``inspect``, for ``__signature__``) is imported only when
one of those is first used, never by ``import roncho``. Type checkers see the classes as
dataclasses through ``typing.dataclass_transform``.

Field names come from the class body's annotations, so a module defining Records must
use ``from __future__ import annotations`` (or Python < 3.14 semantics); ``ClassVar``
annotations are not fields, as in dataclasses.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, ClassVar, NamedTuple, TypeVar, dataclass_transform, overload

T = TypeVar("T")


class _Missing:
    """No default: the field is required."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class _FieldSpec(NamedTuple):
    """What ``field()`` leaves in a class body, read (and removed) by the metaclass."""

    default: Any
    default_factory: Callable[[], Any] | None


@overload
def field(*, default: T) -> T: ...
@overload
def field(*, default_factory: Callable[[], T]) -> T: ...
def field(*, default: Any = MISSING, default_factory: Callable[[], Any] | None = None) -> Any:
    """A field's default when a plain ``= value`` will not do (a fresh dict per instance)."""
    if default is not MISSING and default_factory is not None:
        raise ValueError("a field takes a default or a default_factory, not both")
    return _FieldSpec(default, default_factory)


# How a field gets its value when the caller leaves it out.
_REQUIRED, _DEFAULT, _FACTORY = 0, 1, 2


class _Field(NamedTuple):
    name: str
    annotation: str
    set: Callable[[Any, Any], None]  # the slot descriptor's __set__, which frozen skips
    how: int  # _REQUIRED, _DEFAULT or _FACTORY
    default: Any  # the value, or the factory


class _Spec:
    """One Record class's field table, and what the shared methods need from it."""

    __slots__ = (
        "_dataclass_fields",
        "fields",
        "init",
        "kw_only",
        "name",
        "names",
        "positional",
        "post_init",
        "values",
    )

    def __init__(self, cls: type, fields: tuple[_Field, ...], kw_only: bool) -> None:
        self.name = cls.__name__
        self.fields = fields
        self.names = tuple(f.name for f in fields)
        # What __init__ unpacks per field, in a plain tuple (cheaper than attribute reads).
        self.init = tuple((f.name, f.set, f.how, f.default) for f in fields)
        self.kw_only = kw_only
        self.positional = () if kw_only else self.names
        self.post_init: Callable[[Any], None] | None = getattr(cls, "__post_init__", None)
        # attrgetter returns a bare value for one name; equality and hashing want a tuple.
        if len(fields) >= 2:
            self.values: Callable[[Any], tuple[Any, ...]] = attrgetter(*self.names)
        elif fields:
            one = attrgetter(self.names[0])
            self.values = lambda record: (one(record),)
        else:
            self.values = lambda record: ()
        self._dataclass_fields: dict[str, Any] | None = None

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """Fold positional arguments into the keywords, refusing what Python would refuse."""
        if len(args) > len(self.positional):
            took = len(self.positional)
            raise TypeError(
                f"{self.name}.__init__() takes {took} positional argument"
                f"{'' if took == 1 else 's'} but {len(args)} were given"
            )
        for name, value in zip(self.positional, args, strict=False):
            if name in kwargs:
                raise TypeError(f"{self.name}.__init__() got multiple values for argument {name!r}")
            kwargs[name] = value
        return kwargs

    def refuse(self, kwargs: dict[str, Any]) -> TypeError:
        """The TypeError for keywords that name no field, or fields left without a value."""
        unknown = [k for k in kwargs if k not in self.names]
        if unknown:
            return TypeError(
                f"{self.name}.__init__() got an unexpected keyword argument {unknown[0]!r}"
            )
        missing = [f.name for f in self.fields if f.how == _REQUIRED and f.name not in kwargs]
        kind = "keyword-only " if self.kw_only else ""
        return TypeError(
            f"{self.name}.__init__() missing {len(missing)} required {kind}argument"
            f"{'' if len(missing) == 1 else 's'}: {', '.join(repr(m) for m in missing)}"
        )

    def dataclass_fields(self) -> dict[str, Any]:
        """``dataclasses.Field`` objects for this class, built on first use only."""
        if self._dataclass_fields is None:
            import dataclasses

            specs = []
            for f in self.fields:
                if f.how == _FACTORY:
                    spec = dataclasses.field(default_factory=f.default)
                elif f.how == _DEFAULT:
                    spec = dataclasses.field(default=f.default)
                else:
                    spec = dataclasses.field()
                specs.append((f.name, f.annotation, spec))
            # A throwaway twin made by dataclasses itself: public API only, exact Field objects.
            twin = dataclasses.make_dataclass(self.name, specs, frozen=True, kw_only=self.kw_only)
            self._dataclass_fields = {f.name: f for f in dataclasses.fields(twin)}
        return self._dataclass_fields

    def signature(self) -> Any:
        import inspect

        kind = (
            inspect.Parameter.KEYWORD_ONLY
            if self.kw_only
            else inspect.Parameter.POSITIONAL_OR_KEYWORD
        )
        return inspect.Signature(
            [
                inspect.Parameter(
                    f.name,
                    kind,
                    default=f.default if f.how == _DEFAULT else inspect.Parameter.empty,
                    annotation=f.annotation,
                )
                for f in self.fields
            ],
            return_annotation=None,
        )


class _ClassOnly:
    """A class attribute computed from the class's spec on each read (nothing cached on
    the class itself, where a subclass would find its parent's answer)."""

    def __init__(self, compute: Callable[[_Spec], Any]) -> None:
        self.compute = compute

    def __get__(self, record: object, owner: type) -> Any:
        spec: _Spec | None = owner.__dict__.get("__record__")
        if spec is None:  # Record itself
            raise AttributeError("Record itself has no fields")
        if record is not None and self.compute is _Spec.signature:
            return None  # an instance is not callable; let inspect say so
        return self.compute(spec)


def _annotations(namespace: dict[str, Any]) -> dict[str, Any]:
    found = namespace.get("__annotations__")
    if found is None and "__annotate__" in namespace:  # 3.14 without the __future__ import
        import annotationlib  # type: ignore[import-not-found,unused-ignore]

        found = annotationlib.call_annotate_function(
            namespace["__annotate__"], annotationlib.Format.STRING
        )
    return dict(found or {})


def _is_classvar(annotation: object) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
class _RecordMeta(type):
    """Turns the annotated class body into slots and a field table; compiles nothing."""

    def __new__(
        mcs,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        *,
        kw_only: bool = False,
        frozen: bool = True,
        **kwargs: Any,
    ) -> _RecordMeta:
        if not frozen:
            raise TypeError(f"{name}: a Record is always frozen")
        inherited: dict[str, _Field] = {}
        for base in reversed(bases):
            spec = getattr(base, "__record__", None)
            if isinstance(spec, _Spec):
                inherited.update((f.name, f) for f in spec.fields)
        own: dict[str, tuple[str, int, Any]] = {}
        for field_name, annotation in _annotations(namespace).items():
            if _is_classvar(annotation):
                continue
            value = namespace.pop(field_name, MISSING)
            if isinstance(value, _FieldSpec):
                if value.default_factory is not None:
                    own[field_name] = (str(annotation), _FACTORY, value.default_factory)
                    continue
                value = value.default
            if type(value) in (list, dict, set):
                raise ValueError(
                    f"{name}.{field_name}: a mutable default would be shared by every "
                    f"instance; use field(default_factory=...)"
                )
            how = _REQUIRED if value is MISSING else _DEFAULT
            own[field_name] = (str(annotation), how, value)
        if "__record__" not in namespace and bases:
            namespace["__slots__"] = tuple(n for n in own if n not in inherited)
            namespace["__match_args__"] = () if kw_only else (*inherited, *own)
        cls = super().__new__(mcs, name, bases, namespace, **kwargs)
        if not bases:
            return cls  # Record itself
        fields = dict(inherited)
        for field_name, (annotation, how, default) in own.items():
            setter = cls.__dict__[field_name].__set__ if field_name not in inherited else None
            if setter is None:
                setter = inherited[field_name].set
            fields[field_name] = _Field(field_name, annotation, setter, how, default)
        if not kw_only:
            seen_default = None
            for f in fields.values():
                if f.how != _REQUIRED:
                    seen_default = f.name
                elif seen_default is not None:
                    raise TypeError(
                        f"{name}: required field {f.name!r} follows {seen_default!r}, which "
                        f"has a default (use kw_only=True, or reorder)"
                    )
        type.__setattr__(cls, "__record__", _Spec(cls, tuple(fields.values()), kw_only))
        return cls


def _frozen(action: str, name: str) -> AttributeError:
    from dataclasses import FrozenInstanceError  # only on this error path, never at import

    return FrozenInstanceError(f"cannot {action} field {name!r}")


def _rebuild(cls: type[Record], values: tuple[Any, ...]) -> Record:
    """Unpickle: the values go back into the slots, with no check and no __post_init__,
    as they came out of an instance that had passed both."""
    record = object.__new__(cls)
    for f, value in zip(cls.__record__.fields, values, strict=True):
        f.set(record, value)
    return record


class Record(metaclass=_RecordMeta):
    """Base of roncho's models: ``class Peer(Record, kw_only=True): id: str; ...``."""

    __slots__ = ()
    __record__: ClassVar[_Spec]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        spec = self.__record__
        if args:
            kwargs = spec.bind(args, kwargs)
        used = 0
        for name, set_, how, default in spec.init:
            if name in kwargs:
                set_(self, kwargs[name])
                used += 1
            elif how == _DEFAULT:
                set_(self, default)
            elif how == _FACTORY:
                set_(self, default())
            else:
                raise spec.refuse(kwargs)
        if used != len(kwargs):
            raise spec.refuse(kwargs)
        if spec.post_init is not None:
            spec.post_init(self)

    def __repr__(self) -> str:
        spec = self.__record__
        inner = ", ".join(f"{n}={v!r}" for n, v in zip(spec.names, spec.values(self), strict=True))
        return f"{type(self).__qualname__}({inner})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            values = self.__record__.values
            return values(self) == values(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.__record__.values(self))

    def __setattr__(self, name: str, value: object) -> None:
        raise _frozen("assign to", name)

    def __delattr__(self, name: str) -> None:
        raise _frozen("delete", name)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.__record__.values(self)))


# Introspection that dataclasses, inspect and help() look for, answered lazily.
type.__setattr__(Record, "__dataclass_fields__", _ClassOnly(_Spec.dataclass_fields))
type.__setattr__(Record, "__signature__", _ClassOnly(_Spec.signature))


def setters(cls: type[Record]) -> tuple[Callable[[Any, Any], None], ...]:
    """The slots' own setters in field order, for a decoder's trusted fast path: applied
    to ``object.__new__(cls)``, they fill a record without ``__init__``'s checks."""
    return tuple(f.set for f in cls.__record__.fields)
