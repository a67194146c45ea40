"""Q9: can memoryd wait for the deriver by push (``queue.empty``) instead of polling?

A receiver on 127.0.0.1 (`Receiver`, registered as ``http://localhost:PORT/...``: the
server refuses loopback IP literals) records every delivery and checks its signature with
``roncho.webhooks.verify``. In one scratch workspace:

1. **test**: ``GET .../webhooks/test``; how long until the ``test.event`` arrives. A probe
   message is synced right after it: the deriver delivers a workspace's events in order, so
   the probe's ``queue.empty`` cannot come first. Its event alone means the test event was
   lost; neither, with the probe still queued, means the deriver is behind (a backlog), not
   that no event comes.
2. **trials**: per trial a fresh session gets a sync of ``messages`` messages from one
   peer; while waiting for its ``queue.empty``, ``queue_status(session_id=)`` and the
   session's conclusions are polled. Recorded: the event's delay after the sync, after the
   last conclusion was created (server clock) and after polling last saw one appear; when
   polling saw the queue drained; and whether every conclusion was readable the moment the
   event arrived.
3. **granularity**: one session, two senders, ``summary_messages`` messages (enough for a
   summary): which events come, one per what (queue type, session, observed).
4. **failure**: endpoints that answer 500 and that are down (the port closed, opened again
   after the event) beside the good one; one more sync and a test event; each endpoint's
   deliveries counted over ``watch`` seconds (3.0.12 sends once and never retries).

The answer is written from the tables in ``_prose.py``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from roncho import Client, MessageCreate, RonchoError, parse_timestamp
from roncho.webhooks import QueueEmptyEvent

from ._deriver_config import DeriverConfig
from ._finding import Finding, sample_text
from ._prose import (
    BEHIND,
    DELIVERED,
    LOST,
    UNKNOWN,
    UNREACHED,
    no_webhooks_answer,
    webhooks_answer,
)
from ._raw import RawClient
from ._receiver import FAIL, OK, Arrival, DownPort, Receiver
from ._stats import spread
from ._target import Target

SENDER = "q9-user"
OTHER = "q9-other"
# How much of a delivery body the evidence keeps.
BODY_CHARS = 400


# Each later wait's bound once no delivery has reached the receiver.
UNREACHED_WAIT_BOUND = 5.0
# The session of the probe synced after the test event, and how often its queue is read.
PROBE_SESSION = "q9-probe"
PROBE_POLL = 0.5
# Seconds the probe's work must have been finished, with no delivery, before the wait ends
# early as "unreached" (the queue.empty is posted right after the work is done).
PROBE_GRACE = 5.0


def probe_webhooks(
    target: Target,
    prefix: str,
    *,
    secret: str,
    config: DeriverConfig,
    trials: int,
    messages: int,
    message_chars: int,
    summary_messages: int,
    wait_bound: float,
    poll: float,
    settle: float,
    watch: float,
) -> Finding:
    """Run the whole Q9 probe; see the module docstring.

    ``secret`` is the server's WEBHOOK_SECRET (empty: signatures are not checked, and the
    answer says so); ``config`` is the deriver as the run was told. Q9 is not about the
    deriver's gates, so where it batches every sync (the probe's too) is sized to pass the
    token gate (``DeriverConfig.sync_shape``): no wait here is for the age gate.
    """
    finding = Finding(question="Q9 webhooks: push instead of polling queue_status")
    trace = finding.trace
    with Receiver(secret) as receiver, target.scratch(prefix) as client:
        raw = target.raw(client.workspace)
        path = raw.ws_path("webhooks")
        ok_url = receiver.url(OK, client.workspace)
        made = trace.raw("register the receiver", raw, "POST", path, {"url": ok_url})
        again = trace.raw("register it again", raw, "POST", path, {"url": ok_url})
        trace.raw(
            "a loopback IP literal",
            raw,
            "POST",
            path,
            {"url": ok_url.replace("localhost", "127.0.0.1")},
        )
        trace.raw("list endpoints", raw, "GET", path)
        if made is None or made.status not in (200, 201):
            finding.answer = no_webhooks_answer(made.status if made else None)
            return finding
        probe_chars = config.sync_shape(1, 0)[1]
        messages, message_chars = config.sync_shape(messages, message_chars)
        test_s, outcome = _test_event(finding, receiver, client, raw, wait_bound, probe_chars)
        if outcome not in (DELIVERED, LOST):
            # No delivery reaches this receiver (the server is on another host or behind a
            # tunnel, or has no secret to sign with), or none is due yet (the deriver is
            # behind): every later wait would run to its bound, so from here on each is
            # short; the answer says which it was.
            wait_bound = min(wait_bound, UNREACHED_WAIT_BOUND)
        rows = finding.table("trials")
        for trial in range(trials):
            rows.append(
                _trial(
                    finding,
                    receiver,
                    client,
                    trial,
                    messages,
                    message_chars,
                    wait_bound,
                    poll,
                    settle,
                )
            )
        summary_messages, summary_chars = config.sync_shape(summary_messages, message_chars, 2)
        _granularity(
            finding, receiver, client, summary_messages, summary_chars, wait_bound, poll, settle
        )
        fail_messages, fail_chars = config.sync_shape(1, message_chars)
        _failure(
            finding, receiver, client, raw, fail_messages, fail_chars, wait_bound, poll, settle,
            watch,
        )  # fmt: skip
        _payload(finding, receiver, made.status, again.status if again else None)
        finding.tables["stats"] = trial_stats(rows)
        finding.answer = webhooks_answer(finding, config, test_s, bool(secret), poll, outcome)
    return finding


# -- 1. the test event -----------------------------------------------------------------------
def outcome_of_test_event(test_came: bool, probe_came: bool, probe_queued: bool | None) -> str:
    """What became of the test event, from what came and whether the probe's work (queued
    after it) was still waiting when the wait ended; None: its queue could not be read."""
    if test_came:
        return DELIVERED
    if probe_came:
        return LOST
    if probe_queued is None:
        return UNKNOWN
    return BEHIND if probe_queued else UNREACHED


def _test_event(
    finding: Finding,
    receiver: Receiver,
    client: Client,
    raw: RawClient,
    bound: float,
    probe_chars: int = 0,
) -> tuple[float | None, str]:
    """The test event's delay (None if it did not come) and its outcome. The probe is
    ``probe_chars`` long where a short one would wait in a batch."""
    seen = len(receiver.snapshot())
    started = time.monotonic()
    finding.trace.raw("trigger the test event", raw, "GET", raw.ws_path("webhooks", "test"))
    probe = "A probe after the test event."
    if probe_chars > len(probe):
        probe = sample_text(probe_chars, "A probe after the test event") + "."
    client.add_messages(PROBE_SESSION, [MessageCreate(SENDER, probe)])

    def is_test(a: Arrival) -> bool:
        return a.event is not None and a.event.type == "test.event"

    def is_probe(a: Arrival) -> bool:
        return isinstance(a.event, QueueEmptyEvent) and a.event.session_id == PROBE_SESSION

    deadline = started + bound
    queued: bool | None = None
    done_since: float | None = None
    while True:
        if _next_of(receiver, seen, lambda a: is_test(a) or is_probe(a), time.monotonic()):
            break
        queued = _probe_queued(client, time.monotonic() - started)
        now = time.monotonic()
        done_since = (done_since or now) if queued is False else None
        if now >= deadline or (done_since is not None and now - done_since >= PROBE_GRACE):
            break
        receiver.wait_new(len(receiver.snapshot()), min(PROBE_POLL, deadline - now))
    arrivals = [a for a in receiver.snapshot()[seen:] if a.mode == OK]
    test = next((a for a in arrivals if is_test(a)), None)
    probe_came = any(is_probe(a) for a in arrivals)
    outcome = outcome_of_test_event(test is not None, probe_came, queued)
    delay = None if test is None else round(test.mono - started, 3)
    finding.table("test_event").append(
        {
            "arrived": test is not None,
            "after_s": delay,
            "verified": test.verified if test else None,
            "outcome": outcome,
            "probe_event": probe_came,
            "waited_s": round(time.monotonic() - started, 3),
        }
    )
    return delay, outcome


def _probe_queued(client: Client, elapsed: float) -> bool | None:
    """Whether the probe's work is still waiting or in progress (None: the queue cannot be
    read). Work done reads as not queued; so does a queue that shows no work at all once
    the enqueue lag (under a second) is long past, as after the server's cleanup."""
    try:
        status = client.queue_status(session_id=PROBE_SESSION)
    except RonchoError:
        return None
    if not status.idle:
        return True
    return status.completed_work_units == 0 and elapsed < PROBE_GRACE


def _next_of(receiver: Receiver, seen: int, match: Any, deadline: float) -> Arrival | None:
    while True:
        for arrival in receiver.snapshot()[seen:]:
            if arrival.mode == OK and match(arrival):
                return arrival
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        receiver.wait_new(len(receiver.snapshot()), min(left, 0.25))


# -- 2. latency trials -----------------------------------------------------------------------
@dataclass(slots=True, kw_only=True)
class _Poll:
    drained_s: float | None = None
    last_seen_s: float | None = None
    count: int = 0
    polls: int = 0
    series: list[tuple[float, int, int]] = field(default_factory=list)


def _look(client: Client, session: str, started: float, state: _Poll) -> None:
    """One poll: the session's queue counts and its conclusions."""
    now = time.monotonic() - started
    state.polls += 1
    try:
        status = client.queue_status(session_id=session)
        open_units = status.pending_work_units + status.in_progress_work_units
        if open_units == 0 and status.completed_work_units > 0 and state.drained_s is None:
            state.drained_s = round(now, 3)
        if open_units > 0:
            state.drained_s = None  # drained only once it stays so
    except RonchoError:
        open_units = -1
    count = _count(client, session)
    if count > state.count:
        state.count, state.last_seen_s = count, round(now, 3)
    state.series.append((now, open_units, count))


def _count(client: Client, session: str) -> int:
    try:
        return client.list_conclusions({"session_id": session}, size=1).total
    except RonchoError:
        return -1


def _newest_created(client: Client, session: str) -> datetime | None:
    try:
        page = client.list_conclusions({"session_id": session}, size=1)
    except RonchoError:
        return None
    stamp = page.items[0].created_at if page.items else None
    return parse_timestamp(stamp) if stamp else None


def _session_events(arrivals: list[Arrival], session: str) -> list[Arrival]:
    return [
        a
        for a in arrivals
        if a.mode == OK and isinstance(a.event, QueueEmptyEvent) and a.event.session_id == session
    ]


def _sync(client: Client, session: str, count: int, chars: int, senders: tuple[str, ...]) -> float:
    """Add ``count`` one-sentence messages in one call; the wall time it returned."""
    batch = [
        MessageCreate(senders[i % len(senders)], sample_text(chars, f"q9 {session} m{i}") + ".")
        for i in range(count)
    ]
    client.add_messages(session, batch)
    return time.time()


def _trial(
    finding: Finding,
    receiver: Receiver,
    client: Client,
    trial: int,
    messages: int,
    chars: int,
    bound: float,
    poll: float,
    settle: float,
) -> dict[str, Any]:
    session = f"q9-t{trial}"
    seen = len(receiver.snapshot())
    started = time.monotonic()
    sent_wall = _sync(client, session, messages, chars, (SENDER,))
    state = _Poll()
    event: Arrival | None = None
    at_event = -1
    deadline = started + bound
    settle_until: float | None = None
    while time.monotonic() < deadline:
        if event is None:
            found = _session_events(receiver.snapshot()[seen:], session)
            if found:
                event = found[0]
                at_event = _count(client, session)  # read at once, as a receiver would
        _look(client, session, started, state)
        if event is not None and state.drained_s is not None and settle_until is None:
            settle_until = time.monotonic() + settle
        if settle_until is not None and time.monotonic() >= settle_until:
            break
        receiver.wait_new(len(receiver.snapshot()), poll)
    final = _count(client, session)
    complete_at_event = None if event is None else at_event >= final
    newest = _newest_created(client, session)
    events = _session_events(receiver.snapshot()[seen:], session)
    event_s = None if event is None else round(event.mono - started, 3)
    after_created = (
        None if event is None or newest is None else round(event.wall - newest.timestamp(), 3)
    )
    after_seen = (
        None
        if event_s is None or state.last_seen_s is None
        else round(event_s - state.last_seen_s, 3)
    )
    return {
        "trial": trial,
        "messages": messages,
        "chars": chars,
        "event": event is not None,
        "events_for_session": len(events),
        "event_after_sync_s": event_s,
        "event_after_last_conclusion_created_s": after_created,
        "event_after_last_conclusion_seen_s": after_seen,
        "event_after_drained_seen_s": _minus(event_s, state.drained_s),
        "drained_seen_s": state.drained_s,
        "last_conclusion_seen_s": state.last_seen_s,
        "conclusions": final,
        "complete_at_event": complete_at_event,
        "verified": None if event is None else event.verified,
        "polls": state.polls,
        "sync_wall": round(sent_wall, 3),
    }


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(a - b, 3)


def trial_stats(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """n, median, p90, min and max of each delay the trials measured."""
    out = []
    for name in (
        "event_after_sync_s",
        "event_after_last_conclusion_created_s",
        "event_after_last_conclusion_seen_s",
        "event_after_drained_seen_s",
        "drained_seen_s",
        "last_conclusion_seen_s",
    ):
        got = [r[name] for r in rows if r.get(name) is not None]
        out.append({"measure": name, "n": len(got), "of": len(rows), **spread(got)})
    return out


# -- 3. granularity ----------------------------------------------------------------------------
def _granularity(
    finding: Finding,
    receiver: Receiver,
    client: Client,
    count: int,
    chars: int,
    bound: float,
    poll: float,
    settle: float,
) -> None:
    session = "q9-two"
    seen = len(receiver.snapshot())
    started = time.monotonic()
    _sync(client, session, count, chars, (SENDER, OTHER))
    state = _Poll()
    deadline = started + bound
    quiet_since: float | None = None
    while time.monotonic() < deadline:
        _look(client, session, started, state)
        if state.drained_s is not None and _session_events(receiver.snapshot()[seen:], session):
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since >= settle:
                break
        else:
            quiet_since = None
        receiver.wait_new(len(receiver.snapshot()), poll)
    rows = finding.table("granularity")
    for arrival in _session_events(receiver.snapshot()[seen:], session):
        event = arrival.event
        rows.append(
            {
                "queue_type": event.queue_type,
                "session_id": event.session_id,
                "observer": event.observer,
                "observed": event.observed,
                "after_sync_s": round(arrival.mono - started, 3),
            }
        )


# -- 4. a receiver that fails or is down -----------------------------------------------------
def _failure(
    finding: Finding,
    receiver: Receiver,
    client: Client,
    raw: RawClient,
    messages: int,
    chars: int,
    bound: float,
    poll: float,
    settle: float,
    watch: float,
) -> None:
    path = raw.ws_path("webhooks")
    trace = finding.trace
    trace.raw(
        "register a receiver that answers 500", raw, "POST", path, {"url": receiver.url(FAIL, "x")}
    )
    # The port is held down from registration on (refusing, never free for another
    # process to take) until the receiver comes back up on it.
    with DownPort() as down:
        down_url = f"http://localhost:{down.port}/down"
        trace.raw("register a receiver that is down", raw, "POST", path, {"url": down_url})
        seen = len(receiver.snapshot())
        started = time.monotonic()
        session = "q9-fail"
        _sync(client, session, messages, chars, (SENDER,))
        trace.raw("trigger the test event", raw, "GET", raw.ws_path("webhooks", "test"))
        # Both events at the good and the failing endpoint, then time for the attempt at the
        # closed port to end (the server posts to all endpoints at once, the emulator in turn);
        # only then is the port opened again, and anything it gets is a retry.
        deadline = started + bound
        while time.monotonic() < deadline:
            got = [a for a in receiver.snapshot()[seen:] if a.event is not None]
            kinds = {(a.mode, a.event.type) for a in got}
            if kinds >= {(m, k) for m in (OK, FAIL) for k in ("test.event", "queue.empty")}:
                break
            receiver.wait_new(len(receiver.snapshot()), poll)
        time.sleep(settle)
        with Receiver(receiver.secret, down=down) as back:
            time.sleep(watch)
        late = back.snapshot()
    arrivals = receiver.snapshot()[seen:]
    rows = finding.table("failure")
    for mode, name in ((OK, "answers 200"), (FAIL, "answers 500")):
        for kind in ("test.event", "queue.empty"):
            hits = [
                a
                for a in arrivals
                if a.mode == mode and a.event is not None and a.event.type == kind
            ]
            rows.append(
                {"receiver": name, "event": kind, "deliveries": len(hits), "watched_s": watch}
            )
    rows.append(
        {
            "receiver": "down, back after the events",
            "event": "any",
            "deliveries": len(late),
            "watched_s": watch,
        }
    )


# -- what the deliveries held ------------------------------------------------------------------
def _payload(finding: Finding, receiver: Receiver, made: int, again: int | None) -> None:
    rows = finding.table("payloads")
    seen_types: set[tuple[str, str]] = set()
    for arrival in receiver.snapshot():
        if arrival.event is None:
            continue
        key = (arrival.event.type, ",".join(sorted(arrival.event.data)))
        if key in seen_types:
            continue
        seen_types.add(key)
        rows.append(
            {
                "type": arrival.event.type,
                "data_keys": key[1],
                "body": arrival.body.decode("utf-8", "replace")[:BODY_CHARS],
                "verified": arrival.verified,
            }
        )
    arrivals = receiver.snapshot()
    finding.table("registration").append(
        {
            "first_status": made,
            "again_status": again,
            "deliveries": len(arrivals),
            "bad_signatures": sum(1 for a in arrivals if a.verified is False),
            # Every message starts with "q9 <session>": a body holding it carried text.
            "message_text_in_a_body": any(b"q9 q9-" in a.body for a in arrivals),
        }
    )
