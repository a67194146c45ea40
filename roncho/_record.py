"""Record: a frozen, slotted model base that behaves like a frozen dataclass but costs
almost nothing to define.

Why not ``@dataclass(frozen=True, slots=True)``: it compiles each class's methods with
``exec`` and builds a second class for the slots, about 0.5 ms a class, which made up
most of ``import roncho`` (issue 13). A Record class is set up by plain dict and tuple
work in its metaclass: its ``__init__``, ``__eq__`` and ``__hash__`` are closures over its
field table, the other methods are shared, and nothing is compiled.

What it keeps of a frozen dataclass (and what the tests hold it to): keyword (and, unless
``kw_only=True``, positional) construction with defaults and ``field(default_factory=...)``,
``__post_init__``, ``__eq__``, ``__hash__`` and ``__repr__`` over the fields in order,
``__match_args__``, assignment and deletion raising ``dataclasses.FrozenInstanceError``,
pickling and copying, and ``dataclasses.fields``/``replace``/``asdict``/``is_dataclass``.
The ``dataclasses`` module (and ``inspect``, for ``__signature__``) is imported only when
one of those is first used, never to define a Record; ``replace()`` below does that job
without it. Type checkers see the classes as dataclasses through
``typing.dataclass_transform``.

The slots live in a plain hidden base class (``storage(cls)``) that a Record class adds
nothing to. A decoder that has already checked its values can fill an instance of that
base with plain attribute stores, which CPython specialises, and then set ``__class__``
to the Record class: for eight fields, 0.15 us against 0.46 us through the slots' setters
and about 1 us through ``__init__`` (see ``Message.from_json``).

Field names come from the class body's annotations, so a module defining Records needs
``from __future__ import annotations`` on Python 3.14 and later (where annotations are
otherwise lazy); ``ClassVar`` annotations are not fields, as in dataclasses.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, ClassVar, NamedTuple, TypeVar, dataclass_transform, overload

T = TypeVar("T")
R = TypeVar("R", bound="Record")


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
    how: int  # _REQUIRED, _DEFAULT or _FACTORY
    default: Any  # the value, or the factory


class _Spec:
    """One Record class's field table, and what its methods need from it."""

    __slots__ = (
        "_dataclass_fields",
        "fields",
        "init",
        "kw_only",
        "name",
        "names",
        "positional",
        "post_init",
        "storage",
        "values",
    )

    def __init__(self, cls: type, storage: type, fields: tuple[_Field, ...], kw_only: bool) -> None:
        self.name = cls.__name__
        self.storage = storage
        self.fields = fields
        self.names = tuple(f.name for f in fields)
        # What __init__ unpacks per field: the slot's own setter (which Record's
        # __setattr__ does not stand in front of), how a left-out field is filled, and with what.
        self.init = tuple(
            (f.name, getattr(storage, f.name).__set__, f.how, f.default) for f in fields
        )
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

    def refuse_positional(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
        """The TypeError for too many positional arguments, or one also given by keyword."""
        took = len(self.positional)
        if len(args) > took:
            return TypeError(
                f"{self.name}.__init__() takes {took} positional argument"
                f"{'' if took == 1 else 's'} but {len(args)} were given"
            )
        twice = next(name for name in self.positional[: len(args)] if name in kwargs)
        return TypeError(f"{self.name}.__init__() got multiple values for argument {twice!r}")

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
        """The constructor's ``inspect.Signature``, for help() and inspect.signature()."""
        import inspect

        kind = (
            inspect.Parameter.KEYWORD_ONLY
            if self.kw_only
            else inspect.Parameter.POSITIONAL_OR_KEYWORD
        )
        parameters = [
            inspect.Parameter(
                f.name,
                kind,
                default={_DEFAULT: f.default, _FACTORY: _FACTORY_MARK}.get(
                    f.how, inspect.Parameter.empty
                ),
                annotation=f.annotation,
            )
            for f in self.fields
        ]
        return inspect.Signature(parameters, return_annotation=None)


class _FactoryMark:
    """How a signature shows a default made per instance (as dataclasses shows it)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY_MARK = _FactoryMark()


class _FromSpec:
    """A class attribute computed from the class's own spec on each read; nothing is
    cached on the class, where a subclass would find its parent's answer."""

    def __init__(self, compute: Callable[[_Spec], Any], for_instances: bool) -> None:
        self.compute = compute
        self.for_instances = for_instances

    def __get__(self, record: object, owner: type) -> Any:
        spec: _Spec | None = owner.__dict__.get("__record__")
        if spec is None:  # Record itself
            raise AttributeError("Record itself has no fields")
        if record is not None and not self.for_instances:
            return None  # an instance is not callable: inspect then says so
        return self.compute(spec)


def _annotations(name: str, namespace: dict[str, Any]) -> dict[str, Any]:
    found = namespace.get("__annotations__")
    if found is None and ("__annotate__" in namespace or "__annotate_func__" in namespace):
        raise TypeError(
            f"{name}: a Record's module needs 'from __future__ import annotations' "
            f"(its field names are read from the class body)"
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
        if not bases:  # Record itself
            return super().__new__(mcs, name, bases, namespace, **kwargs)
        parents = [b.__dict__["__record__"] for b in bases if "__record__" in b.__dict__]
        if len(parents) > 1:
            raise TypeError(f"{name}: a Record may extend at most one other Record")
        fields = {f.name: f for f in parents[0].fields} if parents else {}
        own = []
        for field_name, annotation in _annotations(name, namespace).items():
            if _is_classvar(annotation):
                continue
            value = namespace.pop(field_name, MISSING)
            if field_name in fields:
                raise TypeError(f"{name}.{field_name} is already a field of a base Record")
            own.append(field_name)
            fields[field_name] = _field(name, field_name, str(annotation), value)
        # The slots go in a plain base class: see storage() for why.
        base_storage: tuple[type, ...] = (parents[0].storage,) if parents else ()
        storage = type(f"{name}.storage", base_storage, {"__slots__": tuple(own)})
        storage.__module__ = namespace.get("__module__", storage.__module__)
        namespace["__slots__"] = ()
        namespace["__match_args__"] = () if kw_only else tuple(fields)
        cls = super().__new__(mcs, name, (*bases, storage), namespace, **kwargs)
        table = tuple(fields.values())
        if not kw_only:
            _check_order(name, table)
        spec = _Spec(cls, storage, table, kw_only)
        type.__setattr__(cls, "__record__", spec)
        if "__init__" not in namespace:
            type.__setattr__(cls, "__init__", _make_init(spec))
        eq, hash_ = _make_eq_hash(spec)
        if "__eq__" not in namespace:
            type.__setattr__(cls, "__eq__", eq)
        if "__eq__" not in namespace and "__hash__" not in namespace:
            type.__setattr__(cls, "__hash__", hash_)
        return cls


def _field(cls_name: str, name: str, annotation: str, value: object) -> _Field:
    if isinstance(value, _FieldSpec):
        if value.default_factory is not None:
            return _Field(name, annotation, _FACTORY, value.default_factory)
        value = value.default
    if type(value) in (list, dict, set):
        raise ValueError(
            f"{cls_name}.{name}: a mutable default would be shared by every instance; "
            f"use field(default_factory=...)"
        )
    return _Field(name, annotation, _REQUIRED if value is MISSING else _DEFAULT, value)


def _check_order(cls_name: str, fields: tuple[_Field, ...]) -> None:
    """Positional construction cannot have a required field after one with a default."""
    seen_default = None
    for f in fields:
        if f.how != _REQUIRED:
            seen_default = f.name
        elif seen_default is not None:
            raise TypeError(
                f"{cls_name}: required field {f.name!r} follows {seen_default!r}, which has "
                f"a default (use kw_only=True, or reorder)"
            )


def _make_init(spec: _Spec) -> Callable[..., None]:
    """One class's ``__init__``: a closure over its field table (no code is compiled)."""
    init, refuse, post_init = spec.init, spec.refuse, spec.post_init
    positional = len(spec.positional)
    setters = [set_ for _, set_, _, _ in init]
    # After n positional arguments, the fields still to fill: sliced once, here.
    rest = [init[n:] for n in range(positional + 1)]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        fields = init
        if args:
            if len(args) > positional or (
                kwargs and not kwargs.keys().isdisjoint(spec.names[: len(args)])
            ):
                raise spec.refuse_positional(args, kwargs)
            for set_, value in zip(setters, args, strict=False):
                set_(self, value)
            fields = rest[len(args)]
        used = 0
        for name, set_, how, default in fields:
            if name in kwargs:
                set_(self, kwargs[name])
                used += 1
            elif how == _DEFAULT:
                set_(self, default)
            elif how == _FACTORY:
                set_(self, default())
            else:
                raise refuse(kwargs)
        if used != len(kwargs):
            raise refuse(kwargs)
        if post_init is not None:
            post_init(self)

    return __init__


def _make_eq_hash(spec: _Spec) -> tuple[Callable[..., Any], Callable[[Any], int]]:
    """``__eq__`` and ``__hash__`` over the fields in order, as a frozen dataclass has."""
    values = spec.values

    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __eq__, __hash__


def _frozen(action: str, name: str) -> AttributeError:
    from dataclasses import FrozenInstanceError  # only on this error path, never at import

    return FrozenInstanceError(f"cannot {action} field {name!r}")


def _rebuild(cls: type[Record], values: tuple[Any, ...]) -> Record:
    """Unpickle: the values go back into the slots, with no check and no __post_init__,
    as they came out of an instance that had passed both."""
    record: Any = object.__new__(cls.__record__.storage)
    for name, value in zip(cls.__record__.names, values, strict=True):
        setattr(record, name, value)
    record.__class__ = cls
    rebuilt: Record = record
    return rebuilt


class Record(metaclass=_RecordMeta):
    """Base of roncho's models: ``class Peer(Record, kw_only=True): id: str; ...``."""

    __slots__ = ()
    __record__: ClassVar[_Spec]

    def __repr__(self) -> str:
        spec = self.__record__
        inner = ", ".join(f"{n}={v!r}" for n, v in zip(spec.names, spec.values(self), strict=True))
        return f"{type(self).__qualname__}({inner})"

    def __setattr__(self, name: str, value: object) -> None:
        raise _frozen("assign to", name)

    def __delattr__(self, name: str) -> None:
        raise _frozen("delete", name)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.__record__.values(self)))


# Introspection that dataclasses, inspect and help() look for, answered on first use.
type.__setattr__(Record, "__dataclass_fields__", _FromSpec(_Spec.dataclass_fields, True))
type.__setattr__(Record, "__signature__", _FromSpec(_Spec.signature, False))


def storage(cls: type[Record]) -> type[Any]:
    """The plain class holding ``cls``'s slots, for a decoder's trusted fast path.

    ``object.__new__(storage(cls))`` is a mutable blank with ``cls``'s layout; set every
    field on it (unchecked: the caller has checked the values), then assign
    ``cls`` to its ``__class__``. A field left unset raises AttributeError when read.
    """
    return cls.__record__.storage


def replace(record: R, /, **changes: Any) -> R:
    """A copy of ``record`` with some fields changed, built (and checked) by ``__init__``,
    as ``dataclasses.replace`` does, without importing dataclasses (and inspect) for it."""
    spec = record.__record__
    values = dict(zip(spec.names, spec.values(record), strict=True))
    unknown = changes.keys() - values.keys()
    if unknown:
        raise TypeError(f"{spec.name} has no field {sorted(unknown)[0]!r}")
    return type(record)(**{**values, **changes})
