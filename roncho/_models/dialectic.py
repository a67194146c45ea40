"""What the server reasons: the dialectic's answer, whole (``ChatAnswer``) or streamed
(``ChatChunk``), and the deriver's queue (``QueueStatus``, by session ``SessionQueueStatus``)."""

from __future__ import annotations

from collections.abc import Mapping

from .._decode import Fields
from .._record import Record, store
from .messages import Evidence


class ChatAnswer(Record):
    """The dialectic's answer; ``content`` is None when the server had nothing to say."""

    content: str | None
    evidence: Evidence | None  # default: None

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("content", "evidence")

    def __init__(self, *, content: str | None, evidence: Evidence | None = None) -> None:
        store(self, "content", content)
        store(self, "evidence", evidence)

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str) -> ChatAnswer:
        f = Fields(data, op, "chat answer")
        raw = f.data.get("evidence")
        evidence = None if raw is None else Evidence.from_json(raw, op)
        return cls(content=f.opt_text("content"), evidence=evidence)


class ChatChunk(Record):
    """One piece of a streamed answer; the last one has ``done`` set (and any evidence)."""

    content: str
    done: bool  # default: False
    evidence: Evidence | None  # default: None

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("content", "done", "evidence")

    def __init__(
        self, *, content: str, done: bool = False, evidence: Evidence | None = None
    ) -> None:
        store(self, "content", content)
        store(self, "done", done)
        store(self, "evidence", evidence)

    # END GENERATED record

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

    session_id: str
    """The server's internal session id, not the session's name (no other answer carries
    it): ``queue_status(session_id=name)`` gives one session's counts by name."""
    total_work_units: int
    completed_work_units: int
    in_progress_work_units: int
    pending_work_units: int

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = (
        "session_id",
        "total_work_units",
        "completed_work_units",
        "in_progress_work_units",
        "pending_work_units",
    )

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

    # END GENERATED record

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

    ``sessions`` is keyed by the server's internal session id, not the session name, and
    no other answer carries that id: ``queue_status(session_id=name)`` gives one session's
    counts in the totals (its ``sessions`` is then empty).
    """

    total_work_units: int
    completed_work_units: int
    in_progress_work_units: int
    pending_work_units: int
    sessions: Mapping[str, SessionQueueStatus]  # default: {}
    """Per session, by the server's internal session id; empty when asked for one session."""

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = (
        "total_work_units",
        "completed_work_units",
        "in_progress_work_units",
        "pending_work_units",
        "sessions",
    )

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

    # END GENERATED record

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
