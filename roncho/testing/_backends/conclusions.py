"""Conclusions: creation checked against peers and sessions, soft delete, the semantic query
(keyword-ranked, see `_search`), and the representation text built from them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC

from .. import _search
from .._common import ApiError, nanoid, utcnow
from .._state import Conclusion, Store, Workspace
from . import peers, sessions

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
    """Write a batch in one transaction (one timestamp); 404 for an unknown peer or session."""
    for item in batch:
        for peer in (item.observer_id, item.observed_id):
            if ws is None or peer not in ws.peers:
                raise peers.missing(peer, w)
        if item.session_id is not None:
            assert ws is not None
            sessions.active(ws, item.session_id)
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


@dataclass(frozen=True, slots=True)
class Search:
    """A representation's `search_query` and `search_top_k` (the semantic part on the server)."""

    query: str | None
    top_k: int | None


def representation(
    ws: Workspace,
    observer: str,
    observed: str,
    limit: int,
    allowed_sessions: set[str] | None,
    search: Search | None = None,
) -> str:
    """`represented` as the server's markdown."""
    chosen = represented(ws, observer, observed, limit, allowed_sessions, search)
    return representation_markdown(chosen)


def represented(
    ws: Workspace,
    observer: str,
    observed: str,
    limit: int,
    allowed_sessions: set[str] | None,
    search: Search | None = None,
) -> list[Conclusion]:
    """The observer's conclusions about `observed` (within the allowlist) in a representation:
    up to `limit`, the most recent ones; with a search query, its best keyword matches first
    (`top_k`, default a third of `limit`), as the server's semantic part."""
    candidates = [
        c
        for c in ws.conclusions
        if not c.deleted
        and c.observer_id == observer
        and c.observed_id == observed
        and (allowed_sessions is None or c.session_id in allowed_sessions)
    ]
    chosen: list[Conclusion] = []
    if search is not None and search.query:
        top_k = search.top_k if search.top_k is not None else max(1, limit // 3)
        chosen = _search.rank(search.query, candidates, lambda c: c.content)[: min(top_k, limit)]
    for conclusion in reversed(candidates):
        if len(chosen) >= limit:
            break
        if conclusion not in chosen:
            chosen.append(conclusion)
    chosen.sort(key=lambda c: c.seq)
    return chosen


def representation_markdown(conclusions: list[Conclusion]) -> str:
    """The server's `Representation.format_as_markdown` for explicit conclusions: a heading, a
    blank line, one `[YYYY-MM-DD HH:MM:SS] content` line each (UTC, no fraction) and a final
    newline; "" when there are none."""
    if not conclusions:
        return ""
    lines = [f"[{c.created_at.astimezone(UTC):%Y-%m-%d %H:%M:%S}] {c.content}" for c in conclusions]
    return "\n".join(["## Explicit Observations\n", *lines, ""])


def representation_text(conclusions: list[Conclusion]) -> str:
    """3.0.12's `str(Representation)` (`utils/representation.py`), what a session context's
    token budget is charged for the representation, not its markdown: four headed sections
    with numbered lines, present even when empty (16 o200k_base tokens then)."""
    lines = [
        f"{i}. [{c.created_at.astimezone(UTC):%Y-%m-%d %H:%M:%S}] {c.content}"
        for i, c in enumerate(conclusions, 1)
    ]
    empty_levels = ["DEDUCTIVE:\n", "", "INDUCTIVE:\n", "", "CONTRADICTION:\n", ""]
    return "\n".join(["EXPLICIT:\n", *lines, "", *empty_levels])
