"""How big the client core is: the three numbers the core is held to.

Usage::

    python scripts/core_size.py [ROOT]     # ROOT: a checkout (default: this one)

- loaded: the roncho modules in ``sys.modules`` after ``import roncho`` and one
  ``Client`` call (what memoryd loads), and their lines;
- core: every module under ``roncho/`` except ``testing/`` and ``workbook/`` (so with
  ``roncho.aio`` and the generated methods), and their lines;
- floors: the longest chain of core modules each importing the next, counting the
  modules in it (imports under ``if TYPE_CHECKING:`` and inside functions included).

Lines are physical lines, as ``wc -l`` counts them. Standard library only.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

# One Client call against a one-answer loopback server, in a fresh interpreter.
_LOADED = r"""
import json, socket, sys, threading
import roncho

server = socket.create_server(("127.0.0.1", 0))
body = json.dumps({"id": "alice", "workspace_id": "ws", "metadata": {},
                   "configuration": {}, "created_at": "2026-01-01T00:00:00Z"}).encode()

def answer():
    conn, _ = server.accept()
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, rest = data.partition(b"\r\n\r\n")
    length = int([h.split(b":")[1] for h in head.split(b"\r\n")
                  if h.lower().startswith(b"content-length")][0])
    while len(rest) < length:
        rest += conn.recv(65536)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                 + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
    conn.close()

threading.Thread(target=answer, daemon=True).start()
port = server.getsockname()[1]
with roncho.Client(f"http://127.0.0.1:{port}", "ws") as client:
    client.get_or_create_peer("alice")
print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items()
                        if n == "roncho" or n.startswith("roncho."))))
"""


def lines(path: Path) -> int:
    return path.read_bytes().count(b"\n")


def core_modules(package: Path) -> dict[str, Path]:
    """Dotted name -> file, for every core module."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[1:2] in (("testing",), ("workbook",)):
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The core modules ``name`` imports anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from . import _checks`` imports the module, not its package's __init__.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        for target in targets:
            if target in known and target != name:
                found.add(target)
    return found


def floors(graph: dict[str, set[str]]) -> tuple[int, list[str]]:
    """The longest simple path (in modules) through the import graph."""
    best: list[str] = []

    def walk(path: list[str]) -> None:
        nonlocal best
        if len(path) > len(best):
            best = list(path)
        for nxt in sorted(graph[path[-1]]):
            if nxt not in path:
                path.append(nxt)
                walk(path)
                path.pop()

    for start in sorted(graph):
        walk([start])
    return len(best), best


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__ or "")
        return 0
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    package = root / "roncho"
    if not (package / "__init__.py").is_file():
        print(f"core_size.py: {root} is not a checkout of roncho (no roncho/__init__.py)")
        return 2
    modules = core_modules(package)
    loaded = json.loads(
        subprocess.run(
            [sys.executable, "-c", _LOADED],
            env={"PYTHONPATH": str(root)},
            cwd=root,  # ``python -c`` puts the working folder first on sys.path
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
    )
    graph = {name: imports_of(name, path, set(modules)) for name, path in modules.items()}
    height, chain = floors(graph)
    print(f"loaded: {len(loaded)} modules, {sum(lines(Path(p)) for p in loaded)} lines")
    print(f"core:   {len(modules)} modules, {sum(lines(p) for p in modules.values())} lines")
    print(f"floors: {height} ({' -> '.join(chain)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
