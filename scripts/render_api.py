"""Render the methods and the models of docs/api.md from the code, so they cannot drift.

Usage::

    python scripts/render_api.py            # rewrite the parts between the markers
    python scripts/render_api.py --check    # exit 1 if docs/api.md is stale

The part between ``<!-- BEGIN GENERATED: methods -->`` and its end marker is the table of
``Client``'s methods: first every operation of the catalogue (roncho/_operations/, the
same source scripts/render_clients.py writes the methods from: a public function whose
first parameter is ``paths``, in a module of ``RESOURCES``), in its order, then the
client's other public methods and its properties. Each row gives the method's signature
(read from ``Client``, by introspection) and the first paragraph of its docstring, and a
note says what ``AsyncClient`` has of them (read from it too).

The part between ``<!-- BEGIN GENERATED: models -->`` and ``<!-- END GENERATED: models -->``
is rebuilt from every model ``roncho`` exports (the records of roncho/_models/, in the
order of that package's ``__all__``, then the deriver wait's of roncho/_derivation.py, then
``on_call``'s CallReport of roncho/_reports.py): its
docstring, how it is constructed, and each field's name (its ``__slots__``), type (its
annotation) and default (its ``__init__``), read by introspection; a field's own docstring
(the string under it in the class body) and the read-only properties are read from the
source with ``ast``. Everything outside the markers is left as it is. Standard
library only; the roncho imported is this checkout's.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's roncho, not an installed one
sys.path.insert(0, str(REPO / "scripts"))  # _generated, also when a test loads this by path

from _generated import splice  # noqa: E402

import roncho  # noqa: E402
from roncho import _derivation, _models, _operations, _reports  # noqa: E402
from roncho._record import Record  # noqa: E402
from roncho.aio import AsyncClient  # noqa: E402

BEGIN = "<!-- BEGIN GENERATED: models -->"
END = "<!-- END GENERATED: models -->"
METHODS_BEGIN = "<!-- BEGIN GENERATED: methods -->"
METHODS_END = "<!-- END GENERATED: methods -->"
DEFAULT_DOC = REPO / "docs" / "api.md"

# Where the public records are written, in the order the document shows them.
SOURCES = (_models, _derivation, _reports)
# Type aliases of _models spelled out, so a reader need not look them up.
ALIASES = {"JSON": "dict[str, Any]"}


def names_of(module: ModuleType) -> list[str]:
    """A module's names in the document's order: a package's ``__all__`` (_models, whose
    records are written one module per resource, lists them there: resources, then inputs,
    then context and scopes), a module's in the order it defines them."""
    return list(module.__all__ if hasattr(module, "__path__") else vars(module))


def source_files(module: ModuleType) -> list[Path]:
    """A module's file, or every module of a package (_models: its records by resource)."""
    path = Path(inspect.getfile(module))
    return sorted(path.parent.glob("*.py")) if path.name == "__init__.py" else [path]


def models() -> list[type[Any]]:
    """The public records, in the order of _models' ``__all__``, then the deriver
    wait's (_derivation), then CallReport (_reports)."""
    public = set(roncho.__all__)
    found = [
        value
        for module in SOURCES
        for name in names_of(module)
        if name in public
        and isinstance(value := getattr(module, name), type)
        and issubclass(value, Record)
    ]
    return list(dict.fromkeys(found))  # once each: _derivation imports QueueStatus


def field_docs(cls: type) -> dict[str, str]:
    """Each field's docstring: the string literal right under its annotation, in the
    class that declares the field (a model's own, or a base's in _models)."""
    classes = {
        node.name: node
        for module in SOURCES
        for path in source_files(module)
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(node, ast.ClassDef)
    }
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):  # a subclass's own note wins
        node = classes.get(klass.__name__)
        if node is not None:
            for statement, following in zip(node.body, node.body[1:], strict=False):
                if (
                    isinstance(statement, ast.AnnAssign)
                    and isinstance(statement.target, ast.Name)
                    and isinstance(following, ast.Expr)
                    and isinstance(following.value, ast.Constant)
                    and isinstance(following.value.value, str)
                ):
                    docs[statement.target.id] = " ".join(following.value.value.split())
    return docs


def spell(annotation: str) -> str:
    for alias, meaning in ALIASES.items():
        annotation = re.sub(rf"\b{alias}\b", meaning, annotation)
    return annotation


class Field(NamedTuple):
    name: str
    type: str  # the annotation, as written
    parameter: inspect.Parameter  # of the record's __init__


def fields_of(cls: type[Record]) -> list[Field]:
    parameters = inspect.signature(cls.__init__).parameters
    notes: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        notes.update(getattr(klass, "__annotations__", {}))
    return [Field(name, notes[name], parameters[name]) for name in cls.__slots__]


def default_of(f: Field) -> str:
    default = f.parameter.default
    if default is inspect.Parameter.empty:
        return "required"
    if default is None and "None" not in f.type:
        # None given (or left out) for a field that is never None: a new empty one each time.
        made = {} if f.type in ("JSON", "dict[str, Any]") or f.type.startswith("Mapping") else None
        return f"`{made!r}` (a new one each time)"
    return f"`{default!r}`"


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_model(cls: type[Any]) -> list[str]:
    fields = fields_of(cls)
    generic = getattr(cls, "__parameters__", ())
    title = cls.__name__ + (f"[{', '.join(p.__name__ for p in generic)}]" if generic else "")
    lines = [f"### `{title}`", ""]
    lines += [inspect.cleandoc(cls.__doc__ or ""), ""]
    if all(f.parameter.kind is inspect.Parameter.KEYWORD_ONLY for f in fields):
        lines += ["Built with keyword arguments only.", ""]
    else:
        lines += [
            "Built with positional or keyword arguments, in this order: "
            + ", ".join(f"`{f.name}`" for f in fields)
            + ".",
            "",
        ]
    docs = field_docs(cls)
    lines += ["| field | type | default | note |", "|---|---|---|---|"]
    for f in fields:
        lines.append(
            f"| `{f.name}` | `{cell(spell(str(f.type)))}` | {cell(default_of(f))} "
            f"| {cell(docs.get(f.name, ''))} |"
        )
    properties = [
        (name, value)
        for name, value in vars(cls).items()
        if isinstance(value, property) and not name.startswith("_")
    ]
    if properties:
        lines.append("")
        for name, value in properties:
            summary = inspect.cleandoc(value.__doc__ or "").split("\n")[0]
            lines.append(f"Property `{name}`: {summary}".rstrip(": "))
    lines.append("")
    return lines


def render() -> str:
    lines = [
        BEGIN,
        "<!-- Generated by scripts/render_api.py from roncho/_models/, roncho/_derivation.py "
        "and roncho/_reports.py; edit the code (its docstrings), then run the script, not "
        "this text. -->",
        "",
        "Every model is a plain frozen record (assigning a field raises `AttributeError`): it "
        "compares and hashes by its fields (`__slots__`, in order), `replace(**changes)` "
        "makes a checked copy, and `copy` and `pickle` work. Decoded models ignore fields "
        "the server adds. "
        "Types are as annotated; `dict[str, Any]` is a JSON object.",
        "",
    ]
    for cls in models():
        lines += render_model(cls)
    lines.append(END)
    return "\n".join(lines)


# -- the methods -----------------------------------------------------------------------------
def operations() -> list[str]:
    """The catalogue's operations, in its order: each public function of a module of
    ``RESOURCES`` (defined there) whose first parameter is ``paths``, as the module defines
    them (a streamed twin, ``chat_stream = streamed(chat, ...)``, where it is assigned)."""
    found = []
    for module in _operations.RESOURCES:
        for name, value in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(value):
                continue
            if value.__module__ != module.__name__:
                continue  # a helper imported from _shared
            first = next(iter(inspect.signature(value).parameters), None)
            if first == "paths":
                found.append(name)
    return found


def others() -> tuple[list[str], list[str]]:
    """Client's public methods that are not operations, and its properties, in the order
    its classes define them (Client's own first, then its bases')."""
    ops = set(operations())
    methods: list[str] = []
    properties: list[str] = []
    for klass in roncho.Client.__mro__[:-1]:
        for name, value in vars(klass).items():
            if name.startswith("_") or name in ops or name in methods + properties:
                continue
            if isinstance(value, property):
                properties.append(name)
            elif inspect.isfunction(value):
                methods.append(name)
    return methods, properties


def summary(function: Any) -> str:
    """The docstring's first paragraph (its summary, however many lines it is wrapped on),
    on one line, with reST's double backticks as Markdown's single ones."""
    doc = inspect.getdoc(function) or ""
    return " ".join(doc.split("\n\n")[0].split()).replace("``", "`")


def shown_default(value: object) -> str:
    """A default as a reader would write it; a sentinel (no literal) as ``...``."""
    text = repr(value)
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return "..."
    return text


def shown_signature(function: Any, *, deadline: bool) -> tuple[str, str]:
    """``(parameters)`` without ``self`` (and without ``deadline`` unless asked for), and
    what it returns; a method typed by its own class (``self: C``) returns a Client."""
    signature = inspect.signature(function)
    parameters = list(signature.parameters.values())
    own = parameters[0].annotation
    shown = []
    star = False
    for p in parameters[1:]:
        if p.name == "deadline" and not deadline:
            continue
        if p.kind is inspect.Parameter.KEYWORD_ONLY and not star:
            shown.append("*")
            star = True
        text = p.name
        if p.annotation is not inspect.Parameter.empty:
            text += f": {p.annotation}"
        if p.default is not inspect.Parameter.empty:
            text += f" = {shown_default(p.default)}"
        shown.append(text)
    returns = str(signature.return_annotation)
    if own is not inspect.Parameter.empty and returns == own:
        returns = "Client"
    return f"({', '.join(shown)})", returns


def method_row(name: str, *, deadline: bool) -> str:
    function = getattr(roncho.Client, name)
    parameters, returns = shown_signature(function, deadline=deadline)
    return f"| `{cell(name + parameters)}` | `{cell(returns)}` | {cell(summary(function))} |"


def async_note(names: list[str]) -> str:
    """What AsyncClient has of Client's methods, read from it: each as a coroutine unless
    it is an async iterator or a plain method; and what it has beyond them."""
    missing = [n for n in names if not hasattr(AsyncClient, n)]
    if missing:
        raise SystemExit(f"AsyncClient lacks {missing}: run scripts/render_clients.py")
    iterators = [n for n in names if inspect.isasyncgenfunction(getattr(AsyncClient, n))]
    plain = [
        n
        for n in names
        if not inspect.iscoroutinefunction(getattr(AsyncClient, n)) and n not in iterators
    ]
    public = {n for n in dir(roncho.Client) if not n.startswith("_")}
    extra = sorted(n for n in dir(AsyncClient) if not n.startswith("_") and n not in public)
    returns: dict[str, list[str]] = {}  # what the async method gives instead, for which
    for name in names:
        if name not in iterators:
            given = str(inspect.signature(getattr(AsyncClient, name)).return_annotation)
            if given != str(inspect.signature(getattr(roncho.Client, name)).return_annotation):
                returns.setdefault(given, []).append(name)
    text = (
        "`roncho.aio.AsyncClient` has each of these methods, with the same parameters, "
        "as a coroutine (`async def`, awaited)"
    )
    if iterators:
        each = "an async iterator" if len(iterators) == 1 else "each an async iterator"
        text += ", except " + ", ".join(f"`{n}`" for n in iterators) + f" ({each})"
    for given, which in returns.items():
        text += "; " + ", ".join(f"`{n}`" for n in which) + f" give an `{given}`"
    if plain:
        text += "; " + ", ".join(f"`{n}()`" for n in plain) + " are plain methods there too"
    if extra:
        text += "; it also has " + ", ".join(f"`{n}()`" for n in extra)
    return text + "."


def render_methods() -> str:
    ops = operations()
    missing = [name for name in ops if not hasattr(roncho.Client, name)]
    if missing:
        raise SystemExit(f"Client lacks {missing}: run scripts/render_clients.py")
    methods, properties = others()
    lines = [
        METHODS_BEGIN,
        "<!-- Generated by scripts/render_api.py from roncho/_operations/ (the order) and "
        "roncho.Client (the signatures and docstrings); edit the code, then run the script, "
        "not this text. -->",
        "",
        f"The {len(ops)} server calls, in the catalogue's order (roncho/_operations/); each "
        "also takes `deadline: float | None = None`, keyword-only, last. The summary is the "
        "first paragraph of the method's docstring (`help()` shows the rest).",
        "",
        "| Method | Returns | Summary |",
        "|---|---|---|",
        *(method_row(name, deadline=False) for name in ops),
        "",
        "Client's other public methods, their signatures in full:",
        "",
        "| Method | Returns | Summary |",
        "|---|---|---|",
        *(method_row(name, deadline=True) for name in methods),
        "",
        "Properties: " + ", ".join(f"`{n}`" for n in properties) + ".",
        "",
        async_note(ops + methods),
        METHODS_END,
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--doc", type=Path, default=DEFAULT_DOC, help="the document to update")
    parser.add_argument("--check", action="store_true", help="exit 1 if the document is stale")
    args = parser.parse_args(argv)
    document = args.doc.read_text(encoding="utf-8")
    updated = splice(document, render_methods(), METHODS_BEGIN, METHODS_END)
    updated = splice(updated, render(), BEGIN, END)
    if updated == document:
        return 0
    if args.check:
        print(f"{args.doc} is stale: run scripts/render_api.py", file=sys.stderr)
        return 1
    args.doc.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
