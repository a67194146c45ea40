"""Scopes as Honcho 3.0.12 has them (`src/utils/scopes.py`, `crud/peer.py`, the routers).

A scope `x` is backed by a peer named `scope.x` (the prefix is outside the peer-name pattern,
so no API call can make such a peer otherwise). Routes refuse a scope peer in the positions
the server guards (422, the server's texts), and the `scope` read option of chat,
representation, workspace search and session context narrows the answer to the scope's
member sessions. Pure rules over the emulator's state; the routes call them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ._auth import Claims
from ._common import ApiError, utcnow, validation_error
from ._state import Peer, Workspace

PREFIX = "scope."
KIND = "scope"
NAME_MAX = 512 - len(PREFIX)
LIST_MAX = 100
_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")

# The server's guidance after "Peer name(s) [...] are scopes.", by position.
MEMBERSHIP = (
    "Scope membership is managed via the scopes routes "
    "(/v3/workspaces/{workspace_id}/scopes/{scope_id}/sessions) or the `scopes` field at "
    "session creation."
)
MEMBERSHIP_CONFIG = "Scope membership is managed via the scopes routes."
AUTHOR = "Scope peers cannot author messages."
CHAT = "No representation is formed of a scope, so a scope cannot be a chat observer or target."
REPRESENTATION = (
    "No representation is formed of a scope, so a scope cannot be a representation observer "
    "or target."
)
CONTEXT_TARGET = "No representation is formed of a scope, so a scope cannot be a context target."
PERSPECTIVE = "Use the `scope` parameter instead."
READ_OPTION = "Use the `scope` option on the read routes instead."
CONCLUSION = "No conclusion is ever formed about a scope."
CARD = "No peer card is ever formed about a scope."
DREAM = "No representation is formed of a scope, so a scope cannot be the observed peer of a dream."
NARROW_KEY = "`scope` requires a workspace- or admin-level key"


def peer_name(scope: str) -> str:
    return f"{PREFIX}{scope}"


def is_scope(ws: Workspace | None, name: str) -> bool:
    """A real scope peer: the reserved name AND a scope behind it (the server's flag)."""
    return (
        ws is not None
        and name.startswith(PREFIX)
        and name[len(PREFIX) :] in ws.scopes
        and name in ws.peers
    )


def backing_peer(ws: Workspace, scope: str) -> Peer:
    """The peer `scope.<scope>`, made with the scope (observes, never observed)."""
    name = peer_name(scope)
    peer = ws.peers.get(name)
    if peer is None:
        peer = Peer(id=name, workspace_id=ws.id, created_at=utcnow())
        peer.configuration = {"observe_me": False}
        ws.peers[name] = peer
    return peer


def refuse(ws: Workspace | None, names: Iterable[str], action: str) -> None:
    """422 when any name is a real scope (a missing reserved name passes)."""
    offenders = sorted({name for name in names if is_scope(ws, name)})
    if offenders:
        raise ApiError(422, f"Peer name(s) {offenders} are scopes. {action}")


def refuse_observed(ws: Workspace | None, names: Iterable[str], action: str) -> None:
    """As `refuse`, and a reserved name that does not exist is refused too (the observed
    position: nothing else would stop state being made about a future scope)."""
    wanted = set(names)
    refuse(ws, wanted, action)
    missing = sorted(
        name for name in wanted if name.startswith(PREFIX) and (ws is None or name not in ws.peers)
    )
    if missing:
        raise ApiError(
            422,
            f"Peer name(s) {missing} are in the reserved scope namespace and do not exist, "
            f"so they may become scopes later. {action}",
        )


def name_error(name: object) -> str | None:
    """Why `name` is not a valid unprefixed scope name (None when it is)."""
    if not isinstance(name, str):
        return "Input should be a valid string"
    if not 1 <= len(name) <= NAME_MAX:
        return f"Scope name must be between 1 and {NAME_MAX} characters"
    if name.startswith(PREFIX):
        return (
            f"Scope name must not start with the reserved prefix '{PREFIX}' "
            "(scope names are unprefixed)"
        )
    if not _NAME.match(name):
        return "Scope name must match pattern ^[a-zA-Z0-9_-]+$"
    return None


def _invalid(loc: list[str | int], message: str, value: object) -> ApiError:
    return validation_error("value_error", loc, f"Value error, {message}", value, {"error": {}})


def check_names(value: object, loc: list[str | int]) -> list[str]:
    """The `scopes` list of a session create: each a valid name, at most LIST_MAX."""
    if not isinstance(value, list):
        raise validation_error("list_type", loc, "Input should be a valid list", value)
    if len(value) > LIST_MAX:
        raise validation_error(
            "too_long",
            loc,
            f"List should have at most {LIST_MAX} items after validation, not {len(value)}",
            value,
            {"field_type": "List", "max_length": LIST_MAX, "actual_length": len(value)},
        )
    for index, name in enumerate(value):
        problem = name_error(name)
        if problem:
            raise _invalid([*loc, index], problem, name)
    return [str(name) for name in value]


def parse_option(value: object, loc: list[str | int]) -> str | list[str] | None:
    """The `scope` read option: one name, or a list of 1 to LIST_MAX names."""
    if value is None:
        return None
    if isinstance(value, list):
        if not 1 <= len(value) <= LIST_MAX:
            raise validation_error(
                "too_short" if not value else "too_long",
                loc,
                f"List should have at least 1 item after validation, not {len(value)}"
                if not value
                else f"List should have at most {LIST_MAX} items after validation, "
                f"not {len(value)}",
                value,
            )
        return check_names(value, loc)
    problem = name_error(value)
    if problem:
        raise _invalid(loc, problem, value)
    return str(value)


def check_key(claims: Claims, *, session_key_too: bool = False) -> None:
    """A scoped read needs a workspace- or admin-level key (401 otherwise)."""
    if claims.admin:
        return
    if claims.peer is not None or (session_key_too and claims.session is not None):
        raise ApiError(401, NARROW_KEY)


def find(ws: Workspace | None, w: str, scope: str) -> str:
    """The backing peer of a scope that exists (404 `Scope <x> not found ...` otherwise)."""
    if ws is None or scope not in ws.scopes:
        raise ApiError(404, f"Scope {scope} not found in workspace {w}")
    return peer_name(scope)


def sessions_of(ws: Workspace, scope: str) -> list[str]:
    """The member sessions of a scope, in the order they were added."""
    found = ws.scopes.get(scope)
    return list(found.backfill) if found is not None else []


def resolve(ws: Workspace | None, w: str, option: str | list[str]) -> set[str]:
    """The sessions a `scope` option confines a read to: its scopes' member sessions.

    The server reads one scope as the scope peer's own representation, which a backfill
    fills from the member sessions' conclusions; here that is the observer's conclusions
    from those sessions. A list of scopes is the union of their sessions on both."""
    names = [option] if isinstance(option, str) else option
    for scope in names:
        find(ws, w, scope)
    assert ws is not None
    return {session for scope in names for session in sessions_of(ws, scope)}
