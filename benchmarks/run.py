"""One command for every roncho benchmark: python benchmarks/run.py [--smoke].

    1 import cost      roncho vs a bare interpreter, its own stdlib modules, the SDK
    2 per call         roncho vs hand-written http.client one-shot vs the SDK, on loopback
    3 large answers    1 / 4 / 8 MiB pages vs http.client read + json.loads
    4 streaming        delay from the server writing an SSE event to roncho yielding it
    5 scale            per-call cost vs batch size and answer size
    6 asyncio client   AsyncClient vs an asyncio.open_connection floor vs the SDK's async
                       view; a load run of 1,000 calls at 50 in flight on the emulator

Contenders run side by side in one run, interleaved in rotating order, each in its own
process. The official SDK (honcho-ai) lives only in benchmarks/.venv-sdk/, created here
when missing; roncho runs from the repo via PYTHONPATH with the plain interpreter.
``--smoke`` does one short round of everything in a few seconds and never installs the
SDK (it uses the SDK venv only if it is already there). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import bench_async
import bench_calls
import bench_import
import bench_large
import bench_stream
from harness import HERE, REPO, interpreters, machine
from server import Server

RESULTS = HERE / "RESULTS.md"
# What --only can pick: benchmarks 2 and 5 come from the same runs, as do 6 and 6b.
PARTS = ("import", "calls", "large", "stream", "async")
RUNS_MARKER = "<!-- newest run first; run.py --write-results inserts below this line -->"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="one short round (CI)")
    parser.add_argument("--rounds", type=int, help="rounds per benchmark (default 7, smoke 1)")
    parser.add_argument("--no-sdk", action="store_true", help="leave the official SDK out")
    parser.add_argument(
        "--roncho",
        type=Path,
        default=REPO,
        metavar="DIR",
        help="benchmark the roncho package found in DIR instead of this repo's (to try a fix)",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="DIR",
        help="also run the roncho package in DIR, side by side, as contender roncho-alt",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=PARTS,
        metavar="PART",
        help=f"run only this part (repeatable; one of {', '.join(PARTS)}; 'calls' is 2 and 5)",
    )
    parser.add_argument(
        "--write-results",
        action="store_true",
        help=f"insert this run, dated, at the top of {RESULTS.relative_to(HERE.parent)}",
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    smoke: bool = args.smoke
    rounds: int = args.rounds or (1 if smoke else 7)
    started = time.perf_counter()
    for where in (args.roncho, args.compare):
        if where is not None and not (where / "roncho" / "__init__.py").is_file():
            print(f"{where} holds no roncho package", file=sys.stderr)
            return 2
    alt = None if args.compare is None else args.compare.resolve()
    interp = interpreters(not args.no_sdk, not smoke, args.roncho.resolve(), alt)
    if interp.sdk_python is None:
        print(f"SDK {interp.sdk_note}", flush=True)
    header = machine(interp)
    sections: list[tuple[str, str]] = []
    goals: list[str] = []
    parts = set(args.only or PARTS)

    def step(title: str) -> None:
        print(f"[{time.perf_counter() - started:6.1f} s] {title} ...", file=sys.stderr, flush=True)

    if "import" in parts:
        step("1 import cost")
        imports = bench_import.run(interp, rounds=rounds, repeats=2 if smoke else 5)
        text, g = bench_import.report(imports)
        sections.append(("1. Import cost", text))
        goals += g

    stream_count, stream_pause = (8, 20) if smoke else (20, 20)
    with Server() as server:
        if "calls" in parts:
            step("2 + 5 per-call cost and scale")
            calls = bench_calls.run(server, interp, rounds, smoke)
            text, g = bench_calls.report_calls(calls)
            sections.append(
                ("2. Per call on loopback (us per call, median [min-max] over rounds)", text)
            )
            goals += g
        if "large" in parts:
            step("3 large answers")
            large = bench_large.run(server, interp, rounds if not smoke else 1, smoke)
            text, g = bench_large.report(large, server)
            sections.append(("3. Large answers", text))
            goals += g
        if "stream" in parts:
            step("4 streaming")
            stream = bench_stream.run(server, interp, rounds, stream_count, stream_pause)
            text, g = bench_stream.report(stream, stream_count, stream_pause)
            sections.append(("4. Streaming (SSE) delay", text))
            goals += g
        if "calls" in parts:
            sections.append(
                ("5. Scale: batch size and answer size", bench_calls.report_scale(calls, server))
            )
        if "async" in parts:
            step("6 asyncio client")
            async_calls = bench_async.run(server, interp, rounds, smoke)
            text, g = bench_async.report(async_calls)
            sections.append(("6. asyncio client, per call (us per call, median [min-max])", text))
            goals += g
    if "async" in parts:
        step("6 asyncio client, load run on the emulator")
        text, g = bench_async.report_load(bench_async.run_load(interp, smoke))
        sections.append(("6b. asyncio load: 1,000 calls, 50 in flight, on the emulator", text))
        goals += g
    elapsed = time.perf_counter() - started
    mode = "smoke (1 short round)" if smoke else f"full, {rounds} rounds"
    if args.only:
        mode += "; only " + ", ".join(p for p in PARTS if p in parts)
    header.append(f"mode: {mode}; took {elapsed:.0f} s")
    body = render(header, sections, goals)
    print(body)
    if args.write_results:
        write_results(body)
        print(f"written to {RESULTS}", file=sys.stderr)
    return 0


def render(header: list[str], sections: list[tuple[str, str]], goals: list[str]) -> str:
    out = ["## Run of " + header[0].removeprefix("date: "), ""]
    out += [f"- {line}" for line in header[1:]]
    out += ["", "### Goals", ""]
    out += [f"- {g}" for g in goals]
    for title, text in sections:
        out += ["", f"### {title}", "", text]
    return "\n".join(out) + "\n"


def write_results(body: str) -> None:
    text = RESULTS.read_text() if RESULTS.exists() else ""
    if RUNS_MARKER not in text:
        text = "# roncho benchmark results\n\n" + RUNS_MARKER + "\n" + text
    before, after = text.split(RUNS_MARKER, 1)
    Path(RESULTS).write_text(before + RUNS_MARKER + "\n\n" + body + after)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
