"""No import circle anywhere under ``roncho/``: each module can be read as sitting above the
modules it imports.

The modules are read with ``ast`` (nothing is imported). An import is an edge from the
importing module to the module it names: ``from . import x`` to the submodule ``x`` when
there is one, else to the package; ``from .x import name`` to ``x`` (or to ``x.name`` when
that is a submodule). Importing ``a.b.c`` also runs ``a`` and ``a.b``, but a child never
depends on its parent for that: those implicit edges are not drawn.

Two graphs are held:

- the *load* graph: the imports Python runs when the module is loaded, that is the module
  body's, including those under ``if``/``try`` but not under ``if TYPE_CHECKING:``;
- the *typing* graph: the load graph plus the imports under ``if TYPE_CHECKING:`` (what a
  reader and mypy must see at once).

Imports inside a function or a class body run on first use (how an add-on is loaded late on
purpose); a third check draws them too, so that none of them hides a circle either.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import roncho

PACKAGE = Path(roncho.__file__).parent


def _modules() -> dict[str, Path]:
    """Every module under roncho/ by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(
    body: list[ast.stmt], *, typing: bool = False
) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
    """(import statement, where) for each import of a module body: where is "load",
    "typing" (under `if TYPE_CHECKING:`) or "late" (in a function or class body)."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, "typing" if typing else "load"
        elif isinstance(node, ast.If):
            yield from _imports(node.body, typing=typing or _is_type_checking(node.test))
            yield from _imports(node.orelse, typing=typing)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _imports(block, typing=typing)
            for handler in node.handlers:
                yield from _imports(handler.body, typing=typing)
        elif isinstance(node, ast.With):
            yield from _imports(node.body, typing=typing)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    yield inner, "late"


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The roncho modules an import statement of `module` names."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name in MODULES:
                yield alias.name
        return
    if node.level:
        base = module.split(".") if _is_package(module) else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join([*base, *([node.module] if node.module else [])])
    else:
        source = node.module or ""
    if source not in MODULES:
        return
    for alias in node.names:
        submodule = f"{source}.{alias.name}"
        yield submodule if submodule in MODULES else source


def _graph(kinds: set[str]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node, where in _imports(tree.body):
            if where in kinds:
                graph[name].update(t for t in _targets(name, node) if t != name)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each strongly connected component of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_the_walk_sees_every_module_and_known_edges() -> None:
    """The reader itself works: it finds the packages and resolves relative imports."""
    assert {"roncho", "roncho.testing", "roncho.testing._app"} <= set(MODULES)
    graph = _graph({"load"})
    assert "roncho.testing._state" in graph["roncho.testing._app"]  # from ._state import
    assert "roncho.testing._routes.control" in graph["roncho.testing._routes"]  # from . import
    assert "roncho.testing._web" in graph["roncho.testing._routes.control"]  # from .._web
    # The plugin imports the emulator inside its fixtures: a late edge, not a load one.
    assert "roncho.testing" in _graph({"late"})["roncho.pytest_plugin"]
    assert "roncho.testing" not in graph["roncho.pytest_plugin"]


def test_a_circle_is_found() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_circle_when_loading() -> None:
    assert _circles(_graph({"load"})) == []


def test_no_circle_with_type_checking_imports() -> None:
    assert _circles(_graph({"load", "typing"})) == []


def test_no_circle_even_with_late_imports() -> None:
    """A late import is a deliberate late load (the pytest plugin's emulator, say), never a
    way around a circle: with them drawn too there is still none."""
    assert _circles(_graph({"load", "typing", "late"})) == []
