"""Frozen records for what Honcho answers, and for what roncho sends.

Each model is a Record (``_record.py``): a frozen, slotted, dataclass-like class that
costs next to nothing to define, so ``import roncho`` stays cheap. How a JSON answer is
read (``_Fields``, ``parse_json``, ``parse_timestamp``) lives in ``_decode``.

Decoding (``from_json``) requires only the fields memoryd relies on, ignores every field
the server adds, and raises DecodeError naming the operation and the field, never a bare
KeyError or TypeError. Timestamps stay RFC 3339 strings (``parse_timestamp`` turns one
into a datetime); ids stay strings. Inputs (``MessageCreate``, ``ConclusionCreate``)
check themselves against the server's limits, so a batch the server would refuse is
refused before anything is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, ClassVar, Generic, Self, TypeVar

from ._checks import (  # the input checks moved to _checks; re-exported for old imports
    MAX_CONCLUSION_CHARS,
    MAX_MESSAGE_CHARS,
    check_content,
    check_id,
    check_metadata,
    check_reasoning_config,
    check_timestamp,
)
from ._decode import Plan, _Fields, plan_of, read_into
from ._decode import decode_list as decode_list  # moved to _decode; kept for old imports
from ._decode import parse_json as parse_json
from ._errors import ConfigError
from ._record import Record, field, storage

T = TypeVar("T")
JSON = dict[str, Any]


class _Decoded(Record):
    """A model read from a JSON object field by field, each by its annotation
    (``_decode.read_record``): a required field must come with its type, an optional one
    may be null or absent, and whatever else the server sends is ignored."""

    _what: ClassVar[str] = "object"  # what an error calls it: "peer", "conclusion", ...
    _given: ClassVar[tuple[str, ...]] = ()  # fields its decoder sets itself

    @classmethod
    def from_json(cls, data: object, op: str) -> Self:
        return cls._decoded(_Fields(data, op, cls._what))

    @classmethod
    def _decoded(cls, f: _Fields, **given: Any) -> Self:
        """A record of every field read from ``f``, and those in ``_given`` from ``given``."""
        record: Any = object.__new__(storage(cls))
        read_into(record, cls._plan(), f)
        for name, value in given.items():
            setattr(record, name, value)
        record.__class__ = cls
        decoded: Self = record
        return decoded

    @classmethod
    def _plan(cls) -> Plan:
        """How this class's fields are read, worked out on its first answer (each class its
        own: a subclass adds fields)."""
        plan: Plan | None = cls.__dict__.get("_read_plan")
        if plan is None:
            if cls.__record__.post_init is not None:  # _decoded() does not run __init__
                raise TypeError(f"{cls.__name__} has a __post_init__: decode it by hand")
            plan = plan_of(cls.__record__.fields, cls._given)
            type.__setattr__(cls, "_read_plan", plan)
        return plan


# -- resources ---------------------------------------------------------------------------
class _Resource(_Decoded, kw_only=True):
    """What every stored resource has; each kind adds its own fields after these."""

    id: str
    metadata: JSON = field(default_factory=dict)
    configuration: JSON = field(default_factory=dict)
    created_at: str | None = None
    created: bool | None = None
    """True when get-or-create made it (201), False when it existed (200), else None."""

    _given = ("created",)

    @classmethod
    def from_json(cls, data: object, op: str, created: bool | None = None) -> Self:
        return cls._decoded(_Fields(data, op, cls._what), created=created)


class Workspace(_Resource, kw_only=True):
    """A workspace: the unit a key is scoped to. ``created`` is set only by get-or-create."""

    _what = "workspace"


class Peer(_Resource, kw_only=True):
    """A participant (user, agent) whose messages can be observed and reasoned about."""

    workspace_id: str | None = None

    _what = "peer"


class Session(_Resource, kw_only=True):
    """A conversation; ``is_active`` turns false at once when it is deleted."""

    workspace_id: str | None = None
    is_active: bool = True

    _what = "session"


class SessionPeerConfig(Record, kw_only=True):
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
        f = _Fields(data, op, "session peer config")
        return cls(observe_me=f.opt_flag("observe_me"), observe_others=f.opt_flag("observe_others"))


class Message(_Decoded, kw_only=True):
    """A stored message. Required are only the fields memoryd reads; ``role`` is not sent."""

    id: str
    content: str
    peer_id: str
    session_id: str
    created_at: str
    metadata: JSON
    workspace_id: str | None = None
    token_count: int | None = None

    _what = "message"

    @classmethod
    def from_json(cls, data: object, op: str) -> Message:
        # Pages of messages are the bulk of what roncho decodes, so the well-formed case
        # skips _Fields and the frozen __init__ (2.3 us -> 0.9 us a message, see
        # benchmarks/RESULTS.md, and 0.9 -> 0.5 us with the blank below); anything
        # unusual takes the checked path and its errors.
        if type(data) is dict:
            get = data.get
            id_, content, peer, session = (
                get("id"),
                get("content"),
                get("peer_id"),
                get("session_id"),
            )
            created, meta = get("created_at"), get("metadata")
            workspace, tokens = get("workspace_id"), get("token_count")
            if (
                type(id_) is str
                and type(content) is str
                and type(peer) is str
                and type(session) is str
                and type(created) is str
                and (meta is None or type(meta) is dict)
                and (workspace is None or type(workspace) is str)
                and (tokens is None or type(tokens) is int)
            ):
                # A blank of Message's own layout, filled by plain attribute stores
                # (which CPython specialises), then made a Message (see _record.storage).
                message: Any = object.__new__(_MESSAGE_STORAGE)
                message.id = id_
                message.content = content
                message.peer_id = peer
                message.session_id = session
                message.created_at = created
                message.metadata = {} if meta is None else meta
                message.workspace_id = workspace
                message.token_count = tokens
                message.__class__ = cls
                built: Message = message
                return built
        return super().from_json(data, op)


_MESSAGE_STORAGE = storage(Message)


class Conclusion(_Decoded, kw_only=True):
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

    _what = "conclusion"


class Page(Record, Generic[T], kw_only=True):
    """One page of a list; ``pages`` is 0 when ``total`` is 0."""

    items: tuple[T, ...]
    total: int
    page: int
    size: int
    pages: int

    @classmethod
    def decode(cls, data: object, op: str, item: Callable[[object, str], T]) -> Page[T]:
        f = _Fields(data, op, "page")
        items = f.data.get("items")
        if not isinstance(items, list):
            raise f._fail("items", "an array")
        return cls(
            items=tuple([item(entry, op) for entry in items]),
            total=f.integer("total"),
            page=f.integer("page"),
            size=f.integer("size"),
            pages=f.integer("pages"),
        )


class EvidenceMessage(_Decoded, kw_only=True):
    """A message the dialectic read (ids only, no content)."""

    id: str
    session_id: str | None = None
    peer_id: str | None = None
    created_at: str | None = None

    _what = "evidence message"


class Evidence(Record, kw_only=True):
    """What the dialectic read to answer (OAS 3.3 ``include_evidence``)."""

    conclusions: tuple[Conclusion, ...] = ()
    messages: tuple[EvidenceMessage, ...] = ()
    tool_calls: tuple[JSON, ...] = ()
    reasoning_trace_id: str | None = None

    @classmethod
    def from_json(cls, data: object, op: str) -> Evidence:
        f = _Fields(data, op, "evidence")
        calls = f.array("tool_calls")
        if not all(isinstance(c, dict) for c in calls):
            raise f._fail("tool_calls", "a list of objects")
        return cls(
            conclusions=tuple(Conclusion.from_json(c, op) for c in f.array("conclusions")),
            messages=tuple(EvidenceMessage.from_json(m, op) for m in f.array("messages")),
            tool_calls=tuple(calls),
            reasoning_trace_id=f.opt_text("reasoning_trace_id"),
        )


class ChatAnswer(Record, kw_only=True):
    """The dialectic's answer; ``content`` is None when the server had nothing to say."""

    content: str | None
    evidence: Evidence | None = None

    @classmethod
    def from_json(cls, data: object, op: str) -> ChatAnswer:
        f = _Fields(data, op, "chat answer")
        raw = f.data.get("evidence")
        evidence = None if raw is None else Evidence.from_json(raw, op)
        return cls(content=f.opt_text("content"), evidence=evidence)


class ChatChunk(Record, kw_only=True):
    """One piece of a streamed answer; the last one has ``done`` set (and any evidence)."""

    content: str
    done: bool = False
    evidence: Evidence | None = None

    @classmethod
    def from_json(cls, data: object, op: str) -> ChatChunk:
        f = _Fields(data, op, "chat event")
        done = f.opt_flag("done") or False
        delta = f.data.get("delta")
        content = ""
        if delta is not None:
            content = _Fields(delta, op, "chat event delta").opt_text("content") or ""
        elif not done:
            raise f._fail("delta", "an object")
        raw = f.data.get("evidence")
        evidence = None if raw is None else Evidence.from_json(raw, op)
        return cls(content=content, done=done, evidence=evidence)


class SessionQueueStatus(_Decoded, kw_only=True):
    """Queue counts for one session, keyed by the server's internal session id."""

    session_id: str
    total_work_units: int
    completed_work_units: int
    in_progress_work_units: int
    pending_work_units: int

    _given = ("session_id",)


class QueueStatus(_Decoded, kw_only=True):
    """Deriver queue counts. They count queue rows (one per message and task), not units.

    ``sessions`` is keyed by the server's internal session id, not the session name.
    """

    total_work_units: int
    completed_work_units: int
    in_progress_work_units: int
    pending_work_units: int
    sessions: Mapping[str, SessionQueueStatus] = field(default_factory=dict)

    _what = "queue status"
    _given = ("sessions",)

    @property
    def idle(self) -> bool:
        """Nothing pending or in progress."""
        return self.pending_work_units == 0 and self.in_progress_work_units == 0

    @classmethod
    def from_json(cls, data: object, op: str) -> Self:
        f = _Fields(data, op, cls._what)
        sessions = {}
        for key, value in f.opt_obj("sessions").items():
            s = _Fields(value, op, f"queue status.sessions[{key}]")
            session_id = s.opt_text("session_id") or key
            sessions[key] = SessionQueueStatus._decoded(s, session_id=session_id)
        return cls._decoded(f, sessions=sessions)


class Health(_Decoded, kw_only=True):
    """``GET /health``. Honcho 3.2 reveals no version here (nor in any header)."""

    status: str

    _what = "health"

    @property
    def ok(self) -> bool:
        """The server answered ``{"status": "ok"}``."""
        return self.status == "ok"


class DeleteAccepted(Record, kw_only=True):
    """A 202 for a session or workspace delete: accepted, purged later in the background."""

    message: str | None = None

    @classmethod
    def from_json(cls, data: object, op: str) -> DeleteAccepted:
        if data is None:
            return cls()
        return cls(message=_Fields(data, op, "delete answer").opt_text("message"))


class MessageCreate(Record):
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

    # Written out, not the Record's generic __init__: memoryd makes one per turn, and
    # add_messages takes up to 100 (0.43 instead of 0.72 us each). The same parameters,
    # defaults and errors (tests/unit/test_models.py holds it to the fields).
    def __init__(
        self,
        peer_id: str,
        content: str,
        metadata: JSON | None = None,
        created_at: str | datetime | None = None,
        configuration: JSON | None = None,
    ) -> None:
        _set_peer_id(self, peer_id)
        _set_content(self, content)
        _set_metadata(self, metadata)
        _set_created_at(self, created_at)
        _set_configuration(self, configuration)

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


_set_peer_id, _set_content, _set_metadata, _set_created_at, _set_configuration = (
    getattr(storage(MessageCreate), name).__set__ for name in MessageCreate.__record__.names
)


class ConclusionCreate(Record):
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
