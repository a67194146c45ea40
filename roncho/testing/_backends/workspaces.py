"""Workspaces: get-or-create, update, and the delete that refuses while sessions are active."""

from __future__ import annotations

from .._common import ApiError, JsonDict, utcnow
from .._deriver import Deriver
from .._state import Store, Workspace
from . import scopes


def find(store: Store, w: str) -> Workspace | None:
    return store.workspaces.get(w)


def find_or_create(store: Store, w: str) -> Workspace:
    """The workspace `w`, made empty if it does not exist (as the server's routes do)."""
    ws = store.workspaces.get(w)
    if ws is None:
        ws = Workspace(id=w, created_at=utcnow())
        store.workspaces[w] = ws
    return ws


def get_or_create(
    store: Store, w: str, metadata: JsonDict | None, configuration: JsonDict | None
) -> tuple[Workspace, bool]:
    """The existing workspace unchanged, or a new one with the given fields; and if new."""
    ws = store.workspaces.get(w)
    if ws is not None:
        return ws, False
    ws = Workspace(
        id=w, created_at=utcnow(), metadata=metadata or {}, configuration=configuration or {}
    )
    store.workspaces[w] = ws
    return ws, True


def update(ws: Workspace, metadata: JsonDict | None, configuration: JsonDict | None) -> None:
    """Metadata replaced, configuration merged key by key."""
    if metadata is not None:
        ws.metadata = metadata
    if configuration is not None:
        ws.configuration = {**ws.configuration, **configuration}


def delete(
    store: Store, deriver: Deriver, ws: Workspace | None, w: str, purge_delay: float
) -> None:
    """Accept a delete (409 while a session is active); the purge runs `purge_delay` later."""
    if ws is None:
        raise ApiError(404, f"Workspace {w} not found")
    if ws.deleting:
        return
    if any(session.is_active for session in ws.sessions.values()):
        raise ApiError(
            409,
            f"Cannot delete workspace '{w}': active session(s) remain. Delete all sessions first.",
        )
    ws.deleting = True
    schedule_purge(store, deriver, ws, purge_delay)


def schedule_dream(ws: Workspace | None, observed: str | None) -> None:
    """A dream request's rule (the emulated deriver has no dreams): its observed peer is no
    scope (422)."""
    if observed is not None:
        scopes.refuse_observed(ws, [observed], scopes.DREAM)


def schedule_purge(store: Store, deriver: Deriver, ws: Workspace, delay: float) -> None:
    """Remove a workspace being deleted `delay` seconds from now."""
    deriver.schedule(delay, lambda: _purge(store, ws))


def _purge(store: Store, ws: Workspace) -> None:
    if store.workspaces.get(ws.id) is ws:
        del store.workspaces[ws.id]
