"""mutmut runs the fast tests in ``mutants/``, a copy of the tree holding only the package,
``tests/``, ``pyproject.toml`` and what ``also_copy`` names. A test there that reads any other
repository file fails on every mutant it covers, and the mutation run stops (a fresh clone's
run did, for a CHANGELOG.md no one had listed). So every repository path those tests name
must be copied: this finds them by reading the tests' source.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MUTMUT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
# What mutmut 3 copies without being told.
ALWAYS_COPIED = {"roncho", "tests", "test", "setup.cfg", "pyproject.toml"}


def _test_files() -> list[Path]:
    """The test files mutmut runs, and the helpers beside them in tests/."""
    files = sorted((ROOT / "tests").glob("*.py"))
    for selected in MUTMUT["pytest_add_cli_args_test_selection"]:
        files += sorted((ROOT / selected).rglob("*.py"))
    return files


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes: prose that names files is not a read of them."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def named_paths(source: str) -> Iterator[str]:
    """Every string that is used as a path: an operand of ``/`` (as in ``ROOT / "x"``), or a
    literal with a ``/`` in it (as in ``"scripts/test.sh"``), docstrings left out."""
    tree = ast.parse(source)
    prose = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            for side in (node.left, node.right):
                if isinstance(side, ast.Constant) and isinstance(side.value, str):
                    yield side.value
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in prose
            and "/" in node.value
            and "\n" not in node.value
        ):
            yield node.value


def top_level_names(source: str) -> set[str]:
    """The repository's top-level entries that the source names as paths."""
    found = set()
    for path in named_paths(source):
        first = path.strip("/").split("/")[0]
        if first and first not in (".", "..") and (ROOT / first).exists():
            found.add(first)
    return found


def test_every_repository_file_the_mutated_tests_name_is_copied_for_mutmut() -> None:
    copied = ALWAYS_COPIED | {entry.strip("/").split("/")[0] for entry in MUTMUT["also_copy"]}
    missing = {}
    for path in _test_files():
        for name in top_level_names(path.read_text(encoding="utf-8")) - copied:
            missing.setdefault(name, []).append(str(path.relative_to(ROOT)))
    assert missing == {}, f"add to also_copy in [tool.mutmut] (pyproject.toml): {missing}"


def test_the_scan_sees_a_read_of_a_top_level_file() -> None:
    """The scan itself can fail: the forms the tests use to name repository files are seen."""
    seen = top_level_names(
        "ROOT = Path(__file__).parents[2]\n"
        'text = (ROOT / "CHANGELOG.md").read_text()\n'
        'other = ROOT / "docs" / "api.md"\n'
        'RUNNERS = ["scripts/test.sh", ".ci/run"]\n'
        'def f():\n    """Prose naming results/ is no read."""\n'
    )
    assert seen == {"CHANGELOG.md", "docs", "scripts", ".ci"}
