"""Scopes: get-or-create, the sessions added to one, and their (simulated) backfill."""

from __future__ import annotations

from .._common import ApiError, JsonDict, iso, utcnow
from .._deriver import Deriver
from .._state import Scope, Session, Workspace
from . import sessions


def get_or_create(ws: Workspace, name: str, metadata: JsonDict | None) -> tuple[Scope, bool]:
    scope = ws.scopes.get(name)
    if scope is not None:
        return scope, False
    scope = Scope(id=name, created_at=utcnow(), metadata=metadata or {})
    ws.scopes[name] = scope
    return scope, True


def find(ws: Workspace | None, w: str, name: str) -> Scope:
    scope = ws.scopes.get(name) if ws else None
    if scope is None:
        raise ApiError(404, f"Scope {name} not found in workspace {w}")
    return scope


def add_sessions(
    ws: Workspace | None,
    w: str,
    name: str,
    session_names: list[str],
    deriver: Deriver,
    delay: float,
) -> None:
    """Every session must be active; each starts a pending backfill that completes `delay`
    seconds later."""
    scope = find(ws, w, name)
    assert ws is not None
    for session_name in session_names:
        sessions.active(ws, session_name)
    stamp = iso(utcnow())
    for session_name in session_names:
        scope.backfill[session_name] = {"state": "pending", "updated_at": stamp}
    schedule_backfill(ws, scope, deriver, delay)


def schedule_backfill(ws: Workspace, scope: Scope, deriver: Deriver, delay: float) -> None:
    """Complete the scope's pending backfills `delay` seconds from now."""
    deriver.schedule(delay, lambda: _backfilled(ws, scope))


def remove_session(ws: Workspace | None, w: str, name: str, session_name: str) -> None:
    find(ws, w, name).backfill.pop(session_name, None)


def sessions_of(ws: Workspace | None, w: str, name: str) -> list[Session]:
    scope = find(ws, w, name)
    assert ws is not None
    return [
        ws.sessions[session_name]
        for session_name in scope.backfill
        if session_name in ws.sessions and ws.sessions[session_name].is_active
    ]


def _backfilled(ws: Workspace, scope: Scope) -> None:
    """The simulated backfill of a scope: every pending session completes at once."""
    for name, job in scope.backfill.items():
        if job.get("state") == "pending":
            copied = sum(1 for c in ws.conclusions if c.session_id == name and not c.deleted)
            job.update(state="completed", updated_at=iso(utcnow()), docs_copied=copied)
