"""Message search over a workspace, a peer or a session (ranking: `roncho.testing._search`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .. import _search
from .._state import Message, Workspace


def messages(
    ws: Workspace | None,
    text: str,
    limit: int,
    forced: Mapping[str, str],
    perspective: object,
    match: Callable[[Message], bool],
) -> list[Message]:
    """Messages whose fields equal `forced` (`peer_id` or `session_id` of the route), of the
    sessions `perspective` belongs to when given, that `match`, ranked, at most `limit`."""
    candidates = list(ws.messages) if ws else []
    allowed: set[str] | None = None
    if perspective is not None and ws is not None:
        allowed = {s.id for s in ws.sessions.values() if perspective in s.members}
    found = [
        m
        for m in candidates
        if all(getattr(m, key) == value for key, value in forced.items())
        and (allowed is None or m.session_id in allowed)
        and match(m)
    ]
    return _search.rank(text, found, lambda m: m.content)[:limit]
