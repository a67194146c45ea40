"""Hold wait_for_derivation against a real server: runs in a row, one line of figures each.

Usage::

    python benchmarks/derivation_runs.py URL --lag 20            # the enqueue lag
    python benchmarks/derivation_runs.py URL --runs 30 --flush    # flush on
    python benchmarks/derivation_runs.py URL --runs 10 --max-age 30 --deadline 90

Each run syncs one message of an observed peer into its own session of a scratch workspace
(deleted afterwards), then waits. It checks that "done" never comes early: the session's
conclusion must be listed when the wait says done. ``--lag`` measures how long after
add_messages returned the queue first shows the sync's item (reads back to back). One-off
measurements for a note, not a test: the figures depend on the machine and the server.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's roncho

import roncho
from roncho import DeriverGates, MessageCreate, SessionPeerConfig

PEER = "owner"


def _session(client: roncho.Client, name: str) -> str:
    client.get_or_create_session(name, peers={PEER: SessionPeerConfig(observe_me=True)})
    return name


def measure_lag(client: roncho.Client, runs: int, limit: float) -> list[float | None]:
    lags: list[float | None] = []
    for i in range(runs):
        session = _session(client, f"lag-{i}")
        client.add_messages(session, [MessageCreate(PEER, f"I walked {i} km today.")])
        start = time.monotonic()
        lag: float | None = None
        while time.monotonic() - start < limit:
            asked = time.monotonic()
            if client.queue_status(session_id=session).total_work_units > 0:
                lag = asked - start  # the read that showed it started this late
                break
        lags.append(lag)
        print(json.dumps({"run": i + 1, "lag_s": lag}), flush=True)
        client.wait_for_derivation(session, since=_zero(), deadline=30)
    return lags


def _zero() -> roncho.QueueStatus:
    return roncho.QueueStatus(
        total_work_units=0, completed_work_units=0, in_progress_work_units=0, pending_work_units=0
    )


def run_waits(
    client: roncho.Client, runs: int, gates: DeriverGates, deadline: float
) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for i in range(runs):
        session = _session(client, f"wait-{i}")
        since = client.queue_status(session_id=session)
        client.add_messages(session, [MessageCreate(PEER, f"I swam {i} lengths this morning.")])
        synced = time.monotonic()
        outcome = client.wait_for_derivation(session, since=since, gates=gates, deadline=deadline)
        returned = time.monotonic() - synced
        conclusions = client.list_conclusions({"session_id": session}).total
        early = outcome.done and conclusions == 0
        row: dict[str, object] = {
            "run": i + 1,
            "outcome": outcome.state,
            "first_seen_s": None if outcome.first_seen is None else round(outcome.first_seen, 3),
            "sync_to_outcome_s": round(returned, 3),
            "new": outcome.new_work_units,
            "pending": outcome.pending,
            "in_progress": outcome.in_progress,
            "completed": outcome.completed,
            "workspace_in_progress": outcome.workspace_in_progress,
            "reads": outcome.reads,
            "conclusions": conclusions,
            "early_done": early,
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url")
    parser.add_argument("--lag", type=int, default=0, help="measure the enqueue lag N times")
    parser.add_argument("--runs", type=int, default=0, help="N waits in a row")
    parser.add_argument("--flush", action="store_true", help="the server's deriver flushes")
    parser.add_argument("--max-age", type=float, default=None, help="the server's age gate, s")
    parser.add_argument("--deadline", type=float, default=60.0)
    options = parser.parse_args(argv)
    gates = (
        DeriverGates(flush=True)
        if options.flush
        else DeriverGates(batch_max_age=options.max_age or 1800.0)
    )
    with roncho.scratch_workspace(options.url, "derivation-runs", read_timeout=30) as client:
        client.get_or_create_peer(PEER)
        if options.lag:
            lags = [x for x in measure_lag(client, options.lag, 10.0) if x is not None]
            if lags:
                print(
                    f"enqueue lag over {len(lags)} syncs: min {min(lags):.3f} s, "
                    f"median {statistics.median(lags):.3f} s, max {max(lags):.3f} s"
                )
        if options.runs:
            rows = run_waits(client, options.runs, gates, options.deadline)
            states = [str(r["outcome"]) for r in rows]
            done = [float(str(r["sync_to_outcome_s"])) for r in rows if r["outcome"] == "done"]
            early = sum(1 for r in rows if r["early_done"])
            summary = {s: states.count(s) for s in sorted(set(states))}
            print(f"outcomes {summary}; early done: {early}")
            if done:
                print(
                    f"sync to done: min {min(done):.2f} s, median {statistics.median(done):.2f} s,"
                    f" max {max(done):.2f} s"
                )
            return 1 if early else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
