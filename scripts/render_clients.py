"""Write out Client's and AsyncClient's methods from the operations, and the blocking
client and chat stream whole from their asyncio twins, as committed text.

Usage::

    python scripts/render_clients.py            # rewrite what is stale
    python scripts/render_clients.py --check    # exit 1 if any of it is stale

Every operation in the catalogue, roncho/_operations/ (a public function whose first
parameter is ``paths``, or a ``name = streamed(base, "name", doc)`` twin, in a module named
in ``RESOURCES`` of its __init__.py), becomes one method of each client, in the order of
``RESOURCES`` and of the operations in each module: the operation's parameters without
``paths`` and with ``deadline`` (keyword-only, last: how long the call may take is the
executor's, not the request's), its docstring, and a one- or two-line body that builds the
operation's call and hands it, with the deadline, to the client's executor (``_run``,
``_open_stream`` or ``_walk``). What the method returns follows from what the operation
returns: ``Call[X]`` gives ``X``, ``Pages[X]`` a walk over ``X``, a streamed twin the
client's chat stream. The names the signatures use are
imported for the type checker in a second generated part. In roncho/__init__.py it writes
the import of every public class of roncho/_models/ and ``__all__`` (every public name
the package imports).

The asyncio client (roncho/aio/_client.py) and chat stream (roncho/aio/_stream.py) are
written by hand once, for both halves (outside the markers): the blocking roncho/_client.py
and roncho/_stream.py are written whole from them by the table of scripts/_unasync.py
(``async`` and ``await`` out, the asyncio names to the blocking ones), and the blocking
client's methods and imports then between its markers as above. Standard library only
(``ast``): nothing is imported.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))  # _generated, also when a test loads this by path

from _generated import splice  # noqa: E402
from _unasync import generated_from, unasync, unused  # noqa: E402

CATALOGUE = REPO / "roncho" / "_operations"
# The asyncio modules are written by hand (apart from the methods); their blocking twins are
# written whole from them (scripts/_unasync.py).
ASYNC_CLIENT = REPO / "roncho" / "aio" / "_client.py"
ASYNC_STREAM = REPO / "roncho" / "aio" / "_stream.py"
CLIENT = REPO / "roncho" / "_client.py"
STREAM = REPO / "roncho" / "_stream.py"
# The delivery add-on's loop (roncho/aio/delivery.py), written once the same way.
ASYNC_DELIVERY = REPO / "roncho" / "aio" / "delivery.py"
DELIVERY = REPO / "roncho" / "delivery.py"
# The deriver wait's loop (roncho/aio/_derivation_wait.py), the same way.
ASYNC_DERIVATION_WAIT = REPO / "roncho" / "aio" / "_derivation_wait.py"
DERIVATION_WAIT = REPO / "roncho" / "_derivation_wait.py"
METHODS = (
    "    # BEGIN GENERATED methods (scripts/render_clients.py)\n",
    "    # END GENERATED methods\n",
)
IMPORTS = (
    "    # BEGIN GENERATED imports (scripts/render_clients.py)\n",
    "    # END GENERATED imports\n",
)
PACKAGE = REPO / "roncho" / "__init__.py"
MODELS = REPO / "roncho" / "_models"  # the records, by resource; its __init__ re-exports them
EXPORTS = ("# BEGIN GENERATED models (scripts/render_clients.py)\n", "# END GENERATED models\n")
ALL = ("# BEGIN GENERATED __all__ (scripts/render_clients.py)\n", "# END GENERATED __all__\n")
WIDTH = 100  # the project's line length (pyproject.toml, ruff)


@dataclass
class Operation:
    module: str  # its catalogue module: ``peers`` for roncho/_operations/peers.py
    name: str
    args: ast.arguments  # without ``paths``, with ``deadline``
    returns: ast.expr  # the operation's own annotation: Call[X], Pages[X]
    doc: str  # as written, indentation included
    kind: str  # "call", "walk" or "stream"


def resources() -> list[str]:
    """The catalogue's modules, in the order of ``RESOURCES`` in its __init__.py."""
    tree = ast.parse((CATALOGUE / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "RESOURCES":
            assert isinstance(node.value, ast.Tuple)
            return [ast.unparse(element) for element in node.value.elts]
    raise SystemExit("roncho/_operations/__init__.py has no RESOURCES")


def catalogue() -> list[Operation]:
    """Every operation of the catalogue, in the clients' order."""
    found = []
    for module in resources():
        found += operations(module, (CATALOGUE / f"{module}.py").read_text(encoding="utf-8"))
    return found


def operations(module: str, source: str) -> list[Operation]:
    """The operations of one catalogue module, in the order they are written."""
    tree = ast.parse(source)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            first = node.args.posonlyargs + node.args.args
            if not first or first[0].arg != "paths":
                continue  # a helper, not an operation
            assert node.returns is not None, node.name
            kind = "walk" if _head(node.returns) == "Pages" else "call"
            found.append(Operation(module, node.name, _method_args(node.args), node.returns,
                                   _doc(node), kind))  # fmt: skip
        elif isinstance(node, ast.Assign) and _is_streamed(node.value):
            call = node.value
            assert isinstance(call, ast.Call) and isinstance(call.args[0], ast.Name)
            base = functions[call.args[0].id]
            doc = call.args[2]
            assert isinstance(doc, ast.Constant) and isinstance(doc.value, str)
            name = node.targets[0]
            assert isinstance(name, ast.Name)
            found.append(Operation(module, name.id, _method_args(base.args),
                                   ast.Name("ChatStream"), doc.value, "stream"))  # fmt: skip
    return found


def _is_streamed(value: ast.expr) -> bool:
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "streamed"
    )


def _head(annotation: ast.expr) -> str:
    node = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return ast.unparse(node)


def _method_args(args: ast.arguments) -> ast.arguments:
    """The method's parameters: the operation's without ``paths``, and ``deadline`` last."""
    assert not any(a.arg == "deadline" for a in args.kwonlyargs), "the executor's parameter"
    positional = [*args.posonlyargs, *args.args][1:]
    defaults = args.defaults[-len(positional) :] if args.defaults and positional else []
    deadline = ast.arg("deadline", ast.parse("float | None", mode="eval").body)
    return ast.arguments(
        posonlyargs=[], args=positional, vararg=None, kwonlyargs=[*args.kwonlyargs, deadline],
        kw_defaults=[*args.kw_defaults, ast.Constant(None)], kwarg=None, defaults=defaults,
    )  # fmt: skip


def _doc(node: ast.FunctionDef) -> str:
    first = node.body[0]
    assert isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant), node.name
    assert isinstance(first.value.value, str)
    return first.value.value


# -- the text of one method --------------------------------------------------------------
def parameters(args: ast.arguments) -> list[str]:
    shown = ["self"]
    pad = len(args.args) - len(args.defaults)
    for i, arg in enumerate(args.args):
        default = args.defaults[i - pad] if i >= pad else None
        shown.append(_parameter(arg, default))
    if args.kwonlyargs:
        shown.append("*")
        for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
            shown.append(_parameter(arg, kw_default))
    return shown


def _parameter(arg: ast.arg, default: ast.expr | None) -> str:
    assert arg.annotation is not None, arg.arg
    text = f"{arg.arg}: {ast.unparse(arg.annotation)}"
    return text if default is None else f"{text} = {ast.unparse(default)}"


def arguments(args: ast.arguments) -> list[str]:
    """How the method passes its parameters on to the operation: positionally, then by
    keyword (all but ``deadline``, which goes to the executor)."""
    keywords = [a.arg for a in args.kwonlyargs if a.arg != "deadline"]
    return [a.arg for a in args.args] + [f"{name}={name}" for name in keywords]


def result(op: Operation, flavour: str) -> str:
    if op.kind == "stream":
        return "ChatStream" if flavour == "sync" else "AsyncChatStream"
    assert isinstance(op.returns, ast.Subscript), op.name
    inner = ast.unparse(op.returns.slice)
    if op.kind == "walk":
        return f"Iterator[{inner}]" if flavour == "sync" else f"AsyncIterator[{inner}]"
    return inner


def signature(op: Operation, flavour: str) -> list[str]:
    """``def name(...) -> R:`` as ruff would format it: on one line if it fits, else the
    parameters on one line of their own if they fit, else one per line."""
    keyword = "async def" if flavour == "async" else "def"
    params = parameters(op.args)
    tail = f") -> {result(op, flavour)}:"
    one = f"    {keyword} {op.name}({', '.join(params)}{tail}"
    if len(one) <= WIDTH:
        return [one]
    inner = "        " + ", ".join(params)
    if len(inner) <= WIDTH:
        return [f"    {keyword} {op.name}(", inner, "    " + tail]
    return [f"    {keyword} {op.name}(", *(f"        {p}," for p in params), "    " + tail]


def docstring(doc: str) -> list[str]:
    """The operation's docstring, indented for a method (eight spaces instead of four)."""
    lines = doc.split("\n")
    if len(lines) == 1:
        return [f'        """{doc}"""']
    rest = [("    " + line if line.strip() else "") for line in lines[1:-1]]
    return [f'        """{lines[0]}', *rest, '        """']


def body(op: Operation, flavour: str) -> list[str]:
    """Build the operation's call and hand it to the executor: one line when it fits, else
    the call first (``call = ops.name(...)``, wrapped as ruff would wrap it), then the
    executor."""
    executor = {"call": "_run", "stream": "_open_stream", "walk": "_walk"}[op.kind]
    build = f"{_function(op)}({', '.join(['self._paths', *arguments(op.args)])})"
    if flavour == "async" and op.kind == "walk":
        # An async generator, so that the operation's checks run at the first step of the
        # walk, as they always have, and the walk is typed AsyncIterator.
        return [*_assign("pages", op, build),
                "        async for item in self._walk(pages, deadline):",
                "            yield item"]  # fmt: skip
    run = "return await self." if flavour == "async" else "return self."
    one = f"        {run}{executor}({build}, deadline)"
    if len(one) <= WIDTH:
        return [one]
    name = "pages" if op.kind == "walk" else "call"
    return [*_assign(name, op, build), f"        {run}{executor}({name}, deadline)"]


def _function(op: Operation) -> str:
    return f"ops.{op.module}.{op.name}"


def _assign(name: str, op: Operation, build: str) -> list[str]:
    """``name = ops.module.x(...)`` at eight spaces, wrapped as ruff would wrap it."""
    one = f"        {name} = {build}"
    if len(one) <= WIDTH:
        return [one]
    args = ["self._paths", *arguments(op.args)]
    inner = "            " + ", ".join(args)
    function = _function(op)
    if len(inner) <= WIDTH:
        return [f"        {name} = {function}(", inner, "        )"]
    return [f"        {name} = {function}(", *(f"            {a}," for a in args), "        )"]


def methods(ops: list[Operation], flavour: str) -> str:
    blocks = []
    for op in ops:
        blocks.append("\n".join([*signature(op, flavour), *docstring(op.doc), *body(op, flavour)]))
    return "\n\n".join(blocks) + "\n\n"


# -- the names the signatures use ---------------------------------------------------------
def imported_names(source: str, package: str = "roncho") -> dict[str, str]:
    """Every name a module of ``package`` imports at its top, with the module it comes
    from."""
    names = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            module = str(node.module)
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            for alias in node.names:
                names[alias.asname or alias.name] = module
    return names


def catalogue_names() -> dict[str, str]:
    """Every name the catalogue's modules import, with the module it comes from."""
    names: dict[str, str] = {}
    for path in sorted(CATALOGUE.glob("*.py")):
        names.update(imported_names(path.read_text(encoding="utf-8"), "roncho._operations"))
    return names


def default_names(ops: list[Operation]) -> set[str]:
    """The names the defaults use: the client needs them at run time, not only for types."""
    defaults = [d for op in ops for d in [*op.args.defaults, *op.args.kw_defaults] if d]
    return {n.id for d in defaults for n in ast.walk(d) if isinstance(n, ast.Name)}


def used_names(ops: list[Operation], flavour: str) -> set[str]:
    used = set()
    for op in ops:
        for arg in [*op.args.args, *op.args.kwonlyargs]:
            assert arg.annotation is not None
            used |= {n.id for n in ast.walk(arg.annotation) if isinstance(n, ast.Name)}
        used |= {n.id for n in ast.walk(ast.parse(result(op, flavour))) if isinstance(n, ast.Name)}
    return used


def imports(ops: list[Operation], flavour: str, client: str) -> str:
    """``from ... import ...`` lines for the type checker (isort's order, as ruff keeps it):
    each name the signatures use that the client module does not already import."""
    known = catalogue_names()
    known["Iterator"] = known["AsyncIterator"] = "collections.abc"
    known["ChatStream"] = "roncho._stream"
    known["AsyncChatStream"] = "roncho.aio._stream"
    outside = splice(client, "    pass\n", *IMPORTS)  # the hand-written imports only
    have = set(imported_names(outside))
    missing = default_names(ops) - have - set(dir(builtins))
    if missing:
        raise SystemExit(f"a default uses {sorted(missing)}: import it in the client module")
    wanted: dict[str, set[str]] = {}
    for name in sorted(used_names(ops, flavour) - have - set(dir(builtins))):
        wanted.setdefault(known[name], set()).add(name)
    dots = "." if flavour == "sync" else ".."
    std = sorted(m for m in wanted if not m.startswith("roncho"))
    own = sorted((m for m in wanted if m.startswith("roncho")), key=lambda m: _relative(m, dots))
    lines: list[str] = []
    for group in (std, own):
        if lines and group:
            lines.append("")
        for module in group:
            shown = _relative(module, dots) if module.startswith("roncho") else module
            lines += _from_import(shown, sorted(wanted[module], key=_isort_key))
    return "\n".join(lines) + "\n"


def _relative(module: str, dots: str) -> str:
    if dots == ".":
        return "." + module.removeprefix("roncho.")
    if module.startswith("roncho.aio."):
        return "." + module.removeprefix("roncho.aio.")
    return ".." + module.removeprefix("roncho.")


def _isort_key(name: str) -> tuple[int, str]:
    """ruff's isort ``order-by-type``: CONSTANTS, then Classes, then functions."""
    kind = 0 if name.isupper() else 1 if name[0].isupper() else 2
    return kind, name


def _from_import(module: str, names: list[str], pad: str = "    ") -> list[str]:
    one = f"{pad}from {module} import {', '.join(names)}"
    if len(one) <= WIDTH:
        return [one]
    return [f"{pad}from {module} import (", *(f"{pad}    {n}," for n in names), f"{pad})"]


# -- what the package exports ---------------------------------------------------------------
def package(text: str) -> str:
    """roncho/__init__.py with every public class of _models imported, and ``__all__``
    naming every public name the module imports (so a new model needs no hand edit here)."""
    models = [
        node.name
        for path in sorted(MODELS.glob("*.py"))
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(node, ast.ClassDef) and node.name[0] != "_"
    ]
    block = "\n".join(_from_import("._models", sorted(models, key=_isort_key), pad=""))
    text = splice(text, f"{EXPORTS[0]}{block}\n\n{EXPORTS[1]}", *EXPORTS)
    names = [n for n in imported_names(text) if not n.startswith("_")] + lazy_names(text)
    listed = "".join(f'    "{name}",\n' for name in sorted([*names, "__version__"]))
    return splice(text, f"{ALL[0]}__all__ = [\n{listed}]\n{ALL[1]}", *ALL)


def lazy_names(text: str) -> list[str]:
    """The keys of the package's ``_LAZY``: names it exports but loads on first use."""
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "_LAZY":
            assert isinstance(node.value, ast.Dict)
            return [ast.literal_eval(key) for key in node.value.keys if key is not None]
    return []


def render(flavour: str, client: str, ops: list[Operation]) -> str:
    text = splice(client, IMPORTS[0] + imports(ops, flavour, client) + IMPORTS[1], *IMPORTS)
    return splice(text, METHODS[0] + methods(ops, flavour) + METHODS[1], *METHODS)


def blocking(source: Path, text: str) -> str:
    """The blocking twin of the asyncio module at ``source``, whose text is ``text``."""
    name = str(source.relative_to(REPO))
    return generated_from(name, "scripts/render_clients.py") + unasync(text, name)


def written(ops: list[Operation]) -> dict[Path, str]:
    """Every file this script writes, with the text it should hold."""
    read = lambda path: path.read_text(encoding="utf-8")  # noqa: E731
    async_client = render("async", read(ASYNC_CLIENT), ops)
    twins = [read(ASYNC_STREAM), read(ASYNC_DELIVERY), read(ASYNC_DERIVATION_WAIT)]
    stale = unused([async_client, *twins])
    if stale:
        raise SystemExit(f"scripts/_unasync.py: no asyncio module holds {stale}: drop them")
    return {
        ASYNC_CLIENT: async_client,
        CLIENT: render("sync", blocking(ASYNC_CLIENT, async_client), ops),
        STREAM: blocking(ASYNC_STREAM, read(ASYNC_STREAM)),
        DELIVERY: blocking(ASYNC_DELIVERY, read(ASYNC_DELIVERY)),
        DERIVATION_WAIT: blocking(ASYNC_DERIVATION_WAIT, read(ASYNC_DERIVATION_WAIT)),
        PACKAGE: package(read(PACKAGE)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether it is stale")
    options = parser.parse_args(argv)
    stale = 0
    for path, after in written(catalogue()).items():
        before = path.read_text(encoding="utf-8") if path.exists() else ""
        if after == before:
            continue
        if options.check:
            print(f"{path.relative_to(REPO)} is stale: run scripts/render_clients.py",
                  file=sys.stderr)  # fmt: skip
            stale = 1
        else:
            path.write_text(after, encoding="utf-8")
    return stale


if __name__ == "__main__":
    raise SystemExit(main())
