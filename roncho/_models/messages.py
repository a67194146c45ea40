"""Messages and conclusions: as the server stores them, as the dialectic cites them
(``Evidence``), and as roncho sends them.

The inputs (``MessageCreate``, ``ConclusionCreate``) are rendered to the wire here too, by
``to_json`` one at a time or ``render_batch`` for a request's list: each checks itself
against the server's limits, so a batch the server would refuse is refused before anything
is sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from .._checks import ID_PATTERN, check_id
from .._decode import JSON, Fields
from .._errors import ConfigError
from .._record import Record, store
from .._request_checks import (
    MAX_BATCH,
    MAX_CONCLUSION_CHARS,
    MAX_MESSAGE_CHARS,
    check_content,
    check_items,
    check_metadata,
    check_reasoning_config,
    check_timestamp,
)


class Message(Record):
    """A stored message. Required are only the fields memoryd reads; ``role`` is not sent."""

    id: str
    content: str
    peer_id: str
    session_id: str
    created_at: str
    metadata: JSON
    workspace_id: str | None  # default: None
    token_count: int | None  # default: None

    # BEGIN GENERATED record (scripts/render_records.py)
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

    # END GENERATED record

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


# The speed path roncho keeps: pages of messages are most of what it decodes, and reading
# one through Fields costs about half again as much. Written from Message.from_json's reads
# (scripts/render_records.py), so a field added there is read here too;
# tests/unit/test_properties.py holds it to the Fields reading on generated messages.
# BEGIN GENERATED fast path: Message (scripts/render_records.py)
# Each field's slot setter: a record refuses assignment, and its slot's own __set__
# stores past that refusal at about half the cost of object.__setattr__ (``store``).
_store_message_id = Message.__dict__["id"].__set__
_store_message_content = Message.__dict__["content"].__set__
_store_message_peer_id = Message.__dict__["peer_id"].__set__
_store_message_session_id = Message.__dict__["session_id"].__set__
_store_message_created_at = Message.__dict__["created_at"].__set__
_store_message_metadata = Message.__dict__["metadata"].__set__
_store_message_workspace_id = Message.__dict__["workspace_id"].__set__
_store_message_token_count = Message.__dict__["token_count"].__set__


def _well_formed_message(data: object) -> Message | None:
    """The speed path of Message.from_json, written from its reads by
    scripts/render_records.py: a value whose every field is as it should be is read in
    one pass; for anything else it gives None, and the Fields reading (with its errors)
    decides."""
    if type(data) is not dict:
        return None
    get = data.get
    id_ = get("id")
    if type(id_) is not str:
        return None
    content = get("content")
    if type(content) is not str:
        return None
    peer_id = get("peer_id")
    if type(peer_id) is not str:
        return None
    session_id = get("session_id")
    if type(session_id) is not str:
        return None
    created_at = get("created_at")
    if type(created_at) is not str:
        return None
    metadata = get("metadata")
    if metadata is None:
        metadata = {}
    elif type(metadata) is not dict:
        return None
    workspace_id = get("workspace_id")
    if workspace_id is not None and type(workspace_id) is not str:
        return None
    token_count = get("token_count")
    if token_count is not None and type(token_count) is not int:
        return None
    message = object.__new__(Message)
    _store_message_id(message, id_)
    _store_message_content(message, content)
    _store_message_peer_id(message, peer_id)
    _store_message_session_id(message, session_id)
    _store_message_created_at(message, created_at)
    _store_message_metadata(message, metadata)
    _store_message_workspace_id(message, workspace_id)
    _store_message_token_count(message, token_count)
    return message


# END GENERATED fast path


class Conclusion(Record):
    """What ``observer_id`` has concluded about ``observed_id``; explicit ones have no sources."""

    id: str
    content: str
    observer_id: str
    observed_id: str
    session_id: str | None  # default: None
    level: str | None  # default: None
    created_at: str | None  # default: None
    source_ids: tuple[str, ...] | None  # default: None
    """Premise conclusion ids; the observed 3.2.0 server sends null for explicit ones."""
    times_derived: int | None  # default: None
    """How often the deriver reached this conclusion (Honcho 3.2.0 on; None before)."""

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = (
        "id",
        "content",
        "observer_id",
        "observed_id",
        "session_id",
        "level",
        "created_at",
        "source_ids",
        "times_derived",
    )

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
        times_derived: int | None = None,
    ) -> None:
        store(self, "id", id)
        store(self, "content", content)
        store(self, "observer_id", observer_id)
        store(self, "observed_id", observed_id)
        store(self, "session_id", session_id)
        store(self, "level", level)
        store(self, "created_at", created_at)
        store(self, "source_ids", source_ids)
        store(self, "times_derived", times_derived)

    # END GENERATED record

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
            times_derived=f.opt_integer("times_derived"),
        )


class EvidenceMessage(Record):
    """A message the dialectic read (ids only, no content)."""

    id: str
    session_id: str | None  # default: None
    peer_id: str | None  # default: None
    created_at: str | None  # default: None

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("id", "session_id", "peer_id", "created_at")

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

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str) -> EvidenceMessage:
        f = Fields(data, op, "evidence message")
        return cls(
            id=f.text("id"),
            session_id=f.opt_text("session_id"),
            peer_id=f.opt_text("peer_id"),
            created_at=f.opt_text("created_at"),
        )


class EvidenceConclusion(Record):
    """A conclusion the dialectic read. Unlike a ``Conclusion`` it may lack its peers: Honcho
    sends ``observer_id`` and ``observed_id`` here only from 3.2.1 on (its release notes; the
    official SDK's ``EvidenceObservation`` says the same), so 3.2.0 gives None."""

    id: str
    content: str
    observer_id: str | None  # default: None
    observed_id: str | None  # default: None
    session_id: str | None  # default: None
    level: str | None  # default: None
    created_at: str | None  # default: None
    source_ids: tuple[str, ...] | None  # default: None

    # BEGIN GENERATED record (scripts/render_records.py)
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

    def __init__(
        self,
        *,
        id: str,
        content: str,
        observer_id: str | None = None,
        observed_id: str | None = None,
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

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str) -> EvidenceConclusion:
        f = Fields(data, op, "evidence conclusion")
        return cls(
            id=f.text("id"),
            content=f.text("content"),
            observer_id=f.opt_text("observer_id"),
            observed_id=f.opt_text("observed_id"),
            session_id=f.opt_text("session_id"),
            level=f.opt_text("level"),
            created_at=f.opt_text("created_at"),
            source_ids=f.opt_text_list("source_ids"),
        )


class Evidence(Record):
    """What the dialectic read to answer (OAS 3.3 ``include_evidence``)."""

    conclusions: tuple[EvidenceConclusion, ...]  # default: ()
    messages: tuple[EvidenceMessage, ...]  # default: ()
    tool_calls: tuple[JSON, ...]  # default: ()
    reasoning_trace_id: str | None  # default: None

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("conclusions", "messages", "tool_calls", "reasoning_trace_id")

    def __init__(
        self,
        *,
        conclusions: tuple[EvidenceConclusion, ...] = (),
        messages: tuple[EvidenceMessage, ...] = (),
        tool_calls: tuple[JSON, ...] = (),
        reasoning_trace_id: str | None = None,
    ) -> None:
        store(self, "conclusions", conclusions)
        store(self, "messages", messages)
        store(self, "tool_calls", tool_calls)
        store(self, "reasoning_trace_id", reasoning_trace_id)

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str) -> Evidence:
        f = Fields(data, op, "evidence")
        calls = f.array("tool_calls")
        if not all(isinstance(c, dict) for c in calls):
            raise f.fail("tool_calls", "a list of objects")
        return cls(
            conclusions=tuple(EvidenceConclusion.from_json(c, op) for c in f.array("conclusions")),
            messages=tuple(EvidenceMessage.from_json(m, op) for m in f.array("messages")),
            tool_calls=tuple(calls),
            reasoning_trace_id=f.opt_text("reasoning_trace_id"),
        )


# -- inputs ------------------------------------------------------------------------------
class MessageCreate(Record):
    """One message to add. ``configuration`` may hold only ``reasoning`` (server rule)."""

    peer_id: str
    """The sender; the server creates an unknown peer and adds it to the session."""
    content: str
    """At most 25,000 characters (empty is allowed)."""
    metadata: JSON | None  # default: None
    """A JSON object: at most 100 top-level keys, nested at most 5 levels."""
    created_at: str | datetime | None  # default: None
    """When it was said: RFC 3339 text or an aware datetime; None: the server's now."""
    configuration: JSON | None  # default: None
    """Only ``{"reasoning": {...}}`` (refused here otherwise: the server drops the rest)."""

    # BEGIN GENERATED record, positional (scripts/render_records.py)
    __slots__ = ("peer_id", "content", "metadata", "created_at", "configuration")
    __match_args__ = ("peer_id", "content", "metadata", "created_at", "configuration")

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

    # END GENERATED record

    def to_json(self, where: str = "message") -> JSON:
        """The request body of this message, checked (a ConfigError names ``where``)."""
        plain = self._plain_json()
        return plain if plain is not None else self._checked_json(where)

    def _checked_json(self, where: str) -> JSON:
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

    def _plain_json(self) -> JSON | None:
        """The speed path of ``to_json``: the body of a message with an id and ASCII text
        that pass the checks and nothing optional set, with no field name made for an error
        that cannot happen; for anything else None, and ``to_json``'s checks (with their
        errors) decide. A batch of 100 is mostly this."""
        peer_id, content = self.peer_id, self.content
        if (
            type(peer_id) is str
            and ID_PATTERN.fullmatch(peer_id)
            and type(content) is str
            and len(content) <= MAX_MESSAGE_CHARS
            and content.isascii()
            and self.metadata is None
            and self.created_at is None
            and self.configuration is None
        ):
            return {"peer_id": peer_id, "content": content}
        return None


class ConclusionCreate(Record):
    """One conclusion to write: what ``observer_id`` concludes about ``observed_id``."""

    content: str
    """1 to 65,535 characters (the server also caps its tokens)."""
    observer_id: str
    """The peer holding the conclusion; it must exist (else 404)."""
    observed_id: str
    """The peer it is about; it must exist (else 404)."""
    session_id: str | None  # default: None
    """An active session it belongs to, deleted with it; None: kept until deleted."""

    # BEGIN GENERATED record, positional (scripts/render_records.py)
    __slots__ = ("content", "observer_id", "observed_id", "session_id")
    __match_args__ = ("content", "observer_id", "observed_id", "session_id")

    def __init__(
        self, content: str, observer_id: str, observed_id: str, session_id: str | None = None
    ) -> None:
        store(self, "content", content)
        store(self, "observer_id", observer_id)
        store(self, "observed_id", observed_id)
        store(self, "session_id", session_id)

    # END GENERATED record

    def to_json(self, where: str = "conclusion") -> JSON:
        """The request body of this conclusion, checked (a ConfigError names ``where``)."""
        plain = self._plain_json()
        return plain if plain is not None else self._checked_json(where)

    def _checked_json(self, where: str) -> JSON:
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

    def _plain_json(self) -> JSON | None:
        """The speed path of ``to_json``, as ``MessageCreate._plain_json``: non-empty ASCII
        text and ids that pass the checks, or None and ``to_json``'s checks decide."""
        content, observer_id, observed_id = self.content, self.observer_id, self.observed_id
        session_id = self.session_id
        if (
            type(content) is str
            and 0 < len(content) <= MAX_CONCLUSION_CHARS
            and content.isascii()
            and type(observer_id) is str
            and ID_PATTERN.fullmatch(observer_id)
            and type(observed_id) is str
            and ID_PATTERN.fullmatch(observed_id)
        ):
            body: JSON = {
                "content": content,
                "observer_id": observer_id,
                "observed_id": observed_id,
            }
            if session_id is None:
                return body
            if type(session_id) is str and ID_PATTERN.fullmatch(session_id):
                body["session_id"] = session_id
                return body
        return None


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
        plain = item._plain_json()  # the speed path; _checked_json names an error's field
        rendered.append(plain if plain is not None else item._checked_json(f"{what}[{i}]"))
    return rendered
