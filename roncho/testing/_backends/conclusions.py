"""Conclusions: creation checked against peers and sessions, soft delete, and the semantic
query (keyword-ranked, see `_search`). The representation built from them is `context`'s."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import _search
from .._common import ApiError, nanoid, utcnow
from .._state import Conclusion, Store, Workspace
from . import lookups, peers, scopes

# A filter compiled by `_filters.compile_filter`, applied to `conclusion_row`s.
RowMatch = Callable[[Conclusion], bool]


@dataclass(frozen=True, slots=True)
class NewConclusion:
    content: str
    observer_id: str
    observed_id: str
    session_id: str | None


def create(
    store: Store, ws: Workspace | None, w: str, batch: list[NewConclusion]
) -> list[Conclusion]:
    """Write a batch in one transaction (one timestamp); 422 for a conclusion about a scope,
    404 for an unknown peer or session."""
    scopes.refuse(ws, [item.observed_id for item in batch], scopes.CONCLUSION)
    for item in batch:
        for peer in (item.observer_id, item.observed_id):
            if ws is None or peer not in ws.peers:
                raise peers.missing(peer, w)
        if item.session_id is not None:
            assert ws is not None
            lookups.active_session(ws, item.session_id)
    assert ws is not None
    now = utcnow()  # one transaction, one timestamp for the whole batch
    created = [
        Conclusion(
            id=nanoid(),
            seq=store.next_seq(),
            content=item.content,
            observer_id=item.observer_id,
            observed_id=item.observed_id,
            session_id=item.session_id,
            level="explicit",
            created_at=now,
            workspace_id=ws.id,
        )
        for item in batch
    ]
    ws.conclusions.extend(created)
    return created


def listed(ws: Workspace | None, match: RowMatch, *, newest_first: bool) -> list[Conclusion]:
    """Live conclusions ordered by created_at only; rows sharing a timestamp (one batch)
    stay in insertion order either way, as the server's do."""
    found = [c for c in (ws.conclusions if ws else []) if not c.deleted and match(c)]
    found.sort(key=lambda c: c.created_at, reverse=newest_first)
    return found


def query(
    ws: Workspace | None,
    text: str,
    match: RowMatch,
    top_k: int,
    *,
    max_distance: float | None = None,
) -> list[Conclusion]:
    """The `top_k` nearest the query (the server's vector search, `_search.nearest`), none
    farther than `max_distance` when given; newest first among equals."""
    candidates = [c for c in reversed(ws.conclusions if ws else []) if not c.deleted and match(c)]
    return _search.nearest(text, candidates, lambda c: c.content, top_k, max_distance)


def delete(ws: Workspace | None, w: str, conclusion_id: str) -> None:
    found = next((c for c in (ws.conclusions if ws else []) if c.id == conclusion_id), None)
    if found is None or found.deleted:
        raise ApiError(
            404, f"Document {conclusion_id} not found or does not belong to workspace {w}"
        )
    found.deleted = True
