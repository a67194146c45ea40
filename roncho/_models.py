"""Frozen records for what Honcho answers, and for what roncho sends.

Every model is a plain class on ``_record.Record`` (frozen, compared, hashed, copied and
pickled by its fields, the ``__slots__``), with its ``__init__`` written out. Each answer
model has one decoder, its ``from_json``, written out: it reads the keys memoryd relies on
(through ``_decode.Fields``), raises DecodeError naming the operation and the field when
one is missing or mistyped, and ignores every key the server adds. Timestamps stay RFC 3339
strings (``parse_timestamp`` turns one into a datetime); ids stay strings.

The inputs (``MessageCreate``, ``ConclusionCreate``) are rendered to the wire here too, by
``to_json`` one at a time or ``render_batch`` for a request's list: each checks itself
against the server's limits, so a batch the server would refuse is refused before anything
is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, Generic, TypeVar

from ._checks import (
    MAX_BATCH,
    MAX_CONCLUSION_CHARS,
    MAX_MESSAGE_CHARS,
    check_content,
    check_id,
    check_items,
    check_metadata,
    check_reasoning_config,
    check_timestamp,
)
from ._decode import Fields
from ._errors import ConfigError
from ._record import Record, store

T = TypeVar("T")
JSON = dict[str, Any]


# -- resources ---------------------------------------------------------------------------
class Workspace(Record):
    """A workspace: the unit a key is scoped to. ``created`` is set only by get-or-create."""

    __slots__ = ("id", "metadata", "configuration", "created_at", "created")

    id: str
    metadata: JSON
    configuration: JSON
    created_at: str | None
    created: bool | None
    """True when get-or-create made it (201), False when it existed (200), else None."""

    def __init__(
        self,
        *,
        id: str,
        metadata: JSON | None = None,
        configuration: JSON | None = None,
        created_at: str | None = None,
        created: bool | None = None,
    ) -> None:
        store(self, "id", id)
        store(self, "metadata", {} if metadata is None else metadata)
        store(self, "configuration", {} if configuration is None else configuration)
        store(self, "created_at", created_at)
        store(self, "created", created)

    @classmethod
    def from_json(cls, data: object, op: str, created: bool | None = None) -> Workspace:
        f = Fields(data, op, "workspace")
        return cls(
            id=f.text("id"),
            metadata=f.opt_obj("metadata"),
            configuration=f.opt_obj("configuration"),
            created_at=f.opt_text("created_at"),
            created=created,
        )


class Peer(Record):
    """A participant (user, agent) whose messages can be observed and reasoned about."""

    __slots__ = ("id", "metadata", "configuration", "created_at", "created", "workspace_id")

    id: str
    metadata: JSON
    configuration: JSON
    created_at: str | None
    created: bool | None
    """True when get-or-create made it (201), False when it existed (200), else None."""
    workspace_id: str | None

    def __init__(
        self,
        *,
        id: str,
        metadata: JSON | None = None,
        configuration: JSON | None = None,
        created_at: str | None = None,
        created: bool | None = None,
        workspace_id: str | None = None,
    ) -> None:
        store(self, "id", id)
        store(self, "metadata", {} if metadata is None else metadata)
        store(self, "configuration", {} if configuration is None else configuration)
        store(self, "created_at", created_at)
        store(self, "created", created)
        store(self, "workspace_id", workspace_id)

    @classmethod
    def from_json(cls, data: object, op: str, created: bool | None = None) -> Peer:
        f = Fields(data, op, "peer")
        return cls(
            id=f.text("id"),
            metadata=f.opt_obj("metadata"),
            configuration=f.opt_obj("configuration"),
            created_at=f.opt_text("created_at"),
            created=created,
            workspace_id=f.opt_text("workspace_id"),
        )


class Session(Record):
    """A conversation; ``is_active`` turns false at once when it is deleted."""

    __slots__ = (
        "id",
        "metadata",
        "configuration",
        "created_at",
        "created",
        "workspace_id",
        "is_active",
    )

    id: str
    metadata: JSON
    configuration: JSON
    created_at: str | None
    created: bool | None
    """True when get-or-create made it (201), False when it existed (200), else None."""
    workspace_id: str | None
    is_active: bool

    def __init__(
        self,
        *,
        id: str,
        metadata: JSON | None = None,
        configuration: JSON | None = None,
        created_at: str | None = None,
        created: bool | None = None,
        workspace_id: str | None = None,
        is_active: bool = True,
    ) -> None:
        store(self, "id", id)
        store(self, "metadata", {} if metadata is None else metadata)
        store(self, "configuration", {} if configuration is None else configuration)
        store(self, "created_at", created_at)
        store(self, "created", created)
        store(self, "workspace_id", workspace_id)
        store(self, "is_active", is_active)

    @classmethod
    def from_json(cls, data: object, op: str, created: bool | None = None) -> Session:
        f = Fields(data, op, "session")
        return cls(
            id=f.text("id"),
            metadata=f.opt_obj("metadata"),
            configuration=f.opt_obj("configuration"),
            created_at=f.opt_text("created_at"),
            created=created,
            workspace_id=f.opt_text("workspace_id"),
            is_active=f.opt_flag("is_active") is not False,  # absent or null: active
        )


class WebhookEndpoint(Record):
    """A URL the server posts a workspace's events to (``roncho.webhooks`` reads them)."""

    __slots__ = ("id", "url", "workspace_id", "created_at", "created")

    id: str
    url: str
    workspace_id: str | None
    created_at: str | None
    created: bool | None
    """True when get-or-create made it (201), False when the URL was registered (200), else
    None (a list)."""

    def __init__(
        self,
        *,
        id: str,
        url: str,
        workspace_id: str | None = None,
        created_at: str | None = None,
        created: bool | None = None,
    ) -> None:
        store(self, "id", id)
        store(self, "url", url)
        store(self, "workspace_id", workspace_id)
        store(self, "created_at", created_at)
        store(self, "created", created)

    @classmethod
    def from_json(cls, data: object, op: str, created: bool | None = None) -> WebhookEndpoint:
        f = Fields(data, op, "webhook endpoint")
        return cls(
            id=f.text("id"),
            url=f.text("url"),
            workspace_id=f.opt_text("workspace_id"),
            created_at=f.opt_text("created_at"),
            created=created,
        )


class SessionPeerConfig(Record):
    """A peer's observation switches inside one session; None means "not set here"."""

    __slots__ = ("observe_me", "observe_others")

    observe_me: bool | None
    observe_others: bool | None

    def __init__(
        self, *, observe_me: bool | None = None, observe_others: bool | None = None
    ) -> None:
        for name, value in (("observe_me", observe_me), ("observe_others", observe_others)):
            # Not ``in (None, True, False)``: 1 == True, and 1 would be sent as 1.
            if value is not None and not isinstance(value, bool):
                raise ConfigError(f"{name} must be True, False or None")
        store(self, "observe_me", observe_me)
        store(self, "observe_others", observe_others)

    def to_json(self) -> JSON:
        return {"observe_me": self.observe_me, "observe_others": self.observe_others}

    @classmethod
    def from_json(cls, data: object, op: str) -> SessionPeerConfig:
        f = Fields(data, op, "session peer config")
        return cls(observe_me=f.opt_flag("observe_me"), observe_others=f.opt_flag("observe_others"))


class Message(Record):
    """A stored message. Required are only the fields memoryd reads; ``role`` is not sent."""

    __slots__ = (
        "id",
        "content",
        "peer_id",
        "session_id",
        "created_at",
        "metadata",
        "workspace_id",
        "token_count",
    )

    id: str
    content: str
    peer_id: str
    session_id: str
    created_at: str
    metadata: JSON
    workspace_id: str | None
    token_count: int | None

    def __init__(
        self,
        *,
        id: str,
        content: str,
        peer_id: str,
        session_id: str,
        created_at: str,
        metadata: JSON,
        workspace_id: str | None = None,
        token_count: int | None = None,
    ) -> None:
        store(self, "id", id)
        store(self, "content", content)
        store(self, "peer_id", peer_id)
        store(self, "session_id", session_id)
        store(self, "created_at", created_at)
        store(self, "metadata", metadata)
        store(self, "workspace_id", workspace_id)
        store(self, "token_count", token_count)

    @classmethod
    def from_json(cls, data: object, op: str) -> Message:
        message = _well_formed_message(data)
        if message is not None:
            return message
        f = Fields(data, op, "message")
        return cls(
            id=f.text("id"),
            content=f.text("content"),
            peer_id=f.text("peer_id"),
            session_id=f.text("session_id"),
            created_at=f.text("created_at"),
            metadata=f.opt_obj("metadata"),
            workspace_id=f.opt_text("workspace_id"),
            token_count=f.opt_integer("token_count"),
        )


def _well_formed_message(data: object) -> Message | None:
    """The speed path of Message.from_json, the one roncho keeps: pages of messages are most
    of what it decodes, and reading one through Fields costs about half again as much. A
    message whose every field is as it should be is read in one pass; for anything else it
    gives None, and the Fields reading (with its errors) decides. JSON gives exact types, so
    ``type(...) is`` checks what Fields' isinstance() would. tests/unit/test_properties.py
    holds it to the Fields reading on generated messages."""
    if type(data) is not dict:
        return None
    get = data.get
    id_, content, peer, session = get("id"), get("content"), get("peer_id"), get("session_id")
    created, metadata = get("created_at"), get("metadata")
    workspace, tokens = get("workspace_id"), get("token_count")
    if not (type(id_) is str and type(content) is str and type(peer) is str):
        return None
    if type(session) is not str or type(created) is not str:
        return None
    if metadata is None:
        metadata = {}
    elif type(metadata) is not dict:
        return None
    if (workspace is not None and type(workspace) is not str) or (
        tokens is not None and type(tokens) is not int  # never a bool
    ):
        return None
    message = object.__new__(Message)
    store(message, "id", id_)
    store(message, "content", content)
    store(message, "peer_id", peer)
    store(message, "session_id", session)
    store(message, "created_at", created)
    store(message, "metadata", metadata)
    store(message, "workspace_id", workspace)
    store(message, "token_count", tokens)
    return message


class Conclusion(Record):
    """What ``observer_id`` has concluded about ``observed_id``; explicit ones have no sources."""

    __slots__ = (
        "id",
        "content",
        "observer_id",
        "observed_id",
        "session_id",
        "level",
        "created_at",
        "source_ids",
    )

    id: str
    content: str
    observer_id: str
    observed_id: str
    session_id: str | None
    level: str | None
    created_at: str | None
    source_ids: tuple[str, ...] | None
    """Premise conclusion ids; the observed 3.2.0 server sends null for explicit ones."""

    def __init__(
        self,
        *,
        id: str,
        content: str,
        observer_id: str,
        observed_id: str,
        session_id: str | None = None,
        level: str | None = None,
        created_at: str | None = None,
        source_ids: tuple[str, ...] | None = None,
    ) -> None:
        store(self, "id", id)
        store(self, "content", content)
        store(self, "observer_id", observer_id)
        store(self, "observed_id", observed_id)
        store(self, "session_id", session_id)
        store(self, "level", level)
        store(self, "created_at", created_at)
        store(self, "source_ids", source_ids)

    @classmethod
    def from_json(cls, data: object, op: str) -> Conclusion:
        f = Fields(data, op, "conclusion")
        return cls(
            id=f.text("id"),
            content=f.text("content"),
            observer_id=f.text("observer_id"),
            observed_id=f.text("observed_id"),
            session_id=f.opt_text("session_id"),
            level=f.opt_text("level"),
            created_at=f.opt_text("created_at"),
            source_ids=f.opt_text_list("source_ids"),
        )


class Page(Record, Generic[T]):
    """One page of a list; ``pages`` is 0 when ``total`` is 0."""

    __slots__ = ("items", "total", "page", "size", "pages")

    items: tuple[T, ...]
    total: int
    page: int
    size: int
    pages: int

    def __init__(
        self, *, items: tuple[T, ...], total: int, page: int, size: int, pages: int
    ) -> None:
        store(self, "items", items)
        store(self, "total", total)
        store(self, "page", page)
        store(self, "size", size)
        store(self, "pages", pages)

    @classmethod
    def decode(cls, data: object, op: str, item: Callable[[object, str], T]) -> Page[T]:
        """A page whose items are each decoded by ``item`` (a model's ``from_json``)."""
        f = Fields(data, op, "page")
        items = f.data.get("items")
        if not isinstance(items, list):
            raise f.fail("items", "an array")
        return cls(
            items=tuple([item(entry, op) for entry in items]),
            total=f.integer("total"),
            page=f.integer("page"),
            size=f.integer("size"),
            pages=f.integer("pages"),
        )


class EvidenceMessage(Record):
    """A message the dialectic read (ids only, no content)."""

    __slots__ = ("id", "session_id", "peer_id", "created_at")

    id: str
    session_id: str | None
    peer_id: str | None
    created_at: str | None

    def __init__(
        self,
        *,
        id: str,
        session_id: str | None = None,
        peer_id: str | None = None,
        created_at: str | None = None,
    ) -> None:
        store(self, "id", id)
        store(self, "session_id", session_id)
        store(self, "peer_id", peer_id)
        store(self, "created_at", created_at)

    @classmethod
    def from_json(cls, data: object, op: str) -> EvidenceMessage:
        f = Fields(data, op, "evidence message")
        return cls(
            id=f.text("id"),
            session_id=f.opt_text("session_id"),
            peer_id=f.opt_text("peer_id"),
            created_at=f.opt_text("created_at"),
        )


class Evidence(Record):
    """What the dialectic read to answer (OAS 3.3 ``include_evidence``)."""

    __slots__ = ("conclusions", "messages", "tool_calls", "reasoning_trace_id")

    conclusions: tuple[Conclusion, ...]
    messages: tuple[EvidenceMessage, ...]
    tool_calls: tuple[JSON, ...]
    reasoning_trace_id: str | None

    def __init__(
        self,
        *,
        conclusions: tuple[Conclusion, ...] = (),
        messages: tuple[EvidenceMessage, ...] = (),
        tool_calls: tuple[JSON, ...] = (),
        reasoning_trace_id: str | None = None,
    ) -> None:
        store(self, "conclusions", conclusions)
        store(self, "messages", messages)
        store(self, "tool_calls", tool_calls)
        store(self, "reasoning_trace_id", reasoning_trace_id)

    @classmethod
    def from_json(cls, data: object, op: str) -> Evidence:
        f = Fields(data, op, "evidence")
        calls = f.array("tool_calls")
        if not all(isinstance(c, dict) for c in calls):
            raise f.fail("tool_calls", "a list of objects")
        return cls(
            conclusions=tuple(Conclusion.from_json(c, op) for c in f.array("conclusions")),
            messages=tuple(EvidenceMessage.from_json(m, op) for m in f.array("messages")),
            tool_calls=tuple(calls),
            reasoning_trace_id=f.opt_text("reasoning_trace_id"),
        )


class ChatAnswer(Record):
    """The dialectic's answer; ``content`` is None when the server had nothing to say."""

    __slots__ = ("content", "evidence")

    content: str | None
    evidence: Evidence | None

    def __init__(self, *, content: str | None, evidence: Evidence | None = None) -> None:
        store(self, "content", content)
        store(self, "evidence", evidence)

    @classmethod
    def from_json(cls, data: object, op: str) -> ChatAnswer:
        f = Fields(data, op, "chat answer")
        raw = f.data.get("evidence")
        evidence = None if raw is None else Evidence.from_json(raw, op)
        return cls(content=f.opt_text("content"), evidence=evidence)


class ChatChunk(Record):
    """One piece of a streamed answer; the last one has ``done`` set (and any evidence)."""

    __slots__ = ("content", "done", "evidence")

    content: str
    done: bool
    evidence: Evidence | None

    def __init__(
        self, *, content: str, done: bool = False, evidence: Evidence | None = None
    ) -> None:
        store(self, "content", content)
        store(self, "done", done)
        store(self, "evidence", evidence)

    @classmethod
    def from_json(cls, data: object, op: str) -> ChatChunk:
        f = Fields(data, op, "chat event")
        done = f.opt_flag("done") or False
        delta = f.data.get("delta")
        content = ""
        if delta is not None:
            content = Fields(delta, op, "chat event delta").opt_text("content") or ""
        elif not done:
            raise f.fail("delta", "an object")
        raw = f.data.get("evidence")
        evidence = None if raw is None else Evidence.from_json(raw, op)
        return cls(content=content, done=done, evidence=evidence)


class SessionQueueStatus(Record):
    """Queue counts for one session, keyed by the server's internal session id."""

    __slots__ = (
        "session_id",
        "total_work_units",
        "completed_work_units",
        "in_progress_work_units",
        "pending_work_units",
    )

    session_id: str
    total_work_units: int
    completed_work_units: int
    in_progress_work_units: int
    pending_work_units: int

    def __init__(
        self,
        *,
        session_id: str,
        total_work_units: int,
        completed_work_units: int,
        in_progress_work_units: int,
        pending_work_units: int,
    ) -> None:
        store(self, "session_id", session_id)
        store(self, "total_work_units", total_work_units)
        store(self, "completed_work_units", completed_work_units)
        store(self, "in_progress_work_units", in_progress_work_units)
        store(self, "pending_work_units", pending_work_units)

    @classmethod
    def from_json(cls, data: object, op: str, key: str) -> SessionQueueStatus:
        """The entry under ``key`` of a queue status's ``sessions``; the key stands in for
        an absent ``session_id``."""
        f = Fields(data, op, f"queue status.sessions[{key}]")
        return cls(
            session_id=f.opt_text("session_id") or key,
            total_work_units=f.integer("total_work_units"),
            completed_work_units=f.integer("completed_work_units"),
            in_progress_work_units=f.integer("in_progress_work_units"),
            pending_work_units=f.integer("pending_work_units"),
        )


class QueueStatus(Record):
    """Deriver queue counts. They count queue rows (one per message and task), not units.

    ``sessions`` is keyed by the server's internal session id, not the session name.
    """

    __slots__ = (
        "total_work_units",
        "completed_work_units",
        "in_progress_work_units",
        "pending_work_units",
        "sessions",
    )

    total_work_units: int
    completed_work_units: int
    in_progress_work_units: int
    pending_work_units: int
    sessions: Mapping[str, SessionQueueStatus]

    def __init__(
        self,
        *,
        total_work_units: int,
        completed_work_units: int,
        in_progress_work_units: int,
        pending_work_units: int,
        sessions: Mapping[str, SessionQueueStatus] | None = None,
    ) -> None:
        store(self, "total_work_units", total_work_units)
        store(self, "completed_work_units", completed_work_units)
        store(self, "in_progress_work_units", in_progress_work_units)
        store(self, "pending_work_units", pending_work_units)
        store(self, "sessions", {} if sessions is None else sessions)

    @property
    def idle(self) -> bool:
        """Nothing pending or in progress."""
        return self.pending_work_units == 0 and self.in_progress_work_units == 0

    @classmethod
    def from_json(cls, data: object, op: str) -> QueueStatus:
        f = Fields(data, op, "queue status")
        sessions = {
            key: SessionQueueStatus.from_json(value, op, key)
            for key, value in f.opt_obj("sessions").items()
        }
        return cls(
            total_work_units=f.integer("total_work_units"),
            completed_work_units=f.integer("completed_work_units"),
            in_progress_work_units=f.integer("in_progress_work_units"),
            pending_work_units=f.integer("pending_work_units"),
            sessions=sessions,
        )


class Health(Record):
    """``GET /health``. Honcho 3.2 reveals no version here (nor in any header)."""

    __slots__ = ("status",)

    status: str

    def __init__(self, *, status: str) -> None:
        store(self, "status", status)

    @property
    def ok(self) -> bool:
        """The server answered ``{"status": "ok"}``."""
        return self.status == "ok"

    @classmethod
    def from_json(cls, data: object, op: str) -> Health:
        return cls(status=Fields(data, op, "health").text("status"))


class DeleteAccepted(Record):
    """A 202 for a session or workspace delete: accepted, purged later in the background."""

    __slots__ = ("message",)

    message: str | None

    def __init__(self, *, message: str | None = None) -> None:
        store(self, "message", message)

    @classmethod
    def from_json(cls, data: object, op: str) -> DeleteAccepted:
        if data is None:
            return cls()
        return cls(message=Fields(data, op, "delete answer").opt_text("message"))


# -- inputs ------------------------------------------------------------------------------
class MessageCreate(Record):
    """One message to add. ``configuration`` may hold only ``reasoning`` (server rule)."""

    __slots__ = ("peer_id", "content", "metadata", "created_at", "configuration")
    __match_args__ = ("peer_id", "content", "metadata", "created_at", "configuration")

    peer_id: str
    """The sender; the server creates an unknown peer and adds it to the session."""
    content: str
    """At most 25,000 characters (empty is allowed)."""
    metadata: JSON | None
    """A JSON object: at most 100 top-level keys, nested at most 5 levels."""
    created_at: str | datetime | None
    """When it was said: RFC 3339 text or an aware datetime; None: the server's now."""
    configuration: JSON | None
    """Only ``{"reasoning": {...}}`` (refused here otherwise: the server drops the rest)."""

    def __init__(
        self,
        peer_id: str,
        content: str,
        metadata: JSON | None = None,
        created_at: str | datetime | None = None,
        configuration: JSON | None = None,
    ) -> None:
        store(self, "peer_id", peer_id)
        store(self, "content", content)
        store(self, "metadata", metadata)
        store(self, "created_at", created_at)
        store(self, "configuration", configuration)

    def to_json(self, where: str = "message") -> JSON:
        check_id(self.peer_id, f"{where}.peer_id")
        body: JSON = {
            "peer_id": self.peer_id,
            "content": check_content(
                self.content, f"{where}.content", MAX_MESSAGE_CHARS, empty=True
            ),
        }
        if self.metadata is not None:
            body["metadata"] = check_metadata(self.metadata, f"{where}.metadata")
        if self.created_at is not None:
            body["created_at"] = check_timestamp(self.created_at, f"{where}.created_at")
        if self.configuration is not None:
            config = check_reasoning_config(self.configuration, f"{where}.configuration")
            unknown = set(config) - {"reasoning"}
            if unknown:
                raise ConfigError(
                    f"{where}.configuration may hold only 'reasoning' (the server "
                    f"drops {sorted(unknown)} silently)"
                )
            body["configuration"] = config
        return body


class ConclusionCreate(Record):
    """One conclusion to write: what ``observer_id`` concludes about ``observed_id``."""

    __slots__ = ("content", "observer_id", "observed_id", "session_id")
    __match_args__ = ("content", "observer_id", "observed_id", "session_id")

    content: str
    """1 to 65,535 characters (the server also caps its tokens)."""
    observer_id: str
    """The peer holding the conclusion; it must exist (else 404)."""
    observed_id: str
    """The peer it is about; it must exist (else 404)."""
    session_id: str | None
    """An active session it belongs to, deleted with it; None: kept until deleted."""

    def __init__(
        self, content: str, observer_id: str, observed_id: str, session_id: str | None = None
    ) -> None:
        store(self, "content", content)
        store(self, "observer_id", observer_id)
        store(self, "observed_id", observed_id)
        store(self, "session_id", session_id)

    def to_json(self, where: str = "conclusion") -> JSON:
        body: JSON = {
            "content": check_content(
                self.content, f"{where}.content", MAX_CONCLUSION_CHARS, empty=False
            ),
            "observer_id": check_id(self.observer_id, f"{where}.observer_id"),
            "observed_id": check_id(self.observed_id, f"{where}.observed_id"),
        }
        if self.session_id is not None:
            body["session_id"] = check_id(self.session_id, f"{where}.session_id")
        return body


def render_batch(
    items: Iterable[object],
    kind: type[MessageCreate] | type[ConclusionCreate],
    what: str,
    op: str,
) -> list[JSON]:
    """1 to MAX_BATCH items of ``kind``, each rendered (and so checked) as JSON by its
    ``to_json``: a batch the server would refuse is refused before anything is sent."""
    batch = check_items(items, what, kind.__name__)
    if not 1 <= len(batch) <= MAX_BATCH:
        raise ConfigError(f"{op} takes 1 to {MAX_BATCH} {what}, got {len(batch)}")
    rendered = []
    for i, item in enumerate(batch):
        if not isinstance(item, kind):
            raise ConfigError(f"{what}[{i}] must be a {kind.__name__}")
        rendered.append(item.to_json(f"{what}[{i}]"))
    return rendered


# -- what the server has made of the messages, and named scopes ------------------------------
class Summary(Record):
    """A session summary the deriver wrote: the text and what it covers."""

    __slots__ = ("content", "message_id", "summary_type", "token_count", "created_at")

    content: str
    message_id: str
    """The public id of the last message the summary covers."""
    summary_type: str
    """``honcho_chat_summary_short`` or ``honcho_chat_summary_long`` on Honcho 3.0.12."""
    token_count: int
    created_at: str | None

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

    __slots__ = ("id", "short", "long")

    id: str
    """The session's id."""
    short: Summary | None
    long: Summary | None

    def __init__(
        self, *, id: str, short: Summary | None = None, long: Summary | None = None
    ) -> None:
        store(self, "id", id)
        store(self, "short", short)
        store(self, "long", long)

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

    __slots__ = ("id", "messages", "summary", "peer_representation", "peer_card")

    id: str
    """The session's id."""
    messages: tuple[Message, ...]
    summary: Summary | None
    peer_representation: str | None
    peer_card: tuple[str, ...] | None

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

    __slots__ = ("peer_id", "target_id", "representation", "peer_card")

    peer_id: str
    target_id: str
    representation: str | None
    peer_card: tuple[str, ...] | None

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

    __slots__ = ("id", "metadata", "created_at", "created")

    id: str
    metadata: JSON
    created_at: str | None
    created: bool | None
    """True when get-or-create made it (201), False when it existed (200), else None."""

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

    __slots__ = ("session_id", "state", "updated_at", "docs_copied")

    session_id: str
    state: str
    """``"pending"``, ``"completed"`` or ``"failed"``."""
    updated_at: str | None
    docs_copied: int | None
    """Set once the backfill has completed."""

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

    __slots__ = ("backfill",)

    backfill: Mapping[str, ScopeBackfill]

    def __init__(self, *, backfill: Mapping[str, ScopeBackfill] | None = None) -> None:
        store(self, "backfill", {} if backfill is None else backfill)

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
