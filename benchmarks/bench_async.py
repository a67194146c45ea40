"""Benchmark 6: the asyncio client.

Per call: roncho.aio.AsyncClient vs a hand-written asyncio.open_connection one-shot (the
floor for one connection per request on asyncio) vs the SDK's async view, on the same
loopback server and operations as benchmark 2; client CPU and wall per call, medians.

Load: 1,000 get-or-create peer calls with 50 in flight on one loop against the emulator
(roncho.testing.FakeHoncho, in this process), roncho's AsyncClient side by side with the
SDK's async view: throughput, p50/p99 latency, peak extra file descriptors; afterwards the
emulator is asked how many peers it holds (nothing lost, nothing doubled).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from harness import REPO, Interpreters, Samples, rotating_rounds, run_worker
from server import Server
from stats import Summary, ratio, table, verdict

OPS = ["peer", "add:100", "search", "list:p50c1024"]
ITERATIONS = {"peer": 300, "add:100": 60, "search": 200, "list:p50c1024": 100}
SMOKE_DIVISOR = 10
WARMUP = 5
LOAD_CALLS, LOAD_IN_FLIGHT = 1000, 50
NAMES = ("roncho-async", "asyncio-floor", "sdk-async")


def run(server: Server, interp: Interpreters, rounds: int, smoke: bool) -> Samples:
    plan = [[op, max(3, ITERATIONS[op] // (SMOKE_DIVISOR if smoke else 1))] for op in OPS]
    spec = {"kind": "run_async_calls", "url": server.url, "ops": plan, "warmup": WARMUP}
    return rotating_rounds(interp, interp.contenders(*NAMES), spec, rounds)


def _median(samples: Samples, contender: str, op: str, metric: str) -> float:
    return Summary.of(samples.get(contender, {}).get(op, {}).get(metric, [])).median


def report(samples: Samples) -> tuple[str, list[str]]:
    names = list(samples)
    has_sdk = "sdk-async" in samples
    has_alt = "roncho-async-alt" in samples
    header = ["operation", "metric (us/call)", *names, "roncho/floor"]
    header += ["roncho-alt/floor"] if has_alt else []
    header += ["roncho/SDK"] if has_sdk else []
    rows = []
    goals = []
    for op in OPS:
        for metric, label in (("cpu_us", "client CPU"), ("wall_us", "wall")):
            row = [op, label, *(Summary.of(samples[c][op][metric]).show(0) for c in names)]
            mine = _median(samples, "roncho-async", op, metric)
            row.append(ratio(mine, _median(samples, "asyncio-floor", op, metric)))
            if has_alt:
                alt = _median(samples, "roncho-async-alt", op, metric)
                row.append(ratio(alt, _median(samples, "asyncio-floor", op, metric)))
            if has_sdk:
                row.append(ratio(mine, _median(samples, "sdk-async", op, metric)))
            rows.append(row)
        cpu = _median(samples, "roncho-async", op, "cpu_us")
        floor = _median(samples, "asyncio-floor", op, "cpu_us")
        goals.append(
            f"async per call {op}: roncho-async/asyncio floor CPU {cpu / floor:.2f}x "
            f"(goal <= 1.25x): {verdict(cpu / floor <= 1.25)}"
        )
        if has_sdk:
            sdk = _median(samples, "sdk-async", op, "cpu_us")
            goals.append(
                f"async per call {op}: roncho-async CPU {cpu:.0f} us vs SDK async "
                f"{sdk:.0f} us (goal: ahead): {verdict(cpu < sdk)}"
            )
    return table(header, rows), goals


def run_load(interp: Interpreters, smoke: bool) -> dict[str, Any]:
    """Each contender against its own fresh emulator, so neither sees the other's peers."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    import roncho
    from roncho.testing import FakeHoncho

    calls = LOAD_CALLS // (SMOKE_DIVISOR if smoke else 1)
    results: dict[str, Any] = {}
    for contender in interp.contenders("roncho-async", "sdk-async"):
        workspace = f"load-{os.getpid()}"
        with FakeHoncho() as fake:
            spec = {
                "kind": "run_load",
                "url": fake.url,
                "workspace": workspace,
                "calls": calls,
                "in_flight": LOAD_IN_FLIGHT,
            }
            figures = run_worker(interp, contender, spec)
            with roncho.Client(fake.url, workspace) as check:
                figures["stored"] = check.list_peers(size=1).total
        results[contender] = figures
    return results


def report_load(results: dict[str, Any]) -> tuple[str, list[str]]:
    header = [
        "contender", "calls", "in flight", "calls/s", "p50 ms", "p99 ms",
        "peak extra fds", "client CPU s", "peers stored",
    ]  # fmt: skip
    rows = []
    goals = []
    for name, r in results.items():
        rows.append(
            [
                name,
                str(r["calls"]),
                str(LOAD_IN_FLIGHT),
                f"{r['per_s']:,.0f}",
                f"{r['p50_ms']:.1f}",
                f"{r['p99_ms']:.1f}",
                str(r["peak_fds"]),
                f"{r['cpu_s']:.2f}",
                str(r["stored"]),
            ]
        )
        expected = r["calls"] + (1 if name == "sdk-async" else 0)  # the SDK's own "alice"
        goals.append(
            f"load {name}: {r['calls']} calls, {r['distinct']} distinct answers, "
            f"{r['stored']} peers stored (nothing lost or doubled): "
            f"{verdict(r['distinct'] == r['calls'] and r['stored'] == expected)}"
        )
    return table(header, rows), goals
