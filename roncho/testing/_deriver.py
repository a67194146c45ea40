"""The simulated deriver: one background thread per emulator.

Strategy: the message route calls `Deriver.enqueue` (under the store lock) which writes queue
items with the configuration resolved and frozen at that moment. The thread wakes every `TICK`
seconds (or when notified) and, under the lock:

1. runs timed jobs that are due (session and workspace purges);
2. for each (workspace, session, sender) group of visible pending representation items, opens
   the batching gate when the group's tokens reach `batch_tokens` ("tokens"), its oldest item
   is `batch_max_age` old ("age"), or `flush` is on ("flush"); all items of the group become
   in_progress. Summary items are claimed at once ("immediate");
3. completes in_progress items `deriver_delay` after their claim: one `explicit` conclusion per
   message and observer, `"<sender> said: <first 200 chars>"`, then marks them completed.

With `deriver="manual"` the thread runs only step 1: queue items wait until `step()` (or
`POST /_fake/deriver/step`) claims and completes them at once, one batch per (session,
sender) group, the gate recorded as the one that would have opened, else `"manual"`.
"""

from __future__ import annotations

import heapq
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ._common import iso, nanoid, utcnow
from ._options import Options
from ._state import Conclusion, Message, QueueItem, Session, Store, Workspace

# How often the thread re-checks the age gate and due completions when nothing wakes it.
TICK = 0.01
# Honcho's defaults: a summary item every 20 messages (short) and 60 (long).
DEFAULT_SHORT_SUMMARY_EVERY = 20
DEFAULT_LONG_SUMMARY_EVERY = 60
# The deriver's conclusions quote at most this much of the message.
QUOTE_CHARS = 200


@dataclass(frozen=True, slots=True, kw_only=True)
class DeriverRecord:
    """One processed queue item: which gate released it and when (monotonic seconds)."""

    workspace_id: str
    session_id: str
    sender_id: str | None
    message_id: str
    task: str
    gate: str
    observers: tuple[str, ...]
    enqueued_at: float
    claimed_at: float
    completed_at: float


def reasoning_enabled(message: Message, session: Session, ws: Workspace) -> bool:
    """message > session > workspace `reasoning.enabled`; nulls skipped; default true."""
    levels: list[dict[str, Any]] = [message.configuration, session.configuration, ws.configuration]
    for index, config in enumerate(levels):
        reasoning = config.get("reasoning")
        if isinstance(reasoning, dict) and isinstance(reasoning.get("enabled"), bool):
            return bool(reasoning["enabled"])
        if index == 0:
            continue  # the server drops legacy keys at message level
        legacy = config.get("deriver")
        if isinstance(legacy, dict) and isinstance(legacy.get("enabled"), bool):
            return bool(legacy["enabled"])
        if config.get("skip_deriver") is True:
            return False
    return True


def sender_observed(ws: Workspace, session: Session, sender: str) -> bool:
    """Session-peer `observe_me` when not null, else peer `observe_me`, else true."""
    member = session.members.get(sender)
    if member is not None and member.observe_me is not None:
        return member.observe_me
    peer = ws.peers.get(sender)
    if peer is not None and isinstance(peer.configuration.get("observe_me"), bool):
        return bool(peer.configuration["observe_me"])
    return True


def _summary_every(session: Session, ws: Workspace) -> tuple[bool, int, int]:
    for config in (session.configuration, ws.configuration):
        summary = config.get("summary")
        if isinstance(summary, dict):
            enabled = summary.get("enabled")
            short = summary.get("messages_per_short_summary")
            long = summary.get("messages_per_long_summary")
            return (
                enabled is not False,
                short if isinstance(short, int) and short > 0 else DEFAULT_SHORT_SUMMARY_EVERY,
                long if isinstance(long, int) and long > 0 else DEFAULT_LONG_SUMMARY_EVERY,
            )
    return (True, DEFAULT_SHORT_SUMMARY_EVERY, DEFAULT_LONG_SUMMARY_EVERY)


class Deriver:
    """The background worker: queue processing and timed purges. `start()` then `stop()`."""

    def __init__(
        self,
        store: Store,
        options: Options,
        *,
        on_drained: Callable[[Workspace, str, str, str | None], None] | None = None,
        failing: Callable[[str], bool] = lambda _: False,
    ) -> None:
        self._store = store
        self._options = options
        # The fault rules' background failures: "deriver_stopped", "deriver_fails".
        self._failing = failing
        # Told (under the lock) when a work unit's last open item completes: its workspace,
        # task, session and sender (None for a summary). The webhooks' queue.empty.
        self._on_drained = on_drained
        self._stop = threading.Event()
        self._jobs: list[tuple[float, int, Callable[[], None]]] = []
        self._job_seq = 0
        self._log: list[DeriverRecord] = []
        self._thread = threading.Thread(target=self._run, name="roncho-fake-deriver", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        with self._store.changed:
            self._store.changed.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout=2.0)

    def log(self) -> list[DeriverRecord]:
        with self._store.lock:
            return list(self._log)

    def restart_from(self, log: list[DeriverRecord]) -> None:
        """Forget timed jobs and take `log` as the record so far (a restored snapshot;
        the caller holds the lock and schedules the restored state's jobs again)."""
        self._jobs.clear()
        self._log = list(log)

    def schedule(self, delay: float, job: Callable[[], None]) -> None:
        """Run `job` under the store lock `delay` seconds from now."""
        with self._store.lock:
            self._job_seq += 1
            heapq.heappush(self._jobs, (time.monotonic() + delay, self._job_seq, job))
            self._store.changed.notify_all()

    def enqueue(self, ws: Workspace, session: Session, messages: list[Message]) -> None:
        """Write queue items for new messages (caller holds the lock)."""
        visible_at = time.monotonic() + self._options.enqueue_delay
        summaries_on, short_every, long_every = _summary_every(session, ws)
        for message in messages:
            session.message_count += 1
            count = session.message_count
            if summaries_on and (count % short_every == 0 or count % long_every == 0):
                self._add(ws, self._item(ws, session, message, "summary", (), visible_at))
            if not reasoning_enabled(message, session, ws):
                continue
            if not sender_observed(ws, session, message.peer_id):
                continue
            observers = [message.peer_id] + [
                name
                for name, member in session.members.items()
                if member.active and member.observe_others and name != message.peer_id
            ]
            self._add(
                ws,
                self._item(ws, session, message, "representation", tuple(observers), visible_at),
            )
        self._store.changed.notify_all()

    def _add(self, ws: Workspace, item: QueueItem) -> None:
        ws.queue.append(item)
        ws.open_items.append(item)

    def _item(
        self,
        ws: Workspace,
        session: Session,
        message: Message,
        task: Any,
        observers: tuple[str, ...],
        visible_at: float,
    ) -> QueueItem:
        return QueueItem(
            seq=self._store.next_seq(),
            task=task,
            workspace_id=ws.id,
            session_name=session.id,
            session_internal_id=session.internal_id,
            sender=message.peer_id if task == "representation" else None,
            observers=observers,
            message_id=message.id,
            message_seq=message.seq,
            content=message.content,
            tokens=message.token_count,
            visible_at=visible_at,
        )

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._store.changed:
                self._step(time.monotonic())
                self._store.changed.wait(timeout=TICK)

    def _step(self, now: float) -> None:
        if self._failing("deriver_stopped"):
            return  # purges wait too: on the server the deriver does them
        while self._jobs and self._jobs[0][0] <= now:
            _, _, job = heapq.heappop(self._jobs)
            job()
        if self._options.manual_deriver:
            return
        for ws in list(self._store.workspaces.values()):
            self._claim(ws, now)
            self._complete(ws, now)

    def step(self, batches: int | None = None) -> list[DeriverRecord]:
        """Derive now: claim pending queue items (visible or not) and complete them at once.

        Args:
            batches: at most this many (session, sender) batches; None for all. Summary items
                of the workspaces reached are always taken.

        Returns:
            The records of the items completed by this step, in completion order.
        """
        if batches is not None and (isinstance(batches, bool) or batches < 1):
            raise ValueError(f"batches must be an int >= 1 or None, got {batches!r}")
        with self._store.changed:
            if self._failing("deriver_stopped"):
                return []
            now = time.monotonic()
            first = len(self._log)
            budget = batches
            for ws in list(self._store.workspaces.values()):
                if budget == 0:
                    break
                budget = self._claim(ws, now, budget=budget, manual=True)
                self._complete(ws, now, manual=True)
            self._store.changed.notify_all()
            return self._log[first:]

    def _claim(
        self, ws: Workspace, now: float, *, budget: int | None = None, manual: bool = False
    ) -> int | None:
        """Open the gates that may open (all of them when `manual`, up to `budget` batches);
        returns the budget left."""
        groups: dict[tuple[str, str], list[QueueItem]] = {}
        for item in ws.open_items:
            if item.state != "pending" or (item.visible_at > now and not manual):
                continue
            if item.task == "summary":
                item.state, item.gate, item.claimed_at = "in_progress", "immediate", now
                continue
            groups.setdefault((item.session_name, item.sender or ""), []).append(item)
        for items in groups.values():
            if budget == 0:
                break
            gate = self._gate(items, now)
            if gate is None and manual:
                gate = "manual"
            if gate is None:
                continue
            for item in items:
                item.state, item.gate, item.claimed_at = "in_progress", gate, now
            if budget is not None:
                budget -= 1
        return budget

    def _gate(self, items: list[QueueItem], now: float) -> str | None:
        if self._options.flush:
            return "flush"
        if sum(item.tokens for item in items) >= self._options.batch_tokens:
            return "tokens"
        if now - min(item.visible_at for item in items) >= self._options.batch_max_age:
            return "age"
        return None

    def _complete(self, ws: Workspace, now: float, *, manual: bool = False) -> None:
        finished = False
        done: set[tuple[str, str, str | None]] = set()
        # Items finishing on one tick are one deriver batch, written in one transaction:
        # their conclusions share one timestamp, as on the server.
        stamp = utcnow()
        for item in ws.open_items:
            if item.state != "in_progress" or item.claimed_at is None:
                continue
            if now - item.claimed_at < self._options.deriver_delay and not manual:
                continue
            failed = self._failing("deriver_fails")  # done with an error: nothing written
            if failed:
                pass
            elif item.task == "representation":
                self._write_conclusions(ws, item, stamp)
            else:
                self._write_summary(ws, item)
            item.state, item.completed_at = "completed", now
            finished = True
            if not failed:
                done.add((item.task, item.session_name, item.sender))
            self._log.append(
                DeriverRecord(
                    workspace_id=ws.id,
                    session_id=item.session_name,
                    sender_id=item.sender,
                    message_id=item.message_id,
                    task=item.task,
                    gate=item.gate or "",
                    observers=item.observers,
                    enqueued_at=item.visible_at,
                    claimed_at=item.claimed_at,
                    completed_at=now,
                )
            )
        if finished:
            ws.open_items = [item for item in ws.open_items if item.state != "completed"]
        if done and self._on_drained is not None:
            still_open = {(item.task, item.session_name, item.sender) for item in ws.open_items}
            for task, session, sender in sorted(done - still_open, key=str):
                self._on_drained(ws, task, session, sender)

    def _write_conclusions(self, ws: Workspace, item: QueueItem, stamp: datetime) -> None:
        sender = item.sender or ""
        for observer in item.observers:
            ws.conclusions.append(
                Conclusion(
                    id=nanoid(),
                    seq=self._store.next_seq(),
                    content=f"{sender} said: {item.content[:QUOTE_CHARS]}",
                    observer_id=observer,
                    observed_id=sender,
                    session_id=item.session_name,
                    level="explicit",
                    created_at=stamp,
                    workspace_id=ws.id,
                    source_ids=[item.message_id],
                )
            )

    def _write_summary(self, ws: Workspace, item: QueueItem) -> None:
        """The short summary at every `messages_per_short_summary`-th message, the long one
        at every `messages_per_long_summary`-th (both at a message that is both), each
        covering the session up to that message; `summary_type` as 3.0.12 names them."""
        session = ws.sessions.get(item.session_name)
        if session is None:
            return
        upto = [m for m in ws.messages if m.session_id == session.id]
        index = next((i for i, m in enumerate(upto) if m.id == item.message_id), None)
        if index is None:
            return
        upto = upto[: index + 1]
        _, short_every, long_every = _summary_every(session, ws)
        for kind, every, last in (("short", short_every, 5), ("long", long_every, 15)):
            if len(upto) % every:
                continue
            recent = upto[-last:]
            text = f"Summary of {len(upto)} message(s). " + " ".join(
                f"{m.peer_id} said: {m.content[:80]}" for m in recent
            )
            written = {
                "content": text,
                "message_id": item.message_id,
                "summary_type": f"honcho_chat_summary_{kind}",
                "created_at": iso(utcnow()),
                "token_count": self._store.count_tokens(text),
            }
            if kind == "short":
                session.short_summary = written
            else:
                session.long_summary = written
