"""Queue status: work units of the deriver queue by state, per session and in total."""

from __future__ import annotations

import time
from collections.abc import Mapping

from .._common import JsonDict
from .._state import Workspace


def _empty() -> dict[str, int]:
    return {"total": 0, "completed": 0, "in_progress": 0, "pending": 0}


def status(
    ws: Workspace | None, observer: str | None, sender: str | None, session_name: str | None
) -> JsonDict:
    """The status body: visible items only, narrowed as the query asks."""
    now = time.monotonic()
    totals = _empty()
    per_session: dict[str, dict[str, int]] = {}
    for item in ws.queue if ws else []:
        if item.visible_at > now:
            continue
        if session_name is not None and item.session_name != session_name:
            continue
        if observer is not None or sender is not None:
            # As on the server: observer_id matches only dream items' single observer,
            # sender_id matches the observed peer; both given are OR-ed.
            observed = item.sender if item.task == "representation" else None
            if not (sender is not None and observed == sender):
                continue
        counts = per_session.setdefault(item.session_internal_id, _empty())
        for bucket in (totals, counts):
            bucket["total"] += 1
            bucket[item.state] += 1
    sessions: JsonDict | None = None
    if session_name is None and per_session:
        sessions = {
            key: {"session_id": key, **_work_units(counts)} for key, counts in per_session.items()
        }
    return {**_work_units(totals), "sessions": sessions}


def _work_units(counts: Mapping[str, int]) -> JsonDict:
    return {
        "total_work_units": counts["total"],
        "completed_work_units": counts["completed"],
        "in_progress_work_units": counts["in_progress"],
        "pending_work_units": counts["pending"],
    }
