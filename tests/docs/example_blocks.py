"""Finding and running the code examples a user reads: README.md, docs/*.md and docstrings.

Kept apart from the test module so its rules can be tested on small made-up inputs, and so
the pytest run of a pytest-style example (in a subprocess) can install the same loopback
guard through a generated conftest.
"""

from __future__ import annotations

import ast
import ipaddress
import re
import socket
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The address examples are written against; replaced by the emulator's URL before running.
EXAMPLE_URL = "http://127.0.0.1:8000"

_FENCE_OPEN = re.compile(r"^(?P<indent> {0,3})```\s*(?P<lang>[\w+-]*)\s*$")
_FENCE_CLOSE = re.compile(r"^ {0,3}```\s*$")
_SKIP = re.compile(r"^\s*<!--\s*example:\s*skip\b(?P<rest>.*?)-->\s*$")
_SKIP_REASON = re.compile(r"^\s*\((?P<why>[^)]*\S[^)]*)\)\s*$")
_PYTHON_LANGS = {"python", "py"}
# First words that make a literal block Python even when it does not parse (so a rotten
# example fails instead of passing for a diagram).
_PYTHON_STARTS = ("import ", "from ", "def ", "class ", "with ", "@", "async ", "assert ")


class ExampleFormatError(ValueError):
    """A document breaks the example convention (unclosed fence, skip without a reason)."""


@dataclass(frozen=True)
class Block:
    """One code example: where it is, its source, and why it is skipped (None = it runs)."""

    path: str
    line: int  # 1-based line of the block's first source line in `path`
    source: str
    skip: str | None = None

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def is_pytest_module(self) -> bool:
        """A block that defines test functions is run by pytest, as its reader would."""
        try:
            tree = ast.parse(self.source)
        except SyntaxError:
            return False
        return any(
            isinstance(node, ast.FunctionDef) and node.name.startswith("test") for node in tree.body
        )

    def compiled(self) -> Any:
        """The block compiled so tracebacks name the document and its real line numbers."""
        padded = "\n" * (self.line - 1) + self.source
        return compile(padded, self.path, "exec")


def markdown_blocks(text: str, path: str) -> list[Block]:
    """Every ```python block of a markdown text, in order, with its skip reason if marked."""
    lines = text.splitlines()
    blocks: list[Block] = []
    index = 0
    previous = ""  # the last non-blank line outside any fence
    while index < len(lines):
        opened = _FENCE_OPEN.match(lines[index])
        if not opened:
            if lines[index].strip():
                previous = lines[index]
            index += 1
            continue
        start = index + 1
        end = start
        while end < len(lines) and not _FENCE_CLOSE.match(lines[end]):
            end += 1
        if end == len(lines):
            raise ExampleFormatError(f"{path}:{index + 1}: code fence never closed")
        if opened.group("lang").lower() in _PYTHON_LANGS:
            source = textwrap.dedent("\n".join(lines[start:end])) + "\n"
            blocks.append(Block(path, start + 1, source, _skip_reason(previous, path, index)))
        previous = lines[end]
        index = end + 1
    return blocks


def _skip_reason(previous: str, path: str, fence_index: int) -> str | None:
    marker = _SKIP.match(previous)
    if not marker:
        return None
    reason = _SKIP_REASON.match(marker.group("rest"))
    if not reason:
        raise ExampleFormatError(
            f"{path}:{fence_index}: write the reason: <!-- example: skip (why it cannot run) -->"
        )
    return reason.group("why").strip()


def docstring_literal_blocks(source: str, path: str) -> list[Block]:
    """Every ``::`` literal block in the docstrings of a Python source that is Python code.

    A literal block counts as code when it parses, or when its first line starts the way
    code does (``import``, ``from``, ``def``, ``with``, ``@`` ...) so a broken example fails
    rather than passing for prose. Diagrams (an error tree, parser states) are neither.
    """
    blocks: list[Block] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if not (node.body and isinstance(node.body[0], ast.Expr)):
            continue
        constant = node.body[0].value
        if not (isinstance(constant, ast.Constant) and isinstance(constant.value, str)):
            continue
        for offset, text in _literal_blocks(constant.value):
            if _looks_like_python(text):
                blocks.append(Block(path, constant.lineno + offset, text))
    return blocks


def _literal_blocks(docstring: str) -> Iterator[tuple[int, str]]:
    """(line offset inside the raw docstring, dedented text) of each ``::`` block."""
    lines = docstring.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.rstrip().endswith("::"):
            index += 1
            continue
        base = len(line) - len(line.lstrip())
        first = index + 1
        while first < len(lines) and not lines[first].strip():
            first += 1
        end = first
        while end < len(lines) and (
            not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > base
        ):
            end += 1
        body = lines[first:end]
        if body and len(body[0]) - len(body[0].lstrip()) > base:
            yield first, textwrap.dedent("\n".join(body)).strip("\n") + "\n"
        index = max(end, index + 1)


def _looks_like_python(text: str) -> bool:
    if text.lstrip().startswith(_PYTHON_STARTS):
        return True
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


def _is_loopback(host: object) -> bool:
    if not isinstance(host, str):
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def loopback_only_patches() -> list[tuple[Any, str, Callable[..., Any]]]:
    """(owner, attribute, replacement) triples that refuse any non-loopback address.

    Examples are written against a LAN server name in places; this makes sure that running
    them can never send a byte, or even a name lookup, beyond 127.0.0.0/8 and ::1.
    """
    real_getaddrinfo = socket.getaddrinfo
    real_connect = socket.socket.connect

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None and not _is_loopback(host):
            raise OSError(f"examples may only reach loopback, not {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address[0]):
            raise OSError(f"examples may only reach loopback, not {address[0]!r}")
        real_connect(self, address)

    return [(socket, "getaddrinfo", getaddrinfo), (socket.socket, "connect", connect)]


def install_loopback_guard() -> None:
    """Apply `loopback_only_patches` for the rest of the process (a pytest subprocess)."""
    for owner, name, replacement in loopback_only_patches():
        setattr(owner, name, replacement)


def repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


# -- what an example writes, to hold that every example is safe to paste against a real server

_WORKSPACE_PATH = re.compile(r"^/v3/workspaces/(?P<ws>[^/?]+)(?P<rest>/[^?]*)?$")
# POST routes that only read (Honcho lists, searches and asks with POST).
_READ_POST_ENDS = ("/list", "/search", "/chat", "/representation", "/query")
_PEER_SESSIONS = re.compile(r"^/peers/[^/]+/sessions$")


def workspaces_written(requests: list[Any]) -> list[str]:
    """The workspaces the recorded requests wrote to (created, changed or deleted), in order.

    ``requests`` are `roncho.testing.FakeHoncho.requests` records. A get-or-create counts
    as a write: against a real server it is the first step of writing there.
    """
    import json

    written: list[str] = []
    for request in requests:
        method, path = request.method, request.path.split("?", 1)[0]
        if method in ("GET", "HEAD"):
            continue
        if path == "/v3/workspaces" and method == "POST":
            try:
                name = json.loads(request.body or b"{}").get("id")
            except ValueError:
                name = None
            if isinstance(name, str):
                written.append(name)
            continue
        if path == "/v3/keys":
            continue  # minting a key is the admin's, not a workspace's, business
        matched = _WORKSPACE_PATH.match(path)
        if matched is None or matched["ws"] == "list":
            continue
        rest = matched["rest"] or ""
        if method == "POST" and (rest.endswith(_READ_POST_ENDS) or _PEER_SESSIONS.match(rest)):
            continue
        written.append(matched["ws"])
    return list(dict.fromkeys(written))
