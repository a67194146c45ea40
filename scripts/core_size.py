"""How big the client core is: the numbers the core is held to, each with its files.

Usage::

    python scripts/core_size.py [ROOT]     # ROOT: a checkout (default: this one)

The core is every module under ``roncho/`` except ``testing/`` (and ``workbook/``, where an
older checkout has it; so with ``roncho.aio``). Generated text is the lines between a
``BEGIN GENERATED`` marker and its ``END GENERATED`` (scripts/render_clients.py writes
them), and all of a module it writes whole (the blocking client and chat stream, from their
asyncio twins); hand-written is the rest.

- core: every core module, its lines, generated and hand-written;
- models: the records (``roncho/_models/``, a package of modules by resource), hand-written
  lines;
- request checks: ``roncho/_request_checks.py``, what the catalogue's operations and the
  input records send, checked against the server's limits (beside the catalogue, not in
  it, because the records use it too), hand-written lines;
- add-ons: the modules beside the call path, which no call passes through and ``import
  roncho`` does not load (``ADD_ONS``: the deriver wait's rules and loop, webhooks, the
  scratch workspace, the pytest plugin, the on_call reports, the delivery function, the
  401/403 hints), hand-written lines;
- engine: the hand-written core minus the catalogue (``roncho/_operations/``), its request
  checks, the models and the add-ons: what every call runs through, both halves; held to
  3,200 lines;
- loaded: the roncho modules in ``sys.modules`` after ``import roncho`` and one
  ``Client`` call (what memoryd loads), their lines with the generated text apart; held
  to about 4,600 hand-written;
- longest: the core module (one file: each module of a package apart) with the most
  hand-written lines; held to about 500;
- floors: the longest chain of core modules each importing the next (imports under
  ``if TYPE_CHECKING:`` and inside functions included).

Lines are physical lines, as ``wc -l`` counts them. ``--files`` lists every core file
with its numbers. Standard library only.
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


def generated(path: Path) -> int:
    """Lines between BEGIN GENERATED and END GENERATED markers, the markers included; every
    line of a module written whole by a script (its first line says GENERATED WHOLE)."""
    if path.read_text(encoding="utf-8").startswith("# GENERATED WHOLE"):
        return lines(path)
    count, inside = 0, False
    for line in path.read_text(encoding="utf-8").splitlines():
        if "BEGIN GENERATED" in line:
            inside = True
        if inside:
            count += 1
        if "END GENERATED" in line:
            inside = False
    return count


def is_catalogue(path: Path, package: Path) -> bool:
    """roncho/_operations/ (once one module, roncho/_operations.py, as an older checkout has it)."""
    return path.parent == package / "_operations" or path == package / "_operations.py"


# Beside the call path, loaded only when used (tests/unit/test_import_hygiene.py holds that).
ADD_ONS = (
    "_derivation.py",
    "webhooks.py",
    "_scratch.py",
    "pytest_plugin.py",
    "_reports.py",
    "_delivery.py",
    "delivery.py",
    "aio/delivery.py",
    "_auth_hints.py",
    "_derivation_wait.py",
    "aio/_derivation_wait.py",
)


# The catalogue's request-content checks, beside it.
REQUEST_CHECKS = "_request_checks.py"


def is_add_on(path: Path, package: Path) -> bool:
    return path.relative_to(package).as_posix() in ADD_ONS


def is_models(path: Path, package: Path) -> bool:
    """roncho/_models/ (once one module, roncho/_models.py, as an older checkout has it)."""
    return path.parent == package / "_models" or path == package / "_models.py"


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
    given = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = Path(given[0] if given else Path(__file__).resolve().parent.parent).resolve()
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
    rel = lambda p: str(Path(p).relative_to(root))  # noqa: E731
    total = sum(lines(p) for p in modules.values())
    gen = sum(generated(p) for p in modules.values())
    catalogue = [p for p in modules.values() if is_catalogue(p, package)]
    models = [p for p in modules.values() if is_models(p, package)]
    add_ons = [p for p in modules.values() if is_add_on(p, package)]
    requests = [p for p in modules.values() if p == package / REQUEST_CHECKS]
    apart = {*catalogue, *requests, *models, *add_ons}
    engine = [p for p in modules.values() if p not in apart]
    hand = {p: lines(p) - generated(p) for p in modules.values()}
    longest = max(engine + add_ons + catalogue + requests + models, key=lambda p: hand[p])
    loaded_paths = [Path(p) for p in loaded]
    loaded_total = sum(lines(p) for p in loaded_paths)
    loaded_gen = sum(generated(p) for p in loaded_paths)
    print(
        f"core:      {len(modules)} modules, {total} lines ({gen} generated, "
        f"{total - gen} hand-written)"
    )
    print(
        f"catalogue: {len(catalogue)} modules, {sum(hand[p] for p in catalogue)} lines "
        "(roncho/_operations/)"
    )
    print(
        f"requests:  {len(requests)} module, {sum(hand[p] for p in requests)} lines "
        f"(the catalogue's request-content checks, roncho/{REQUEST_CHECKS})"
    )
    where = "roncho/_models/" if (package / "_models").is_dir() else "roncho/_models.py"
    print(f"models:    {len(models)} modules, {sum(hand[p] for p in models)} lines ({where})")
    print(
        f"add-ons:   {len(add_ons)} modules, {sum(hand[p] for p in add_ons)} lines "
        f"({', '.join(rel(p) for p in add_ons)}; not loaded by import roncho)"
    )
    print(
        f"engine:    {len(engine)} modules, {sum(hand[p] for p in engine)} "
        "hand-written lines, both halves (goal: at most 3200)"
    )
    print(
        f"loaded:    {len(loaded)} modules, {loaded_total} lines ({loaded_gen} generated, "
        f"{loaded_total - loaded_gen} hand-written; goal: about 4600 at most)"
    )
    print(f"longest:   {rel(longest)}, {hand[longest]} hand-written lines (goal: about 500)")
    print(f"floors:    {height} ({' -> '.join(chain)})")
    if "--files" in sys.argv:
        print()
        print(f"{'file':42} {'lines':>6} {'gen':>5} {'hand':>5}  part, loaded")
        for p in sorted(modules.values(), key=lambda p: -hand[p]):
            part = ("catalogue" if p in catalogue else "models" if p in models
                    else "requests" if p in requests else "add-on" if p in add_ons
                    else "engine")  # fmt: skip
            mark = ", loaded" if str(p) in loaded else ""
            print(f"{rel(p):42} {lines(p):6} {generated(p):5} {hand[p]:5}  {part}{mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
