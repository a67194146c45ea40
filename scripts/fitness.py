"""The acceptance run's overall verdict: is the server fit for memoryd? One line, from answers.

    python scripts/fitness.py [--live-passed STAGE]... [--live-failed STAGE]...
                              [--deliveries-unchecked WHY] RUN_FOLDER...

scripts/test-real.sh ends with this line. Its stage verdicts say what ran; "notebooks: PASS"
means that the notebooks ran, not that their answers suit memoryd. This reads the answers
the run's notebooks wrote (their CSV tables, in the run folders given) and says "fit" only
when each of these holds, else "NOT fit" and every reason:

- Q7: ``GET /health`` answered 200 and ``probe()`` said ok;
- Q3: every release the deriver made came as the deriver settings the run told the notebooks
  say it must (no ``INCONSISTENT`` check), and every derivation switch (``observe_me``,
  ``reasoning.enabled``) did what the source says, which memoryd relies on to keep a
  conversation out of memory;
- the delivery checks (Q9): every webhook trial got its ``queue.empty``, every conclusion was
  readable when it came, and no signature was bad. Deliveries reach only the machine the
  server runs on: where the run cannot receive them (no webhook secret given, e.g. through a
  tunnel) ``--deliveries-unchecked WHY`` says so in the line instead of judging them;
- the live suite, which holds roncho's calls against this server, passed (the run names each
  live-suite stage with ``--live-passed`` or ``--live-failed``; with neither it is not
  claimed).

A question with no answer in any folder (its notebook failed or did not run) is a reason too:
what was not shown is not claimed. Exit 0 when fit, 1 when not, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# The check value roncho.workbook._deriver writes for a release no told setting explains.
INCONSISTENT = "INCONSISTENT"


@dataclass
class Verdict:
    """What the answers showed: ``reasons`` against fitness, ``shown`` for it."""

    reasons: list[str] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)

    @property
    def fit(self) -> bool:
        return not self.reasons

    def line(self) -> str:
        if self.fit:
            return "test-real: the server is fit for memoryd: " + "; ".join(self.shown)
        return "test-real: the server is NOT fit for memoryd: " + "; ".join(self.reasons)


def _rows(folders: Iterable[Path], table: str) -> list[dict[str, str]]:
    """Every row of the table ``<table>.csv`` over the folders (none where it is absent)."""
    rows: list[dict[str, str]] = []
    for folder in folders:
        path = folder / f"{table}.csv"
        if path.is_file():
            with path.open(newline="", encoding="utf-8") as handle:
                rows.extend(csv.DictReader(handle))
    return rows


def _health(folders: Sequence[Path], verdict: Verdict) -> None:
    rows = _rows(folders, "q7_health__answers")
    if not rows:
        verdict.reasons.append("Q7 (health) gave no answer: its notebook failed or did not run")
        return
    bad = [r for r in rows if r.get("health status") != "200" or r.get("probe()") != "ok"]
    if bad:
        r = bad[0]
        verdict.reasons.append(
            f"Q7: GET /health answered {r.get('health status')} {r.get('health body')}, "
            f"probe() {r.get('probe()')}"
        )
    else:
        version = rows[0].get("server_version()") or "no version reported"
        verdict.shown.append(f"Q7 /health 200 ok ({version})")


def _deriver(folders: Sequence[Path], verdict: Verdict) -> None:
    releases = _rows(folders, "q3_deriver_latency__latency")
    switches = _rows(folders, "q3_derivation_switches__switches")
    if not releases:
        verdict.reasons.append(
            "Q3 (deriver latency) gave no answer: its notebook failed or did not run"
        )
    else:
        off = [r for r in releases if r.get("check") == INCONSISTENT]
        if off:
            gates = sorted({f"{r.get('size')} the token gate: {r.get('gate')}" for r in off})
            verdict.reasons.append(
                f"Q3: {len(off)} of {len(releases)} releases disagree with the deriver settings "
                f"told ({', '.join(gates)}; expected {off[0].get('expected gate')})"
            )
        else:
            verdict.shown.append(f"Q3 {len(releases)} releases as the deriver settings told")
    if not switches:
        verdict.reasons.append(
            "Q3 (derivation switches) gave no answer: its notebook failed or did not run"
        )
        return
    wrong = [r for r in switches if r.get("agrees") != "True"]
    if wrong:
        cases = sorted({f"{r.get('case')}: {r.get('verdict')}" for r in wrong})
        verdict.reasons.append(
            f"Q3: {len(wrong)} derivation switch case(s) not as the source says "
            f"({'; '.join(cases)})"
        )
    else:
        verdict.shown.append(f"{len(switches)} derivation switch cases as the source says")


def _deliveries(folders: Sequence[Path], verdict: Verdict, unchecked: str) -> None:
    if unchecked:
        verdict.shown.append(f"deliveries not judged ({unchecked})")
        return
    trials = _rows(folders, "q9_webhooks__trials")
    if not trials:
        verdict.reasons.append(
            "Q9 (webhook deliveries) gave no answer: its notebook failed or did not run"
        )
        return
    missed = sum(1 for t in trials if t.get("event") != "True")
    early = sum(
        1 for t in trials if t.get("event") == "True" and t.get("complete_at_event") != "True"
    )
    forged = sum(1 for t in trials if t.get("verified") == "False")
    problems = [
        f"{n} of {len(trials)} {what}"
        for n, what in (
            (missed, "webhook trials got no queue.empty"),
            (early, "queue.empty came before every conclusion was readable"),
            (forged, "deliveries had a bad signature"),
        )
        if n
    ]
    if problems:
        verdict.reasons.append("Q9: " + ", ".join(problems))
    else:
        verdict.shown.append(f"deliveries {len(trials)}/{len(trials)} complete at the event")


def judge(
    folders: Sequence[Path],
    live_passed: Sequence[str] = (),
    live_failed: Sequence[str] = (),
    deliveries_unchecked: str = "",
) -> Verdict:
    """The verdict over the run folders a run wrote, and its live-suite stages' outcomes."""
    verdict = Verdict()
    _health(folders, verdict)
    _deriver(folders, verdict)
    _deliveries(folders, verdict, deliveries_unchecked)
    verdict.reasons.extend(f"{stage} failed (see its verdict above)" for stage in live_failed)
    if live_passed and not live_failed:
        verdict.shown.append(f"{' and '.join(live_passed)} passed")
    return verdict


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--live-passed", action="append", default=[], metavar="STAGE")
    parser.add_argument("--live-failed", action="append", default=[], metavar="STAGE")
    parser.add_argument("--deliveries-unchecked", default="", metavar="WHY")
    parser.add_argument("folders", nargs="*", type=Path, metavar="RUN_FOLDER")
    args = parser.parse_args(argv)
    verdict = judge(args.folders, args.live_passed, args.live_failed, args.deliveries_unchecked)
    print(verdict.line())
    return 0 if verdict.fit else 1


if __name__ == "__main__":
    sys.exit(main())
