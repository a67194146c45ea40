"""ACROSS.md: each question's answer lined up across every dated run and server.

Built only from what the runs under a results root wrote (each ``<notebook>.answer.json``,
and the trial tables beside it), so it is regenerated, never edited. A run is one folder
``<date>/<server>``. Each answer is set against the run before it (the column to its left)
and called one of:

- ``same``: the same words, every count equal, every timing within the tolerance;
- ``moved``: the same words and counts, a timing outside the tolerance (both are shown);
- ``varies (k/n)``: what differs is only what the run measured as varying between trials on
  one server (e.g. the long summary of Q10, which a race in 3.0.12 keeps in k of n sessions),
  not a change of behaviour;
- ``changed``: anything else (a word, a status, a count): a change of behaviour.

Scratch ids and version numbers are not compared: they differ on every run and every server.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ._questions import notebook_key, question

ANSWER_SUFFIX = ".answer.json"
# Two timings agree when they differ by at most the larger of these: one second (a shared
# machine's scheduling, a deriver's 1 s poll) or half the larger timing.
TOLERANCE_SECONDS = 1.0
TOLERANCE_RATIO = 0.5
TOLERANCE_WORDS = (
    f"two timings agree when they differ by at most {TOLERANCE_SECONDS:g} s or "
    f"{TOLERANCE_RATIO:.0%} of the larger, whichever is more"
)
# A scratch workspace id, whatever its prefix (roncho.scratch_id makes
# <prefix>-<YYYYMMDD>-<HHMMSS>-<8 hex>, and probes may add a suffix such as "-off"), and any
# id under the workbook's own "roncho-" prefixes.
_SCRATCH = re.compile(
    r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]*?\d{8}-\d{6}-[0-9a-f]{8}[A-Za-z0-9_-]*|roncho-[A-Za-z0-9_-]+"
)
# A version number ("3.0.12"): not compared.
_VERSION = re.compile(r"\b\d+\.\d+\.\d+(?:-[A-Za-z0-9.]+)?\b")
# A timing or other measured figure ("1.05s", "20s", "0.25"): compared within the tolerance.
# Counts and statuses ("6/6", "409", "2866 chars") are words: a change in them is a change.
_TIMING = re.compile(r"\b\d+\.\d+s?\b|\b\d+s\b")
# Quotes and list brackets around the server's words and statuses ('x', "x", [401]).
_QUOTING = re.compile(r"['\"\[\]]")
# Where an answer's clauses end: "; " and ". " between sentences (not inside "1.5s").
_CLAUSE = re.compile(r"(?<=[;.])\s+(?=\S)")
# Answers recorded before 2026-12-01's rewording said these; read in today's words, a
# rewording is not shown as a change of behaviour.
_OLD_WORDS = (
    ("Deriver as configured:", "Deriver as told:"),
    ("with the configuration given", "with these settings"),
)


@dataclass(frozen=True, slots=True)
class TrialMeasure:
    """A result a notebook repeats over trials on one server, read from its trial table.

    ``clause`` matches the parts of the answer this result decides: where two runs differ
    only there and the result varied between trials, the difference is variance.
    """

    notebook: str
    table: str  # <notebook>__<name>.csv in the run's folder
    column: str
    counted: str  # the value that counts as the result happening
    what: str  # "sessions kept the long summary", after "k/n "
    clause: str


TRIAL_MEASURES = (
    TrialMeasure(
        "q10_context",
        "q10_context__long_summary_trials",
        "long_after_last",
        "True",
        "sessions kept the long summary",
        r"long summary",
    ),
    TrialMeasure(
        "q9_webhooks",
        "q9_webhooks__trials",
        "event",
        "True",
        "trials got queue.empty",
        r"queue\.empty arrived|readable at the event|one event per",
    ),
    TrialMeasure(
        "q3_deriver_latency",
        "q3_deriver_latency__latency",
        "timed_out",
        "False",
        "trials derived",
        r"derived",
    ),
)


@dataclass(frozen=True, slots=True)
class Rate:
    """How often a trial measure's result happened in one run: ``k`` of ``n``."""

    measure: TrialMeasure
    k: int
    n: int

    @property
    def varies(self) -> bool:
        return 0 < self.k < self.n

    def __str__(self) -> str:
        return f"{self.k}/{self.n} {self.measure.what}"


@dataclass(frozen=True, slots=True)
class Answer:
    run: str  # "<date>/<server>"
    notebook: str
    question: str
    version: str
    text: str
    rates: tuple[Rate, ...] = field(default=())


def shape(text: str) -> str:
    """The answer's words: scratch ids, version numbers and timings masked."""
    for old, new in _OLD_WORDS:
        text = text.replace(old, new)
    masked = _VERSION.sub("<version>", _SCRATCH.sub("<scratch>", text))
    return _QUOTING.sub("", _TIMING.sub("#", masked))


def timings(text: str) -> list[str]:
    """The answer's timings in order, as written (what `shape` masks as ``#``)."""
    return _TIMING.findall(_VERSION.sub("", _SCRATCH.sub("", text)))


def _seconds(timing: str) -> float:
    return float(timing.rstrip("s"))


def agree(a: str, b: str) -> bool:
    """Whether two timings agree within the tolerance (`TOLERANCE_WORDS`)."""
    x, y = _seconds(a), _seconds(b)
    return abs(x - y) <= max(TOLERANCE_SECONDS, TOLERANCE_RATIO * max(x, y))


@dataclass(frozen=True, slots=True)
class Comparison:
    """An answer against the run before: ``kind`` (same, moved, varies, changed) and detail."""

    kind: str
    detail: str
    rate: Rate | None = None

    def cell(self) -> str:
        return f"varies ({self.rate.k}/{self.rate.n})" if self.rate else self.kind


def compare(before: Answer, after: Answer) -> Comparison:
    """What ``after`` says against ``before``: same, moved, varies or changed (module doc)."""
    if shape(before.text) == shape(after.text):
        pairs = list(zip(timings(before.text), timings(after.text), strict=True))
        moved = [f"{a} → {b}" for a, b in pairs if not agree(a, b)]
        if moved:
            return Comparison("moved", "timings outside the tolerance: " + ", ".join(moved))
        shifted = [f"{a} → {b}" for a, b in pairs if a != b]
        within = f"timings within the tolerance: {', '.join(shifted)}" if shifted else ""
        return Comparison("same", within or "the same answer")
    gone = Counter(_clauses(before.text)) - Counter(_clauses(after.text))
    new = Counter(_clauses(after.text)) - Counter(_clauses(before.text))
    differing = [*gone, *new]
    varying = [r for r in (*after.rates, *before.rates) if r.varies]
    for rate in varying:
        if all(re.search(rate.measure.clause, c) for c in differing):
            return Comparison("varies", f"{rate}: varies between trials on one server", rate)
    was = [c for c in _CLAUSE.split(before.text) if shape(c) in gone]
    return Comparison("changed", "was: " + " ".join(was) if was else "more is said")


def _clauses(text: str) -> list[str]:
    return [shape(c) for c in _CLAUSE.split(text)]


def _rates(folder: Path, notebook: str) -> tuple[Rate, ...]:
    rates = []
    for measure in TRIAL_MEASURES:
        path = folder / f"{measure.table}.csv"
        if measure.notebook != notebook or not path.is_file():
            continue
        with path.open(newline="", encoding="utf-8") as handle:
            values = [row.get(measure.column) for row in csv.DictReader(handle)]
        if values:
            rates.append(Rate(measure, sum(v == measure.counted for v in values), len(values)))
    return tuple(rates)


def load_answers(root: Path) -> list[Answer]:
    """Every ``*/*/*.answer.json`` under ``root``, oldest run first, with its trial rates."""
    answers = []
    for path in sorted(root.glob(f"*/*/*{ANSWER_SUFFIX}")):
        data = json.loads(path.read_text(encoding="utf-8"))
        notebook = str(data["notebook"])
        answers.append(
            Answer(
                run=path.parent.relative_to(root).as_posix(),
                notebook=notebook,
                question=str(data.get("question") or notebook),
                version=str(data.get("version") or "not revealed"),
                text=str(data["answer"]),
                rates=_rates(path.parent, notebook),
            )
        )
    return answers


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def against_before(answers: list[Answer]) -> dict[tuple[str, str], Comparison]:
    """Each answer against the one before it (same notebook, the run to its left)."""
    compared: dict[tuple[str, str], Comparison] = {}
    last: dict[str, Answer] = {}
    for answer in sorted(answers, key=lambda a: a.run):
        before = last.get(answer.notebook)
        if before is None:
            varying = next((r for r in answer.rates if r.varies), None)
            detail = f"{varying}: varies between trials on one server" if varying else ""
            compared[answer.notebook, answer.run] = Comparison("first", detail, varying)
        else:
            comparison = compare(before, answer)
            varying = next((r for r in answer.rates if r.varies), None)
            if varying and comparison.kind in ("same", "moved"):
                # Its own trials disagreed: said as such, whatever the run before said.
                detail = f"{comparison.detail}; {varying}: varies between trials on one server"
                comparison = Comparison(comparison.kind, detail, varying)
            compared[answer.notebook, answer.run] = comparison
        last[answer.notebook] = answer
    return compared


def render_across(root: Path) -> str:
    """The whole page: an overview grid, then one table per question."""
    answers = load_answers(root)
    runs = sorted({a.run for a in answers})
    notebooks = sorted({a.notebook for a in answers}, key=notebook_key)
    by_key = {(a.notebook, a.run): a for a in answers}
    lines = [
        "# Answers across runs",
        "",
        "Generated by `scripts/investigate.py` from the `*.answer.json` files of every run in",
        "this folder and the trial tables beside them; do not edit. Each answer is set against",
        "the run to its left: `same` (the same words and counts, every timing within the",
        "tolerance), `moved` (a timing outside it), `varies (k/n)` (what differs is a result",
        "the run measured as varying between trials on one server, k of n trials: not a",
        "change) or `changed` (a word, status or count differs: a change of behaviour, between",
        "server versions, deriver settings, or the emulator and a real server). `first`: the",
        "first run with an answer; `-`: no answer from that run. Scratch ids and version",
        "numbers are not compared.",
        "",
        f"Tolerance: {TOLERANCE_WORDS}.",
        "",
        "The tables below give every answer with its numbers and what it was set against",
        "(the timings that differ, both shown). The `across` notebook, run after each run",
        "([across.ipynb](across.ipynb)), reads the same record as data and draws what changed:",
        "Q3's latency per gate ([across__q3_latency.png](across__q3_latency.png)) and Q1's",
        "status per key ([across__q1_statuses.png](across__q1_statuses.png)).",
        "",
    ]
    if not answers:
        return "\n".join([*lines, "No runs yet.", ""])
    compared = against_before(answers)
    versions = {a.run: a.version for a in answers}
    head = "| question | " + " | ".join(f"{r} ({versions[r]})" for r in runs) + " |"
    lines += [head, "|---|" + "---|" * len(runs)]
    for notebook in notebooks:
        cells = [
            compared[notebook, run].cell() if (notebook, run) in compared else "-" for run in runs
        ]
        lines.append(f"| [{notebook}](#{notebook}) | " + " | ".join(cells) + " |")
    for notebook in notebooks:
        title = next(a.question for a in answers if a.notebook == notebook)
        lines += [
            "",
            f"## {notebook}",
            "",
            f"{title}: {question(notebook)}",
            "",
            "| run | version | against the run before | answer |",
            "|---|---|---|---|",
        ]
        for run in runs:
            answer = by_key.get((notebook, run))
            if answer is None:
                continue
            comparison = compared[notebook, run]
            said = comparison.cell() + (f": {comparison.detail}" if comparison.detail else "")
            link = f"[{run}]({run}/{notebook}.md)"
            lines.append(f"| {link} | {answer.version} | {_cell(said)} | {_cell(answer.text)} |")
    return "\n".join(lines) + "\n"


def write_across(root: Path) -> Path:
    """Write ``root/ACROSS.md`` from the runs under ``root``; the same runs give the same page."""
    page = root / "ACROSS.md"
    page.write_text(render_across(root), encoding="utf-8")
    return page
