"""What the server has made of the messages (a session's summaries, a session cut to a
token budget for a prompt, what one peer knows of another), and scopes: named groups of
sessions that bound what reads draw on."""

from __future__ import annotations

from collections.abc import Mapping

from .._decode import JSON, Fields
from .._record import Record, store
from .messages import Message


class Summary(Record):
    """A session summary the deriver wrote: the text and what it covers."""

    content: str
    message_id: str
    """The public id of the last message the summary covers."""
    summary_type: str
    """``honcho_chat_summary_short`` or ``honcho_chat_summary_long`` on Honcho 3.0.12."""
    token_count: int
    created_at: str | None  # default: None

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("content", "message_id", "summary_type", "token_count", "created_at")

    def __init__(
        self,
        *,
        content: str,
        message_id: str,
        summary_type: str,
        token_count: int,
        created_at: str | None = None,
    ) -> None:
        store(self, "content", content)
        store(self, "message_id", message_id)
        store(self, "summary_type", summary_type)
        store(self, "token_count", token_count)
        store(self, "created_at", created_at)

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str) -> Summary:
        f = Fields(data, op, "summary")
        return cls(
            content=f.text("content"),
            message_id=f.text("message_id"),
            summary_type=f.text("summary_type"),
            token_count=f.integer("token_count"),
            created_at=f.opt_text("created_at"),
        )


def _summary(f: Fields, key: str) -> Summary | None:
    raw = f.data.get(key)
    return None if raw is None else Summary.from_json(raw, f.op)


class Summaries(Record):
    """A session's summaries; each is None until the deriver has written it."""

    id: str
    """The session's id."""
    short: Summary | None  # default: None
    long: Summary | None  # default: None

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("id", "short", "long")

    def __init__(
        self, *, id: str, short: Summary | None = None, long: Summary | None = None
    ) -> None:
        store(self, "id", id)
        store(self, "short", short)
        store(self, "long", long)

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str) -> Summaries:
        f = Fields(data, op, "summaries")
        return cls(
            id=f.text("id"),
            short=_summary(f, "short_summary"),
            long=_summary(f, "long_summary"),
        )


class SessionContext(Record):
    """A session cut to a token budget for a prompt: its most recent messages (oldest
    first), the summary of what came before them when there is one and it was asked for,
    and, when a ``peer_target`` was named, that peer's representation and card."""

    id: str
    """The session's id."""
    messages: tuple[Message, ...]  # default: ()
    summary: Summary | None  # default: None
    peer_representation: str | None  # default: None
    peer_card: tuple[str, ...] | None  # default: None

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("id", "messages", "summary", "peer_representation", "peer_card")

    def __init__(
        self,
        *,
        id: str,
        messages: tuple[Message, ...] = (),
        summary: Summary | None = None,
        peer_representation: str | None = None,
        peer_card: tuple[str, ...] | None = None,
    ) -> None:
        store(self, "id", id)
        store(self, "messages", messages)
        store(self, "summary", summary)
        store(self, "peer_representation", peer_representation)
        store(self, "peer_card", peer_card)

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str) -> SessionContext:
        f = Fields(data, op, "session context")
        messages = f.data.get("messages")
        if not isinstance(messages, list):
            raise f.fail("messages", "an array")
        return cls(
            id=f.text("id"),
            messages=tuple([Message.from_json(m, op) for m in messages]),
            summary=_summary(f, "summary"),
            peer_representation=f.opt_text("peer_representation"),
            peer_card=f.opt_text_list("peer_card"),
        )


class PeerContext(Record):
    """What ``peer_id`` knows of ``target_id`` (itself unless a target was named): the
    representation as Markdown text and the peer card, each None when there is none."""

    peer_id: str
    target_id: str
    representation: str | None  # default: None
    peer_card: tuple[str, ...] | None  # default: None

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("peer_id", "target_id", "representation", "peer_card")

    def __init__(
        self,
        *,
        peer_id: str,
        target_id: str,
        representation: str | None = None,
        peer_card: tuple[str, ...] | None = None,
    ) -> None:
        store(self, "peer_id", peer_id)
        store(self, "target_id", target_id)
        store(self, "representation", representation)
        store(self, "peer_card", peer_card)

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str) -> PeerContext:
        f = Fields(data, op, "peer context")
        return cls(
            peer_id=f.text("peer_id"),
            target_id=f.text("target_id"),
            representation=f.opt_text("representation"),
            peer_card=f.opt_text_list("peer_card"),
        )


class Scope(Record):
    """A named group of sessions, a boundary for what reads may draw on (Honcho 3.1)."""

    id: str
    metadata: JSON  # default: {}
    created_at: str | None  # default: None
    created: bool | None  # default: None
    """True when get-or-create made it (201), False when it existed (200), else None."""

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("id", "metadata", "created_at", "created")

    def __init__(
        self,
        *,
        id: str,
        metadata: JSON | None = None,
        created_at: str | None = None,
        created: bool | None = None,
    ) -> None:
        store(self, "id", id)
        store(self, "metadata", {} if metadata is None else metadata)
        store(self, "created_at", created_at)
        store(self, "created", created)

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str, created: bool | None = None) -> Scope:
        f = Fields(data, op, "scope")
        return cls(
            id=f.text("id"),
            metadata=f.opt_obj("metadata"),
            created_at=f.opt_text("created_at"),
            created=created,
        )


class ScopeBackfill(Record):
    """The copy of one member session's existing documents into a scope."""

    session_id: str
    state: str
    """``"pending"``, ``"completed"`` or ``"failed"``."""
    updated_at: str | None  # default: None
    docs_copied: int | None  # default: None
    """Set once the backfill has completed."""

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("session_id", "state", "updated_at", "docs_copied")

    def __init__(
        self,
        *,
        session_id: str,
        state: str,
        updated_at: str | None = None,
        docs_copied: int | None = None,
    ) -> None:
        store(self, "session_id", session_id)
        store(self, "state", state)
        store(self, "updated_at", updated_at)
        store(self, "docs_copied", docs_copied)

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str, session_id: str) -> ScopeBackfill:
        f = Fields(data, op, f"scope status.backfill_status[{session_id}]")
        return cls(
            session_id=session_id,
            state=f.text("state"),
            updated_at=f.opt_text("updated_at"),
            docs_copied=f.opt_integer("docs_copied"),
        )


class ScopeStatus(Record):
    """Each member session's backfill, by session id; empty when none was ever started."""

    backfill: Mapping[str, ScopeBackfill]  # default: {}

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("backfill",)

    def __init__(self, *, backfill: Mapping[str, ScopeBackfill] | None = None) -> None:
        store(self, "backfill", {} if backfill is None else backfill)

    # END GENERATED record

    @property
    def pending(self) -> bool:
        """Some backfill has not finished yet."""
        return any(entry.state == "pending" for entry in self.backfill.values())

    @classmethod
    def from_json(cls, data: object, op: str) -> ScopeStatus:
        f = Fields(data, op, "scope status")
        raw = f.opt_obj("backfill_status")
        return cls(
            backfill={name: ScopeBackfill.from_json(entry, op, name) for name, entry in raw.items()}
        )
