"""The workbook and the emulator use the library as memoryd does: through its public names.

Every import in ``roncho_workbook/`` (the workbook's code, beside ``notebooks/``) and
``roncho/testing/`` that reaches outside its own package must name a public module of
roncho (no segment starting with ``_``) and, for ``from ... import``, names in that module's
``__all__``. A private name they reach for would be one a reader of the library cannot
change without reading them too.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import roncho
import roncho.testing
import roncho.webhooks
import roncho_workbook

# Each user of the library by its package name, and its folder.
USERS = {
    "roncho_workbook": Path(roncho_workbook.__file__).parent,
    "roncho.testing": Path(roncho.testing.__file__).parent,
}


def _module_name(path: Path, own: str) -> str:
    """The dotted name of ``path``, a module of the package ``own``."""
    parts = (*own.split("."), *path.relative_to(USERS[own]).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _library_imports(own: str) -> list[tuple[str, int, str, list[str]]]:
    """(file, line, imported module, names) for each import of roncho that leaves ``own``."""
    found = []
    for path in sorted(USERS[own].rglob("*.py")):
        module = _module_name(path, own)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _absolute(node, module, path.name == "__init__.py")
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "roncho":
                        found.append((str(path), node.lineno, alias.name, []))
                continue
            else:
                continue
            if target.split(".")[0] != "roncho" or target == own or target.startswith(own + "."):
                continue
            found.append((str(path), node.lineno, target, names))
    return found


@pytest.mark.parametrize("user", USERS)
def test_library_reached_only_by_public_names(user: str) -> None:
    imports = _library_imports(user)
    assert imports, f"{user} imports nothing from the library: the walk found nothing"
    private = []
    for path, line, target, names in imports:
        if any(part.startswith("_") for part in target.split(".")[1:]):
            private.append(f"{path}:{line}: private module {target}")
            continue
        exported = set(getattr(importlib.import_module(target), "__all__", ()))
        for name in names:
            if name != "__version__" and name not in exported:
                private.append(f"{path}:{line}: {target}.{name} is not in its __all__")
    assert not private, "\n".join(private)


def test_walk_sees_a_private_import() -> None:
    """The walk is not blind: a private import, relative or absolute, is reported."""
    node = ast.parse("from ..webhooks import _event as read_event").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _absolute(node, "roncho.testing._server", False) == "roncho.webhooks"
    assert "_event" not in roncho.webhooks.__all__
    node = ast.parse("from .._checks import check_id").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _absolute(node, "roncho.testing._server", False) == "roncho._checks"
    node = ast.parse("from roncho._checks import check_id").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _absolute(node, "roncho_workbook._raw", False) == "roncho._checks"
