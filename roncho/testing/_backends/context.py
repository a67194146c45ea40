"""What the reads that recall assemble: a peer's representation of a peer (the observer's
conclusions as the server's markdown), its card, a peer's context, and a session's context
(summary, messages, representation and card out of one token budget); and the recall options
they share with chat (one session, a `filters` allowlist of sessions, or a `scope`).

The checks run in the server's order, so that a request with two faults gets the same answer
as from the server: the routes only parse the request (`ContextAsk`, `Recall`, `Search`) and
render what comes back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC

from .. import _auth, _filters, _search
from .._auth import Claims
from .._common import ApiError, JsonDict
from .._state import Conclusion, Message, Workspace
from . import peers, scopes, sessions


@dataclass(frozen=True, slots=True)
class Search:
    """A representation's `search_query` and `search_top_k` (the semantic part on the server)."""

    query: str | None
    top_k: int | None


def representation(
    ws: Workspace,
    observer: str,
    observed: str,
    limit: int,
    allowed_sessions: set[str] | None,
    search: Search | None = None,
) -> str:
    """`represented` as the server's markdown."""
    return representation_markdown(
        represented(ws, observer, observed, limit, allowed_sessions, search)
    )


def represented(
    ws: Workspace,
    observer: str,
    observed: str,
    limit: int,
    allowed_sessions: set[str] | None,
    search: Search | None = None,
) -> list[Conclusion]:
    """The observer's conclusions about `observed` (within the allowlist) in a representation:
    up to `limit`, the most recent ones; with a search query, its best keyword matches first
    (`top_k`, default a third of `limit`), as the server's semantic part."""
    candidates = [
        c
        for c in ws.conclusions
        if not c.deleted
        and c.observer_id == observer
        and c.observed_id == observed
        and (allowed_sessions is None or c.session_id in allowed_sessions)
    ]
    chosen: list[Conclusion] = []
    if search is not None and search.query:
        top_k = search.top_k if search.top_k is not None else max(1, limit // 3)
        chosen = _search.rank(search.query, candidates, lambda c: c.content)[: min(top_k, limit)]
    for conclusion in reversed(candidates):
        if len(chosen) >= limit:
            break
        if conclusion not in chosen:
            chosen.append(conclusion)
    chosen.sort(key=lambda c: c.seq)
    return chosen


def representation_markdown(conclusions: list[Conclusion]) -> str:
    """The server's `Representation.format_as_markdown` for explicit conclusions: a heading, a
    blank line, one `[YYYY-MM-DD HH:MM:SS] content` line each (UTC, no fraction) and a final
    newline; "" when there are none."""
    if not conclusions:
        return ""
    lines = [f"[{c.created_at.astimezone(UTC):%Y-%m-%d %H:%M:%S}] {c.content}" for c in conclusions]
    return "\n".join(["## Explicit Observations\n", *lines, ""])


def representation_text(conclusions: list[Conclusion]) -> str:
    """3.0.12's `str(Representation)` (`utils/representation.py`), what a session context's
    token budget is charged for the representation, not its markdown: four headed sections
    with numbered lines, present even when empty (16 o200k_base tokens then)."""
    lines = [
        f"{i}. [{c.created_at.astimezone(UTC):%Y-%m-%d %H:%M:%S}] {c.content}"
        for i, c in enumerate(conclusions, 1)
    ]
    empty_levels = ["DEDUCTIVE:\n", "", "INDUCTIVE:\n", "", "CONTRADICTION:\n", ""]
    return "\n".join(["EXPLICIT:\n", *lines, "", *empty_levels])


@dataclass(frozen=True, slots=True)
class Recall:
    """What narrows a recall read (chat, a representation): one `session_id`, a `filters`
    allowlist of sessions (as sent: checked here), or a `scope` (one name or a list)."""

    session_id: str | None
    filters: object
    scope: str | list[str] | None

    def allowlist(self, claims: Claims, *, filters_first: bool = False) -> set[str] | None:
        """The `filters` allowlist once the options are checked together: the `scope`
        option's exclusions (422) and key rule (401), then the filters (422, the texts of
        the server's `extract_session_allowlist`); the filters first with `filters_first`
        (3.0.12's representation route, `src/routers/peers.py:498-507`; chat checks the
        scope first, `:317-346`). None: no filters."""
        if filters_first:
            allow = _filters.filters_allowlist(self.filters, must_include=self.session_id)
        if self.scope is not None:
            if self.filters is not None:
                raise ApiError(422, "`scope` and `filters` are mutually exclusive")
            if self.session_id:
                raise ApiError(422, "`scope` and `session_id` are mutually exclusive")
            scopes.check_key(claims)
        if not filters_first:
            allow = _filters.filters_allowlist(self.filters, must_include=self.session_id)
        return None if allow is None else set(allow)


@dataclass(frozen=True, slots=True)
class PeerContext:
    representation: str
    card: list[str] | None


def peer_context(
    ws: Workspace | None, w: str, peer: str, target: str, limit: int, search: Search
) -> PeerContext:
    """`GET .../peers/{peer}/context`: the peer's representation of `target` and its card."""
    scopes.refuse_observed(ws, [peer, target], scopes.READ_OPTION)
    # Seen on 3.0.12: a missing path peer is named in the 404 (not a bare "Peer not
    # found"); a missing target is no error, only an empty representation.
    if ws is None or peer not in ws.peers:
        raise peers.missing(peer, w)
    text = representation(ws, peer, target, limit, None, search)
    card = ws.cards.get((peer, target))
    return PeerContext(text, list(card) if card is not None else None)


def peer_representation(
    ws: Workspace | None,
    w: str,
    claims: Claims,
    peer: str,
    target: str | None,
    limit: int,
    search: Search,
    recall: Recall,
) -> str:
    """`POST .../peers/{peer}/representation`: the peer's representation of `target` (of
    itself when None) within what `recall` allows."""
    scopes.refuse_observed(ws, [peer, target or peer], scopes.REPRESENTATION)
    allow = recall.allowlist(claims, filters_first=True)
    if recall.scope is not None:
        allow = scopes.resolve(ws, w, recall.scope)
    # Seen on 3.0.12: a missing peer, target or session is not an error, only an
    # empty representation.
    if ws is None:
        return ""
    allowed = {recall.session_id} if recall.session_id else allow
    return representation(ws, peer, target or peer, limit, allowed, search)


@dataclass(frozen=True, slots=True)
class ContextAsk:
    """A session context request as parsed: the token budget, the summary switch, the
    representation's peers and options, and what narrows it (`sessions`: the repeated
    query parameter as sent, None when absent)."""

    tokens: int
    with_summary: bool
    limit_to_session: bool
    search: Search
    limit: int
    peer_target: str | None
    peer_perspective: str | None
    scope: str | list[str] | None
    sessions: list[str] | None


@dataclass(frozen=True, slots=True)
class SessionContext:
    messages: list[Message]
    summary: JsonDict | None
    representation: str | None
    card: list[str] | None


def session_context(
    ws: Workspace | None,
    w: str,
    name: str,
    claims: Claims,
    ask: ContextAsk,
    count_tokens: Callable[[str], int],
) -> SessionContext:
    """`GET .../sessions/{session}/context` (3.0.12 `routers/sessions.py`, its texts): the
    representation and the card of `peer_target` (from `peer_perspective`'s view) are paid
    for out of the token budget first, then the summary and the messages share the rest."""
    target, perspective, scope = ask.peer_target, ask.peer_perspective, ask.scope
    if perspective and not target:
        raise ApiError(422, "peer_target must be provided if peer_perspective is provided")
    if target is not None:
        scopes.refuse_observed(ws, [target], scopes.CONTEXT_TARGET)
    if perspective is not None:
        scopes.refuse(ws, [perspective], scopes.PERSPECTIVE)
    if scope is not None:
        if perspective:
            raise ApiError(422, "`scope` and `peer_perspective` are mutually exclusive")
        if not target:
            raise ApiError(422, "peer_target must be provided if scope is provided")
        scopes.check_key(claims, session_key_too=True)
    allow = _session_allowlist(ws, name, claims, ask)
    if scope is not None and ask.sessions is not None:
        raise ApiError(422, "`sessions` and `scope` are mutually exclusive")
    if scope is not None:
        allow = sorted(scopes.resolve(ws, w, scope))
    if allow is None and target is not None:
        # Seen on 3.0.12: without a session allowlist the perspective and target peers
        # are looked up first (404, before the session's own 404); with one, a missing
        # peer only gives an empty representation.
        for who in (perspective, target):
            if who is not None and (ws is None or who not in ws.peers):
                raise peers.missing(who, w)
    if target is None and (ws is None or name not in ws.sessions):
        # 3.0.12 `src/routers/sessions.py:866-874`: without a peer target the session is
        # never looked up; a missing one (in a missing workspace too) has an empty context.
        return SessionContext([], None, None, None)
    session = sessions.existing(ws, w, name)
    assert ws is not None
    tokens = ask.tokens
    text = None
    card = None
    if target is not None:
        observer = perspective or target
        allowed = set(allow) if allow is not None else None
        held = represented(ws, observer, target, ask.limit, allowed, ask.search)
        text = representation_markdown(held)
        card_lines = ws.cards.get((observer, target))
        # Fail closed: a card has no per-session provenance, so under an allowlist
        # (`sessions` or `limit_to_session`) the server withholds it.
        if card_lines is not None and allow is None:
            card = list(card_lines)
        # The representation (as `str(Representation)`) and the card are paid for first.
        count = count_tokens
        tokens -= count(representation_text(held)) + count("\n".join(card or []))
    summary, chosen = sessions.context_window(ws, session, tokens, ask.with_summary)
    return SessionContext(chosen, summary, text, card)


def _session_allowlist(
    ws: Workspace | None, name: str, claims: Claims, ask: ContextAsk
) -> list[str] | None:
    """Session context's rules on `peer_perspective`, `sessions` and `limit_to_session`
    (texts as 3.0.12's `routers/sessions.py`); the effective session allowlist or None."""
    target = ask.peer_target
    # Seen on 3.0.12: membership lets a peer key read the session, not a co-member's view;
    # it may read only from its own perspective (and only sessions it belongs to).
    peer_key = claims.peer if not claims.admin else None
    if target and peer_key is not None and peer_key != (ask.peer_perspective or target):
        raise ApiError(401, _auth.NOT_PERMITTED)
    if ask.sessions is None:
        return [name] if ask.limit_to_session else None
    if ask.limit_to_session:
        raise ApiError(422, "`sessions` and `limit_to_session` are mutually exclusive")
    if not target:
        raise ApiError(422, "peer_target must be provided if sessions is provided")
    allow = _filters.session_allowlist(list(ask.sessions), field="sessions", must_include=name)
    for session_name in allow:
        sessions.require_member(ws, session_name, claims)
    return allow
