"""Benchmark 4: streaming latency of the dialectic's SSE answer.

The server (a thread in the benchmark process) writes ``count`` events in the Honcho chat
format, one chunk each, ``pause_ms`` apart, and notes ``time.monotonic_ns()`` just before
and just after each event's ``sendall``. The worker (another process) notes the same
clock when its iterator yields each event. On Linux both read CLOCK_MONOTONIC, so:

    delay      = yielded - written (after sendall returned)
    held back  = an event yielded only after the server started writing the next one

The final ``{"done": true}`` event counts too (roncho yields it as a chunk with ``done``;
the SDK yields nothing for it, so its last timestamp is when its iterator ended).
"""

from __future__ import annotations

import itertools

from harness import Interpreters, run_worker
from server import Server
from stats import Summary, table, verdict

_keys = itertools.count()


def run(
    server: Server, interp: Interpreters, rounds: int, count: int, pause_ms: int
) -> dict[str, dict[str, list[float]]]:
    contenders = interp.contenders("roncho", "stdlib", "sdk")
    out: dict[str, dict[str, list[float]]] = {c: {"delay_us": [], "held": []} for c in contenders}
    for r in range(rounds):
        order = contenders[r % len(contenders) :] + contenders[: r % len(contenders)]
        for contender in order:
            key = f"k{next(_keys)}"
            spec = {
                "kind": "run_stream",
                "url": server.url,
                "peer": f"s{count}p{pause_ms}x{key}",
                "warm_peer": f"s2p1xw{key}",
            }
            events = run_worker(interp, contender, spec)["events"]
            written = server.written(key)
            if len(events) != len(written):
                raise RuntimeError(
                    f"{contender}: {len(events)} events yielded, {len(written)} written"
                )
            for i, ((content, seen), (_, after)) in enumerate(zip(events, written, strict=True)):
                if i < count and content != f"e{i:04d} ":
                    raise RuntimeError(f"{contender}: event {i} arrived as {content!r}")
                out[contender]["delay_us"].append((seen - after) / 1e3)
                if i + 1 < len(written):
                    out[contender]["held"].append(1.0 if seen >= written[i + 1][0] else 0.0)
    return out


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))] if ordered else float("nan")


def report(
    samples: dict[str, dict[str, list[float]]], count: int, pause_ms: int
) -> tuple[str, list[str]]:
    rows = []
    for contender, figures in samples.items():
        delays = figures["delay_us"]
        s = Summary.of(delays)
        rows.append(
            [
                contender,
                f"{s.median:,.0f}",
                f"{_p90(delays):,.0f}",
                f"{s.low:,.0f}",
                f"{s.high:,.0f}",
                f"{int(sum(figures['held']))} of {len(figures['held'])}",
            ]
        )
    header = ["contender", "median delay us", "p90 us", "min us", "max us", "held back"]
    text = table(header, rows) + (
        f"\n\n({count} events + the final one per stream, {pause_ms} ms apart; "
        "delay = iterator yields the event - server's sendall of it returned)"
    )
    goals = []
    for ron in (c for c in ("roncho", "roncho-alt") if c in samples):
        r = samples[ron]
        median_ms = Summary.of(r["delay_us"]).median / 1e3
        held = int(sum(r["held"]))
        goals += [
            f"stream: {ron} median delay {median_ms:.3f} ms (goal < 2 ms): "
            f"{verdict(median_ms < 2)}",
            f"stream: {ron} events held back until a later one: {held} (goal 0): "
            f"{verdict(held == 0)}",
        ]
    return text, goals
