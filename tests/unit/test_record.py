"""Record (roncho/_record.py): frozen-dataclass behaviour without code compiled at import.

Each behaviour is checked against a real ``@dataclass(frozen=True, slots=True)`` twin
where one exists, so "behaves as today" is a comparison, not a memory of it.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
import pickle
import subprocess
import sys
import textwrap
from typing import Any, ClassVar, Generic, TypeVar

import pytest

import roncho
from roncho._record import Record, field, replace, storage

SUBPROCESS_TIMEOUT = 30  # seconds; a cold interpreter on a shared machine

T = TypeVar("T")


class Point(Record):
    """Positional and keyword construction."""

    x: int
    y: int = 0
    tags: dict[str, int] = field(default_factory=dict)
    LIMIT: ClassVar[int] = 10


class Named(Record, kw_only=True):
    id: str
    note: str | None = None


class Checked(Record, kw_only=True):
    value: int

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError("value must not be negative")


class Box(Record, Generic[T], kw_only=True):
    items: tuple[T, ...]


class Labelled(Point):
    label: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class PointTwin:
    x: int
    y: int = 0
    tags: dict[str, int] = dataclasses.field(default_factory=dict)


# -- construction ---------------------------------------------------------------------------
def test_record_construction_positional_keyword_and_defaults() -> None:
    assert (Point(1).x, Point(1).y, Point(1).tags) == (1, 0, {})
    assert Point(1, 2) == Point(x=1, y=2) == Point(1, y=2)
    assert Named(id="a").note is None
    assert Named(id="a", note="n").note == "n"


def test_record_default_factory_gives_each_instance_its_own_value() -> None:
    a, b = Point(1), Point(1)
    assert a.tags == {} and a.tags is not b.tags


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Point(), r"missing 1 required argument: 'x'"),
        (lambda: Named(), r"missing 1 required keyword-only argument: 'id'"),
        (lambda: Named("a"), r"takes 0 positional arguments but 1 were given"),
        (lambda: Point(1, 2, {}, 4), r"takes 3 positional arguments but 4 were given"),
        (lambda: Point(1, x=2), r"got multiple values for argument 'x'"),
        (lambda: Named(id="a", colour="red"), r"got an unexpected keyword argument 'colour'"),
    ],
)
def test_record_bad_arguments_raise_type_error_like_dataclass(make: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        make()


def test_record_post_init_runs_and_can_refuse() -> None:
    assert Checked(value=1).value == 1
    with pytest.raises(ValueError, match="negative"):
        Checked(value=-1)


def test_record_class_var_is_not_a_field() -> None:
    assert [f.name for f in dataclasses.fields(Point)] == ["x", "y", "tags"]
    assert Point.LIMIT == 10


def test_record_subclass_extends_the_fields() -> None:
    item = Labelled(1, 2, {}, "l")
    assert (item.x, item.label) == (1, "l")
    assert repr(item) == "Labelled(x=1, y=2, tags={}, label='l')"
    assert item != Point(1, 2)


def test_record_definition_mistakes_are_refused() -> None:
    with pytest.raises(ValueError, match="mutable default"):

        class Shared(Record):
            tags: dict[str, int] = {}  # noqa: RUF012 - the mistake under test

    with pytest.raises(TypeError, match="follows 'a'"):

        class Order(Record):
            a: int = 0
            b: int

    with pytest.raises(TypeError, match="always frozen"):

        class Thawed(Record, frozen=False):
            a: int


# -- the behaviour of a frozen dataclass ------------------------------------------------------
SAMPLES = [(1,), (1, 2), (1, 2, {"k": 1}), (-5, 7, {"a": [1, {"b": None}]})]


@pytest.mark.parametrize("args", SAMPLES)
def test_record_repr_and_eq_match_a_frozen_dataclass(args: tuple[Any, ...]) -> None:
    record, twin = Point(*args), PointTwin(*args)
    assert repr(record) == repr(twin).replace("PointTwin", "Point")
    assert record == Point(*args)
    assert (record != Point(99)) == (twin != PointTwin(99))
    assert record != twin  # another class is never equal, as with dataclasses


def test_record_hash_follows_the_fields_and_unhashable_fields_make_it_unhashable() -> None:
    assert hash(Named(id="a")) == hash(Named(id="a"))
    assert len({Named(id="a"), Named(id="a"), Named(id="b")}) == 2
    with pytest.raises(TypeError, match="unhashable"):
        hash(Point(1))  # tags is a dict, as with PointTwin
    with pytest.raises(TypeError, match="unhashable"):
        hash(PointTwin(1))


def test_record_is_frozen_and_has_no_instance_dict() -> None:
    record = Named(id="a")
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'id'"):
        record.id = "b"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'other'"):
        record.other = 1  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'id'"):
        del record.id  # type: ignore[misc]
    assert not hasattr(record, "__dict__")
    assert record.id == "a"


def test_record_works_with_the_dataclasses_functions() -> None:
    record = Point(1, 2, {"k": 1})
    assert dataclasses.is_dataclass(record) and dataclasses.is_dataclass(Point)
    fields = dataclasses.fields(record)
    assert [(f.name, f.type) for f in fields] == [
        ("x", "int"),
        ("y", "int"),
        ("tags", "dict[str, int]"),
    ]
    assert fields[1].default == 0 and fields[2].default_factory is dict
    assert dataclasses.replace(record, y=5) == Point(1, 5, {"k": 1})
    assert dataclasses.asdict(record) == {"x": 1, "y": 2, "tags": {"k": 1}}
    assert dataclasses.astuple(record) == (1, 2, {"k": 1})
    assert [f.name for f in dataclasses.fields(Labelled)] == ["x", "y", "tags", "label"]


def test_record_replace_without_dataclasses_matches_dataclasses_replace() -> None:
    record = Labelled(1, 2, {"k": 1}, "l")
    assert replace(record, y=5, label="m") == dataclasses.replace(record, y=5, label="m")
    assert type(replace(record)) is Labelled and replace(record) == record
    with pytest.raises(TypeError, match="no field 'z'"):
        replace(record, z=1)
    with pytest.raises(ValueError, match="negative"):
        replace(Checked(value=1), value=-1)  # checked by __init__ and __post_init__ again


def test_record_pickles_and_copies() -> None:
    record = Labelled(1, 2, {"k": [1]}, "l")
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        clone = pickle.loads(pickle.dumps(record, protocol))
        assert clone == record and type(clone) is Labelled
    deep = copy.deepcopy(record)
    assert deep == record and deep.tags is not record.tags
    assert copy.copy(record).tags is record.tags


def test_record_signature_and_match_args() -> None:
    assert str(inspect.signature(Point)) == str(inspect.signature(PointTwin))
    assert str(inspect.signature(Named)) == "(*, id: 'str', note: 'str | None' = None) -> None"
    assert Point.__match_args__ == ("x", "y", "tags")
    assert Named.__match_args__ == ()
    match Point(3, 4):
        case Point(x, y):
            assert (x, y) == (3, 4)
        case _:
            pytest.fail("a Record did not match its own positional pattern")


def test_record_generic_alias_builds_an_instance() -> None:
    assert Box[int](items=(1,)) == Box(items=(1,))
    assert repr(Box[str](items=("a",))) == "Box(items=('a',))"


# -- the trusted fast path ----------------------------------------------------------------------
def test_record_storage_blank_becomes_an_equal_frozen_record() -> None:
    blank: Any = object.__new__(storage(Named))
    blank.id = "a"
    blank.note = None
    blank.__class__ = Named
    assert blank == Named(id="a") and type(blank) is Named
    with pytest.raises(dataclasses.FrozenInstanceError):
        blank.id = "b"


def test_record_message_fast_path_equals_the_checked_path() -> None:
    body = {
        "id": "m",
        "content": "c",
        "peer_id": "p",
        "session_id": "s",
        "created_at": "2026-11-30T12:00:00Z",
        "metadata": None,
        "workspace_id": "w",
        "token_count": 1,
    }
    fast = roncho.Message.from_json(body, "op")
    checked = roncho.Message(**{**body, "metadata": {}})
    assert fast == checked and repr(fast) == repr(checked) and type(fast) is roncho.Message


# -- what the models cost at import -------------------------------------------------------------
_NO_CODE_PROBE = textwrap.dedent(
    """
    import importlib.util, json, sys, types
    # The package without its __init__ (which would import the models first), then the
    # modules the models import, then the models alone under the audit hook.
    package = types.ModuleType("roncho")
    package.__path__ = importlib.util.find_spec("roncho").submodule_search_locations
    sys.modules["roncho"] = package
    import roncho._checks, roncho._errors, roncho._record
    events = []
    def hook(event, args):
        # A module's own body is exec'd by the import system; anything else is code made.
        if event == "compile" or (event == "exec" and args[0].co_name != "<module>"):
            events.append([event, repr(args[0])[:200]])
    sys.addaudithook(hook)
    before = set(sys.modules)
    import roncho._models
    print(json.dumps({"events": events, "loaded": sorted(set(sys.modules) - before)}))
    """
)


def test_record_defining_the_models_compiles_no_code_and_loads_no_dataclasses() -> None:
    """The point of Record: the model classes are created without exec or compile, and
    without loading dataclasses (nor inspect, which it pulls in)."""
    out = subprocess.run(
        [sys.executable, "-I", "-c", _NO_CODE_PROBE],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
        check=True,
    )
    seen = json.loads(out.stdout)
    assert seen["events"] == []
    assert "dataclasses" not in seen["loaded"] and "inspect" not in seen["loaded"]


# -- what a type checker sees ---------------------------------------------------------------------
_TYPED_USE = textwrap.dedent(
    """
    from roncho import Message, MessageCreate, Page, Workspace

    workspace = Workspace(id="w")
    reveal_type(workspace.metadata)
    reveal_type(Page(items=(workspace,), total=1, page=1, size=1, pages=1))
    MessageCreate("peer", "hello", metadata={"k": 1})
    workspace.id = "x"
    Workspace("w")
    Message(id="m")
    MessageCreate(peer_id=1, content="c")
    """
)


def test_record_models_look_like_frozen_dataclasses_to_mypy(tmp_path: Any) -> None:
    """mypy reads Records through dataclass_transform: typed fields, the constructor's
    parameters (keyword-only where declared), and assignment refused."""
    pytest.importorskip("mypy")
    snippet = tmp_path / "use.py"
    snippet.write_text(_TYPED_USE)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / "cache"),
            str(snippet),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    text = out.stdout.replace("builtins.", "")  # older mypy spells dict as builtins.dict
    lines = [line.split(": ", 1)[1] for line in text.splitlines() if ": " in line]
    assert lines[:2] == [
        'note: Revealed type is "dict[str, Any]"',
        'note: Revealed type is "roncho._models.Page[roncho._models.Workspace]"',
    ]
    errors = "\n".join(lines[2:])
    assert 'Property "id" defined in "Workspace" is read-only' in errors
    assert 'Too many positional arguments for "Workspace"' in errors
    assert 'Missing named argument "content" for "Message"' in errors
    assert 'Argument "peer_id" to "MessageCreate" has incompatible type "int"' in errors
    assert "use.py:7" not in out.stdout  # positional MessageCreate is fine
