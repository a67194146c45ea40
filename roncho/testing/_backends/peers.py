"""Peers: get-or-create with the name check, updates, the sessions of a peer, peer cards."""

from __future__ import annotations

from collections.abc import Iterable

from .._common import ID_PATTERN, ApiError, JsonDict, utcnow
from .._state import Peer, Session, Store, Workspace
from . import scopes, workspaces


def missing(peer: str, w: str) -> ApiError:
    return ApiError(404, f"Peer {peer} not found in workspace {w}")


def check_names(names: Iterable[str]) -> None:
    """422 when new peers' names break the id pattern, every offender named, sorted
    (3.0.12 `src/crud/peer.py:96-100`)."""
    offenders = sorted({name for name in names if not ID_PATTERN.match(name)})
    if offenders:
        raise ApiError(422, f"Peer name(s) {offenders} must match pattern ^[a-zA-Z0-9_-]+$")


def check_name(name: str) -> None:
    check_names([name])


def find_or_create(ws: Workspace, name: str) -> tuple[Peer, bool]:
    """The peer `name` (made if missing: 422 when the name breaks the id pattern); if new."""
    peer = ws.peers.get(name)
    if peer is not None:
        return peer, False
    check_name(name)
    peer = Peer(id=name, workspace_id=ws.id, created_at=utcnow())
    ws.peers[name] = peer
    return peer, True


def upsert(
    ws: Workspace, name: str, metadata: JsonDict | None, configuration: JsonDict | None
) -> tuple[Peer, bool]:
    """Get-or-create, then replace the fields given; and whether it was made."""
    peer, created = find_or_create(ws, name)
    if metadata is not None:
        peer.metadata = metadata
    if configuration is not None:
        peer.configuration = configuration
    return peer, created


def update(
    ws: Workspace, name: str, metadata: JsonDict | None, configuration: JsonDict | None
) -> Peer:
    """`upsert`, but a scope peer is the scope routes' (422)."""
    if scopes.is_scope(ws, name):
        raise ApiError(422, f"Peer '{name}' is a scope. Use the scopes routes to manage scopes.")
    peer, _ = upsert(ws, name, metadata, configuration)
    return peer


def listed(ws: Workspace | None, kind: str | None) -> list[Peer]:
    """The workspace's peers; scope peers left out unless `kind` asks for them ("scope":
    only them, "all": every peer)."""
    found = list(ws.peers.values()) if ws else []
    if kind == "all":
        return found
    return [p for p in found if scopes.is_scope(ws, p.id) == (kind == "scope")]


def sessions_of(ws: Workspace | None, name: str) -> list[Session]:
    """Every session the peer was ever a member of (active or not), in creation order."""
    sessions = list(ws.sessions.values()) if ws else []
    return [session for session in sessions if name in session.members]


def card(ws: Workspace | None, observer: str, target: str, w: str) -> list[str] | None:
    """The observer's card about `target` (404 when the observer does not exist)."""
    if ws is None or observer not in ws.peers:
        raise missing(observer, w)
    lines = ws.cards.get((observer, target))
    return list(lines) if lines is not None else None


def set_card(
    store: Store, ws: Workspace | None, observer: str, target: str, lines: list[str], w: str
) -> list[str]:
    """The observer's card about `target` replaced (none is ever formed about a scope:
    422). 3.0.12 `src/crud/peer_card.py:91-94` gets or creates the observer (and so, in a
    missing workspace, the workspace) and never looks the target up: a card about a
    missing target is stored. The lines as stored."""
    scopes.refuse_observed(ws, [target], scopes.CARD)
    if ws is None:
        check_name(observer)
        ws = workspaces.find_or_create(store, w)
    find_or_create(ws, observer)
    # 3.0.12 `src/schemas/api.py:320-333` strips NUL characters from each line.
    stored = [line.replace("\x00", "") for line in lines]
    ws.cards[(observer, target)] = stored
    return list(stored)
