"""The library core logs nothing and speaks HTTP only through its own transport.

No telemetry and no update checks means no code path that could open a connection the caller
did not ask for, and no logging means no place where memory text could be written. Both are
held here by reading the core's imports (roncho/ without testing/, the emulator: a tool, not
the library memoryd links).
"""

from __future__ import annotations

import ast
import concurrent.futures
from pathlib import Path

import roncho

CORE = Path(roncho.__file__).resolve().parent
TOOLS = {"testing"}
# urllib.parse (string handling) is allowed; anything that logs or opens a connection is not.
FORBIDDEN = ("logging", "urllib.request", "http", "ftplib", "smtplib", "xmlrpc", "webbrowser")


def _core_modules() -> list[Path]:
    return [p for p in sorted(CORE.rglob("*.py")) if p.relative_to(CORE).parts[0] not in TOOLS]


def _imports(path: Path) -> set[str]:
    # Parsed on a thread of its own: in mutmut's copy the modules are mutmut's large rewrites,
    # and CPython 3.11.7's ast.parse, called deep in a long test run, refused them with
    # "SystemError: AST constructor recursion depth mismatch", which stopped the mutation run.
    with concurrent.futures.ThreadPoolExecutor(1) as fresh_thread:
        tree = fresh_thread.submit(ast.parse, path.read_text(encoding="utf-8")).result()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return {name for name in found if name.split(".")[0] in {"urllib", *FORBIDDEN}}


def _forbidden(names: set[str]) -> list[str]:
    return sorted(n for n in names if any(n == f or n.startswith(f + ".") for f in FORBIDDEN))


def test_the_core_imports_no_logging_and_no_other_http_client() -> None:
    modules = _core_modules()
    assert len(modules) >= 10, "the core was not found"
    offenders = {str(path.relative_to(CORE)): _forbidden(_imports(path)) for path in modules}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_check_would_notice_a_forbidden_import() -> None:
    assert _forbidden({"logging", "urllib.parse", "urllib.request", "http.client"}) == [
        "http.client",
        "logging",
        "urllib.request",
    ]
