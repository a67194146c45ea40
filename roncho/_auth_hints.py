"""What a 401 or 403 tells the caller to check: the hint ``UnauthorizedError`` adds to its
message after the server's words.

An add-on beside the call path: only an answer of 401 or 403 needs this text, so the error
loads it when one arrives (``import roncho`` does not; tests/unit/test_import_hygiene.py
holds that). Honcho 3.0.12 answers every auth failure 401 with one of the details below
(``src/security.py``).
"""

from __future__ import annotations

from typing import Any

# What to check, by the server's 401 detail (3.0.12's src/security.py), for a sent key.
_UNREADABLE = (
    "the server cannot read this client's key: this server's secret did not sign it, as "
    "with another server's key, or it was cut short when copied"
)
_NOT_PERMITTED = (
    "the server read this client's key, but its scope does not reach this resource: use an "
    "admin key or one scoped to this workspace; a peer or session key reaches only its own "
    "peer or session"
)
_AUTH_HINTS = {
    "Invalid JWT": _UNREADABLE,
    "JWT expired": "this client's key has expired: mint a new one",
    "Invalid JWT scope: peer/session token missing workspace": (
        "this client's key names a peer or session but no workspace: mint one with workspace_id"
    ),
    "JWT not permissioned for this resource": _NOT_PERMITTED,
    "Unauthorized access to resource": _NOT_PERMITTED,
    "Resource requires admin privileges": (
        "this route needs an admin key, and this client's key is scoped to a workspace, "
        "peer or session"
    ),
    "No access token provided": (
        "this client sent a key but the server saw none: a proxy between them may drop the "
        "Authorization header"
    ),
}


def auth_hint(key_sent: bool | None, detail: Any) -> str:
    """The hint for a 401/403: what was sent first, then what the server said."""
    if key_sent is False:
        return (
            "this client has no api_key, so it sent no key, and the server wants one: pass an "
            "admin key or one scoped to this workspace"
        )
    hint = _AUTH_HINTS.get(detail) if isinstance(detail, str) else None
    if key_sent and hint is not None:
        return hint
    return (
        "check this client's api_key: None sends no key; the key must be valid for this "
        "server and an admin key or one scoped to this workspace, reaching this peer or "
        "session"
    )
