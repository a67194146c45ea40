"""Q3: how long from a message to its first derived conclusion, and which switches stop it.

Latency (A12). Each trial sends one message into its own scratch session (the deriver
batches per session and sender), then polls ``queue_status(session_id=...)``,
``queue_status(observer_id=<sender>)`` and ``list_conclusions`` every ``poll`` seconds until
a conclusion from that session shows up or the trial's bound runs out. Messages above the
deriver's token gate are sent one trial at a time; messages below it are sent together and
watched together, because with batching on each waits for the age gate.

A warm-up message goes first and counts in no class (a deriver's first batch after a start
is slow). Which gate released a batch: on the emulator ``FakeHoncho.deriver_log()`` says; on
a real server it is read from the timing and the server's token count (released within the
prompt window, before the age gate could act: the token gate if the message reached it, else
flush; at or after the age gate: age; in between: late). Each classification is then checked
against the `DeriverConfig` the run was told the server has; a release that config cannot
explain is reported as INCONSISTENT, never explained away.

Switches. One message per case, each in its own session (and the workspace-level case in
its own scratch workspace), then poll until the control case has its conclusion and a
settling time has passed; count the work units the queue showed and the conclusions made.
"""

from __future__ import annotations

import inspect
import math
import statistics
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .. import Client, MessageCreate, RonchoError
from ._finding import Finding, sample_text
from ._target import Target

# Message sizes: well below and well above the 512-token gate (o200k counts English at about
# 4.5 characters per token; the emulator at 4).
BELOW_GATE_CHARS = 120
ABOVE_GATE_CHARS = 4000
# Characters of sample text per token of the gate, for a sync that must pass it at once: the
# sample text counts about 4.5 characters a token in o200k (the emulator's estimate: 4), so
# 8 passes the gate with room to spare (4,096 characters for Honcho's 512 tokens).
CHARS_PER_GATE_TOKEN = 8
# The longest message a sync sends: Honcho refuses more than MAX_MESSAGE_SIZE (25,000).
LONGEST_MESSAGE = 20_000
# A release this much earlier than the age gate cannot be the age gate's doing: the server
# dates a message before our POST returns, and the deriver polls on its own schedule.
AGE_SLACK_SHARE = 0.1
AGE_SLACK_SECONDS = 0.5
INCONSISTENT = "INCONSISTENT"
# Released after the prompt window but before the age gate: no configured gate explains it.
LATE = "late (after the prompt window, before the age gate)"


@dataclass(frozen=True, slots=True, kw_only=True)
class DeriverConfig:
    """How the server's deriver is set, as far as the run knows.

    ``flush``: DERIVER_FLUSH_ENABLED (batching off). ``age_gate``:
    DERIVER_REPRESENTATION_BATCH_MAX_AGE_SECONDS (0 disables it). ``token_gate``:
    DERIVER_REPRESENTATION_BATCH_WORK_UNIT_TARGET_TOKENS. ``source`` says where the
    settings come from: ``told`` (the run was told them), ``assumed`` (Honcho's defaults,
    the run was told nothing) or ``emulator`` (the emulator was started with them). Nobody
    here can read a real server's configuration, so it is never called "configured".
    """

    flush: bool
    age_gate: float
    token_gate: int = 512
    # Seconds within which an open gate's batch is processed (deriver poll + LLM) once the
    # deriver is warm: about 2 s on the kit's server, which polls at least every 2 s. An
    # upstream deriver backs off to 30 s when idle: raise it there.
    prompt: float = 10.0
    source: str = "told"

    def settings(self) -> str:
        """``Deriver as told: batching on (...)`` and the like: the settings and their source."""
        how = {
            "told": "as told",
            "assumed": "as assumed (Honcho's defaults; the run was not told)",
            "emulator": "as set on the emulator",
        }.get(self.source, f"as {self.source}")
        return f"Deriver {how}: {self.describe()}"

    def describe(self) -> str:
        if self.flush:
            return "batching off (flush on)"
        age = f"age gate {self.age_gate:g}s" if self.age_gate > 0 else "age gate disabled"
        return f"batching on (flush off, token gate {self.token_gate}, {age})"

    def expected(self, tokens: int | None) -> tuple[str, ...]:
        """The gates that may release a lone message of ``tokens`` under this config."""
        if self.flush:
            return ("flush", "tokens")  # both open at once; only the emulator tells them apart
        if tokens is not None and tokens >= self.token_gate:
            return ("tokens",)
        return ("age",) if self.age_gate > 0 else ("not released",)

    @property
    def batching(self) -> bool:
        """Whether a sync below the token gate waits for the age gate (or for ever)."""
        return not self.flush and self.token_gate > 0

    def chars_to_pass(self) -> int:
        """Characters one sender sends in one sync so its batch passes the token gate at
        once, not at the age gate (0: nothing holds it: flush on, or no token gate)."""
        return self.token_gate * CHARS_PER_GATE_TOKEN if self.batching else 0

    def sync_shape(self, messages: int, chars: int, senders: int = 1) -> tuple[int, int]:
        """``(messages, chars per message)`` for a sync of at least ``messages`` messages of
        at least ``chars`` characters, from ``senders`` senders in turn, such that each
        sender's share passes the token gate: a question that is not about the gates must
        not wait for the age gate. Unchanged when nothing holds a batch."""
        need = self.chars_to_pass()
        if need == 0:
            return messages, chars
        count = max(messages, senders * math.ceil(need / LONGEST_MESSAGE))
        per_sender = count // senders  # the fewest messages any one sender gets
        return count, max(chars, math.ceil(need / max(per_sender, 1)))

    def before_age_gate(self, seconds: float) -> bool:
        """True when a release after ``seconds`` came too early to be the age gate's."""
        if self.age_gate <= 0:
            return True
        return seconds < self.age_gate * (1 - AGE_SLACK_SHARE) - AGE_SLACK_SECONDS


@dataclass(slots=True, kw_only=True)
class _Watch:
    trial: int
    size: str
    session: str
    peer: str
    chars: int
    bound: float
    client: Client
    message_id: str = ""
    tokens: int | None = None
    sent_at: str = ""
    post_s: float = 0.0
    created: float = 0.0
    latency: float | None = None
    first_queued: float | None = None
    session_max: int = 0
    observer_max: int = 0
    done: bool = False
    series: list[dict[str, Any]] = field(default_factory=list)


def measure_latency(
    target: Target,
    prefix: str,
    *,
    trials: int,
    poll: float,
    above_bound: float,
    below_bound: float,
    config: DeriverConfig,
) -> Finding:
    """Run ``trials`` above-gate trials one by one, then ``trials`` below-gate ones together.

    ``below_bound`` 0 (or less) sends no below-gate trial: with batching on such a message
    waits for the age gate (Honcho's default: 30 minutes), which only a long run waits for;
    the answer then says that class was bounded by the age gate and not waited for.

    Tables: ``latency`` (one row per trial, with the gate seen, the gates ``config`` allows
    and whether they agree), ``latency_stats`` (n, median, p90, min, max per size and gate)
    and ``queue_series`` (every poll).
    """
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    finding = Finding(question="Q3 deriver latency")
    with target.scratch(prefix) as client:
        # A first message after a deriver start takes longer (cold imports): it is sent and
        # watched first, and counts in no class.
        above_chars = max(ABOVE_GATE_CHARS, config.chars_to_pass())
        warm = _send(client, 0, "warm-up", above_chars, above_bound)
        _poll([warm], poll)
        finding.table("warm_up").append(
            {"tokens": warm.tokens, "first_conclusion_s": warm.latency, "bound_s": warm.bound}
        )
        for n in range(trials):
            watch = _send(client, n, "above", above_chars, above_bound)
            _poll([watch], poll)
            _record(finding, target, watch, config)
        if below_bound > 0:
            below = [
                _send(client, n, "below", BELOW_GATE_CHARS, below_bound) for n in range(trials)
            ]
            _poll(below, poll)
            for watch in below:
                _record(finding, target, watch, config)
    rows = finding.tables["latency"]
    finding.tables["latency_stats"] = latency_stats(rows)
    if any(r["check"] == INCONSISTENT for r in rows):
        finding.fits = fitting_settings(rows, config)
    warmed = "derived" if warm.latency is not None else "not derived within its bound"
    # Only the trials sent one at a time: the below-gate ones are all sent before the first
    # poll, so their first sight is late by the sends after them.
    lag = enqueue_lag_clause([r for r in rows if r["size"] == "above"], poll)
    finding.answer = (
        latency_answer(rows, config)
        + (below_not_waited(config) if below_bound <= 0 else "")
        + f" A warm-up message went first ({warmed}); {lag}."
    )
    return finding


def below_not_waited(config: DeriverConfig) -> str:
    """What the answer says of the below-gate class a run did not wait for."""
    gate = f"the age gate ({config.age_gate:g}s)" if config.age_gate > 0 else "no gate at all"
    return (
        f" Below the token gate: not measured: with batching on such a message waits for "
        f"{gate}, which this run did not wait for (a setting, not a fault; "
        f"`investigate.sh --long` waits for it)."
    )


def _send(client: Client, n: int, size: str, chars: int, bound: float) -> _Watch:
    session = f"q3-{size}-{n}"
    peer = f"q3-{size}-user"
    client.get_or_create_session(session, peers={peer: {}})
    watch = _Watch(
        trial=n, size=size, session=session, peer=peer, chars=chars, bound=bound, client=client
    )
    watch.sent_at = datetime.now(UTC).isoformat(timespec="milliseconds")
    started = time.monotonic()
    (message,) = client.add_messages(
        session, [MessageCreate(peer, sample_text(chars, f"trial-{size}-{n}"))]
    )
    watch.created = time.monotonic()
    watch.post_s = watch.created - started
    watch.message_id = message.id
    watch.tokens = message.token_count
    return watch


def _poll(watches: list[_Watch], poll: float) -> None:
    """Poll every unfinished watch each round until each has a conclusion or its bound."""
    while True:
        open_ = [w for w in watches if not w.done]
        if not open_:
            return
        for w in open_:
            now = time.monotonic() - w.created
            queue = _queue(w.client, session_id=w.session)
            # 3.0.12 matches observer_id against a field only dream items carry, so this
            # stays 0 for message work there (reference: queue/status); recorded to show it.
            by_observer = _queue(w.client, observer_id=w.peer)["total"]
            count = _conclusions(w.client, w.session)
            w.series.append(
                {
                    "t": round(now, 3),
                    **queue,
                    "observer_id_total": by_observer,
                    "conclusions": count,
                }
            )
            w.session_max = max(w.session_max, queue["total"])
            w.observer_max = max(w.observer_max, by_observer)
            if w.first_queued is None and queue.get("total", 0) > 0:
                w.first_queued = now
            if count > 0:
                w.latency, w.done = now, True
            elif now >= w.bound:
                w.done = True
        time.sleep(poll)


def _queue(
    client: Client, *, session_id: str | None = None, observer_id: str | None = None
) -> dict[str, int]:
    try:
        status = client.queue_status(session_id=session_id, observer_id=observer_id)
    except RonchoError:
        return {"total": -1, "pending": -1, "in_progress": -1, "completed": -1}
    return {
        "total": status.total_work_units,
        "pending": status.pending_work_units,
        "in_progress": status.in_progress_work_units,
        "completed": status.completed_work_units,
    }


def _conclusions(client: Client, session: str) -> int:
    try:
        return client.list_conclusions({"session_id": session}, size=1).total
    except RonchoError:
        return 0


def observed_gate(target: Target, watch: _Watch, config: DeriverConfig) -> tuple[str, str]:
    """(gate, how it is known) for the batch holding the watch's message.

    The emulator logs its gate. A real server is read from the timing: within the prompt
    window (and before the age gate could act) a message at the token gate counts as
    "tokens", one below it as "flush" (nothing else releases it then); at or after the age
    gate, "age"; in between, late (no gate explains it).
    """
    if target.fake is not None:
        for record in target.fake.deriver_log():
            if record.message_id == watch.message_id and record.task == "representation":
                return str(record.gate), "emulator deriver_log()"
        return "not released", "emulator deriver_log()"
    if watch.latency is None:
        return "not released", "inferred from timing"
    if not config.before_age_gate(watch.latency):
        return "age", "inferred from timing"
    if watch.latency > config.prompt:
        return LATE, "inferred from timing"
    reached = watch.tokens is not None and watch.tokens >= config.token_gate
    return ("tokens" if reached else "flush"), "inferred from timing and token count"


def check_gate(gate: str, watch: _Watch, config: DeriverConfig) -> str:
    """``consistent``, ``unsettled`` (the bound ended before the gate was due) or INCONSISTENT."""
    allowed = config.expected(watch.tokens)
    if gate in allowed:
        return "consistent"
    if gate == "not released" and allowed == ("age",) and watch.bound < config.age_gate:
        return "unsettled (bound shorter than the age gate)"
    return INCONSISTENT


def _record(finding: Finding, target: Target, watch: _Watch, config: DeriverConfig) -> None:
    gate, how = observed_gate(target, watch, config)
    finding.table("latency").append(
        {
            "trial": watch.trial,
            "size": watch.size,
            "chars": watch.chars,
            "tokens": watch.tokens,
            "sent_at": watch.sent_at,
            "post_s": round(watch.post_s, 4),
            "first_in_queue_s": watch.first_queued,
            "first_conclusion_s": None if watch.latency is None else round(watch.latency, 3),
            "timed_out": watch.latency is None,
            "bound_s": watch.bound,
            "gate": gate,
            "gate_source": how,
            "expected gate": "/".join(config.expected(watch.tokens)),
            "check": check_gate(gate, watch, config),
            "queue max (session_id=)": watch.session_max,
            "queue max (observer_id=)": watch.observer_max,
            "polls": len(watch.series),
        }
    )
    series = finding.table("queue_series")
    for point in watch.series:
        series.append({"trial": watch.trial, "size": watch.size, **point})


def _p90(values: list[float]) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=10, method="inclusive")[8]


def latency_stats(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """n, released, median, p90, min and max of the latency per size class and gate.

    Only classes with trials appear; latencies of trials that were never released are not
    numbers, so they count in ``n`` but not in the figures.
    """
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["size"], row["gate"]), []).append(row)
    stats = []
    for (size, gate), group in sorted(groups.items()):
        got = sorted(r["first_conclusion_s"] for r in group if not r["timed_out"])
        stats.append(
            {
                "size": size,
                "gate": gate,
                "n": len(group),
                "released": len(got),
                "median_s": round(statistics.median(got), 3) if got else None,
                "p90_s": round(_p90(got), 3) if got else None,
                "min_s": got[0] if got else None,
                "max_s": got[-1] if got else None,
                "inconsistent": sum(1 for r in group if r["check"] == INCONSISTENT),
            }
        )
    return stats


def _release(row: dict[str, Any]) -> str:
    if row["gate"] == LATE:
        return f"{row['size']} released {LATE}"
    return f"{row['size']} released by {row['gate']}"


def fitting_settings(rows: list[dict[str, Any]], config: DeriverConfig) -> str:
    """The runner's deriver flags that the releases seen would agree with.

    Read from the below-gate trials (the ones batching holds back): all released within
    the prompt window fits flush on; released later fits batching with an age gate no
    longer than the first release; none released fits batching with an age gate longer
    than the bound watched. Above-gate trials held back say the token gate is higher.
    """

    def seconds(group: list[dict[str, Any]]) -> list[float]:
        return sorted(float(r["first_conclusion_s"]) for r in group if not r["timed_out"])

    below = [r for r in rows if r["size"] == "below"]
    above = [r for r in rows if r["size"] == "above"]
    got = seconds(below)
    parts = []
    if below and len(got) == len(below) and got[-1] <= config.prompt:
        parts.append("--deriver-flush on")
    elif got:
        parts.append(f"--deriver-flush off --age-gate {max(int(got[0]), 1)}")
    elif below:
        bound = max(float(r.get("bound_s") or 0) for r in below)
        parts.append(f"--deriver-flush off with an --age-gate over {bound:g}")
    held_back = any(s > config.prompt for s in seconds(above)) or len(seconds(above)) < len(above)
    if above and held_back and "--deriver-flush on" not in parts:
        tokens = max(int(r.get("tokens") or 0) for r in above)
        parts.append(f"--token-gate over {tokens}")
    return " ".join(parts) or "no deriver flags (the trials gave no release to read)"


# How long wait_for_derivation waits, by default, for a sync's work to show in the queue.
DEFAULT_GRACE: float = inspect.signature(Client.wait_for_derivation).parameters["grace"].default


def enqueue_lag_clause(rows: list[dict[str, Any]], poll: float) -> str:
    """When the sync's work first showed in the queue after add_messages returned, against
    wait_for_derivation's default grace (a lag longer than it reads as "nothing queued")."""
    lags = sorted(r["first_in_queue_s"] for r in rows if r.get("first_in_queue_s") is not None)
    if not lags:
        return "no trial sent alone showed its work in the queue status"
    said = (
        f"the sync's work first showed in the queue median {statistics.median(lags):.2f}s, "
        f"at most {lags[-1]:.2f}s after add_messages returned ({len(lags)} trials sent "
        f"alone, the queue read every {poll:g}s)"
    )
    if lags[-1] > DEFAULT_GRACE:
        return said + (
            f", longer than wait_for_derivation's default grace of {DEFAULT_GRACE:g}s: "
            f"pass a grace of at least {math.ceil(lags[-1] * 10) / 10:g}s on this server"
        )
    return said + f", within wait_for_derivation's default grace of {DEFAULT_GRACE:g}s"


def latency_answer(rows: list[dict[str, Any]], config: DeriverConfig) -> str:
    """One line: per size class, how many were released, when, by which gate; the checks."""
    parts = []
    for size in ("above", "below"):
        mine = [r for r in rows if r["size"] == size]
        if not mine:
            continue
        got = sorted(r["first_conclusion_s"] for r in mine if not r["timed_out"])
        gates = "/".join(sorted({str(r["gate"]) for r in mine}))
        span = "none"
        if got:
            span = f"median {statistics.median(got):.2f}s, {got[0]:.2f}-{got[-1]:.2f}s"
        parts.append(
            f"{size} the token gate: {len(got)}/{len(mine)} derived ({span}), gate {gates}"
        )
    bad = [r for r in rows if r["check"] == INCONSISTENT]
    unsettled = [r for r in rows if r["check"].startswith("unsettled")]
    verdict = (
        f"{INCONSISTENT} with these settings: {len(bad)} trial(s) "
        f"({', '.join(sorted({_release(r) for r in bad}))}); the releases seen fit "
        f"{fitting_settings(rows, config)}"
        if bad
        else "every release agrees with these settings"
    )
    if unsettled:
        verdict += f"; {len(unsettled)} trial(s) unsettled (bound shorter than the age gate)"
    observer = max((r["queue max (observer_id=)"] for r in rows), default=0)
    session = max((r["queue max (session_id=)"] for r in rows), default=0)
    return (
        "; ".join(parts)
        + f". {config.settings()}, prompt window {config.prompt:g}s; "
        + f"{verdict}. "
        + f"queue_status(observer_id=<sender>) showed at most {observer} work unit(s) "
        + f"where session_id= showed {session}"
        + (" (the observer_id filter misses message work)" if session > 0 and observer == 0 else "")
        + "."
    )


# -- switches -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class Switch:
    """One way to turn derivation off (or the control case that leaves it on)."""

    name: str
    peer_config: dict[str, Any] | None = None
    session_peer: dict[str, Any] | None = None
    session_config: dict[str, Any] | None = None
    message_config: dict[str, Any] | None = None
    workspace_off: bool = False
    expect_derived: bool = False


OFF = {"reasoning": {"enabled": False}}
SWITCHES: tuple[Switch, ...] = (
    Switch(name="control (nothing switched off)", expect_derived=True),
    Switch(name="peer observe_me false", peer_config={"observe_me": False}),
    Switch(
        name="session-peer observe_me false, peer observe_me true",
        peer_config={"observe_me": True},
        session_peer={"observe_me": False},
    ),
    Switch(name="message reasoning.enabled false", message_config=OFF),
    Switch(name="session reasoning.enabled false", session_config=OFF),
    Switch(name="workspace reasoning.enabled false", workspace_off=True),
)


def measure_switches(
    target: Target,
    prefix: str,
    *,
    poll: float,
    bound: float,
    settle: float,
    config: DeriverConfig | None = None,
) -> Finding:
    """Send one above-gate message per switch case and see which ones are derived.

    The messages pass the token gate, so the cases run the same with batching on or off;
    ``config`` (what the server's deriver was told to be) is named in the answer.
    """
    finding = Finding(question="Q3 derivation switches")
    with (
        target.scratch(prefix) as client,
        target.scratch(prefix + "-off", configuration=OFF) as off,
    ):
        cases = [
            _start_case(off if s.workspace_off else client, i, s) for i, s in enumerate(SWITCHES)
        ]
        started = time.monotonic()
        control = cases[0]
        settle_until: float | None = None
        while True:
            now = time.monotonic() - started
            for case in cases:
                _observe(case)
            if settle_until is None and control["conclusions"] > 0:
                settle_until = now + max(settle, now)
            if (settle_until is not None and now >= settle_until) or now >= bound:
                break
            time.sleep(poll)
        for case in cases:
            finding.table("switches").append(_switch_row(case))
    rows = finding.tables["switches"]
    agree = sum(1 for r in rows if r["agrees"])
    finding.answer = (
        f"{agree}/{len(rows)} cases as the source says: "
        + "; ".join(f"{r['case']}: {r['verdict']}" for r in rows)
        + "."
        + (f" {config.settings()}." if config is not None else "")
    )
    return finding


def _start_case(client: Client, index: int, switch: Switch) -> dict[str, Any]:
    peer = f"q3-switch-{index}"
    session = f"q3-switch-{index}"
    client.get_or_create_peer(peer, configuration=switch.peer_config)
    client.get_or_create_session(
        session, peers={peer: switch.session_peer or {}}, configuration=switch.session_config
    )
    content = sample_text(ABOVE_GATE_CHARS, f"switch-{index}")
    client.add_messages(
        session, [MessageCreate(peer, content, configuration=switch.message_config)]
    )
    return {
        "switch": switch,
        "client": client,
        "session": session,
        "sent": 1,
        "units": 0,
        "conclusions": 0,
    }


def _observe(case: dict[str, Any]) -> None:
    queue = _queue(case["client"], session_id=case["session"])
    case["units"] = max(case["units"], queue["total"])
    case["conclusions"] = _conclusions(case["client"], case["session"])


def _switch_row(case: dict[str, Any]) -> dict[str, Any]:
    switch: Switch = case["switch"]
    derived = case["conclusions"] > 0
    if derived:
        verdict = "derived"
    elif case["units"] > 0:
        verdict = "queued but not derived in time"
    else:
        verdict = "stopped (no work unit, no conclusion)"
    return {
        "case": switch.name,
        "messages sent": case["sent"],
        "work units seen": case["units"],
        "conclusions": case["conclusions"],
        "verdict": verdict,
        "expected": "derived" if switch.expect_derived else "stopped",
        "agrees": derived == switch.expect_derived and (derived or case["units"] == 0),
    }
