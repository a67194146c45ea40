"""Keys: HS256 JWTs scoped to a workspace, a peer or a session, as `POST /v3/keys` mints."""

from __future__ import annotations

from .. import _auth
from .._common import ApiError


def check_scope(workspace: str | None, peer: str | None, session: str | None) -> None:
    """422 with the server's texts when the scope is empty or a peer/session lacks its workspace."""
    if not (workspace or peer or session):
        raise ApiError(422, "At least one of workspace_id, peer_id, or session_id must be provided")
    if (peer or session) and not workspace:
        raise ApiError(422, "workspace_id is required when scoping a key to a peer or session")


def mint(
    secret: bytes,
    workspace: str | None,
    peer: str | None,
    session: str | None,
    expires_at: str | None,
) -> str:
    check_scope(workspace, peer, session)
    return _auth.mint(
        secret, workspace=workspace, peer=peer, session=session, expires_at=expires_at
    )
