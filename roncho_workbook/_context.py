"""Q10: what must memoryd know to use a session's context for recall?

In one scratch workspace, one session with three members: ``owner`` (observed), ``assistant``
(``observe_me: false``, ``observe_others: true``) and ``bystander`` (observes nobody, sends
nothing). Through the public client only:

1. **summaries**: ``messages`` messages are synced a turn (owner, assistant) at a time, each
   sync followed by ``wait_for_derivation``, as memoryd syncs a finished turn; meanwhile a
   watcher thread reads the session's summaries every ``poll`` seconds. For every summary
   seen: which message it ends at (so after how many messages it was written) and how long
   after that message's sync it was first listed. Once a wait does not end ``done`` (a
   deriver that batches), the remaining turns are synced without waiting for derivation,
   but at each message where Honcho's defaults make a summary due the sync pauses (bounded)
   until that summary is listed, so the summaries are timed as when every turn is waited
   for (summaries are not held by the deriver's gates). Then ``trials``
   more sessions get 60 messages in one sync each, and are read for their long summary,
   which 3.0.12 can lose (`_prose.LOST_LONG`).
2. **budgets**: ``get_session_context(tokens=N)`` for each N, with the summary, without it
   (``summary=False``) and with ``peer_target``: the returned messages' ``token_count`` plus
   the summary's against N.
3. **presence**: after ``wait_for_derivation``, the representation and card in the context
   of the observed peer and of the ``observe_me: false`` one; after a ``card_refresh`` and an
   ``omni`` dream; and, as the control, after ``set_peer_card``. Where the deriver holds the
   session's work in a batch, one message of the owner's that passes the token gate, in a
   session of its own, is derived first (``release``), so "after derivation" means that.
4. **perspective**: the owner's context with no ``peer_perspective``, the assistant's (who
   observes others) and the bystander's (who does not).

Summaries and cards are written by the server's LLM: with a stand-in LLM their text says
nothing, so the answers are about presence, timing, sizes and budgets. The answer and its
notes are written from the tables in ``_prose.py``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from roncho import (
    Client,
    DerivationOutcome,
    DeriverGates,
    MessageCreate,
    QueueStatus,
    RonchoError,
    SessionContext,
    SessionPeerConfig,
    Summaries,
    Summary,
    parse_timestamp,
)

from ._deriver_config import DeriverConfig
from ._finding import Finding, sample_text, wait_until
from ._prose import (
    CANNED_PREFIX,
    DEFAULT_EVERY,
    KINDS,
    MODES,
    NO_SUMMARY,
    WITH_TARGET,
    context_answer,
    context_notes,
)
from ._stats import median
from ._target import Target

SESSION = "q10-context"
OWNER, ASSISTANT, BYSTANDER = "q10-owner", "q10-assistant", "q10-bystander"
CONTROL_CARD = ("q10 control card: set by hand with set_peer_card",)


@dataclass(slots=True, kw_only=True)
class _Seen:
    """The summaries seen so far: (kind, message id) -> seconds (monotonic) first listed."""

    first: dict[tuple[str, str], float] = field(default_factory=dict)
    records: dict[tuple[str, str], Summary] = field(default_factory=dict)

    def has(self, kind: str, message_ids: Sequence[str]) -> bool:
        return any((kind, message_id) in self.first for message_id in message_ids)

    def look(self, summaries: Summaries | None) -> None:
        now = time.monotonic()
        for kind in KINDS:
            record = None if summaries is None else getattr(summaries, kind)
            if record is not None and (kind, record.message_id) not in self.first:
                self.first[(kind, record.message_id)] = now
                self.records[(kind, record.message_id)] = record


class _Watcher:
    """A thread reading the session's summaries every ``poll`` seconds into ``seen``, from
    the ``with`` block's start to its end (and once more on the way out)."""

    def __init__(self, client: Client, seen: _Seen, poll: float) -> None:
        self._client, self._seen, self._poll = client, seen, poll
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            self._seen.look(_summaries_or_none(self._client))
            if self._stop.wait(self._poll):
                return

    def __enter__(self) -> _Watcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._seen.look(_summaries_or_none(self._client))


@dataclass(frozen=True, slots=True, kw_only=True)
class _Synced:
    """One message as synced: its place in the session and when its sync returned."""

    position: int
    returned: float
    created_at: str


def probe_context(
    target: Target,
    prefix: str,
    *,
    config: DeriverConfig,
    messages: int,
    budgets: Sequence[int],
    wait_bound: float,
    poll: float,
    grace: float,
    trials: int = 0,
    llm: str = "",
) -> Finding:
    """Run the whole Q10 probe; see the module docstring.

    ``messages`` is how many are synced (60 shows the long summary; 20 only the short one),
    ``budgets`` the ``tokens`` asked for, ``grace`` how long queued work (a turn's, a
    dream's) may take to show in the queue status (``wait_for_derivation``'s grace; a real
    server enqueues after it answers, about 0.1 to 0.25 s), ``llm`` the server's LLM as the
    run was told; ``trials`` more sessions get a long summary's worth of messages in one
    sync, each then read for its long summary (which 3.0.12 may lose: see `_prose.LOST_LONG`).
    """
    finding = Finding(question="Q10 session context for recall")
    trace = finding.trace
    with target.scratch(prefix) as client:
        trace.call("make the observed peer", client.get_or_create_peer, OWNER)
        trace.call(
            "make the assistant (observe_me false)",
            client.get_or_create_peer,
            ASSISTANT,
            configuration={"observe_me": False},
        )
        members = {
            OWNER: SessionPeerConfig(observe_me=True),
            ASSISTANT: SessionPeerConfig(observe_me=False, observe_others=True),
            BYSTANDER: SessionPeerConfig(observe_me=False, observe_others=False),
        }
        trace.call("make the session", client.get_or_create_session, SESSION, peers=members)
        before = client.queue_status(session_id=SESSION)
        seen = _Seen()
        wait = _Wait(client, config, wait_bound=wait_bound, poll=poll, grace=grace)
        with _Watcher(client, seen, poll):
            synced = _sync(finding, client, wait, messages, seen, poll)
            # The whole sync, once more: the last word on whether derivation caught up.
            outcome = wait.until_done(before)
        trace.call("read the summaries", client.get_session_summaries, SESSION)
        _summaries(finding, seen, synced)
        _long_trials(finding, client, wait, trials)
        finding.table("derivation").append(
            {
                "turns": len(wait.outcomes),
                "turns_done": sum(1 for o in wait.outcomes if o.done),
                "turn_wait_median_s": median([o.elapsed for o in wait.outcomes if o.done]),
                "first_not_done": next((str(o) for o in wait.outcomes if not o.done), ""),
                "whole_sync": outcome.state,
                "said": str(outcome),
            }
        )
        _budgets(finding, client, budgets)
        if not outcome.done and config.batching:
            _release(finding, client, wait, config)
        presence = finding.table("presence")
        presence.append(_presence(finding, client, "observed peer, after derivation", OWNER))
        presence.append(
            _presence(finding, client, "observe_me false peer, after derivation", ASSISTANT)
        )
        _perspective(finding, client)
        _dreams(finding, client, wait_bound, poll, grace)
        presence.append(_presence(finding, client, "observed peer, after the dreams", OWNER))
        trace.call(
            "set the owner's card by hand (control)",
            client.set_peer_card,
            OWNER,
            list(CONTROL_CARD),
        )
        presence.append(_presence(finding, client, "observed peer, card set by hand", OWNER))
    finding.answer = context_answer(finding, config, messages, llm)
    finding.notes.extend(context_notes(finding, messages, llm))
    return finding


# -- 1. summaries: when, after how many messages -----------------------------------------------
class _Wait:
    """``wait_for_derivation`` after each turn, until one does not end ``done``."""

    def __init__(
        self, client: Client, config: DeriverConfig, *, wait_bound: float, poll: float, grace: float
    ) -> None:
        self._client = client
        self._gates = DeriverGates(
            flush=config.flush,
            batch_tokens=config.token_gate if config.token_gate > 0 else None,
            batch_max_age=config.age_gate if config.age_gate > 0 else None,
            deriver_look=config.prompt,
        )
        self.bound = wait_bound
        self._bound, self._poll = wait_bound, poll
        self._grace = min(grace, wait_bound / 2)
        self.outcomes: list[DerivationOutcome] = []

    def mark(self) -> QueueStatus | None:
        """The queue status to wait from (None once turns are no longer waited for)."""
        if self.outcomes and not self.outcomes[-1].done:
            return None
        return self._client.queue_status(session_id=SESSION)

    def after_turn(self, mark: QueueStatus | None) -> None:
        if mark is not None:
            self.outcomes.append(self.until_done(mark))

    def until_done(self, mark: QueueStatus, session: str = SESSION) -> DerivationOutcome:
        return self._client.wait_for_derivation(
            session,
            since=mark,
            grace=self._grace,
            interval=self._poll,
            gates=self._gates,
            deadline=self._bound,
        )


def _sync(
    finding: Finding, client: Client, wait: _Wait, messages: int, seen: _Seen, poll: float
) -> dict[str, _Synced]:
    """Sync ``messages`` messages a turn (two) at a time, each turn waited for; each
    message's place and sync time by its id. A turn not waited for that ends where a short
    summary is due (Honcho's defaults) waits until the watcher has listed it, within the
    wait's bound: turns synced back to back would replace a summary before it is seen."""
    synced: dict[str, _Synced] = {}
    for start in range(0, messages, 2):
        turn = start // 2
        batch = [
            MessageCreate(OWNER, f"Turn {turn}: I walked to the harbour market and bought figs.")
        ]
        if start + 1 < messages:
            batch.append(MessageCreate(ASSISTANT, f"Noted for turn {turn}; how was the walk?"))
        mark = wait.mark()
        if start == 0:
            result = finding.trace.call("sync the first turn", client.add_messages, SESSION, batch)
            if isinstance(result, RonchoError):
                raise result
            made = result
        else:
            made = client.add_messages(SESSION, batch)
        returned = time.monotonic()
        for offset, message in enumerate(made):
            synced[message.id] = _Synced(
                position=start + offset + 1, returned=returned, created_at=message.created_at
            )
        wait.after_turn(mark)
        ended = start + len(made)
        if mark is None and ended // DEFAULT_EVERY["short"] > start // DEFAULT_EVERY["short"]:
            due = partial(seen.has, "short", [message.id for message in made])
            wait_until(due, bound=wait.bound, interval=poll)
    return synced


def _summaries_or_none(client: Client, session: str = SESSION) -> Summaries | None:
    try:
        return client.get_session_summaries(session)
    except RonchoError:
        return None


def _summaries(finding: Finding, seen: _Seen, synced: dict[str, _Synced]) -> None:
    rows = finding.table("summaries")
    for (kind, message_id), first in sorted(seen.first.items(), key=lambda item: item[1]):
        record = seen.records[(kind, message_id)]
        sent = synced.get(message_id)
        rows.append(
            {
                "kind": kind,
                "after_messages": sent.position if sent else None,
                "listed_after_s": round(first - sent.returned, 3) if sent else None,
                "written_after_s_server_clock": _server_lag(record, sent),
                "token_count": record.token_count,
                "chars": len(record.content),
                "canned_text": record.content.startswith(CANNED_PREFIX),
                "summary_type": record.summary_type,
            }
        )


def _long_trials(finding: Finding, client: Client, wait: _Wait, trials: int) -> None:
    """``trials`` sessions, each given a long summary's worth of messages in one sync (no
    peer observed: only summary work), waited for, then read for its summaries; the first
    wait that does not end ``done`` ends them."""
    rows = finding.table("long_summary_trials")
    every = DEFAULT_EVERY["long"]
    members = {peer: SessionPeerConfig(observe_me=False) for peer in (OWNER, ASSISTANT)}
    for trial in range(trials):
        session = f"q10-trial-{trial}"
        client.get_or_create_session(session, peers=members)
        mark = client.queue_status(session_id=session)
        batch = [
            MessageCreate((OWNER, ASSISTANT)[i % 2], f"Trial {trial}, message {i}: figs and bread.")
            for i in range(every)
        ]
        last = client.add_messages(session, batch)[-1].id
        outcome = wait.until_done(mark, session)
        summaries = _summaries_or_none(client, session)
        short = None if summaries is None else summaries.short
        long = None if summaries is None else summaries.long
        rows.append(
            {
                "trial": trial,
                "messages": every,
                "wait": outcome.state,
                "short_after_last": short is not None and short.message_id == last,
                "long_after_last": long is not None and long.message_id == last,
            }
        )
        if not outcome.done:  # the deriver is not keeping up: more would wait out bounds
            break


def _server_lag(record: Summary, sent: _Synced | None) -> float | None:
    """Seconds from the message's ``created_at`` to the summary's, both the server's clock."""
    if sent is None or not record.created_at:
        return None
    try:
        written = parse_timestamp(record.created_at) - parse_timestamp(sent.created_at)
    except ValueError:
        return None
    return round(written.total_seconds(), 3)


# -- 2. budgets: does tokens=N hold ------------------------------------------------------------
def _budgets(finding: Finding, client: Client, budgets: Sequence[int]) -> None:
    rows = finding.table("budgets")
    for tokens in budgets:
        for mode in MODES:
            context = finding.trace.call(
                f"context, tokens={tokens}, {mode}",
                client.get_session_context,
                SESSION,
                tokens=tokens,
                summary=mode != NO_SUMMARY,
                peer_target=OWNER if mode == WITH_TARGET else None,
                describe=_context_words,
            )
            rows.append(_budget_row(tokens, mode, context))


def _budget_row(tokens: int, mode: str, context: SessionContext | RonchoError) -> dict[str, Any]:
    if isinstance(context, RonchoError):
        return {"mode": mode, "tokens_asked": tokens, "error": type(context).__name__}
    counts = [m.token_count for m in context.messages]
    known = [c for c in counts if c is not None]
    summary = context.summary
    summary_tokens = summary.token_count if summary is not None else 0
    returned = sum(known) + summary_tokens
    return {
        "mode": mode,
        "tokens_asked": tokens,
        "messages": len(counts),
        "messages_tokens": sum(known),
        "messages_without_token_count": len(counts) - len(known),
        "summary": summary.summary_type.rsplit("_", 1)[-1] if summary is not None else "none",
        "summary_tokens": summary_tokens,
        "returned_tokens": returned,
        # Unknown when a message came without its token_count (3.0.12 always sends it).
        "within_budget": returned <= tokens if len(known) == len(counts) else None,
        "room_left": tokens - returned,
        "representation_chars": len(context.peer_representation or ""),
        "error": "",
    }


def _context_words(context: SessionContext) -> str:
    summary = context.summary
    return (
        f"{len(context.messages)} message(s); summary "
        + (f"{summary.summary_type} ({summary.token_count} tokens)" if summary else "none")
        + f"; representation {len(context.peer_representation or '')} chars"
        + f"; card {'none' if context.peer_card is None else len(context.peer_card)}"
    )


# -- 3. representation and card in the context -------------------------------------------------
def _presence(finding: Finding, client: Client, case: str, peer: str) -> dict[str, Any]:
    context = finding.trace.call(
        f"context with peer_target={peer} ({case})",
        client.get_session_context,
        SESSION,
        peer_target=peer,
        describe=_context_words,
    )
    card = finding.trace.call(f"peer card of {peer} ({case})", client.get_peer_card, peer)
    row: dict[str, Any] = {"case": case, "peer_target": peer}
    row.update(_shown(context))
    row["get_peer_card"] = (
        type(card).__name__
        if isinstance(card, RonchoError)
        else ("none" if card is None else f"{len(card)} line(s)")
    )
    return row


def _shown(context: SessionContext | RonchoError) -> dict[str, Any]:
    if isinstance(context, RonchoError):
        return {"error": type(context).__name__, "representation": False, "card": False}
    text = context.peer_representation or ""
    return {
        "representation": bool(text.strip()),
        "representation_chars": len(text),
        "card": context.peer_card is not None,
        "card_lines": 0 if context.peer_card is None else len(context.peer_card),
        "messages": len(context.messages),
        "error": "",
    }


# -- 4. peer_perspective -------------------------------------------------------------------------
PERSPECTIVES = (
    ("none (Honcho's own view)", None),
    ("the assistant (observe_others true)", ASSISTANT),
    ("the bystander (observe_others false)", BYSTANDER),
)


def _perspective(finding: Finding, client: Client) -> None:
    rows = finding.table("perspective")
    base: SessionContext | None = None
    for label, perspective in PERSPECTIVES:
        context = finding.trace.call(
            f"context of the owner, peer_perspective: {label}",
            client.get_session_context,
            SESSION,
            peer_target=OWNER,
            peer_perspective=perspective,
            describe=_context_words,
        )
        row: dict[str, Any] = {"peer_perspective": label}
        row.update(_shown(context))
        if isinstance(context, SessionContext):
            if base is None:
                base = context
            row["same_representation"] = context.peer_representation == base.peer_representation
            row["same_card"] = context.peer_card == base.peer_card
            row["same_messages"] = [m.id for m in context.messages] == [m.id for m in base.messages]
            row["same_summary"] = context.summary == base.summary
        rows.append(row)


# -- dreams --------------------------------------------------------------------------------------
RELEASE_SESSION = "q10-release"


def _release(finding: Finding, client: Client, wait: _Wait, config: DeriverConfig) -> None:
    """The deriver holds the session's work in a batch: one message of the owner's that
    passes the token gate, in a session of its own (the main session's messages and budgets
    stay as they are), derived and waited for, so the owner has a representation."""
    client.get_or_create_session(RELEASE_SESSION, peers={OWNER: SessionPeerConfig()})
    mark = client.queue_status(session_id=RELEASE_SESSION)
    count, chars = config.sync_shape(1, 0)
    client.add_messages(
        RELEASE_SESSION,
        [MessageCreate(OWNER, sample_text(chars, f"q10 release {i}") + ".") for i in range(count)],
    )
    outcome = wait.until_done(mark, RELEASE_SESSION)
    finding.table("release").append(
        {"messages": count, "chars": chars, "wait": outcome.state, "said": str(outcome)}
    )


def _dreams(finding: Finding, client: Client, bound: float, poll: float, grace: float) -> None:
    """Schedule a card_refresh and an omni dream of the owner; wait (bounded) until the
    workspace's queue shows them done, or shows nothing new within ``grace`` seconds. Work
    a batching deriver holds stays pending throughout: only the dreams' own is waited for."""
    mark = client.queue_status()
    rows = finding.table("dreams")
    accepted = []
    for dream_type in ("card_refresh", "omni"):
        result = finding.trace.call(
            f"schedule a {dream_type} dream of the owner",
            client.schedule_dream,
            OWNER,
            dream_type=dream_type,
            status=lambda _r: 204,
        )
        failed = isinstance(result, RonchoError)
        rows.append(
            {
                "dream_type": dream_type,
                "accepted": not failed,
                "error": type(result).__name__ if failed else "",
            }
        )
        accepted.append(not failed)
    started = time.monotonic()
    state, waited = "not scheduled", 0.0
    if any(accepted):
        state, waited = _wait_dreams(client, mark, bound, poll, grace, started)
    for row in rows:
        row["queue"] = state if row["accepted"] else "not scheduled"
        row["waited_s"] = round(waited, 3)


def _wait_dreams(
    client: Client, mark: QueueStatus, bound: float, poll: float, grace: float, started: float
) -> tuple[str, float]:
    """``done``, ``nothing queued`` or ``still open``, and the seconds waited. The dreams'
    items are done when the workspace has no more work outstanding than at ``mark`` (work
    held in a batch then stays pending) and none in progress."""
    held = mark.pending_work_units + mark.in_progress_work_units
    appeared = False
    while True:
        elapsed = time.monotonic() - started
        try:
            status = client.queue_status()
        except RonchoError:
            status = None
        if status is not None:
            outstanding = status.pending_work_units + status.in_progress_work_units
            appeared = appeared or status.total_work_units > mark.total_work_units
            appeared = appeared or outstanding > held
            if appeared and outstanding <= held and status.in_progress_work_units == 0:
                return "done", elapsed
            if not appeared and elapsed >= grace:
                return "nothing queued", elapsed
        if elapsed >= bound:
            return "still open", elapsed
        time.sleep(poll)
