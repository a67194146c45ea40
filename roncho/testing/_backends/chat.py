"""Chat: the deterministic answer the emulator gives, built from the best keyword-matching
conclusions and messages about the subject, with the evidence it drew on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import _search
from .._auth import Claims
from .._common import ApiError, JsonDict, iso
from .._state import Conclusion, Message, Store, Workspace
from . import lookups, peers, scopes, sessions, workspaces
from .context import Recall

# How many messages and conclusions a chat answer draws on.
CHAT_EVIDENCE = 3


@dataclass(frozen=True, slots=True)
class Answer:
    text: str
    messages: list[Message]
    conclusions: list[Conclusion]

    def evidence(self) -> JsonDict:
        return {
            "conclusions": [
                # The SDK's EvidenceObservation (honcho-ai 2.7.0). No observer_id/observed_id:
                # 3.2.1 added them (its release notes; the SDK: "None from servers before
                # 3.2.1"), and 3.0.12 sends no evidence at all.
                {
                    "id": c.id,
                    "level": c.level,
                    "content": c.content,
                    "created_at": iso(c.created_at),
                    "session_id": c.session_id,
                    "source_ids": [],
                }
                for c in self.conclusions
            ],
            "messages": [
                {
                    "id": m.id,
                    "session_id": m.session_id,
                    "peer_id": m.peer_id,
                    "created_at": iso(m.created_at),
                }
                for m in self.messages
            ],
            "tool_calls": [],
            "reasoning_trace_id": None,
        }


class Unanswerable(ApiError):
    """A missing target peer or a missing/deleted session (404): the server finds out inside
    its answer's generator, after a stream's 200 headers (so a stream just ends)."""


def ask_peer(
    store: Store,
    ws: Workspace | None,
    w: str,
    claims: Claims,
    peer: str,
    target: str | None,
    query: str,
    recall: Recall,
) -> Answer:
    """`POST .../peers/{peer}/chat`: the recall options checked, the workspace and the peer
    made if missing, then the peer's answer within what `recall` allows (a peer key only
    over sessions it is a member of)."""
    allow = recall.allowlist(claims)
    ws = ws if ws is not None else workspaces.find_or_create(store, w)
    scopes.refuse_observed(ws, [peer, *([target] if target else [])], scopes.CHAT)
    if recall.scope is not None:
        allow = scopes.resolve(ws, w, recall.scope)
    peers.find_or_create(ws, peer)
    try:
        if target is not None and target not in ws.peers:
            raise peers.missing(target, w)
        if recall.session_id is not None:
            lookups.active_session(ws, recall.session_id)
    except ApiError as error:
        raise Unanswerable(error.status, error.detail) from None
    if recall.session_id is not None:
        sessions.require_member(ws, recall.session_id, claims)
    for name in sorted(allow or ()):
        sessions.require_member(ws, name, claims)
    allowed = {recall.session_id} if recall.session_id is not None else allow
    return about_peer(ws, query, peer, target, allowed)


def about_peer(
    ws: Workspace, query: str, peer: str, target: str | None, allowed: set[str] | None
) -> Answer:
    """The peer's answer about itself or (from its view) about `target`, within `allowed`."""
    subject = target or peer
    messages = [
        m
        for m in ws.messages
        if m.peer_id == subject and (allowed is None or m.session_id in allowed)
    ]
    conclusions = [
        c
        for c in ws.conclusions
        if not c.deleted
        and c.observed_id == subject
        and (target is None or c.observer_id == peer)
        and (allowed is None or c.session_id in allowed)
    ]
    return compose(query, subject, messages, conclusions)


def about_workspace(ws: Workspace | None, w: str, query: str, session_id: str | None) -> Answer:
    messages = [
        m for m in (ws.messages if ws else []) if session_id is None or m.session_id == session_id
    ]
    conclusions = [
        c
        for c in (ws.conclusions if ws else [])
        if not c.deleted and (session_id is None or c.session_id == session_id)
    ]
    return compose(query, f"workspace {w}", messages, conclusions)


def compose(
    query: str, subject: str, messages: list[Message], conclusions: list[Conclusion]
) -> Answer:
    """A deterministic answer from the best keyword matches (most recent when none match)."""
    chosen_c = _search.rank(query, conclusions, lambda c: c.content)[:CHAT_EVIDENCE]
    chosen_m = _search.rank(query, messages, lambda m: m.content)[:CHAT_EVIDENCE]
    if not chosen_c and not chosen_m:
        chosen_c = conclusions[-CHAT_EVIDENCE:]
        chosen_m = messages[-CHAT_EVIDENCE:]
    if not chosen_c and not chosen_m:
        return Answer(f"I don't know anything about {subject} yet.", [], [])
    parts = [c.content for c in chosen_c] + [f"{m.peer_id} said: {m.content}" for m in chosen_m]
    text = f"Based on what I know about {subject}: " + " ".join(
        part.strip().rstrip(".") + "." for part in parts
    )
    return Answer(text, chosen_m, chosen_c)


def fill_schema(schema: Mapping[str, Any], text: str) -> JsonDict:
    """A JSON object shaped by a response_format schema: strings get the answer text."""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return {"answer": text}
    defaults: dict[str, object] = {
        "number": 0,
        "integer": 0,
        "boolean": False,
        "array": [],
        "object": {},
        "null": None,
    }
    result: JsonDict = {}
    for name, spec in properties.items():
        kind = spec.get("type") if isinstance(spec, dict) else None
        result[name] = text if kind in (None, "string") else defaults.get(str(kind))
    return result
