"""HS256 JWTs and Honcho's authorization rules, with stdlib hmac/base64/json.

A key's claims: `t` (creation time), `ad` (admin), `w`, `p`, `s` (workspace, peer, session
names), optional `exp` (ISO string). Authorization goes by the narrowest claim:
admin > session (`s`) > peer (`p`) > workspace (`w`). Every failure is a 401 (never 403).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any

from ._common import ApiError, iso, parse_datetime, utcnow

NO_TOKEN = "No access token provided"
INVALID = "Invalid JWT"
EXPIRED = "JWT expired"
MISSING_WORKSPACE = "Invalid JWT scope: peer/session token missing workspace"
ADMIN_ONLY = "Resource requires admin privileges"
NOT_PERMITTED = "JWT not permissioned for this resource"
# What the get-or-create handlers of 3.0.12 say themselves (`src/routers/workspaces.py:45`,
# `src/routers/peers.py:171-176`, `src/routers/sessions.py:306`): their routes' `require_auth`
# names no workspace, so another workspace's key reaches the handler.
UNAUTHORIZED = "Unauthorized access to resource"


@dataclass(frozen=True, slots=True)
class Claims:
    """Decoded key claims; empty strings already turned into None."""

    admin: bool
    workspace: str | None
    peer: str | None
    session: str | None


ADMIN = Claims(admin=True, workspace=None, peer=None, session=None)


def check_own(
    claims: Claims, workspace: str, *, peer: str | None = None, session: str | None = None
) -> None:
    """A get-or-create's own key check (401 `UNAUTHORIZED`): a non-admin key must be for
    `workspace`, and a peer or session key for the `peer` or `session` being made."""
    if claims.admin:
        return
    if claims.workspace != workspace:
        raise ApiError(401, UNAUTHORIZED)
    if peer is not None and claims.peer is not None and claims.peer != peer:
        raise ApiError(401, UNAUTHORIZED)
    if session is not None and claims.session is not None and claims.session != session:
        raise ApiError(401, UNAUTHORIZED)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def encode(secret: bytes, claims: dict[str, Any]) -> str:
    """Sign `claims` as a compact HS256 JWT."""
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    payload = _b64(json.dumps(claims, separators=(",", ":")).encode())
    signing_input = f"{header}.{payload}".encode("ascii")
    signature = hmac.new(secret, signing_input, hashlib.sha256).digest()
    return f"{header}.{payload}.{_b64(signature)}"


def mint(
    secret: bytes,
    *,
    admin: bool = False,
    workspace: str | None = None,
    peer: str | None = None,
    session: str | None = None,
    expires_at: str | None = None,
) -> str:
    claims: dict[str, Any] = {"t": iso(utcnow())}
    if admin:
        claims["ad"] = True
    if workspace:
        claims["w"] = workspace
    if peer:
        claims["p"] = peer
    if session:
        claims["s"] = session
    if expires_at:
        claims["exp"] = expires_at
    return encode(secret, claims)


def decode(secret: bytes, token: str, *, refuse_expiring: bool = False) -> Claims:
    """Verify and decode a token; raises `ApiError(401, ...)` with the server's detail.

    ``refuse_expiring`` copies 3.0.12, which stores ``exp`` as an ISO string
    (src/routers/keys.py:58-66) that PyJWT's number check fails on, so every key made with
    ``expires_at`` is ``Invalid JWT`` (src/security.py:105-145); docs/emulator-edges.md."""
    try:
        header_b64, payload_b64, signature_b64 = token.split(".")
        signing_input = f"{header_b64}.{payload_b64}".encode("ascii")
        expected = hmac.new(secret, signing_input, hashlib.sha256).digest()
        if not hmac.compare_digest(expected, _unb64(signature_b64)):
            raise ValueError("bad signature")
        header = json.loads(_unb64(header_b64))
        payload = json.loads(_unb64(payload_b64))
        if not isinstance(header, dict) or header.get("alg") != "HS256":
            raise ValueError("bad header")
        if not isinstance(payload, dict):
            raise ValueError("bad payload")
    except (ValueError, UnicodeError):
        raise ApiError(401, INVALID) from None
    exp = payload.get("exp")
    if exp is not None:
        moment = parse_datetime(exp) if isinstance(exp, str) else None
        if moment is None or refuse_expiring:
            raise ApiError(401, INVALID)
        if moment <= utcnow():
            raise ApiError(401, EXPIRED)
    claims = Claims(
        admin=payload.get("ad") is True,
        workspace=_claim(payload, "w"),
        peer=_claim(payload, "p"),
        session=_claim(payload, "s"),
    )
    if (claims.peer or claims.session) and not claims.workspace and not claims.admin:
        raise ApiError(401, MISSING_WORKSPACE)
    return claims


def _claim(payload: dict[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) and value else None


def bearer_token(header: str | None) -> str:
    """The token of an `Authorization: Bearer <jwt>` header; 401 when absent or another scheme."""
    if not header:
        raise ApiError(401, NO_TOKEN)
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, NO_TOKEN)
    return token.strip()
