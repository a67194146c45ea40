"""A workspace's session looked up by name, with the server's 404 when it is not there.

The scope rules need it as the session rules do; here, below both, `scopes` does not have to
import `sessions`, so that `sessions` and `peers` can apply the scope rules themselves.
"""

from __future__ import annotations

from .._common import ApiError
from .._state import Session, Workspace


def session_missing(session: str, w: str) -> ApiError:
    return ApiError(404, f"Session {session} not found in workspace {w}")


def active_session(ws: Workspace, name: str) -> Session:
    """The active session `name`, else 404."""
    session = ws.sessions.get(name)
    if session is None or not session.is_active:
        raise session_missing(name, ws.id)
    return session
