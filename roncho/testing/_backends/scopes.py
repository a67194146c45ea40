"""Scopes as Honcho 3.0.12 has them (`src/utils/scopes.py`, `crud/peer.py`, the routers): the
one module of their rules.

A scope `x` is backed by a peer named `scope.x` (the prefix is outside the peer-name pattern,
so no API call can make such a peer otherwise). Here are: get-or-create (the backing peer
with it), the sessions added to one and their (simulated) backfill; the positions that
refuse a scope peer (422, the server's texts); the `scope` read option of chat,
representation, workspace search and session context (its names, its key rule, and the
member sessions it narrows a read to).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .._auth import Claims
from .._common import ApiError, JsonDict, error_item, iso, utcnow, validation_error
from .._deriver import Deriver
from .._state import Peer, Scope, Session, Workspace
from . import lookups

PREFIX = "scope."
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
MEMBERSHIP_KEY = "Scope membership requires a workspace-level key"


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


def _backing_peer(ws: Workspace, scope: str) -> Peer:
    """The peer `scope.<scope>`, made with the scope (observes, never observed): as the
    server, a scope is a peer."""
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


def check_name(name: str, loc: list[str | int]) -> str:
    """A new scope's `id` as 3.0.12's `ScopeCreate` checks it (`src/schemas/api.py:96-117`):
    at most 506 characters, then the reserved prefix, then the pattern (422)."""
    problem = name_error(name)
    if problem:
        raise _invalid(loc, problem, name)
    return name


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
        if not isinstance(name, str):
            raise validation_error(
                "string_type", [*loc, index], "Input should be a valid string", name
            )
    # 3.0.12 `SessionCreate.validate_scopes` (`src/schemas/api.py:437-444`) checks the names
    # as a list: its error is the list's, with the whole list as the input.
    for name in value:
        problem = name_error(name)
        if problem:
            raise _invalid(loc, problem, value)
    return [str(name) for name in value]


def parse_option(value: object, loc: list[str | int]) -> str | None:
    """The `scope` option of the session context and the workspace search: a plain `str` in
    3.0.12 (`src/routers/sessions.py:715`, `src/schemas/api.py:740`), not checked as a name
    but looked up as sent (`find`: 404 for any name no scope has, `scope.x` and "" too).
    Chat and the representation take `parse_read_option`."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise validation_error("string_type", loc, "Input should be a valid string", value)
    return value


# The members of 3.0.12's `_ScopeOption` union (`src/schemas/api.py:129-131`), as pydantic
# names them in an error's `loc`.
_ONE = "function-after[_validate_scope_name(), str]"
_MANY = "list[function-after[_validate_scope_name(), str]]"


def parse_read_option(value: object, loc: list[str | int]) -> str | list[str] | None:
    """The `scope` option of chat and the representation: 3.0.12's `_ScopeOption`, one name
    or a list of 1 to LIST_MAX names (`src/schemas/api.py:129-131`). A value that neither
    member accepts is refused as pydantic refuses a union: each member's own errors, the
    member's name appended to `loc` (one name first, then the list)."""
    if value is None:
        return None
    if isinstance(value, str):
        problem = name_error(value)
        if problem is None:
            return value
        raise ApiError(
            422,
            [
                _invalid_item([*loc, _ONE], problem, value),
                error_item("list_type", [*loc, _MANY], "Input should be a valid list", value),
            ],
        )
    errors = [error_item("string_type", [*loc, _ONE], "Input should be a valid string", value)]
    if not isinstance(value, list):
        errors.append(error_item("list_type", [*loc, _MANY], "Input should be a valid list", value))
        raise ApiError(422, errors)
    many: list[str | int] = [*loc, _MANY]
    if len(value) > LIST_MAX:
        # pydantic-core stops at the item over the bound: only the length is reported.
        errors.append(_length_item("too_long", many, value))
        raise ApiError(422, errors)
    for index, name in enumerate(value):
        if not isinstance(name, str):
            errors.append(
                error_item("string_type", [*many, index], "Input should be a valid string", name)
            )
        elif (problem := name_error(name)) is not None:
            errors.append(_invalid_item([*many, index], problem, name))
    if not value:
        errors.append(_length_item("too_short", many, value))
    if len(errors) > 1:
        raise ApiError(422, errors)
    return [str(name) for name in value]


def _invalid_item(loc: list[str | int], message: str, value: object) -> JsonDict:
    return error_item("value_error", loc, f"Value error, {message}", value, {"error": {}})


def _length_item(kind: str, loc: list[str | int], value: list[object]) -> JsonDict:
    if kind == "too_short":
        message = f"List should have at least 1 item after validation, not {len(value)}"
        ctx: JsonDict = {"field_type": "List", "min_length": 1, "actual_length": len(value)}
    else:
        message = f"List should have at most {LIST_MAX} items after validation, not {len(value)}"
        ctx = {"field_type": "List", "max_length": LIST_MAX, "actual_length": len(value)}
    return error_item(kind, loc, message, value, ctx)


def check_key(claims: Claims, *, session_key_too: bool = False) -> None:
    """A scoped read needs a workspace- or admin-level key (401 otherwise)."""
    if claims.admin:
        return
    if claims.peer is not None or (session_key_too and claims.session is not None):
        raise ApiError(401, NARROW_KEY)


def check_membership_key(claims: Claims) -> None:
    """Joining scopes at session creation needs a workspace- or admin-level key (401)."""
    if not (claims.admin or (claims.peer is None and claims.session is None)):
        raise ApiError(401, MEMBERSHIP_KEY)


def get_or_create(ws: Workspace, name: str, metadata: JsonDict | None) -> tuple[Scope, bool]:
    """The scope `name` (made, with its backing peer, if missing); and whether it is new."""
    scope = ws.scopes.get(name)
    created = scope is None
    if scope is None:
        scope = Scope(id=name, created_at=utcnow(), metadata=metadata or {})
        ws.scopes[name] = scope
    _backing_peer(ws, name)
    return scope, created


def find(ws: Workspace | None, w: str, name: str) -> Scope:
    """The scope `name`, else 404 `Scope <x> not found in workspace <w>`."""
    scope = ws.scopes.get(name) if ws else None
    if scope is None:
        raise ApiError(404, f"Scope {name} not found in workspace {w}")
    return scope


def add_sessions(
    ws: Workspace | None,
    w: str,
    name: str,
    session_names: list[str],
    deriver: Deriver,
    delay: float,
) -> None:
    """Every session must be active; each starts a pending backfill that completes `delay`
    seconds later."""
    scope = find(ws, w, name)
    assert ws is not None
    # 3.0.12 `src/crud/scope.py:396-409`: every missing or inactive session named, sorted.
    missing = sorted(
        {n for n in session_names if n not in ws.sessions or not ws.sessions[n].is_active}
    )
    if missing:
        raise ApiError(404, f"Session(s) {missing} not found in workspace {w}")
    stamp = iso(utcnow())
    for session_name in session_names:
        scope.backfill[session_name] = {"state": "pending", "updated_at": stamp}
        if session_name not in scope.members_ever:
            scope.members_ever.append(session_name)
    schedule_backfill(ws, scope, deriver, delay)


def schedule_backfill(ws: Workspace, scope: Scope, deriver: Deriver, delay: float) -> None:
    """Complete the scope's pending backfills `delay` seconds from now."""
    deriver.schedule(delay, lambda: _backfilled(ws, scope))


def remove_session(ws: Workspace | None, w: str, name: str, session_name: str) -> None:
    """The session leaves the scope; 404 when it is missing or inactive (3.0.12
    `src/crud/scope.py:467-475` goes through `remove_peers_from_session`, which looks the
    session up, `src/crud/session.py:889`)."""
    scope = find(ws, w, name)
    assert ws is not None
    lookups.active_session(ws, session_name)
    scope.backfill.pop(session_name, None)


def sessions_of(ws: Workspace | None, w: str, name: str) -> list[Session]:
    """The scope's active member sessions, in the order they were added."""
    scope = find(ws, w, name)
    assert ws is not None
    return [
        ws.sessions[session_name]
        for session_name in scope.backfill
        if session_name in ws.sessions and ws.sessions[session_name].is_active
    ]


def _backfilled(ws: Workspace, scope: Scope) -> None:
    """The simulated backfill of a scope: every pending session completes at once."""
    for name, job in scope.backfill.items():
        if job.get("state") == "pending":
            copied = sum(1 for c in ws.conclusions if c.session_id == name and not c.deleted)
            job.update(state="completed", updated_at=iso(utcnow()), docs_copied=copied)


def searched(ws: Workspace | None, w: str, name: str) -> set[str]:
    """The sessions a workspace search with `scope` covers: every session the scope peer was
    ever a member of, removed ones too (3.0.12 `src/routers/workspaces.py:157-170` asks
    `get_peer_session_names`, whose default counts any membership record)."""
    return set(find(ws, w, name).members_ever)


def resolve(ws: Workspace | None, w: str, option: str | list[str]) -> set[str]:
    """The sessions a `scope` option confines a read to: its scopes' member sessions (those
    deleted since too: their conclusions go with their purge).

    The server reads one scope as the scope peer's own representation, which a backfill
    fills from the member sessions' conclusions; here that is the observer's conclusions
    from those sessions. A list of scopes is the union of their sessions on both."""
    names = [option] if isinstance(option, str) else option
    found = [find(ws, w, scope) for scope in names]
    return {session for scope in found for session in scope.backfill}
