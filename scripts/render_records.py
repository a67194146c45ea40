"""Write out each record's ``__slots__``, ``__match_args__`` and ``__init__`` from its fields.

Usage::

    python scripts/render_records.py            # rewrite the parts between the markers
    python scripts/render_records.py --check    # exit 1 if one of them is stale

A record is a class on ``Record`` in roncho/_models/. It is declared by its fields: each
one an annotation in the class body, in order, with its default (if it has one) in a
comment after it, ``token_count: int | None  # default: None``; a field's docstring goes
under it; its ``from_json`` is written by hand. Between the record's markers this script
writes what follows from the fields, as committed text (a dataclass would make the same at
every import, which cost most of ``import roncho``):

- ``__slots__``: the fields, in order (Record compares, hashes, copies and shows by them);
- ``__init__``: one keyword-only parameter per field with its annotation and default, and
  one ``store`` per field. A default of ``{}`` is a new one each time: the parameter is
  ``X | None = None`` and None stores a new ``{}`` (a dataclass's ``default_factory``);
- with ``positional`` in the begin marker (the inputs, ``MessageCreate(peer_id, content)``),
  parameters taken positionally too, and ``__match_args__`` (the fields);
- a record that writes its own ``__init__``, outside the markers (one whose constructor
  checks its arguments), gets only ``__slots__``, and its ``__init__`` must take exactly
  its fields, in order.

A record without markers gets them, and its text, after its last field. Also the one speed
path of a decoder: between ``BEGIN GENERATED fast path: Message`` and its end marker, the
function ``_well_formed_message``, written from the reads of ``Message.from_json``
(``id=f.text("id")``, ...): the same reads, as one ``type(...) is`` test each, and the
fields stored through their slots' own setters (``_store_message_id``, ...). Everything
outside the markers is hand-written and left as it is. Standard library only (``ast``):
nothing is imported.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MODELS = REPO / "roncho" / "_models"
WIDTH = 100  # the project's line length (pyproject.toml, ruff)
SCRIPT = "(scripts/render_records.py)"
BEGIN = "# BEGIN GENERATED record"
END = "# END GENERATED record"
FAST_BEGIN = "# BEGIN GENERATED fast path: "
FAST_END = "# END GENERATED fast path"
DEFAULT = re.compile(r"#\s*default:\s*(?P<value>.+?)\s*$")
# A default made anew for each record (the parameter then defaults to None).
FRESH = "{}"


@dataclass
class Field:
    name: str
    annotation: str  # as written in the class body
    default: str | None  # the Python text after ``# default:``, or None when required


@dataclass
class Record:
    name: str
    node: ast.ClassDef
    fields: list[Field]
    own_init: ast.FunctionDef | None  # an __init__ written by hand, outside the markers
    begin: int | None  # index of the begin marker's line (0-based), None when it has none
    end: int | None
    positional: bool


# -- reading a module ----------------------------------------------------------------------
def records(source: str) -> list[Record]:
    """Every class on Record in ``source``, with its fields and where its markers are."""
    lines = source.split("\n")
    found = []
    body = ast.parse(source).body
    for index, node in enumerate(body):
        if not isinstance(node, ast.ClassDef):
            continue
        if not any(_base(b) == "Record" for b in node.bases):
            continue
        limit = body[index + 1].lineno - 1 if index + 1 < len(body) else len(lines)
        begin, end = _markers(lines, node, limit)
        fields = []
        own_init = None
        for statement in node.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                fields.append(_field(node.name, statement, lines))
            inside = begin is not None and end is not None and begin < statement.lineno - 1 < end
            if (
                isinstance(statement, ast.FunctionDef)
                and statement.name == "__init__"
                and not inside
            ):
                own_init = statement
        positional = begin is not None and "positional" in lines[begin].split(SCRIPT)[0]
        found.append(Record(node.name, node, fields, own_init, begin, end, positional))
    return found


def _base(node: ast.expr) -> str:
    return ast.unparse(node.value if isinstance(node, ast.Subscript) else node)


def _markers(lines: list[str], node: ast.ClassDef, limit: int) -> tuple[int | None, int | None]:
    """The record's begin and end marker lines: the begin indented in the class, before
    ``limit`` (the next statement of the module: a class's span ends at its last statement,
    and comments may follow it), the end the first after the begin."""
    begin = None
    for i in range(node.lineno - 1, limit):
        if lines[i].startswith("    " + BEGIN):
            begin = i
            break
    if begin is None:
        return None, None
    for j in range(begin + 1, len(lines)):
        if lines[j].strip().startswith(END):
            return begin, j
        if "BEGIN GENERATED" in lines[j]:
            break
    raise SystemExit(f"{node.name}: {BEGIN} has no {END} after it")


def _field(record: str, statement: ast.AnnAssign, lines: list[str]) -> Field:
    name = ast.unparse(statement.target)
    if statement.value is not None:
        raise SystemExit(
            f"{record}.{name}: a field's default goes in a comment (# default: ...); a value "
            "in the class body would clash with __slots__"
        )
    annotation = ast.unparse(statement.annotation)
    if annotation.startswith("ClassVar"):
        raise SystemExit(f"{record}.{name}: a record has no class variables")
    comment = DEFAULT.search(lines[(statement.end_lineno or statement.lineno) - 1])
    default = None if comment is None else comment["value"]
    if default is not None and default != FRESH:
        try:
            value = ast.literal_eval(default)
        except (ValueError, SyntaxError):
            raise SystemExit(f"{record}.{name}: default {default!r} is not a literal") from None
        if isinstance(value, list | dict | set):
            raise SystemExit(f"{record}.{name}: a default is shared; only {FRESH} is made anew")
    return Field(name, annotation, default)


# -- the text of one record ----------------------------------------------------------------
def block(record: Record, indent: str = "    ") -> list[str]:
    """The record's generated lines, its markers included."""
    if not record.fields:
        raise SystemExit(f"{record.name} declares no field")
    names = [f.name for f in record.fields]
    mode = ", positional" if record.positional else ""
    lines = [f"{indent}{BEGIN}{mode} {SCRIPT}", *_tuple(f"{indent}__slots__", names)]
    if record.positional:
        lines += _tuple(f"{indent}__match_args__", names)
    if record.own_init is None:
        lines += ["", *init(record, indent), ""]  # ruff's blank line after a method
    elif _own_parameters(record.own_init) != [parameter(f) for f in record.fields]:
        raise SystemExit(
            f"{record.name} writes its own __init__: it must take its fields, in order, "
            f"with their annotations and defaults: {[parameter(f) for f in record.fields]}"
        )
    return [*lines, f"{indent}{END}"]


def _tuple(target: str, names: list[str]) -> list[str]:
    """``target = ("a", "b")`` as ruff would format it: on one line if it fits."""
    quoted = [f'"{n}"' for n in names]
    one = f"{target} = ({', '.join(quoted)}{',' if len(quoted) == 1 else ''})"
    if len(one) <= WIDTH:
        return [one]
    pad = " " * (len(target) - len(target.lstrip()) + 4)
    return [f"{target} = (", *(f"{pad}{q}," for q in quoted), f"{target[: len(pad) - 4]})"]


def _own_parameters(init: ast.FunctionDef) -> list[str]:
    """A hand-written ``__init__``'s parameters after ``self``, as ``parameter`` writes them."""
    args = init.args
    written = []
    pad = len(args.args) - len(args.defaults)
    for i, arg in enumerate(args.args):
        written.append((arg, args.defaults[i - pad] if i >= pad else None))
    written += list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
    shown = []
    for arg, default in written[1:]:
        text = f"{arg.arg}: {ast.unparse(arg.annotation) if arg.annotation else ''}"
        shown.append(text if default is None else f"{text} = {ast.unparse(default)}")
    return shown


def parameter(f: Field) -> str:
    if f.default is None:
        return f"{f.name}: {f.annotation}"
    if f.default == FRESH:
        optional = f.annotation if "None" in f.annotation.split(" | ") else f"{f.annotation} | None"
        return f"{f.name}: {optional} = None"
    return f"{f.name}: {f.annotation} = {f.default}"


def init(record: Record, indent: str) -> list[str]:
    """``def __init__(...) -> None:`` as ruff would format it (on one line if it fits, else
    the parameters on a line of their own if they fit, else one a line), then the stores."""
    params = ["self", *([] if record.positional else ["*"]), *map(parameter, record.fields)]
    head = f"{indent}def __init__("
    tail = f"{indent}) -> None:"
    one = f"{head}{', '.join(params)}) -> None:"
    if len(one) <= WIDTH:
        lines = [one]
    elif len(inner := f"{indent}    {', '.join(params)}") <= WIDTH:
        lines = [head, inner, tail]
    else:
        lines = [head, *(f"{indent}    {p}," for p in params), tail]
    for f in record.fields:
        value = f"{{}} if {f.name} is None else {f.name}" if f.default == FRESH else f.name
        lines.append(f'{indent}    store(self, "{f.name}", {value})')
    return lines


# -- the speed path of a decoder ------------------------------------------------------------
# Each read of Fields, as one test of a well-formed value: JSON gives exact types, so
# ``type(v) is`` decides what Fields' isinstance() would (and a bool is never an int).
# The reader's name -> the type, and whether null (or absence) is allowed.
READS = {
    "text": ("str", False),
    "opt_text": ("str", True),
    "integer": ("int", False),
    "opt_integer": ("int", True),
    "opt_flag": ("bool", True),
}


def fast_path(record: Record) -> list[str]:
    """``_well_formed_<name>(data)``: the record when every field ``from_json`` reads is as
    it should be, else None (and the Fields reading, with its errors, decides)."""
    reads = _reads(record)
    function = "_well_formed_" + re.sub(r"(?<!^)([A-Z])", r"_\1", record.name).lower()
    variable = function.removeprefix("_well_formed_")
    setters = {name: f"_store_{variable}_{name}" for name, _, _ in reads}
    lines = [
        "# Each field's slot setter: a record refuses assignment, and its slot's own __set__",
        "# stores past that refusal at about half the cost of object.__setattr__ (``store``).",
        *(f'{setters[name]} = {record.name}.__dict__["{name}"].__set__' for name, _, _ in reads),
        "",
        "",
        f"def {function}(data: object) -> {record.name} | None:",
        f'    """The speed path of {record.name}.from_json, written from its reads by',
        "    scripts/render_records.py: a value whose every field is as it should be is read in",
        "    one pass; for anything else it gives None, and the Fields reading (with its errors)",
        '    decides."""',
        "    if type(data) is not dict:",
        "        return None",
        "    get = data.get",
    ]
    for name, reader, key in reads:
        local = _local(name)
        lines.append(f'    {local} = get("{key}")')
        if reader == "opt_obj":
            lines += [
                f"    if {local} is None:",
                f"        {local} = {{}}",
                f"    elif type({local}) is not dict:",
                "        return None",
            ]
            continue
        kind, optional = READS[reader]
        test = f"type({local}) is not {kind}"
        if optional:
            test = f"{local} is not None and {test}"
        lines += [f"    if {test}:", "        return None"]
    lines.append(f"    {variable} = object.__new__({record.name})")
    for name, _, _ in reads:
        lines.append(f"    {setters[name]}({variable}, {_local(name)})")
    lines.append(f"    return {variable}")
    return lines


def _local(name: str) -> str:
    return f"{name}_" if name in dir(builtins) else name


def _reads(record: Record) -> list[tuple[str, str, str]]:
    """(field, reader, key) for each keyword of ``from_json``'s ``return cls(...)``, each of
    which must be ``f.<reader>("<key>")`` with a reader of READS (or ``opt_obj``)."""
    decoder = next(
        (n for n in record.node.body if isinstance(n, ast.FunctionDef) and n.name == "from_json"),
        None,
    )
    if decoder is None:
        raise SystemExit(f"{record.name} has no from_json to write a speed path from")
    built = [
        n.value
        for n in ast.walk(decoder)
        if isinstance(n, ast.Return)
        and isinstance(n.value, ast.Call)
        and ast.unparse(n.value.func) == "cls"
    ]
    if len(built) != 1:
        raise SystemExit(f"{record.name}.from_json must end in one `return cls(...)`")
    reads = []
    for keyword in built[0].keywords:
        value = keyword.value
        if not (
            keyword.arg is not None
            and isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and (value.func.attr in READS or value.func.attr == "opt_obj")
            and len(value.args) == 1
            and isinstance(value.args[0], ast.Constant)
            and isinstance(value.args[0].value, str)
        ):
            raise SystemExit(
                f"{record.name}.from_json: {ast.unparse(keyword)} is not one read the speed "
                f"path knows ({', '.join([*READS, 'opt_obj'])})"
            )
        reads.append((keyword.arg, value.func.attr, value.args[0].value))
    if [name for name, _, _ in reads] != [f.name for f in record.fields]:
        raise SystemExit(f"{record.name}.from_json must read every field, in order")
    return reads


# -- a whole module --------------------------------------------------------------------------
def render(source: str) -> str:
    """``source`` with every record's part (and any speed path) written anew."""
    lines = source.split("\n")
    found = records(source)
    by_name = {r.name: r for r in found}
    for record in sorted(found, key=lambda r: r.node.lineno, reverse=True):
        if record.begin is not None and record.end is not None:
            lines[record.begin : record.end + 1] = block(record)
        else:
            last = _after_fields(record)
            lines[last:last] = ["", *block(record)]
    text = "\n".join(lines)
    return _fast_paths(text, by_name)


def _after_fields(record: Record) -> int:
    """The line index after the record's last field (and that field's docstring)."""
    body = record.node.body
    last = max((i for i, s in enumerate(body) if isinstance(s, ast.AnnAssign)), default=None)
    if last is None:
        raise SystemExit(f"{record.name} declares no field")
    if last + 1 < len(body) and _is_doc(body[last + 1]):
        last += 1
    return body[last].end_lineno or body[last].lineno


def _is_doc(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _fast_paths(text: str, by_name: dict[str, Record]) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith(FAST_BEGIN):
            out.append(line)
            i += 1
            continue
        name = line.removeprefix(FAST_BEGIN).split(" ")[0]
        if name not in by_name:
            raise SystemExit(f"{FAST_BEGIN}{name}: no record {name} in this module")
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith(FAST_END)), None)
        if end is None:
            raise SystemExit(f"{FAST_BEGIN}{name} has no {FAST_END} after it")
        out += [f"{FAST_BEGIN}{name} {SCRIPT}", *fast_path(by_name[name]), "", "", FAST_END]
        i = end + 1
    return "\n".join(out)


def modules() -> list[Path]:
    return sorted(MODELS.glob("*.py"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether it is stale")
    options = parser.parse_args(argv)
    stale = 0
    for path in modules():
        before = path.read_text(encoding="utf-8")
        after = render(before)
        if after == before:
            continue
        if options.check:
            print(f"{path.relative_to(REPO)} is stale: run scripts/render_records.py",
                  file=sys.stderr)  # fmt: skip
            stale = 1
        else:
            path.write_text(after, encoding="utf-8")
    return stale


if __name__ == "__main__":
    raise SystemExit(main())
