"""Benchmark 3: large answers. A message page of 1, 4 and 8 MiB, read and decoded.

Per size, contender and round, one fresh worker process (so the RSS figure is not hidden
by memory an earlier call left in the allocator) does a tiny warm-up call, then:
    wall        median of ``repeat`` calls of list_messages on the big page
    RSS delta   VmHWM after the first big call minus VmRSS before it (VmHWM reset first)
    tracemalloc the peak of Python allocations during one more call, over what was
                allocated before it
The baseline ("stdlib") is http.client reading the body plus json.loads on it, and no
more; roncho additionally checks the answer and builds frozen Message objects. The
messages are 1 KiB each, so an 8 MiB page holds about 6,900 of them: more per-item
work than a page of fewer, larger messages. The client's max_response_bytes is raised
to 64 MiB (the default cap is exactly 8 MiB, which the 8 MiB page just exceeds).
"""

from __future__ import annotations

from harness import Interpreters, run_worker
from server import Server
from stats import Summary, ratio, table, verdict

SIZES_MIB = [1, 4, 8]
REPEAT = {1: 7, 4: 5, 8: 3}

Samples = dict[int, dict[str, dict[str, list[float]]]]  # MiB -> contender -> metric -> samples


def run(server: Server, interp: Interpreters, rounds: int, smoke: bool) -> Samples:
    server.warm(*(f"/v3/workspaces/bench/sessions/m{m}/messages/list" for m in SIZES_MIB))
    contenders = interp.contenders("roncho", "stdlib", "sdk")
    samples: Samples = {m: {c: {} for c in contenders} for m in SIZES_MIB}
    for r in range(rounds):
        order = contenders[r % len(contenders) :] + contenders[: r % len(contenders)]
        for mib in SIZES_MIB:
            for contender in order:
                spec = {
                    "kind": "run_large",
                    "url": server.url,
                    "session": f"m{mib}",
                    "repeat": 1 if smoke else REPEAT[mib],
                }
                result = run_worker(interp, contender, spec)
                for metric, value in result.items():
                    if value is not None:
                        samples[mib][contender].setdefault(metric, []).append(float(value))
    return samples


def report(samples: Samples, server: Server) -> tuple[str, list[str]]:
    header = ["body", "contender", "wall ms", "RSS delta MiB", "tracemalloc peak MiB"]
    header += ["peak / body", "time vs stdlib"]
    rows = []
    goals = []
    for mib, by_contender in samples.items():
        body = len(server.answer(f"/v3/workspaces/bench/sessions/m{mib}/messages/list"))
        base_wall = Summary.of(by_contender["stdlib"]["wall_ms"]).median
        for contender, metrics in by_contender.items():
            wall = Summary.of(metrics["wall_ms"])
            rss = Summary.of([v / 2**20 for v in metrics.get("rss_delta", [])])
            peak = Summary.of([v / 2**20 for v in metrics["tracemalloc_peak"]])
            rows.append(
                [
                    f"{body / 2**20:.2f} MiB ({int(metrics['items'][0])} msgs)",
                    contender,
                    wall.show(1),
                    rss.show(1),
                    peak.show(1),
                    f"{peak.median * 2**20 / body:.2f}x",
                    ratio(wall.median, base_wall),
                ]
            )
        for ron in (c for c in ("roncho", "roncho-alt") if c in by_contender):
            r = by_contender[ron]
            r_wall = Summary.of(r["wall_ms"]).median
            r_peak = Summary.of(r["tracemalloc_peak"]).median
            r_rss = Summary.of(r.get("rss_delta", [])).median
            worst = max(r_peak, r_rss if r_rss == r_rss else 0.0)
            goals.append(
                f"large {mib} MiB: {ron} peak extra memory {worst / body:.2f}x the body "
                f"(goal < 3x): {verdict(worst / body < 3)}"
            )
            goals.append(
                f"large {mib} MiB: {ron} time {r_wall / base_wall:.2f}x read + json.loads "
                f"(goal <= 1.3x): {verdict(r_wall / base_wall <= 1.3)}"
            )
    note = (
        "peak / body uses the tracemalloc peak; the memory goal is judged on the larger of "
        "the tracemalloc peak and the RSS delta."
    )
    return table(header, rows) + "\n\n" + note, goals
