"""Q9: can memoryd wait for the deriver by push (``queue.empty``) instead of polling?

A receiver on 127.0.0.1 (``Receiver``, registered as ``http://localhost:PORT/...``: the
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
"""

from __future__ import annotations

import json
import socket
import statistics
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .. import Client, MessageCreate, RonchoError, parse_timestamp
from ..webhooks import QueueEmptyEvent, WebhookError, read_event, verify
from ._deriver import DeriverConfig
from ._finding import Finding, sample_text
from ._raw import RawClient
from ._target import Target

# What each mode of the receiver answers.
OK, FAIL = "ok", "fail"
SENDER = "q9-user"
OTHER = "q9-other"
# Seconds a receiver's socket waits on a stalled sender.
RECEIVER_TIMEOUT = 10.0
# How much of a delivery body the evidence keeps.
BODY_CHARS = 400


@dataclass(slots=True, kw_only=True)
class Arrival:
    """One delivery as the receiver saw it."""

    mono: float
    wall: float
    mode: str
    body: bytes
    signature: str | None
    event: Any = None  # the verified WebhookEvent, or None
    verified: bool | None = None  # None: no secret to check with
    problem: str = ""


class Receiver:
    """A loopback HTTP server that records deliveries; ``/ok/...`` answers 200, ``/fail/...``
    500. A context manager: the thread stops on exit."""

    def __init__(self, secret: str) -> None:
        self.secret = secret
        self.arrivals: list[Arrival] = []
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            timeout = RECEIVER_TIMEOUT

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                mode = FAIL if self.path.startswith("/fail") else OK
                receiver._take(body, self.headers.get("X-Honcho-Signature"), mode)
                self.send_response(500 if mode == FAIL else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def url(self, mode: str, tag: str) -> str:
        return f"http://localhost:{self.port}/{mode}/{tag}"

    def _take(self, body: bytes, signature: str | None, mode: str) -> None:
        arrival = Arrival(
            mono=time.monotonic(), wall=time.time(), mode=mode, body=body, signature=signature
        )
        try:
            if self.secret:
                arrival.event = verify(body, signature, self.secret)
                arrival.verified = True
            else:  # nothing to check with: read it unverified (``verified`` stays None)
                arrival.event = read_event(json.loads(body))
        except (WebhookError, ValueError, RecursionError) as exc:
            arrival.verified = False if self.secret else None
            arrival.problem = str(exc)
        with self._arrived:
            self.arrivals.append(arrival)
            self._arrived.notify_all()

    def snapshot(self) -> list[Arrival]:
        with self._lock:
            return list(self.arrivals)

    def wait_new(self, seen: int, timeout: float) -> None:
        """Until more than ``seen`` arrivals are recorded, or ``timeout`` seconds."""
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.arrivals) > seen, timeout=max(timeout, 0))

    def __enter__(self) -> Receiver:
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=2.0)


# Each later wait's bound once no delivery has reached the receiver.
UNREACHED_WAIT_BOUND = 5.0
# The session of the probe synced after the test event, and how often its queue is read.
PROBE_SESSION = "q9-probe"
PROBE_POLL = 0.5
# Seconds the probe's work must have been finished, with no delivery, before the wait ends
# early as "unreached" (the queue.empty is posted right after the work is done).
PROBE_GRACE = 5.0

# What became of the test event (the ``outcome`` of its table row).
DELIVERED = "delivered"
LOST = "lost"  # the probe's queue.empty came, the test event never did
BEHIND = "behind"  # neither came; the probe's work is still queued at the bound
UNREACHED = "unreached"  # the probe's work was done, yet no delivery came
UNKNOWN = "unknown"  # neither came, and the queue could not be read


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
            finding.answer = (
                f"Registering a webhook endpoint answered {made.status if made else None}: "
                "this server takes no webhooks, so push cannot replace polling here."
            )
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
        finding.answer = answer(finding, config, test_s, bool(secret), poll, outcome)
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


def _p90(values: list[float]) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=10, method="inclusive")[8]


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
        got = sorted(r[name] for r in rows if r.get(name) is not None)
        out.append(
            {
                "measure": name,
                "n": len(got),
                "of": len(rows),
                "median_s": round(statistics.median(got), 3) if got else None,
                "p90_s": round(_p90(got), 3) if got else None,
                "min_s": got[0] if got else None,
                "max_s": got[-1] if got else None,
            }
        )
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
def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


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
    down_port = _free_port()
    down_url = f"http://localhost:{down_port}/down"
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
    late: list[bytes] = []
    with _Listener(down_port, late):
        time.sleep(watch)
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


class _Listener:
    """Listens on ``port`` for the ``with`` block; any POST body it gets goes into ``got``."""

    def __init__(self, port: int, got: list[bytes]) -> None:
        class Handler(BaseHTTPRequestHandler):
            timeout = RECEIVER_TIMEOUT

            def do_POST(self) -> None:
                got.append(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> None:
        self._thread.start()

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=2.0)


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


def answer(
    finding: Finding,
    config: DeriverConfig,
    test_s: float | None,
    checked: bool,
    poll_s: float,
    outcome: str = DELIVERED,
) -> str:
    rows = finding.tables.get("trials", [])
    got = [r for r in rows if r["event"]]
    stats = {s["measure"]: s for s in finding.tables.get("stats", [])}

    def span(name: str) -> str:
        s = stats.get(name)
        if not s or not s["n"]:
            return "n/a"
        return f"median {s['median_s']:.2f}s, p90 {s['p90_s']:.2f}s"

    complete = sum(1 for r in got if r["complete_at_event"])
    once = sum(1 for r in got if r["events_for_session"] == 1)
    units = sorted(
        {
            f"{g['queue_type']} (observer {_shown(g['observer'])}, "
            f"observed {_shown(g['observed'])})"
            for g in finding.tables.get("granularity", [])
        }
    )
    fails = {
        (f["receiver"], f["event"]): f["deliveries"] for f in finding.tables.get("failure", [])
    }
    keys = sorted({f"{p['type']}: {p['data_keys']}" for p in finding.tables.get("payloads", [])})
    reg = (finding.tables.get("registration") or [{}])[0]
    signed = (
        f"signatures: {reg.get('bad_signatures', 0)} bad"
        if checked
        else "signatures not checked (no secret)"
    )
    fail_500 = fails.get(("answers 500", "queue.empty"), 0) + fails.get(
        ("answers 500", "test.event"), 0
    )
    down = fails.get(("down, back after the events", "any"), 0)
    dependable = bool(rows) and len(got) == len(rows) and complete == len(got)
    verdict = (
        "push is a dependable wake-up, but not a replacement: a missed delivery is never sent "
        "again, so keep queue_status as the check (poll once on the event and at a bound)"
        if dependable
        else "push is not dependable here: keep polling queue_status"
    )
    waited = (finding.tables.get("test_event") or [{}])[0].get("waited_s")
    if test_s is None and not got and outcome == BEHIND:
        verdict = (
            f"no delivery was due yet: a probe queued right after the test event was still "
            f"waiting in the deriver's queue after {_shown_s(waited)} (the deriver is behind, "
            "or holds it in a batch), so this is not a lost event; push was not measured "
            "here: run again when the server's queue is short, and keep polling queue_status"
        )
    elif test_s is None and not got:
        verdict = (
            f"no delivery reached this run's receiver (not even the test event; the deriver "
            f"finished a probe queued after it within {_shown_s(waited)}): the server cannot "
            "reach http://localhost on this machine (run from the server's own host) or has "
            "no webhook secret to sign with, so push was not measured here; keep polling "
            "queue_status"
        )
    size = rows[0]["messages"] if rows else 0
    chars = rows[0].get("chars") if rows else None
    sized = f" of {chars} characters each" if chars else ""
    if config.batching and chars:
        sized += f", sized to pass the {config.token_gate}-token gate"
    test = f"{test_s:.2f}s" if test_s is not None else _NOT_DELIVERED.get(outcome, outcome)
    parts = [
        f"queue.empty arrived in {len(got)}/{len(rows)} trials of a {size}-message sync{sized} "
        f"({span('event_after_sync_s')} after the sync; "
        f"{span('event_after_last_conclusion_created_s')} after the last conclusion was "
        f"created; polling every {poll_s}s saw the queue drained {span('drained_seen_s')}, "
        f"and the event came {span('event_after_drained_seen_s')} after that)",
        f"every conclusion was readable at the event in {complete}/{len(got)}",
        f"one event per single-sender session in {once}/{len(got)}",
        "a two-sender session of a summary's length gave one per work unit: "
        + (", ".join(units) or "none"),
        f"data holds ids only ({'; '.join(keys) or 'nothing'}; message text in any body: "
        f"{_yes_no(reg.get('message_text_in_a_body'))})",
        f"test.event after {test}",
        f"a receiver answering 500 got {fail_500} deliveries for 2 events and one that was "
        f"down got {down} once back (no retry)",
        signed,
        f"Deriver as told: {config.describe()}",
    ]
    return "; ".join(parts) + f". Verdict: {verdict}."


# How the answer says what became of a test event that did not come.
_NOT_DELIVERED = {
    LOST: "never (lost: a probe queued after it was delivered)",
    BEHIND: "not yet (the deriver had not reached it)",
    UNREACHED: "never (no delivery reached the receiver)",
    UNKNOWN: "not seen (the queue could not be read)",
}


def _shown_s(seconds: object) -> str:
    return f"{seconds:g}s" if isinstance(seconds, (int, float)) else "the bound"


def _shown(value: object) -> str:
    """An event field as a reader of the answer takes it: JSON, and 3.0.12's summary events,
    which send the text of Python's None where the others send null, said in words (the
    events table keeps the exact value)."""
    if value == "None":
        return "the placeholder text of a missing id, not null"
    return json.dumps(value)


def _yes_no(value: object) -> str:
    return "n/a" if value is None else ("yes" if value else "no")
