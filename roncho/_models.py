"""Frozen records for what Honcho answers, and for what roncho sends.

Every model is a standard ``@dataclass(frozen=True, slots=True)`` (``Page`` has no slots:
see there). Each answer model has one decoder, its ``from_json``, written out: it reads
the keys memoryd relies on (through ``_decode.Fields``), raises DecodeError naming the
operation and the field when one is missing or mistyped, and ignores every key the server
adds. Timestamps stay RFC 3339 strings (``parse_timestamp`` turns one into a datetime);
ids stay strings.

The inputs (``MessageCreate``, ``ConclusionCreate``) are rendered to the wire here too, by
``to_json`` one at a time or ``render_batch`` for a request's list: each checks itself
against the server's limits, so a batch the server would refuse is refused before anything
is sent.

Two models are built the fast way, because they come by the hundred: ``Message`` (pages of
them are most of what roncho decodes) and ``MessageCreate`` (``add_messages`` takes up to
100). A frozen dataclass's own ``__init__`` stores each field through
``object.__setattr__``, around its refusing ``__setattr__``; these two store each checked
value through the slot's own setter instead (``_slot_setters``). They are dataclasses all
the same: fields, equality, hashing, repr, ``dataclasses.replace`` and pickling are the
standard ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
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
from ._decode import Fields, field_error, not_an_object
from ._errors import ConfigError

T = TypeVar("T")
JSON = dict[str, Any]


def _slot_setters(cls: type) -> dict[str, Callable[[Any, Any], None]]:
    """Each field's slot setter, by name: what ``object.__setattr__`` ends in, called
    directly (a frozen dataclass's own ``__setattr__`` refuses every store)."""
    return {f.name: vars(cls)[f.name].__set__ for f in fields(cls)}


# -- resources ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class Workspace:
    """A workspace: the unit a key is scoped to. ``created`` is set only by get-or-create."""

    id: str
    metadata: JSON = field(default_factory=dict)
    configuration: JSON = field(default_factory=dict)
    created_at: str | None = None
    created: bool | None = None
    """True when get-or-create made it (201), False when it existed (200), else None."""

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


@dataclass(frozen=True, slots=True, kw_only=True)
class Peer:
    """A participant (user, agent) whose messages can be observed and reasoned about."""

    id: str
    metadata: JSON = field(default_factory=dict)
    configuration: JSON = field(default_factory=dict)
    created_at: str | None = None
    created: bool | None = None
    """True when get-or-create made it (201), False when it existed (200), else None."""
    workspace_id: str | None = None

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


@dataclass(frozen=True, slots=True, kw_only=True)
class Session:
    """A conversation; ``is_active`` turns false at once when it is deleted."""

    id: str
    metadata: JSON = field(default_factory=dict)
    configuration: JSON = field(default_factory=dict)
    created_at: str | None = None
    created: bool | None = None
    """True when get-or-create made it (201), False when it existed (200), else None."""
    workspace_id: str | None = None
    is_active: bool = True

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


@dataclass(frozen=True, slots=True, kw_only=True)
class WebhookEndpoint:
    """A URL the server posts a workspace's events to (``roncho.webhooks`` reads them)."""

    id: str
    url: str
    workspace_id: str | None = None
    created_at: str | None = None
    created: bool | None = None
    """True when get-or-create made it (201), False when the URL was registered (200), else
    None (a list)."""

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


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionPeerConfig:
    """A peer's observation switches inside one session; None means "not set here"."""

    observe_me: bool | None = None
    observe_others: bool | None = None

    def __post_init__(self) -> None:
        for name in ("observe_me", "observe_others"):
            value = getattr(self, name)
            # Not ``in (None, True, False)``: 1 == True, and 1 would be sent as 1.
            if value is not None and not isinstance(value, bool):
                raise ConfigError(f"{name} must be True, False or None")

    def to_json(self) -> JSON:
        return {"observe_me": self.observe_me, "observe_others": self.observe_others}

    @classmethod
    def from_json(cls, data: object, op: str) -> SessionPeerConfig:
        f = Fields(data, op, "session peer config")
        return cls(observe_me=f.opt_flag("observe_me"), observe_others=f.opt_flag("observe_others"))


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """A stored message. Required are only the fields memoryd reads; ``role`` is not sent."""

    id: str
    content: str
    peer_id: str
    session_id: str
    created_at: str
    metadata: JSON
    workspace_id: str | None = None
    token_count: int | None = None

    @classmethod
    def from_json(cls, data: object, op: str) -> Message:
        # Each key read, checked and stored in turn, without Fields and __init__: pages of
        # messages are the bulk of what roncho decodes (see the module docstring). JSON
        # gives exact types, so ``type(...) is`` checks what Fields' isinstance() would.
        if not isinstance(data, dict):
            raise not_an_object(data, op, "message")
        get = data.get
        store = _MESSAGE_SLOTS
        message = object.__new__(cls)
        value = get("id")
        if type(value) is not str:
            raise field_error(data, op, "message", "id", "a string")
        store["id"](message, value)
        value = get("content")
        if type(value) is not str:
            raise field_error(data, op, "message", "content", "a string")
        store["content"](message, value)
        value = get("peer_id")
        if type(value) is not str:
            raise field_error(data, op, "message", "peer_id", "a string")
        store["peer_id"](message, value)
        value = get("session_id")
        if type(value) is not str:
            raise field_error(data, op, "message", "session_id", "a string")
        store["session_id"](message, value)
        value = get("created_at")
        if type(value) is not str:
            raise field_error(data, op, "message", "created_at", "a string")
        store["created_at"](message, value)
        value = get("metadata")
        if value is None:
            value = {}
        elif type(value) is not dict:
            raise field_error(data, op, "message", "metadata", "an object or null")
        store["metadata"](message, value)
        value = get("workspace_id")
        if value is not None and type(value) is not str:
            raise field_error(data, op, "message", "workspace_id", "a string or null")
        store["workspace_id"](message, value)
        value = get("token_count")
        if value is not None and type(value) is not int:  # never a bool
            raise field_error(data, op, "message", "token_count", "an integer or null")
        store["token_count"](message, value)
        return message


_MESSAGE_SLOTS = _slot_setters(Message)


@dataclass(frozen=True, slots=True, kw_only=True)
class Conclusion:
    """What ``observer_id`` has concluded about ``observed_id``; explicit ones have no sources."""

    id: str
    content: str
    observer_id: str
    observed_id: str
    session_id: str | None = None
    level: str | None = None
    created_at: str | None = None
    source_ids: tuple[str, ...] | None = None
    """Premise conclusion ids; the observed 3.2.0 server sends null for explicit ones."""

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


# Not slotted: on Python 3.11 and 3.12, building a frozen slotted generic dataclass through
# its alias (``Page[Peer](...)``) fails in typing's store of ``__orig_class__`` (a dataclasses
# bug, fixed in 3.13); a page is one object per call, so its instance dict costs nothing.
@dataclass(frozen=True, kw_only=True)
class Page(Generic[T]):
    """One page of a list; ``pages`` is 0 when ``total`` is 0."""

    items: tuple[T, ...]
    total: int
    page: int
    size: int
    pages: int

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


@dataclass(frozen=True, slots=True, kw_only=True)
class EvidenceMessage:
    """A message the dialectic read (ids only, no content)."""

    id: str
    session_id: str | None = None
    peer_id: str | None = None
    created_at: str | None = None

    @classmethod
    def from_json(cls, data: object, op: str) -> EvidenceMessage:
        f = Fields(data, op, "evidence message")
        return cls(
            id=f.text("id"),
            session_id=f.opt_text("session_id"),
            peer_id=f.opt_text("peer_id"),
            created_at=f.opt_text("created_at"),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    """What the dialectic read to answer (OAS 3.3 ``include_evidence``)."""

    conclusions: tuple[Conclusion, ...] = ()
    messages: tuple[EvidenceMessage, ...] = ()
    tool_calls: tuple[JSON, ...] = ()
    reasoning_trace_id: str | None = None

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


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatAnswer:
    """The dialectic's answer; ``content`` is None when the server had nothing to say."""

    content: str | None
    evidence: Evidence | None = None

    @classmethod
    def from_json(cls, data: object, op: str) -> ChatAnswer:
        f = Fields(data, op, "chat answer")
        raw = f.data.get("evidence")
        evidence = None if raw is None else Evidence.from_json(raw, op)
        return cls(content=f.opt_text("content"), evidence=evidence)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatChunk:
    """One piece of a streamed answer; the last one has ``done`` set (and any evidence)."""

    content: str
    done: bool = False
    evidence: Evidence | None = None

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


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionQueueStatus:
    """Queue counts for one session, keyed by the server's internal session id."""

    session_id: str
    total_work_units: int
    completed_work_units: int
    in_progress_work_units: int
    pending_work_units: int

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


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueStatus:
    """Deriver queue counts. They count queue rows (one per message and task), not units.

    ``sessions`` is keyed by the server's internal session id, not the session name.
    """

    total_work_units: int
    completed_work_units: int
    in_progress_work_units: int
    pending_work_units: int
    sessions: Mapping[str, SessionQueueStatus] = field(default_factory=dict)

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


@dataclass(frozen=True, slots=True, kw_only=True)
class Health:
    """``GET /health``. Honcho 3.2 reveals no version here (nor in any header)."""

    status: str

    @property
    def ok(self) -> bool:
        """The server answered ``{"status": "ok"}``."""
        return self.status == "ok"

    @classmethod
    def from_json(cls, data: object, op: str) -> Health:
        return cls(status=Fields(data, op, "health").text("status"))


@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteAccepted:
    """A 202 for a session or workspace delete: accepted, purged later in the background."""

    message: str | None = None

    @classmethod
    def from_json(cls, data: object, op: str) -> DeleteAccepted:
        if data is None:
            return cls()
        return cls(message=Fields(data, op, "delete answer").opt_text("message"))


# -- inputs ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, init=False)
class MessageCreate:
    """One message to add. ``configuration`` may hold only ``reasoning`` (server rule)."""

    peer_id: str
    """The sender; the server creates an unknown peer and adds it to the session."""
    content: str
    """At most 25,000 characters (empty is allowed)."""
    metadata: JSON | None = None
    """A JSON object: at most 100 top-level keys, nested at most 5 levels."""
    created_at: str | datetime | None = None
    """When it was said: RFC 3339 text or an aware datetime; None: the server's now."""
    configuration: JSON | None = None
    """Only ``{"reasoning": {...}}`` (refused here otherwise: the server drops the rest)."""

    # Written out (init=False above), storing through the slots' setters: the same
    # parameters and defaults as the fields (tests/unit/test_models.py holds it to them).
    def __init__(
        self,
        peer_id: str,
        content: str,
        metadata: JSON | None = None,
        created_at: str | datetime | None = None,
        configuration: JSON | None = None,
    ) -> None:
        store = _MESSAGE_CREATE_SLOTS
        store["peer_id"](self, peer_id)
        store["content"](self, content)
        store["metadata"](self, metadata)
        store["created_at"](self, created_at)
        store["configuration"](self, configuration)

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


_MESSAGE_CREATE_SLOTS = _slot_setters(MessageCreate)


@dataclass(frozen=True, slots=True)
class ConclusionCreate:
    """One conclusion to write: what ``observer_id`` concludes about ``observed_id``."""

    content: str
    """1 to 65,535 characters (the server also caps its tokens)."""
    observer_id: str
    """The peer holding the conclusion; it must exist (else 404)."""
    observed_id: str
    """The peer it is about; it must exist (else 404)."""
    session_id: str | None = None
    """An active session it belongs to, deleted with it; None: kept until deleted."""

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
