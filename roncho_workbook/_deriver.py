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

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from roncho import Client, MessageCreate, RonchoError

from ._deriver_config import DeriverConfig
from ._finding import Finding, sample_text
from ._prose import INCONSISTENT, LATE, deriver_latency_answer, fitting_settings
from ._stats import spread
from ._target import Target

# Message sizes: well below and well above the 512-token gate (o200k counts English at about
# 4.5 characters per token; the emulator at 4).
BELOW_GATE_CHARS = 120
ABOVE_GATE_CHARS = 4000


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
    finding.answer = deriver_latency_answer(
        rows,
        config,
        warm_derived=warm.latency is not None,
        poll=poll,
        below_waited=below_bound > 0,
    )
    return finding


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
        got = [r["first_conclusion_s"] for r in group if not r["timed_out"]]
        stats.append(
            {
                "size": size,
                "gate": gate,
                "n": len(group),
                "released": len(got),
                **spread(got),
                "inconsistent": sum(1 for r in group if r["check"] == INCONSISTENT),
            }
        )
    return stats


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
    # Passes the gate the run was told (Honcho's 512 tokens by default).
    chars = max(ABOVE_GATE_CHARS, config.chars_to_pass() if config is not None else 0)
    with (
        target.scratch(prefix) as client,
        target.scratch(prefix + "-off", configuration=OFF) as off,
    ):
        cases = [
            _start_case(off if s.workspace_off else client, i, s, chars)
            for i, s in enumerate(SWITCHES)
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


def _start_case(client: Client, index: int, switch: Switch, chars: int) -> dict[str, Any]:
    peer = f"q3-switch-{index}"
    session = f"q3-switch-{index}"
    client.get_or_create_peer(peer, configuration=switch.peer_config)
    client.get_or_create_session(
        session, peers={peer: switch.session_peer or {}}, configuration=switch.session_config
    )
    content = sample_text(chars, f"switch-{index}")
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
