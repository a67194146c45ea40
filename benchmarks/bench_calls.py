"""Benchmarks 2 and 5: per-call cost on loopback, and how it scales with batch and answer size.

Each round starts one worker process per contender (in a rotating order, so no contender
always goes first) and that worker runs every operation: ``warmup`` calls, then
``iterations`` calls each timed on its own, reporting the median wall time and median
client CPU time per call (means are kept too). A round's figure is one sample; the tables
show the median over rounds and the range.

Operations (the server's answers are the same bytes for every contender):
    peer           get-or-create peer                      answer ~0.2 KB
    add:100        add 100 messages of 1 KiB               request ~110 KB, answer ~130 KB
    search         workspace search, limit 10              answer ~13 KB
    list:p50c1024  list a page of 50 messages (1 KiB each) answer ~64 KB
Scale: add:1 / add:10 / add:100, and list pages of 1, 10, 100 messages of 1 KiB and of
100 messages of 10 KiB (about 1 MiB).
"""

from __future__ import annotations

from harness import Interpreters, Samples, rotating_rounds
from server import Server
from stats import Summary, ratio, table, verdict

CALL_OPS = ["peer", "add:100", "search", "list:p50c1024"]
SCALE_OPS = [
    "add:1",
    "add:10",
    "add:100",
    "list:p1c1024",
    "list:p10c1024",
    "list:p100c1024",
    "list:p100c10240",
]
# Timed calls per operation per round in full mode (smoke divides by SMOKE_DIVISOR).
ITERATIONS = {
    "peer": 300,
    "search": 200,
    "add:1": 300,
    "add:10": 200,
    "add:100": 60,
    "list:p1c1024": 300,
    "list:p10c1024": 200,
    "list:p50c1024": 100,
    "list:p100c1024": 80,
    "list:p100c10240": 20,
}
SMOKE_DIVISOR = 10
WARMUP = 5


def run(server: Server, interp: Interpreters, rounds: int, smoke: bool) -> Samples:
    ops = list(dict.fromkeys(CALL_OPS + SCALE_OPS))
    plan = [[op, max(3, ITERATIONS[op] // (SMOKE_DIVISOR if smoke else 1))] for op in ops]
    spec = {"kind": "run_calls", "url": server.url, "ops": plan, "warmup": WARMUP}
    return rotating_rounds(interp, interp.contenders("roncho", "stdlib", "sdk"), spec, rounds)


def _median(samples: Samples, contender: str, op: str, metric: str) -> float:
    return Summary.of(samples.get(contender, {}).get(op, {}).get(metric, [])).median


def _cell(samples: Samples, contender: str, op: str, metric: str) -> str:
    if contender not in samples:
        return "n/a"
    return Summary.of(samples[contender][op][metric]).show(0)


_LABEL = {"roncho": "roncho", "roncho-alt": "roncho-alt", "stdlib": "stdlib one-shot", "sdk": "SDK"}


def _rons(samples: Samples) -> list[str]:
    return [c for c in ("roncho", "roncho-alt") if c in samples]


def report_calls(samples: Samples) -> tuple[str, list[str]]:
    has_sdk = "sdk" in samples
    names = list(samples)
    header = ["operation", "metric (us/call)", *(_LABEL[c] for c in names)]
    for ron in _rons(samples):
        header += [f"{ron}/stdlib"] + ([f"{ron}/SDK"] if has_sdk else [])
    rows = []
    for op in CALL_OPS:
        for metric, label in (("cpu_us", "client CPU"), ("wall_us", "wall")):
            row = [op, label, *(_cell(samples, c, op, metric) for c in names)]
            for ron in _rons(samples):
                r = _median(samples, ron, op, metric)
                row.append(ratio(r, _median(samples, "stdlib", op, metric)))
                if has_sdk:
                    row.append(ratio(r, _median(samples, "sdk", op, metric)))
            rows.append(row)
    lines = [table(header, rows), ""]
    goals = []
    for ron in _rons(samples):
        for op in CALL_OPS:
            r_cpu = _median(samples, ron, op, "cpu_us")
            r_wall = _median(samples, ron, op, "wall_us")
            s_cpu = _median(samples, "stdlib", op, "cpu_us")
            s_wall = _median(samples, "stdlib", op, "wall_us")
            lines.append(
                f"{op}: {ron} / hand-written http.client one-shot = {r_wall / s_wall:.2f}x "
                f"wall, {r_cpu / s_cpu:.2f}x CPU"
            )
            goals.append(
                f"per call {op}: {ron}/stdlib wall {r_wall / s_wall:.2f}x, CPU "
                f"{r_cpu / s_cpu:.2f}x (goal <= 1.25x): "
                f"{verdict(max(r_wall / s_wall, r_cpu / s_cpu) <= 1.25)}"
            )
            if has_sdk:
                k_cpu = _median(samples, "sdk", op, "cpu_us")
                goals.append(
                    f"per call {op}: {ron} CPU {r_cpu:.0f} us vs SDK {k_cpu:.0f} us "
                    f"(goal: ahead of the SDK): {verdict(r_cpu < k_cpu)}"
                )
    if not has_sdk:
        goals.append("per call: ahead of the SDK on CPU: n/a (SDK not run)")
    return "\n".join(lines), goals


def report_scale(samples: Samples, server: Server) -> str:
    names = list(samples)
    header = ["operation", "request / answer"]
    header += [f"{_LABEL[c]} CPU" for c in names] + [f"{_LABEL[c]} wall" for c in names]
    header += [f"{ron}/stdlib CPU" for ron in _rons(samples)]
    rows = []
    for op in SCALE_OPS:
        kind, _, arg = op.partition(":")
        if kind == "add":
            size = f"{arg} x 1 KiB / {_answer_kib(server, f'/sessions/b{arg}/messages')}"
        else:
            size = f"- / {_answer_kib(server, f'/sessions/{arg}/messages/list')}"
        rows.append(
            [
                op,
                size,
                *(_cell(samples, c, op, "cpu_us") for c in names),
                *(_cell(samples, c, op, "wall_us") for c in names),
                *(
                    ratio(
                        _median(samples, ron, op, "cpu_us"),
                        _median(samples, "stdlib", op, "cpu_us"),
                    )
                    for ron in _rons(samples)
                ),
            ]
        )
    return table(header, rows) + "\n\n(us per call, median [min-max] over rounds)"


def _answer_kib(server: Server, suffix: str) -> str:
    size = len(server.answer("/v3/workspaces/bench" + suffix))
    return f"{size / 1024:,.1f} KiB"
