"""The emulator's in-memory store: workspaces holding peers, sessions, messages, conclusions
and deriver queue items, guarded by one re-entrant lock.

Each request (in `App.dispatch`, around its handler) and the deriver thread hold `Store.lock`
for the whole of their work on the store, so each request sees and leaves a consistent
state. `Store.changed` (a Condition on the same lock) wakes the deriver when messages arrive.

Queue item states:

    pending --(gate opens: tokens / age / flush)--> in_progress --(deriver_delay)--> completed

Items become visible to queue status only `enqueue_delay` seconds after the messages arrived.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from ._common import JsonDict, iso, nanoid

ItemState = Literal["pending", "in_progress", "completed"]


@dataclass
class Membership:
    """A peer's row in a session: its `SessionPeerConfig` and whether it is active."""

    observe_me: bool | None = None
    observe_others: bool | None = None
    active: bool = True


@dataclass
class Peer:
    id: str
    workspace_id: str
    created_at: datetime
    metadata: JsonDict = field(default_factory=dict)
    configuration: JsonDict = field(default_factory=dict)


@dataclass
class Session:
    id: str
    workspace_id: str
    created_at: datetime
    internal_id: str = field(default_factory=nanoid)
    is_active: bool = True
    metadata: JsonDict = field(default_factory=dict)
    configuration: JsonDict = field(default_factory=dict)
    members: dict[str, Membership] = field(default_factory=dict)
    message_count: int = 0
    short_summary: JsonDict | None = None
    long_summary: JsonDict | None = None


@dataclass
class Message:
    id: str
    seq: int
    content: str
    peer_id: str
    session_id: str
    workspace_id: str
    created_at: datetime
    token_count: int
    metadata: JsonDict = field(default_factory=dict)
    configuration: JsonDict = field(default_factory=dict)
    # Whether the server would hold an embedding of it, so that a search finds it by meaning:
    # a clone's copy has none (3.0.12 copies the rows only, `src/crud/session.py:746-836`).
    embedded: bool = True


@dataclass
class Conclusion:
    id: str
    seq: int
    content: str
    observer_id: str
    observed_id: str
    session_id: str | None
    level: str
    created_at: datetime
    workspace_id: str
    deleted: bool = False
    # The messages a deriver conclusion came from (filterable; None for API-made ones).
    source_ids: list[str] | None = None


@dataclass
class QueueItem:
    """One deriver queue row: a representation item per message of an observed sender,
    or a summary item every `messages_per_short_summary` messages."""

    seq: int
    task: Literal["representation", "summary"]
    workspace_id: str
    session_name: str
    session_internal_id: str
    sender: str | None
    observers: tuple[str, ...]
    message_id: str
    message_seq: int
    content: str
    tokens: int
    visible_at: float
    state: ItemState = "pending"
    gate: str | None = None
    claimed_at: float | None = None
    completed_at: float | None = None


@dataclass
class Scope:
    """A named scope: its metadata and the sessions added to it with their backfill state."""

    id: str
    created_at: datetime
    metadata: JsonDict = field(default_factory=dict)
    # session name -> `{"state", "updated_at"[, "docs_copied"]}` as `GET .../status` shows it
    backfill: dict[str, JsonDict] = field(default_factory=dict)
    # Every session ever added, removed ones too (the scope peer's memberships, left or not)
    members_ever: list[str] = field(default_factory=list)


def scope_json(scope: Scope) -> JsonDict:
    return {"id": scope.id, "metadata": scope.metadata, "created_at": iso(scope.created_at)}


@dataclass
class Workspace:
    id: str
    created_at: datetime
    metadata: JsonDict = field(default_factory=dict)
    configuration: JsonDict = field(default_factory=dict)
    peers: dict[str, Peer] = field(default_factory=dict)
    sessions: dict[str, Session] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    conclusions: list[Conclusion] = field(default_factory=list)
    queue: list[QueueItem] = field(default_factory=list)
    # The queue items not yet completed: all the deriver scans on each tick.
    open_items: list[QueueItem] = field(default_factory=list)
    cards: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    scopes: dict[str, Scope] = field(default_factory=dict)
    deleting: bool = False


class Store:
    """All state of one emulator. Hold `lock` while reading or changing anything.
    `count_tokens` is how this emulator counts tokens (`_tokens.counter`)."""

    def __init__(self, count_tokens: Callable[[str], int]) -> None:
        self.count_tokens = count_tokens
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.workspaces: dict[str, Workspace] = {}
        self._seq = 0

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    @property
    def seq(self) -> int:
        """The last id sequence number given out (snapshots keep it)."""
        return self._seq

    def replace(self, workspaces: dict[str, Workspace], seq: int) -> None:
        """Put restored state in place of this one (caller holds the lock)."""
        self.workspaces.clear()
        self.workspaces.update(workspaces)
        self._seq = seq


# ---- response shapes, as the server renders them ----


def workspace_json(ws: Workspace) -> JsonDict:
    return {
        "id": ws.id,
        "metadata": ws.metadata,
        "configuration": ws.configuration,
        "created_at": iso(ws.created_at),
    }


def peer_json(peer: Peer) -> JsonDict:
    return {
        "id": peer.id,
        "workspace_id": peer.workspace_id,
        "created_at": iso(peer.created_at),
        "metadata": peer.metadata,
        "configuration": peer.configuration,
    }


def session_json(session: Session) -> JsonDict:
    return {
        "id": session.id,
        "is_active": session.is_active,
        "workspace_id": session.workspace_id,
        "metadata": session.metadata,
        "configuration": session.configuration,
        "created_at": iso(session.created_at),
    }


def message_json(message: Message) -> JsonDict:
    return {
        "id": message.id,
        "content": message.content,
        "peer_id": message.peer_id,
        "session_id": message.session_id,
        "metadata": message.metadata,
        "created_at": iso(message.created_at),
        "workspace_id": message.workspace_id,
        "token_count": message.token_count,
    }


def conclusion_json(conclusion: Conclusion, *, source_ids: bool = True) -> JsonDict:
    """A conclusion; `source_ids` says whether the key is there (3.2.0: null; 3.0.12: absent)."""
    body: JsonDict = {
        "id": conclusion.id,
        "content": conclusion.content,
        "observer_id": conclusion.observer_id,
        "observed_id": conclusion.observed_id,
        "session_id": conclusion.session_id,
        "level": conclusion.level,
        "created_at": iso(conclusion.created_at),
    }
    if source_ids:
        body["source_ids"] = None
    return body


# ---- filter rows: the columns a filter may name, as the Model has them ----


def workspace_row(ws: Workspace) -> dict[str, Any]:
    return {"id": ws.id, "created_at": ws.created_at, "metadata": ws.metadata}


def peer_row(peer: Peer) -> dict[str, Any]:
    return {
        "id": peer.id,
        "created_at": peer.created_at,
        "metadata": peer.metadata,
        "workspace_id": peer.workspace_id,
    }


def session_row(session: Session) -> dict[str, Any]:
    return {
        "id": session.id,
        "created_at": session.created_at,
        "is_active": session.is_active,
        "metadata": session.metadata,
    }


def message_row(message: Message) -> dict[str, Any]:
    return {
        "session_id": message.session_id,
        "peer_id": message.peer_id,
        "token_count": message.token_count,
        "created_at": message.created_at,
        "metadata": message.metadata,
        "workspace_id": message.workspace_id,
    }


def conclusion_row(conclusion: Conclusion) -> dict[str, Any]:
    return {
        "id": conclusion.id,
        "content": conclusion.content,
        "level": conclusion.level,
        "observer": conclusion.observer_id,
        "observed": conclusion.observed_id,
        "observer_id": conclusion.observer_id,
        "observed_id": conclusion.observed_id,
        "session_id": conclusion.session_id,
        "session_name": conclusion.session_id,
        "workspace_name": conclusion.workspace_id,
        "created_at": conclusion.created_at,
        "metadata": {},
        "times_derived": 1,
        "source_ids": conclusion.source_ids,
    }
