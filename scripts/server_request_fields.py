"""The request fields a Honcho server's source declares for each v3 route, one a line.

Usage::

    python scripts/server_request_fields.py SOURCE > tests/wire/data/server_request_fields.txt

SOURCE is a Honcho server source tarball or an unpacked tree, as for server_routes.py
(whose readers this script uses). Each line is ``METHOD /path  WHERE NAME``:

- ``query NAME``: a handler parameter whose default is ``Query(...)`` (its ``alias`` when
  it has one), or a plain scalar parameter (FastAPI reads those from the query too);
  ``page`` and ``size`` for a route whose ``response_model`` is ``Page[...]``
  (fastapi-pagination adds them);
- ``body NAME``: a top-level key of the JSON body, when the ``Body(...)`` parameter is a
  ``schemas.X`` model (its fields, its bases' fields too, each under its ``alias`` when it
  has one); ``body NAME[].KEY`` for each key of the items of a field that is a list of
  models (a batch's messages or conclusions);
- ``body *``: a body that is not an object of named fields (a list, a mapping of ids);
- ``form NAME`` and ``file NAME``: a multipart upload's parts (a model that a
  ``Depends(...)`` reads, the upload's form, gives its fields as ``form``).

Path parameters, other ``Depends(...)`` parameters and the database, request and response
objects are not request fields. Read from the syntax trees (``ast``), not guessed; a
parameter the script cannot place stops it. Standard library only.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from server_routes import METHODS, _mounts, _sources, _string

NOT_FIELDS = {"AsyncSession", "Response", "Request", "BackgroundTasks", "JWTParams"}


def _name(node: ast.expr | None) -> str:
    """The last dotted name of an annotation or a call: ``schemas.X`` -> ``X``."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _without_none(node: ast.expr | None) -> ast.expr | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        if isinstance(node.right, ast.Constant) and node.right.value is None:
            return node.left
        if isinstance(node.left, ast.Constant) and node.left.value is None:
            return node.right
    return node


def _alias(call: ast.Call) -> str | None:
    for keyword in call.keywords:
        if keyword.arg in ("alias", "validation_alias"):
            return _string(keyword.value)
    return None


def _field_alias(assign: ast.AnnAssign) -> str | None:
    if isinstance(assign.value, ast.Call) and _name(assign.value.func) == "Field":
        found = _alias(assign.value)
        if found:
            return found
    annotation = assign.annotation
    if isinstance(annotation, ast.Subscript) and _name(annotation.value) == "Annotated":
        elements = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else []
        for element in elements[1:]:
            if isinstance(element, ast.Call) and _name(element.func) == "Field":
                found = _alias(element)
                if found:
                    return found
    return None


def _classes(sources: dict[str, str]) -> dict[str, ast.ClassDef]:
    found: dict[str, ast.ClassDef] = {}
    for name, text in sources.items():
        if name.startswith("src/schemas"):
            for node in ast.parse(text).body:
                if isinstance(node, ast.ClassDef):
                    found[node.name] = node
    return found


def _fields(name: str, classes: dict[str, ast.ClassDef]) -> dict[str, str]:
    """A model's fields and their JSON keys: its bases' first, then its own (a field a
    subclass declares again takes its new key)."""
    node = classes[name]
    keys: dict[str, str] = {}
    for base in node.bases:
        if _name(base) in classes:
            keys.update(_fields(_name(base), classes))
    for item in node.body:
        if not isinstance(item, ast.AnnAssign) or not isinstance(item.target, ast.Name):
            continue
        field = item.target.id
        if field.startswith("_") or field == "model_config":
            continue
        if _name(item.annotation) == "ClassVar":
            continue
        keys[field] = _field_alias(item) or field
    return keys


def _items(name: str, classes: dict[str, ast.ClassDef]) -> list[str]:
    """A model's keys, and for a field that is a list of models (a batch), each of the
    item's keys as ``key[].item_key``."""
    node_fields: dict[str, ast.expr] = {}
    for cls in _lineage(name, classes):
        for item in cls.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                node_fields[item.target.id] = item.annotation
    keys: list[str] = []
    for field, key in _fields(name, classes).items():
        keys.append(key)
        annotation = node_fields.get(field)
        if isinstance(annotation, ast.Subscript) and _name(annotation.value) == "list":
            item_model = _name(annotation.slice)
            if item_model in classes:
                keys += [f"{key}[].{sub}" for sub in _fields(item_model, classes).values()]
    return keys


def _lineage(name: str, classes: dict[str, ast.ClassDef]) -> list[ast.ClassDef]:
    node = classes[name]
    found: list[ast.ClassDef] = []
    for base in node.bases:
        if _name(base) in classes:
            found += _lineage(_name(base), classes)
    return [*found, node]


def _handler_fields(
    handler: ast.FunctionDef | ast.AsyncFunctionDef, path: str, classes: dict[str, ast.ClassDef]
) -> list[str]:
    arguments = handler.args.args + handler.args.kwonlyargs
    defaults: list[ast.expr | None] = [None] * (
        len(handler.args.args) - len(handler.args.defaults)
    ) + list(handler.args.defaults)
    defaults += list(handler.args.kw_defaults)
    out: list[str] = []
    for argument, default in zip(arguments, defaults, strict=True):
        name = argument.arg
        annotation = _without_none(argument.annotation)
        kind = _name(default.func) if isinstance(default, ast.Call) else ""
        if kind == "Depends" and _name(annotation) in classes:
            # a model read by a dependency: the upload's form (parse_upload_form)
            out += [f"form {key}" for key in _fields(_name(annotation), classes).values()]
            continue
        if "{" + name + "}" in path or kind in ("Path", "Depends"):
            continue
        if _name(annotation) in NOT_FIELDS:
            continue
        if kind == "" and _name(annotation) in classes:
            kind = "Body"  # a model parameter is the body, with or without Body(...)
        if kind == "Query" or (kind == "" and not isinstance(annotation, ast.Subscript)):
            alias = _alias(default) if isinstance(default, ast.Call) else None
            out.append(f"query {alias or name}")
        elif kind == "Body":
            model = _name(annotation)
            if isinstance(annotation, ast.Attribute | ast.Name) and model in classes:
                out += [f"body {key}" for key in _items(model, classes)]
            else:
                out.append("body *")
        elif kind in ("Form", "File"):
            out.append(f"{kind.lower()} {name}")
        else:
            raise SystemExit(f"{handler.name}: cannot place parameter {name}")
    return out


def _is_page(decorator: ast.Call) -> bool:
    for keyword in decorator.keywords:
        if keyword.arg == "response_model" and isinstance(keyword.value, ast.Subscript):
            return _name(keyword.value.value) == "Page"
    return False


def server_request_fields(location: Path) -> list[str]:
    sources = _sources(location)
    classes = _classes(sources)
    lines: list[str] = []
    for module, mount in _mounts(sources["src/main.py"]).items():
        tree = ast.parse(sources[f"src/routers/{module}.py"])
        prefix = ""
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and _name(node.value.func) == "APIRouter"
            ):
                prefix = next(
                    (_string(k.value) or "" for k in node.value.keywords if k.arg == "prefix"), ""
                )
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for decorator in node.decorator_list:
                if not (
                    isinstance(decorator, ast.Call)
                    and isinstance(decorator.func, ast.Attribute)
                    and _name(decorator.func.value) == "router"
                    and decorator.func.attr in METHODS
                ):
                    continue
                path = _string(decorator.args[0]) if decorator.args else None
                route = f"{decorator.func.attr.upper()} {mount}{prefix}{path or ''}"
                fields = _handler_fields(node, route, classes)
                if _is_page(decorator):
                    fields += ["query page", "query size"]
                lines += [f"{route}  {field}" for field in fields]
    return sorted(set(lines), key=lambda line: (line.split()[1], line.split()[0], line))


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    location = Path(argv[1])
    print(f"# The v3 request fields declared in {location.name}, made by")
    print("# scripts/server_request_fields.py (src/routers/*.py and src/schemas with ast).")
    for line in server_request_fields(location):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
