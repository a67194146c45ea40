"""Message search over a workspace, a peer or a session (ranking: `roncho.testing._search`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .. import _search
from .._state import Message, Workspace
from . import scopes


def messages(
    ws: Workspace | None,
    w: str,
    text: str,
    limit: int,
    forced: Mapping[str, str],
    perspective: object,
    scope: str | None,
    match: Callable[[Message], bool],
) -> list[Message]:
    """Messages whose fields equal `forced` (`peer_id` or `session_id` of the route), of the
    sessions `perspective` belongs to when given, of every session ever added to `scope`
    when given (404 for a missing scope), that `match`, ranked as the server's hybrid search ranks
    them (`_search.hybrid`: it fills up to `limit`; a message without an embedding, a clone's
    copy, is found by its words only)."""
    # A scope with no member sessions matches nothing, not everything.
    in_scope = scopes.searched(ws, w, scope) if scope is not None else None
    candidates = list(ws.messages) if ws else []
    allowed: set[str] | None = None
    if perspective is not None and ws is not None:
        allowed = {s.id for s in ws.sessions.values() if perspective in s.members}
    found = [
        m
        for m in candidates
        if all(getattr(m, key) == value for key, value in forced.items())
        and (allowed is None or m.session_id in allowed)
        and (in_scope is None or m.session_id in in_scope)
        and match(m)
    ]
    return _search.hybrid(
        text, found, lambda m: m.content, lambda m: m.created_at, limit, lambda m: m.embedded
    )
