"""The v3 routes a Honcho server's source declares, one ``METHOD /path`` a line.

Usage::

    python scripts/server_routes.py SOURCE > tests/wire/data/server_routes.txt

SOURCE is a Honcho server source tarball (``honcho-<version>-server.tar.gz``) or an
unpacked tree. The routes are read, not guessed: the ``prefix=`` of each router mounted
in ``src/main.py`` (``app.include_router(x.router, prefix="/v3")``), the ``prefix=`` of
that router's ``APIRouter(...)``, and the path and method of every ``@router.<method>(...)``
decorator in ``src/routers/*.py``, all taken from the syntax tree (``ast``), so a comment
or a docstring that looks like a route is not one. Each line also names the router file
and the handler, for a reader. Routes outside the routers (``/health``) are left out:
they are not under ``/v3``. Standard library only.
"""

from __future__ import annotations

import ast
import sys
import tarfile
from pathlib import Path

METHODS = ("get", "post", "put", "delete", "patch")


def _sources(location: Path) -> dict[str, str]:
    """``src/...`` file name -> text, from a tarball or a tree."""
    found: dict[str, str] = {}
    if location.is_dir():
        for path in location.rglob("src/**/*.py"):
            relative = path.relative_to(location).as_posix()
            found[relative[relative.index("src/") :]] = path.read_text(encoding="utf-8")
        return found
    with tarfile.open(location) as archive:
        for member in archive.getmembers():
            if member.isfile() and "/src/" in f"/{member.name}" and member.name.endswith(".py"):
                handle = archive.extractfile(member)
                assert handle is not None
                name = member.name[member.name.index("src/") :]
                found[name] = handle.read().decode("utf-8")
    return found


def _string(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _keyword(call: ast.Call, name: str) -> str | None:
    return next((_string(k.value) for k in call.keywords if k.arg == name), None)


def _mounts(main: str) -> dict[str, str]:
    """Router module name -> the prefix main.py mounts it under."""
    mounts: dict[str, str] = {}
    for node in ast.walk(ast.parse(main)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "include_router"
            and node.args
            and isinstance(node.args[0], ast.Attribute)
            and isinstance(node.args[0].value, ast.Name)
        ):
            mounts[node.args[0].value.id] = _keyword(node, "prefix") or ""
    return mounts


def _routes(text: str) -> tuple[str, list[tuple[str, str, str]]]:
    """A router module's prefix and its (method, path, handler) triples."""
    tree = ast.parse(text)
    prefix = ""
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "APIRouter"
        ):
            prefix = _keyword(node.value, "prefix") or ""
    found: list[tuple[str, str, str]] = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            if (
                isinstance(decorator, ast.Call)
                and isinstance(decorator.func, ast.Attribute)
                and isinstance(decorator.func.value, ast.Name)
                and decorator.func.value.id == "router"
                and decorator.func.attr in METHODS
            ):
                path = _string(decorator.args[0]) if decorator.args else None
                if path is None:
                    path = _keyword(decorator, "path") or ""
                found.append((decorator.func.attr.upper(), path, node.name))
    return prefix, found


def server_routes(location: Path) -> list[str]:
    sources = _sources(location)
    lines = []
    for module, mount in _mounts(sources["src/main.py"]).items():
        file_name = f"src/routers/{module}.py"
        prefix, routes = _routes(sources[file_name])
        for method, path, handler in routes:
            lines.append(f"{method} {mount}{prefix}{path}  # {file_name} {handler}")
    return sorted(lines, key=lambda line: (line.split()[1], line.split()[0]))


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    location = Path(argv[1])
    print(f"# The v3 routes declared in {location.name}, made by scripts/server_routes.py")
    print("# (read from src/main.py and src/routers/*.py with ast; see that script).")
    for line in server_routes(location):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
