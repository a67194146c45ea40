"""Reading the emulator's request log: which workspace each request touched, and whether it
could change anything there.

A request counts as a write unless it is plainly a read: every GET, and the POSTs Honcho uses
for reading (lists, searches, conclusion queries, the dialectic, representations). Anything
else (an unknown route included) is a write, so a new route errs on the side of a failure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

READ_POST_SUFFIXES = ("/list", "/search", "/query", "/chat", "/representation")
WORKSPACES = "/v3/workspaces"


@dataclass(frozen=True)
class Touch:
    """One request as the safety check sees it."""

    index: int
    method: str
    path: str
    workspace: str | None  # None: no workspace (health, version, the workspace list)
    write: bool
    creates: bool  # get-or-create of `workspace` itself

    def __str__(self) -> str:
        kind = "write" if self.write else "read"
        return f"#{self.index} {self.method} {self.path} ({kind}, workspace {self.workspace!r})"


def is_write(method: str, path: str) -> bool:
    if method in ("GET", "HEAD", "OPTIONS"):
        return False
    return not (method == "POST" and path.endswith(READ_POST_SUFFIXES))


def touch(index: int, request: Mapping[str, Any]) -> Touch:
    method = str(request["method"])
    path = str(request["path"]).split("?", 1)[0]
    query = request.get("query") or {}
    body = request.get("json")
    workspace: str | None = None
    creates = False
    if path == WORKSPACES and method == "POST" and isinstance(body, dict):
        workspace, creates = str(body.get("id")), True
    elif path.startswith(WORKSPACES + "/") and path != WORKSPACES + "/list":
        workspace = unquote(path[len(WORKSPACES) + 1 :].split("/", 1)[0])
    elif path == "/v3/keys":
        workspace = query.get("workspace_id")
    return Touch(index, method, path, workspace, is_write(method, path), creates)


def touches(log: Iterable[Mapping[str, Any]]) -> list[Touch]:
    return [touch(i, request) for i, request in enumerate(log)]


def created_by_run(seen: list[Touch], existing: set[str]) -> set[str]:
    """Workspaces the run made itself: absent before it, and created by one of its requests."""
    return {t.workspace for t in seen if t.creates and t.workspace and t.workspace not in existing}


def violations(seen: list[Touch], existing: set[str]) -> list[Touch]:
    """Every write to a workspace the run did not create (one that existed before it, or one
    it never created itself). Key minting for a workspace counts as a write to it."""
    created = created_by_run(seen, existing)
    return [t for t in seen if t.write and t.workspace is not None and t.workspace not in created]
