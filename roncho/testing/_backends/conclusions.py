"""Conclusions: creation checked against peers and sessions, soft delete, and the semantic
query (keyword-ranked, see `_search`). The representation built from them is `context`'s."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import _filters, _search
from .._common import ApiError, JsonDict, nanoid, utcnow
from .._profiles import Profile
from .._state import Conclusion, Store, Workspace, conclusion_json, conclusion_row
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


def shaped(conclusion: Conclusion, profile: Profile) -> JsonDict:
    """A conclusion as the profile's version sends it."""
    body = conclusion_json(conclusion, source_ids=profile.conclusion_source_ids)
    if profile.source_ids_membership and conclusion.level != "explicit":
        # 3.2.0 (PR 952): a derived conclusion names its premises; an explicit one sends null.
        body["source_ids"] = list(conclusion.source_ids or ())
    if profile.conclusion_times_derived:
        # 3.2.0 (PR 952; the SDK's ConclusionResponse defaults it to 1): how often the deriver
        # reached the same conclusion; the emulator never derives one twice.
        body["times_derived"] = 1
    return body


def filter_resource(profile: Profile) -> _filters.Resource:
    """What a conclusions filter may name, and how `source_ids` is read, in this version."""
    if profile.source_ids_membership:
        return _filters.CONCLUSION_ATTRIBUTED
    return _filters.CONCLUSION


def filter_row(conclusion: Conclusion, profile: Profile) -> dict[str, Any]:
    """The columns a filter reads. 3.2.0's `source_ids` are premise conclusion ids, which an
    explicit conclusion (every one the emulator makes) has none of (PR 952's schema: "None
    for 'explicit' conclusions")."""
    row = conclusion_row(conclusion)
    if profile.source_ids_membership and conclusion.level == "explicit":
        row["source_ids"] = None
    return row


def get(ws: Workspace | None, conclusion_id: str) -> Conclusion:
    """3.2.0's `GET .../conclusions/{id}` (PR 952; `get_conclusion` on branch abigail/dev-2219):
    a live conclusion of this workspace, else 404 `Conclusion not found` (a missing workspace
    too: the server looks the id up within the workspace name only)."""
    found = next((c for c in (ws.conclusions if ws else []) if c.id == conclusion_id), None)
    if found is None or found.deleted:
        raise ApiError(404, "Conclusion not found")
    return found


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
