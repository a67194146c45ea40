"""scripts/render_records.py: a record is its fields; its ``__slots__``, ``__match_args__``
and ``__init__`` are written from them, and ``Message``'s speed path from its reads.

Why: adding a field to a record once took six to eight edits in one file (slots, the
annotation, the parameter, the store, the decoder, the speed path), and a forgotten one
failed only at run time. The generated text is committed and ``--check`` fails when it is
stale.
"""

from __future__ import annotations

import copy
import importlib.util
import inspect
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import roncho
from roncho._errors import DecodeError
from roncho._record import Record

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "render_records.py"


def _script() -> Any:
    spec = importlib.util.spec_from_file_location("render_records", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


HEAD = textwrap.dedent(
    """\
    from __future__ import annotations

    from roncho._decode import JSON, Fields
    from roncho._record import Record, store

    """
)


def _load(source: str, name: str) -> ModuleType:
    """Run a rendered module's text, as roncho would import it."""
    module = ModuleType(name)
    exec(compile(source, name, "exec"), module.__dict__)
    return module


def test_render_records_is_fresh() -> None:
    """If this fails, run: python scripts/render_records.py (and commit roncho/_models/)."""
    assert _script().main(["--check"]) == 0


def test_a_record_with_only_its_fields_gets_slots_and_a_keyword_only_init() -> None:
    render = _script()
    source = HEAD + textwrap.dedent(
        '''\
        class Note(Record):
            """A note."""

            id: str
            tags: JSON  # default: {}
            size: int | None  # default: None
            """How long it is."""
            done: bool  # default: False

            def shout(self) -> str:
                return self.id.upper()
        '''
    )
    rendered = render.render(source)
    assert render.render(rendered) == rendered  # stable: writing twice changes nothing
    assert rendered.startswith(source.split("    def shout")[0].rstrip("\n"))
    assert rendered.count("# BEGIN GENERATED record (scripts/render_records.py)") == 1
    assert rendered.count("# END GENERATED record") == 1
    assert "    def shout(self) -> str:\n        return self.id.upper()" in rendered
    Note = _load(rendered, "notes").Note
    assert Note.__slots__ == ("id", "tags", "size", "done")
    assert Note.__match_args__ == ()
    assert str(inspect.signature(Note)) == (
        "(*, id: 'str', tags: 'JSON | None' = None, size: 'int | None' = None, "
        "done: 'bool' = False) -> 'None'"
    )
    one, two = Note(id="a"), Note(id="a")
    assert one == two and one.tags == {} and one.tags is not two.tags  # a new {} each time
    assert repr(Note(id="a", tags={"k": 1}, size=3, done=True)) == (
        "Note(id='a', tags={'k': 1}, size=3, done=True)"
    )
    assert copy.deepcopy(one) == one and one.shout() == "A"  # by __reduce__, as pickle
    with pytest.raises(TypeError):
        Note("a")  # keyword-only
    with pytest.raises(AttributeError, match="cannot assign"):
        one.id = "b"
    assert not hasattr(one, "__dict__")


def test_a_positional_record_takes_its_fields_in_order_and_matches_them() -> None:
    render = _script()
    source = HEAD + textwrap.dedent(
        '''\
        class Pair(Record):
            """Two things."""

            left: str
            right: str | None  # default: None

            # BEGIN GENERATED record, positional (scripts/render_records.py)
            # END GENERATED record
        '''
    )
    rendered = render.render(source)
    assert "# BEGIN GENERATED record, positional (scripts/render_records.py)" in rendered
    Pair = _load(rendered, "pairs").Pair
    assert Pair.__match_args__ == Pair.__slots__ == ("left", "right")
    assert str(inspect.signature(Pair)) == "(left: 'str', right: 'str | None' = None) -> 'None'"
    match Pair("a", "b"):
        case Pair(left, right):
            assert (left, right) == ("a", "b")
        case _:
            pytest.fail("a positional record did not match its own pattern")


def test_a_record_that_writes_its_own_init_gets_only_slots_and_must_take_its_fields() -> None:
    render = _script()
    own = textwrap.dedent(
        '''\
        class Flags(Record):
            """Checked on construction."""

            on: bool | None  # default: None

            def __init__(self, *, on: bool | None = None) -> None:
                if on is not None and not isinstance(on, bool):
                    raise ValueError("on")
                store(self, "on", on)
        '''
    )
    rendered = render.render(HEAD + own)
    assert rendered.count("def __init__") == 1
    Flags = _load(rendered, "flags").Flags
    assert Flags.__slots__ == ("on",) and Flags(on=True).on is True
    with pytest.raises(ValueError, match="on"):
        Flags(on=1)
    drifted = own.replace("on: bool | None  # default: None", "on: bool | None")
    with pytest.raises(SystemExit, match="writes its own __init__"):
        render.render(HEAD + drifted)
    added = own.replace("# default: None\n", "# default: None\n    off: bool  # default: True\n")
    with pytest.raises(SystemExit, match="writes its own __init__"):
        render.render(HEAD + added)


@pytest.mark.parametrize(
    ("field", "refused"),
    [
        ("size: int = 0", "goes in a comment"),
        ("tags: list[str]  # default: []", "only {} is made anew"),
        ("when: str  # default: now()", "not a literal"),
    ],
)
def test_a_field_the_generator_cannot_write_is_refused(field: str, refused: str) -> None:
    source = HEAD + f'class Bad(Record):\n    """Bad."""\n\n    id: str\n    {field}\n'
    with pytest.raises(SystemExit, match=refused):
        _script().render(source)


SPEED = HEAD + textwrap.dedent(
    '''\
    class Item(Record):
        """An item."""

        id: str
        count: int
        note: str | None  # default: None
        extra: JSON  # default: {}
        flag: bool | None  # default: None

        @classmethod
        def from_json(cls, data: object, op: str) -> Item:
            item = _well_formed_item(data)
            if item is not None:
                return item
            f = Fields(data, op, "item")
            return cls(
                id=f.text("id"),
                count=f.integer("count"),
                note=f.opt_text("note"),
                extra=f.opt_obj("extra"),
                flag=f.opt_flag("flag"),
            )


    # BEGIN GENERATED fast path: Item
    # END GENERATED fast path
    '''
)


def test_the_speed_path_is_written_from_the_decoders_reads_and_agrees_with_them() -> None:
    rendered = _script().render(SPEED)
    assert "# BEGIN GENERATED fast path: Item (scripts/render_records.py)" in rendered
    assert "def _well_formed_item(data: object) -> Item | None:" in rendered
    module = _load(rendered, "items")
    fast, Item = module._well_formed_item, module.Item
    good = {"id": "a", "count": 2, "note": None, "extra": {"k": 1}, "flag": True, "more": 1}
    assert fast(good) == Item(id="a", count=2, extra={"k": 1}, flag=True)
    assert fast({"id": "a", "count": 0}) == Item(id="a", count=0)
    for key, wrong in [("id", 1), ("count", True), ("count", None), ("note", 1),
                       ("extra", []), ("flag", 0)]:  # fmt: skip
        bad = {**good, key: wrong}
        assert fast(bad) is None, (key, wrong)
        with pytest.raises(DecodeError, match=f"item.{key} should be"):
            Item.from_json(bad, "op")
    assert fast([good]) is None


def test_the_speed_path_refuses_a_read_it_does_not_know() -> None:
    source = SPEED.replace('note=f.opt_text("note")', 'note=f.opt_text("note") or "x"')
    with pytest.raises(SystemExit, match="not one read the speed path knows"):
        _script().render(source)
    missing = SPEED.replace('            flag=f.opt_flag("flag"),\n', "")
    with pytest.raises(SystemExit, match="must read every field"):
        _script().render(missing)


def test_every_public_record_has_its_generated_part() -> None:
    """Each model of roncho/_models/ is written from its fields (none by hand): its file
    holds its markers inside the class."""
    script = _script()
    found = {r.name: r for path in script.modules() for r in script.records(path.read_text())}
    public = {
        name
        for name in roncho.__all__
        if isinstance(getattr(roncho, name), type)
        and issubclass(getattr(roncho, name), Record)
        and getattr(roncho, name).__module__.startswith("roncho._models")
    }
    assert public <= set(found)
    for name in public:
        record = found[name]
        assert record.begin is not None, name
        assert [f.name for f in record.fields] == list(getattr(roncho, name).__slots__), name


def test_check_says_stale_and_writing_fixes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script()
    module = tmp_path / "things.py"
    module.write_text(
        HEAD + 'class Thing(Record):\n    """A thing."""\n\n    id: str\n', encoding="utf-8"
    )
    monkeypatch.setattr(script, "MODELS", tmp_path)
    monkeypatch.setattr(script, "REPO", tmp_path)
    assert script.main(["--check"]) == 1
    assert "things.py is stale: run scripts/render_records.py" in capsys.readouterr().err
    assert script.main([]) == 0
    assert script.main(["--check"]) == 0
    assert _load(module.read_text(encoding="utf-8"), "things").Thing(id="x").id == "x"


def test_core_size_counts_the_generated_parts_as_generated() -> None:
    """scripts/core_size.py counts the lines between BEGIN and END GENERATED markers apart
    from the hand-written ones: every record's part and the speed path are counted there,
    and nothing else of the models is."""
    spec = importlib.util.spec_from_file_location("core_size", SCRIPT.parent / "core_size.py")
    assert spec is not None and spec.loader is not None
    core_size = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(core_size)
    script = _script()
    for path in script.modules():
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        parts = sum(r.end - r.begin + 1 for r in script.records(text) if r.begin is not None)
        fast = [i for i, line in enumerate(lines) if line.startswith(script.FAST_BEGIN)]
        for start in fast:
            parts += lines.index(script.FAST_END, start) - start + 1
        assert core_size.generated(path) == parts, path.name
    assert core_size.generated(script.MODELS / "messages.py") > 0
