"""Waiting for the deriver, sans-IO: what a wait has seen, and what it may say from that.

Honcho derives conclusions in the background, and its only progress report is queue status:
counts of queue items (one per message of an observed sender, plus summary tasks) by state.
Those counts cannot be tied to one ``add_messages``: the items appear a moment after the
write was answered, other writers add theirs, and the server's periodic cleanup deletes
completed items. So a wait needs a mark of what was there before: ``since``, the session's
queue status read before the sync. Items beyond it are the work this wait is about; the
wait says "done" only after it has seen such items and then none of the session's items
pending or in progress.

``DerivationWait`` holds that logic and no I/O. Each client runs it in one short loop:
ask ``next(now)`` what to do (read the session's or the workspace's queue status within a
given time, pause, or stop with an outcome), do it, and hand each answer to ``received``.
"""

from __future__ import annotations

from typing import Final, Literal

from ._checks import check_id, check_timeout
from ._errors import ConfigError, DeadlineExceeded
from ._models import QueueStatus
from ._record import Record, store

__all__ = [
    "DerivationOutcome",
    "DerivationState",
    "DerivationWait",
    "DeriverGates",
    "Pause",
    "Read",
]

# The longest a deriver may sleep between two looks for work, with Honcho's defaults: it
# backs off to DERIVER_POLLING_SLEEP_MAX_INTERVAL_SECONDS (30 s) when it finds none, and
# scatters each sleep by DERIVER_POLLING_JITTER_RATIO (0.5), so up to 45 s. An age gate that
# opens later than that past its time, or a batch over the token gate not taken by then, is
# not waiting for a gate.
DEFAULT_DERIVER_LOOK: Final = 45.0

DerivationState = Literal["done", "nothing_queued", "batching", "waiting", "still_working"]


class DeriverGates(Record):
    """What the caller knows of the server's deriver settings; only a wait reads it.

    The defaults are Honcho's own: no flush, a batch per (session, sender) released at
    512 tokens (``DERIVER_REPRESENTATION_BATCH_WORK_UNIT_TARGET_TOKENS``) or once its oldest
    message is 1800 s old (``DERIVER_REPRESENTATION_BATCH_MAX_AGE_SECONDS``). None turns a
    gate off. With ``flush=True`` every message is released at once. ``deriver_look`` is
    the longest the deriver may sleep between two looks for work
    (``DERIVER_POLLING_SLEEP_MAX_INTERVAL_SECONDS`` times 1 + ``DERIVER_POLLING_JITTER_RATIO``:
    45 s with Honcho's defaults): work pending that long with nothing in progress is held
    by a gate, not waiting for a look.
    """

    __slots__ = ("flush", "batch_tokens", "batch_max_age", "deriver_look")

    flush: bool
    batch_tokens: int | None
    batch_max_age: float | None
    deriver_look: float

    def __init__(
        self,
        *,
        flush: bool = False,
        batch_tokens: int | None = 512,
        batch_max_age: float | None = 1800.0,
        deriver_look: float = DEFAULT_DERIVER_LOOK,
    ) -> None:
        if not isinstance(flush, bool):
            raise ConfigError("gates.flush must be True or False")
        tokens = batch_tokens
        if tokens is not None and (isinstance(tokens, bool) or not isinstance(tokens, int)):
            raise ConfigError("gates.batch_tokens must be an integer or None")
        if tokens is not None and tokens < 1:
            raise ConfigError(f"gates.batch_tokens must be at least 1 (None: off), got {tokens}")
        age = None if batch_max_age is None else check_timeout(batch_max_age, "gates.batch_max_age")
        look = check_timeout(deriver_look, "gates.deriver_look")
        store(self, "flush", flush)
        store(self, "batch_tokens", tokens)
        store(self, "batch_max_age", age)
        store(self, "deriver_look", look)

    def describe(self) -> str:
        """The gates in words, as an outcome names them."""
        if self.flush:
            return "flush is on, so every message is released at once"
        gates = []
        if self.batch_tokens is not None:
            gates.append(f"at {self.batch_tokens} tokens")
        if self.batch_max_age is not None:
            gates.append(f"{self.batch_max_age:g} s after its oldest message")
        if not gates:
            return "no gate is set, so a batch is never released by itself"
        return "a batch is released " + " or ".join(gates)


class DerivationOutcome(Record):
    """How a wait for the deriver ended. ``state`` is one of:

    - ``"done"``: new queue items of the session were seen, and a read after the grace
      period showed none of the session's items pending or in progress;
    - ``"nothing_queued"``: no new item appeared within the grace period (a sender whose
      ``observe_me`` is false, reasoning turned off, or an enqueue slower than the grace);
    - ``"batching"``: the work is pending with nothing in progress anywhere in the workspace
      during the wait, and the caller said (``gates``) the deriver batches; said at the
      bound, or as soon as the work has waited a whole deriver look (``gates.deriver_look``)
      while the age gate cannot open before the bound (``released_by`` says when it will);
    - ``"waiting"``: the bound came with the work pending and none of the session's in
      progress, where batching cannot be told from a backlog the queue does not show (other
      sessions', other workspaces', deletions); ``workspace_in_progress`` says what it saw;
    - ``"still_working"``: the bound came with some of the session's work in progress.

    Counts are the session's at the last read. Times are seconds from the wait's start.
    """

    __slots__ = (
        "state",
        "session_id",
        "new_work_units",
        "pending",
        "in_progress",
        "completed",
        "workspace_in_progress",
        "first_seen",
        "elapsed",
        "reads",
        "gates",
        "released_by",
    )

    state: DerivationState
    session_id: str
    new_work_units: int
    """Items beyond ``since``, at least (a cleanup during the wait can hide some)."""
    pending: int
    in_progress: int
    completed: int
    workspace_in_progress: int | None
    """Items in progress in the whole workspace at the last such read; None if not read."""
    first_seen: float | None
    """When a read first showed the new items (the read's start); None if none did."""
    elapsed: float
    reads: int
    gates: DeriverGates | None
    released_by: float | None
    """For ``batching``: by when the age gate releases the batch at the latest, in seconds
    from the wait's start (the wait takes the sync's messages to be as old as itself); None
    without an age gate, or in any other state."""

    def __init__(
        self,
        *,
        state: DerivationState,
        session_id: str,
        new_work_units: int,
        pending: int,
        in_progress: int,
        completed: int,
        workspace_in_progress: int | None,
        first_seen: float | None,
        elapsed: float,
        reads: int,
        gates: DeriverGates | None = None,
        released_by: float | None = None,
    ) -> None:
        store(self, "state", state)
        store(self, "session_id", session_id)
        store(self, "new_work_units", new_work_units)
        store(self, "pending", pending)
        store(self, "in_progress", in_progress)
        store(self, "completed", completed)
        store(self, "workspace_in_progress", workspace_in_progress)
        store(self, "first_seen", first_seen)
        store(self, "elapsed", elapsed)
        store(self, "reads", reads)
        store(self, "gates", gates)
        store(self, "released_by", released_by)

    @property
    def done(self) -> bool:
        """The work this wait was about was seen and is finished."""
        return self.state == "done"

    def __str__(self) -> str:
        where = f"session {self.session_id!r}"
        counts = (
            f"{self.pending} pending, {self.in_progress} in progress, {self.completed} completed"
        )
        seen = "" if self.first_seen is None else f", first seen at {self.first_seen:.2f} s"
        if self.state == "done":
            return (
                f"done: {self.new_work_units} new queue item(s) of {where}{seen}, "
                f"all finished by {self.elapsed:.2f} s"
            )
        if self.state == "nothing_queued":
            return (
                f"nothing queued: no new work for {where} appeared within {self.elapsed:.2f} s "
                "(its senders are not observed, reasoning is off, or the server enqueues "
                "slower than the grace period)"
            )
        if self.state == "still_working":
            return f"still working after {self.elapsed:.2f} s: {where} has {counts}{seen}"
        elsewhere = (
            ""
            if self.workspace_in_progress is None
            else f"; {self.workspace_in_progress} in progress in the workspace"
        )
        if self.state == "batching":
            gates = self.gates.describe() if self.gates is not None else "the deriver batches"
            release = (
                ""
                if self.released_by is None
                else f"; the age gate releases it by {self.released_by:.0f} s from the wait's start"
            )
            return (
                f"batching after {self.elapsed:.2f} s: {where} has {counts}{seen}, "
                f"nothing in progress in the workspace; {gates}{release}"
            )
        return (
            f"waiting after {self.elapsed:.2f} s: {where} has {counts}{seen}{elsewhere}; "
            "the queue does not say why (batching, or a backlog it does not show)"
        )


class Read(Record):
    """Read queue status: of ``session_id``, or of the whole workspace when it is None,
    with ``deadline`` seconds for the call."""

    __slots__ = ("session_id", "deadline")

    session_id: str | None
    deadline: float

    def __init__(self, *, session_id: str | None, deadline: float) -> None:
        store(self, "session_id", session_id)
        store(self, "deadline", deadline)


class Pause(Record):
    """Sleep this many seconds, then ask again."""

    __slots__ = ("seconds",)

    seconds: float

    def __init__(self, *, seconds: float) -> None:
        store(self, "seconds", seconds)


def _outstanding(status: QueueStatus) -> int:
    return status.pending_work_units + status.in_progress_work_units


class DerivationWait:
    """One wait's state: the mark it started from, what its reads showed, when it ends.

    Work counts as seen when a read of the session holds more items than ``since`` did, or
    more of them not yet completed: a cleanup deletes completed items only, so neither can
    come from old work. Everything is decided from reads; ``now`` is the caller's monotonic
    clock, passed in so that tests can drive the wait without time passing.
    """

    def __init__(
        self,
        session_id: str,
        since: QueueStatus,
        *,
        grace: float,
        interval: float,
        gates: DeriverGates | None,
        deadline: float,
        now: float,
    ) -> None:
        self.session_id = check_id(session_id, "session_id")
        if not isinstance(since, QueueStatus):
            raise ConfigError(
                "since must be the QueueStatus read with queue_status(session_id=...) "
                f"before the sync, not {type(since).__name__}"
            )
        if since.sessions:
            raise ConfigError(
                "since holds a per-session map, so it was read without session_id: read it "
                "with queue_status(session_id=...) before the sync"
            )
        self.since = since
        self.grace = check_timeout(grace, "grace")
        self.interval = check_timeout(interval, "interval")
        self.bound = check_timeout(deadline, "deadline")
        if self.grace >= self.bound:
            raise ConfigError(
                f"grace ({self.grace:g} s) must be shorter than deadline ({self.bound:g} s)"
            )
        if gates is not None and not isinstance(gates, DeriverGates):
            raise ConfigError(f"gates must be a DeriverGates or None, not {type(gates).__name__}")
        self.gates = gates
        self.started = now
        self.ends = now + self.bound
        self.reads = 0
        self.last: QueueStatus | None = None  # the session's last read
        self.last_asked: float | None = None  # when the last session read was started
        self.asked: float = now  # when the read in flight was started
        self.first_seen: float | None = None
        self.new = 0  # the most new items a read showed
        self.workspace_in_progress: int | None = None
        self.busy_elsewhere = False  # a workspace read showed work in progress since first seen
        self.want_workspace = False
        self.out_of_time = False

    # -- what to do next ------------------------------------------------------------------
    def next(self, now: float) -> Read | Pause | DerivationOutcome:
        """The next step: a read, a pause, or the outcome."""
        last, asked = self.last, self.last_asked
        # Only a read started after the grace period shows all of the sync's items: before
        # it, what looks finished may be an earlier batch that was enqueued late.
        settled = asked is not None and asked >= self.started + self.grace
        if last is not None and settled:
            if self.first_seen is None:
                return self._outcome("nothing_queued", now)
            if _outstanding(last) == 0:
                return self._outcome("done", now)
            if self._held_past_the_bound(now):
                return self._outcome("batching", now)
        if self.out_of_time or now >= self.ends:
            return self._at_bound(now)
        if self.want_workspace:
            return self._read(None, now)
        due = now if asked is None else asked + self.interval
        if not settled:
            due = min(due, max(self.started + self.grace, now))
        if due <= now:
            return self._read(self.session_id, now)
        return Pause(seconds=min(due, self.ends) - now)

    def _read(self, session_id: str | None, now: float) -> Read:
        self.asked = now
        return Read(session_id=session_id, deadline=self.ends - now)

    # -- what a read showed ---------------------------------------------------------------
    def received(self, read: Read, status: QueueStatus) -> None:
        """Take in the answer to ``read``."""
        self.reads += 1
        if read.session_id is None:
            self.want_workspace = False
            self.workspace_in_progress = status.in_progress_work_units
            if status.in_progress_work_units > 0:
                self.busy_elsewhere = True
            return
        self.last, self.last_asked = status, self.asked
        since = self.since
        new = max(
            status.total_work_units - since.total_work_units,
            _outstanding(status) - _outstanding(since),
        )
        self.new = max(self.new, new)
        if self.first_seen is None and new > 0:
            self.first_seen = self.asked
        # Pending with none of it in progress: is anything in progress elsewhere?
        self.want_workspace = (
            self.first_seen is not None
            and status.pending_work_units > 0
            and status.in_progress_work_units == 0
        )

    def ran_out(self, error: DeadlineExceeded) -> None:
        """A read hit the bound. Without one answer from the session there is nothing to
        say, so the error stands; otherwise the wait ends with what it has seen."""
        if self.last is None:
            raise error
        self.out_of_time = True

    # -- the outcome ----------------------------------------------------------------------
    def _at_bound(self, now: float) -> DerivationOutcome:
        last = self.last
        if self.first_seen is None or last is None:
            return self._outcome("nothing_queued", now)
        if last.in_progress_work_units > 0:
            return self._outcome("still_working", now)
        if last.pending_work_units > 0 and self._batching():
            return self._outcome("batching", now)
        # Pending, or (reads slower than the grace left) finished but not yet past the
        # grace period, when more of the sync's items could still appear.
        return self._outcome("waiting", now)

    def _batching(self) -> bool:
        gates = self.gates
        if gates is None or gates.flush or self.first_seen is None:
            return False
        if self.busy_elsewhere or self.workspace_in_progress != 0:
            return False
        if gates.batch_max_age is None or self.last_asked is None:
            return True
        # Past its age gate (and the deriver's slowest look), a batch is not waiting for it.
        overdue = self.first_seen + gates.batch_max_age + gates.deriver_look
        return self.last_asked <= overdue

    def _held_past_the_bound(self, now: float) -> bool:
        """Whether the work is held by a gate that cannot open before the bound, so waiting
        on to the bound would only spend the caller's time.

        It is once the work was seen, and stayed, pending with nothing in progress in the
        workspace for a whole deriver look (a batch over the token gate is taken by then),
        the last session read and the workspace read after it agree, and the age gate opens
        after the bound. Work already pending in ``since`` may be older than the wait, so
        its age gate cannot be placed: then only the bound decides, as before.
        """
        gates, last, first_seen = self.gates, self.last, self.first_seen
        if gates is None or last is None or first_seen is None or self.last_asked is None:
            return False
        if _outstanding(self.since) > 0 or self.want_workspace or not self._batching():
            return False
        if last.pending_work_units == 0 or last.in_progress_work_units > 0:
            return False
        if self.last_asked < first_seen + gates.deriver_look:
            return False
        return gates.batch_max_age is None or self.started + gates.batch_max_age > self.ends

    def _released_by(self) -> float | None:
        gates, first_seen = self.gates, self.first_seen
        if gates is None or gates.batch_max_age is None or first_seen is None:
            return None
        return first_seen - self.started + gates.batch_max_age + gates.deriver_look

    def _outcome(self, state: DerivationState, now: float) -> DerivationOutcome:
        last = self.last if self.last is not None else self.since
        return DerivationOutcome(
            state=state,
            session_id=self.session_id,
            new_work_units=self.new,
            pending=last.pending_work_units,
            in_progress=last.in_progress_work_units,
            completed=last.completed_work_units,
            workspace_in_progress=self.workspace_in_progress,
            first_seen=None if self.first_seen is None else self.first_seen - self.started,
            elapsed=max(0.0, now - self.started),
            reads=self.reads,
            gates=self.gates,
            released_by=self._released_by() if state == "batching" else None,
        )


# The package exports these two, loaded on first use: reprs, tracebacks and pickle name
# roncho.DerivationOutcome, the import users write, also when a wait loaded this module.
DerivationOutcome.__module__ = DeriverGates.__module__ = "roncho"
