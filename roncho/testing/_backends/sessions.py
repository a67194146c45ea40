"""Sessions: get-or-create with members, the observer limit, soft delete then purge, member
configuration, the context window, summaries and clones."""

from __future__ import annotations

from collections.abc import Mapping

from .. import _auth
from .._auth import Claims
from .._common import ApiError, JsonDict, nanoid, utcnow
from .._deriver import Deriver
from .._state import Membership, Message, Peer, Session, Store, Workspace
from . import lookups, peers, scopes

# The server's SESSION_OBSERVERS_LIMIT default.
SESSION_OBSERVERS_LIMIT = 10

# A peers map: name -> (observe_me, observe_others), None where not given.
PeerMap = Mapping[str, tuple[bool | None, bool | None]]


def find_or_create(ws: Workspace, name: str) -> tuple[Session, bool]:
    """The active session `name` (404 if deleted), made if missing; and whether it is new."""
    session = ws.sessions.get(name)
    if session is not None:
        if not session.is_active:
            raise lookups.session_missing(name, ws.id)
        return session, False
    session = Session(id=name, workspace_id=ws.id, created_at=utcnow())
    ws.sessions[name] = session
    return session, True


def is_member(store: Store, w: str, s: str, peer: str) -> bool:
    """Whether `peer` is an active member of the active session `s`."""
    ws = store.workspaces.get(w)
    session = ws.sessions.get(s) if ws else None
    if session is None or not session.is_active:
        return False
    member = session.members.get(peer)
    return member is not None and member.active


def require_member(ws: Workspace | None, name: str, claims: Claims) -> None:
    """A peer key may only read sessions it is an active member of (401 otherwise)."""
    peer = claims.peer
    if peer is None or claims.admin:
        return
    session = ws.sessions.get(name) if ws else None
    member = session.members.get(peer) if session else None
    if member is None or not member.active:
        raise ApiError(401, _auth.NOT_PERMITTED)


def _check_observers(name: str, members: Mapping[str, Membership]) -> None:
    observers = sum(1 for m in members.values() if m.active and m.observe_others)
    if observers > SESSION_OBSERVERS_LIMIT:
        raise ApiError(
            400,
            f"Cannot create session {name} with {observers} observers. Maximum allowed is "
            f"{SESSION_OBSERVERS_LIMIT} observers per session. Observers are peers with "
            "'observe_others' set to true.",
        )


def upsert_members(
    ws: Workspace, session: Session, members: PeerMap, *, keep_active_config: bool = True
) -> None:
    """The server's peers-map rules: a new or inactive member takes the given configuration,
    an active one keeps its own; 400 when observers would exceed the limit."""
    peers.check_names(name for name in members if name not in ws.peers)
    for name in members:
        peers.find_or_create(ws, name)
    proposed = dict(session.members)
    for name, (observe_me, observe_others) in members.items():
        current = proposed.get(name)
        if current is not None and current.active and keep_active_config:
            continue
        proposed[name] = Membership(observe_me, observe_others, True)
    _check_observers(session.id, proposed)
    session.members = proposed


def join(session: Session, peer: str) -> None:
    """A sender becomes an active member (with no configuration) if it is not one."""
    member = session.members.get(peer)
    if member is None or not member.active:
        session.members[peer] = Membership(None, None, True)


def get_or_create(
    ws: Workspace,
    w: str,
    name: str,
    metadata: JsonDict | None,
    configuration: JsonDict | None,
    members: PeerMap,
    scope_names: list[str],
    deriver: Deriver,
    backfill_delay: float,
) -> tuple[Session, bool]:
    """Create with members, or update an existing one (metadata replaced, configuration
    merged, members upserted; a scope peer is no member: 422); then it joins the scopes named
    (each made if missing, its backfill `backfill_delay` away). And whether it was made."""
    scopes.refuse(ws, members, scopes.MEMBERSHIP)
    session, created = _get_or_create(ws, name, metadata, configuration, members)
    for scope_name in scope_names:
        scopes.get_or_create(ws, scope_name, None)
    for scope_name in scope_names:
        scopes.add_sessions(ws, w, scope_name, [name], deriver, backfill_delay)
    return session, created


def _get_or_create(
    ws: Workspace,
    name: str,
    metadata: JsonDict | None,
    configuration: JsonDict | None,
    members: PeerMap,
) -> tuple[Session, bool]:
    existing = ws.sessions.get(name)
    if existing is not None and not existing.is_active:
        raise lookups.session_missing(name, ws.id)
    session = existing or Session(id=name, workspace_id=ws.id, created_at=utcnow())
    upsert_members(ws, session, members)
    if existing is None:
        session.metadata = metadata or {}
        session.configuration = configuration or {}
        ws.sessions[name] = session
        return session, True
    update(session, metadata, configuration)
    return session, False


def update(session: Session, metadata: JsonDict | None, configuration: JsonDict | None) -> None:
    if metadata is not None:
        session.metadata = metadata
    if configuration is not None:
        session.configuration = {**session.configuration, **configuration}


def delete(ws: Workspace | None, w: str, name: str, deriver: Deriver, purge_delay: float) -> None:
    """Soft delete now; the purge runs `purge_delay` seconds later."""
    if ws is None:
        raise lookups.session_missing(name, w)
    session = lookups.active_session(ws, name)
    session.is_active = False
    schedule_purge(ws, session, deriver, purge_delay)


def schedule_purge(ws: Workspace, session: Session, deriver: Deriver, delay: float) -> None:
    """Purge a deleted session `delay` seconds from now."""
    deriver.schedule(delay, lambda: _purge(ws, session))


def _purge(ws: Workspace, session: Session) -> None:
    """Hard-delete the messages, the session's conclusions, its queue items and the row."""
    name = session.id
    ws.messages = [m for m in ws.messages if m.session_id != name]
    ws.conclusions = [c for c in ws.conclusions if c.session_id != name]
    ws.queue = [q for q in ws.queue if q.session_internal_id != session.internal_id]
    ws.open_items = [q for q in ws.open_items if q.session_internal_id != session.internal_id]
    if ws.sessions.get(name) is session:
        del ws.sessions[name]


def add_members(ws: Workspace, name: str, members: PeerMap) -> Session:
    """Upsert members into the session (made if missing; a scope peer is none: 422)."""
    scopes.refuse(ws, members, scopes.MEMBERSHIP)
    session, _ = find_or_create(ws, name)
    upsert_members(ws, session, members)
    return session


def set_members(ws: Workspace | None, w: str, name: str, members: PeerMap) -> Session:
    """Replace the member set: everyone else becomes inactive (all or nothing; a scope peer
    is no member: 422)."""
    scopes.refuse(ws, members, scopes.MEMBERSHIP)
    if ws is None:
        raise lookups.session_missing(name, w)
    session = lookups.active_session(ws, name)
    previous = session.members
    session.members = {
        peer: Membership(m.observe_me, m.observe_others, False) for peer, m in previous.items()
    }
    try:
        upsert_members(ws, session, members, keep_active_config=False)
    except ApiError:
        session.members = previous
        raise
    return session


def remove_members(ws: Workspace | None, w: str, name: str, names: list[str]) -> Session:
    """Members made inactive (a scope peer is named in none: 422)."""
    scopes.refuse(ws, names, scopes.MEMBERSHIP)
    if ws is None:
        raise lookups.session_missing(name, w)
    session = lookups.active_session(ws, name)
    for peer in names:
        member = session.members.get(peer)
        if member is not None:
            member.active = False
    return session


def active_members(ws: Workspace | None, name: str) -> list[Peer]:
    """The session's active members that are peers, scope peers left out."""
    session = ws.sessions.get(name) if ws else None
    if ws is None or session is None:
        return []
    return [
        ws.peers[peer]
        for peer, member in session.members.items()
        if member.active and peer in ws.peers and not scopes.is_scope(ws, peer)
    ]


def member_config(ws: Workspace | None, w: str, name: str, peer: str) -> Membership:
    """A member's configuration (a scope peer's is managed by the scope routes: 422)."""
    scopes.refuse(ws, [peer], scopes.MEMBERSHIP_CONFIG)
    if ws is None or peer not in ws.peers:
        raise peers.missing(peer, w)
    session = ws.sessions.get(name)
    member = session.members.get(peer) if session else None
    if member is None:
        raise ApiError(404, f"Session peer {peer} not found in session {name} in workspace {w}")
    return member


def set_member_config(
    ws: Workspace | None,
    w: str,
    name: str,
    peer: str,
    observe_me: bool | None,
    observe_others: bool | None,
) -> None:
    """Merge the given flags into the member's row (made active if missing; a scope peer's is
    managed by the scope routes: 422)."""
    scopes.refuse(ws, [peer], scopes.MEMBERSHIP_CONFIG)
    if ws is None:
        raise lookups.session_missing(name, w)
    session = lookups.active_session(ws, name)
    if peer not in ws.peers:
        raise peers.missing(peer, w)
    before = session.members.get(peer) or Membership(None, None, True)
    merged = Membership(
        observe_me if observe_me is not None else before.observe_me,
        observe_others if observe_others is not None else before.observe_others,
        before.active,
    )
    proposed = {**session.members, peer: merged}
    _check_observers(name, proposed)
    session.members = proposed


def existing(ws: Workspace | None, w: str, name: str) -> Session:
    """The session `name`, active or not (404 only when there is no row)."""
    if ws is None or name not in ws.sessions:
        raise lookups.session_missing(name, w)
    return ws.sessions[name]


# The share of a context's token budget a summary may take (3.0.12 `utils/summarizer.py`).
SUMMARY_SHARE = 0.4


def context_window(
    ws: Workspace, session: Session, tokens: int, with_summary: bool
) -> tuple[JsonDict | None, list[Message]]:
    """A session context's summary and messages as 3.0.12 picks them: the long summary if it
    fits in 40% of `tokens` and is longer than the short one, else the short one if it fits;
    then, in what is left, the newest messages from the one the summary ends at (that one
    included) that fit, oldest first. No budget left: no messages."""
    summary = None
    messages = [m for m in ws.messages if m.session_id == session.id]
    if with_summary and tokens > 0:
        room = int(tokens * SUMMARY_SHARE)
        long, short = session.long_summary, session.short_summary
        long_len = long["token_count"] if long else 0
        short_len = short["token_count"] if short else 0
        if long and long_len <= room and long_len > short_len:
            summary = long
        elif short and 0 < short_len <= room:
            summary = short
    if summary is not None:
        tokens -= summary["token_count"]
        start = next((i for i, m in enumerate(messages) if m.id == summary["message_id"]), 0)
        messages = messages[start:]
    return summary, recent_messages(messages, tokens) if tokens > 0 else []


def recent_messages(messages: list[Message], tokens: int) -> list[Message]:
    """The newest of `messages` that fit in `tokens`, oldest first."""
    chosen: list[Message] = []
    budget = tokens
    for message in reversed(messages):
        if message.token_count > budget:
            break
        budget -= message.token_count
        chosen.append(message)
    return list(reversed(chosen))


def summaries(ws: Workspace | None, name: str) -> tuple[JsonDict | None, JsonDict | None]:
    """The session's short and long summaries. Seen on 3.0.12 (and Honcho's own route
    test): a missing session, even in a missing workspace, has null ones, not a 404."""
    session = ws.sessions.get(name) if ws is not None else None
    if session is None:
        return None, None
    return session.short_summary, session.long_summary


def clone(store: Store, ws: Workspace | None, name: str, cutoff: str | None) -> Session:
    """A new session named by a nanoid with the metadata, configuration, members and the
    messages (up to and including `cutoff`) of an active one; nothing is enqueued.

    3.0.12 copies each message's row as a bulk insert of its content, metadata, peer and
    position only (`src/crud/session.py:746-836`): the copy has the column's default token
    count, 0 (so any `tokens=` budget takes all of a clone's messages), a timestamp of the
    clone's own, and no embedding (a search finds it by its words only)."""
    original = ws.sessions.get(name) if ws else None
    if ws is None or original is None or not original.is_active:
        raise ApiError(404, "Original session not found")
    messages = [m for m in ws.messages if m.session_id == original.id]
    # An empty `message_id` is still an id, looked up and not found (3.0.12
    # `src/crud/session.py:785`, reported as the session's, `src/routers/sessions.py:449-452`).
    if cutoff is not None:
        index = next((i for i, m in enumerate(messages) if m.id == cutoff), None)
        if index is None:
            raise ApiError(404, "Session not found")
        messages = messages[: index + 1]
    copy = Session(
        id=nanoid(),
        workspace_id=ws.id,
        created_at=utcnow(),
        metadata=dict(original.metadata),
        configuration=dict(original.configuration),
        members={
            peer: Membership(m.observe_me, m.observe_others, m.active)
            for peer, m in original.members.items()
        },
    )
    ws.sessions[copy.id] = copy
    ws.messages.extend(
        Message(
            id=nanoid(),
            seq=store.next_seq(),
            content=m.content,
            peer_id=m.peer_id,
            session_id=copy.id,
            workspace_id=ws.id,
            created_at=copy.created_at,
            token_count=0,
            metadata=dict(m.metadata),
            embedded=False,
        )
        for m in messages
    )
    return copy
