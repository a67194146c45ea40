"""Render the "Models" part of docs/api.md from the code, so it cannot drift from it.

Usage::

    python scripts/render_api.py            # rewrite the part between the markers
    python scripts/render_api.py --check    # exit 1 if docs/api.md is stale

The part between ``<!-- BEGIN GENERATED: models -->`` and ``<!-- END GENERATED: models -->``
is rebuilt from every model ``roncho`` exports (the records of roncho/_models/, in the
order of that package's ``__all__``, then the deriver wait's of roncho/_derivation.py): its
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

from _generated import update  # noqa: E402

import roncho  # noqa: E402
from roncho import _derivation, _models  # noqa: E402
from roncho._record import Record  # noqa: E402

BEGIN = "<!-- BEGIN GENERATED: models -->"
END = "<!-- END GENERATED: models -->"
DEFAULT_DOC = REPO / "docs" / "api.md"

# Where the public records are written, in the order the document shows them.
SOURCES = (_models, _derivation)
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
    wait's (_derivation)."""
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
        "<!-- Generated by scripts/render_api.py from roncho/_models/ and "
        "roncho/_derivation.py; edit the code (its docstrings), then run the script, not "
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--doc", type=Path, default=DEFAULT_DOC, help="the document to update")
    parser.add_argument("--check", action="store_true", help="exit 1 if the document is stale")
    args = parser.parse_args(argv)
    return update(args.doc, render(), BEGIN, END, check=args.check, script="scripts/render_api.py")


if __name__ == "__main__":
    sys.exit(main())
