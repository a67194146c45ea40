"""docs/answers.md: per question, what memoryd should do, from what the workbook measured.

    python scripts/render_answers.py            # write docs/answers.md from results/
    python scripts/render_answers.py --check    # exit 1 if the page is stale (scripts/test.sh)

One row per question (Q1 to Q10): the decision for memoryd in one imperative sentence, drawn
from the answers; the latest answer per server version seen (runs on real servers only: the
emulator is not evidence about Honcho), and for the owner's version, until a run of it is in
results/, the command that measures it; whether the answer varies between trials on one
server, with the rate; and links to the evidence (each answer's page and tables). The
answers and trial rates are read as ACROSS.md reads them (roncho_workbook/_across.py). Plain
standard library: it reads results/ and writes one page.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from roncho_workbook._across import Answer, Rate, compare, load_answers

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
PAGE = ROOT / "docs" / "answers.md"
# The version memoryd's owner runs (as scripts/render_compat.py names it).
OWNER_VERSION = "3.2.0"
# How the owner reaches the server (docs/handover.md: a local tunnel), and how Honcho's
# deriver is set by default: the commands below say both, as the handover's do.
OWNER_URL = "http://127.0.0.1:18000"
DERIVER_FLAGS = "--deriver-flush off --age-gate 1800"
ACCEPTANCE = (
    f"RONCHO_LIVE_URL={OWNER_URL} [RONCHO_LIVE_KEY=<admin key>] bash scripts/test-real.sh "
    f"--record docs/observations --results results --expect-auth on|off {DERIVER_FLAGS}"
)


def one_question(notebooks: Sequence[str]) -> str:
    """The command that measures these notebooks on the owner's server, into results/."""
    return (
        f"bash scripts/investigate.sh --base-url {OWNER_URL} {DERIVER_FLAGS} "
        f"--only {' '.join(notebooks)}"
    )


@dataclass(frozen=True)
class Measured:
    """One answer of a real server, with what the run was: its version and conditions."""

    answer: Answer
    root: Path  # the results root the run is under
    release: str  # "3.0.12" (a build suffix counts as its release)
    conditions: str  # "auth off, deriver flush on"
    started: str  # when the run started, for "latest"

    @property
    def folder(self) -> Path:
        return self.root / self.answer.run

    def rows(self, table: str) -> list[dict[str, str]]:
        path = self.folder / f"{self.answer.notebook}__{table}.csv"
        if not path.is_file():
            return []
        with path.open(newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))


def _release(version: str) -> str:
    match = re.match(r"\d+\.\d+\.\d+", version)
    return match.group(0) if match else version


def _conditions(folder: Path) -> str:
    """Authentication and deriver settings of a run: from its manifest, else its folder name."""
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    name = folder.name
    auth = manifest.get("server", {}).get("auth")
    if auth is None:
        auth = "auth-on" in name or "-auth-" in name
    deriver = manifest.get("deriver", {})
    flush = deriver.get("flush")
    age = deriver.get("age_gate_seconds")
    if flush is None:
        match = re.search(r"flush-(on|off)(?:-age(\d+(?:\.\d+)?)s)?", name)
        flush = match is None or match.group(1) == "on"
        age = float(match.group(2)) if match and match.group(2) else age
    if flush:
        deriver_words = "deriver flush on"
    else:
        deriver_words = "deriver batching" + (f" (age gate {age:g} s)" if age else "")
    return f"auth {'on' if auth else 'off'}, {deriver_words}"


def _started(root: Path, answer: Answer) -> str:
    path = root / answer.run / f"{answer.notebook}__run.csv"
    if path.is_file():
        with path.open(newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                return str(row.get("started_at") or "")
    return answer.run


def measured(root: Path = RESULTS) -> list[Measured]:
    """Every answer of a real server under ``root``, oldest first."""
    found = []
    for answer in load_answers(root):
        if answer.version.endswith("-emulator") or answer.run.endswith("/emulator"):
            continue
        found.append(
            Measured(
                answer=answer,
                root=root,
                release=_release(answer.version),
                conditions=_conditions(root / answer.run),
                started=_started(root, answer),
            )
        )
    return sorted(found, key=lambda m: (m.started, m.answer.run))


# -- the decisions: one imperative sentence each, from the latest answers -----------------------


def _numbers(pattern: str, items: Sequence[Measured]) -> list[float]:
    return [float(x) for m in items for x in re.findall(pattern, m.answer.text)]


def decide_q1(items: Sequence[Measured]) -> str:
    on = [m for m in items if m.answer.text.startswith("Authentication is ON")]
    never_403 = bool(on) and all("never 403" in m.answer.text for m in on)
    refusal = "a refusal is 401, never 403" if never_403 else "a refusal is 401 or 403"
    return (
        "Give memoryd a key only where auth is on, and then a workspace-scoped one (the key "
        f"reaches its workspace only; {refusal}), and read through `read_only=True`: the "
        "server has no read-only key."
    )


def decide_q2(items: Sequence[Measured]) -> str:
    purged = _numbers(r"purged within ([\d.]+)s", items)
    within = f" (within {max(purged):g} s here)" if purged else ""
    return (
        "Never delete or rewrite one message (DELETE answers 405, a PUT keeps the content): "
        "forget a conversation by deleting its session, which the purge then removes with "
        f"the conclusions made in it{within}, and keep what must outlive it in a conclusion "
        "made outside any session."
    )


def decide_q3(items: Sequence[Measured]) -> str:
    flush_on = [m for m in items if "flush on" in m.conditions]
    above = _numbers(r"above the token gate: \d+/\d+ derived \(median ([\d.]+)s", flush_on)
    median = f" (median {max(above):g} s above the token gate with flush on)" if above else ""
    return (
        "Keep a turn out of memory with `observe_me: false` on its peer or "
        "`reasoning.enabled: false`, and wait for conclusions with `wait_for_derivation` told "
        f"the deriver's gates: a message is derived once a gate releases it{median}, and one "
        "below the token gate waits for the age gate unless flush is on."
    )


def decide_q4(items: Sequence[Measured]) -> str:
    return (
        "Filter messages and searches by metadata, and narrow a dialectic question by "
        "`session_id` only: chat accepts no other filter (422)."
    )


def decide_q5(items: Sequence[Measured]) -> str:
    return (
        "Keep memoryd's own link from each conclusion to the messages it came from: the "
        "server gives none (no message ids in `source_ids`, no chat evidence naming them)."
    )


def decide_q6(items: Sequence[Measured]) -> str:
    gone = _numbers(r"gone within ([\d.]+)s", items)
    within = f" (gone within {max(gone):g} s of its delete here)" if gone else ""
    return (
        "Delete each session before its workspace and read `WorkspaceBusyError` (409) as "
        f"'sessions remain': a session delete frees the workspace at once{within}."
    )


def decide_q7(items: Sequence[Measured]) -> str:
    return (
        "Check liveness with `probe()` (`GET /health`) and read the version with "
        "`server_version()` (`/openapi.json`): `/health` carries no version."
    )


def decide_q8(items: Sequence[Measured]) -> str:
    return (
        "Hold roncho to the owner's server before moving memoryd onto it: run the acceptance "
        "command there, then `scripts/emulator_drift.py 3.2.0`, and until then trust only what "
        "the runs below show."
    )


def decide_q9(items: Sequence[Measured]) -> str:
    return (
        "Use `queue.empty` as a wake-up only and keep `queue_status` as the check (poll once "
        "on the event and at a bound): a missed delivery is never sent again."
    )


def decide_q10(items: Sequence[Measured]) -> str:
    starved = []
    for m in items:
        rows = m.rows("budgets")
        starved += [
            r["tokens_asked"]
            for r in rows
            if r.get("mode", "").startswith("peer_target") and r.get("messages") == "0"
        ]
    split = (
        f", since with `peer_target` the representation took the whole budget up to "
        f"tokens={max(starved, key=int)}"
        if starved
        else ""
    )
    return (
        "Ask `get_session_context` with an explicit `tokens=N` and without `peer_target`, "
        f"fetch the representation by its own call{split}, and treat the long summary as "
        "optional."
    )


@dataclass(frozen=True)
class Question:
    id: str
    title: str
    notebooks: tuple[str, ...]
    decide: Callable[[Sequence[Measured]], str]


QUESTIONS = (
    Question("Q1", "Authentication and keys", ("q1_auth",), decide_q1),
    Question("Q2", "Editing and deleting", ("q2_deletion",), decide_q2),
    Question(
        "Q3",
        "The deriver: latency and switches",
        ("q3_deriver_latency", "q3_derivation_switches"),
        decide_q3,
    ),
    Question("Q4", "Filters", ("q4_filters",), decide_q4),
    Question("Q5", "Provenance", ("q5_provenance",), decide_q5),
    Question("Q6", "Workspace delete", ("q6_workspace_delete",), decide_q6),
    Question("Q7", "Health and version", ("q7_health",), decide_q7),
    Question("Q8", "Differences across versions", ("q8_differences",), decide_q8),
    Question("Q9", "Webhooks instead of polling", ("q9_webhooks",), decide_q9),
    Question("Q10", "Session context for recall", ("q10_context",), decide_q10),
)


# -- the row's other cells ---------------------------------------------------------------------


def latest(items: Sequence[Measured]) -> list[Measured]:
    """The latest answer for each version, notebook and conditions (items are oldest first)."""
    kept: dict[tuple[str, str, str], Measured] = {}
    for m in items:
        kept[m.release, m.answer.notebook, m.conditions] = m
    return list(kept.values())


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def value(question: Question, items: Sequence[Measured]) -> str:
    """The latest answers on one version: one per conditions that answered differently."""
    parts = []
    for notebook in question.notebooks:
        answers: dict[str, list[str]] = {}
        for m in latest([m for m in items if m.answer.notebook == notebook]):
            answers.setdefault(m.answer.text, []).append(f"{m.conditions}, {m.answer.run[:10]}")
        for text, where in answers.items():
            parts.append(f"*{'; '.join(where)}:* {text}")
    return "<br>".join(parts)


def variance(items: Sequence[Measured]) -> str:
    """Whether the answer varies between trials on one server: the rates, or the runs."""
    rates: dict[str, Rate] = {}
    for m in latest(items):
        for rate in m.answer.rates:
            rates[f"{rate.measure.what} on {m.release} ({m.conditions})"] = rate
    said = [
        f"{'varies' if rate.varies else 'steady'}: {rate.k}/{rate.n} {where}"
        for where, rate in rates.items()
    ]
    # Without trials in one run, the runs of one version under the same conditions say it.
    by_setting: dict[tuple[str, str, str], list[Measured]] = {}
    for m in items:
        by_setting.setdefault((m.release, m.answer.notebook, m.conditions), []).append(m)
    repeated = [runs for runs in by_setting.values() if len(runs) > 1]
    if not said and repeated:
        kinds = {compare(a.answer, b.answer).kind for runs in repeated
                 for a, b in itertools.pairwise(runs)}  # fmt: skip
        count = max(len(runs) for runs in repeated)
        on = ", ".join(sorted({runs[0].release for runs in repeated}))
        if kinds <= {"same"}:
            said.append(
                f"steady: the same answer in {count} runs on {on} under the same conditions"
            )
        else:
            said.append(
                f"differs between {count} runs on {on} under the same conditions "
                f"({', '.join(sorted(kinds - {'same'}))}: see ACROSS.md)"
            )
    return "; ".join(said) or "not repeated: one run per conditions"


def evidence(items: Sequence[Measured], link_root: str) -> str:
    """Each latest answer's page and tables, linked from docs/ (``link_root``: ../results)."""
    links = []
    for m in latest(items):
        run = m.answer.run
        page = f"[{run}]({link_root}/{run}/{m.answer.notebook}.md)"
        tables = sorted(m.folder.glob(f"{m.answer.notebook}__*.csv"))
        named = [
            f"[{t.stem.split('__', 1)[1]}]({link_root}/{run}/{t.name})"
            for t in tables
            if not t.stem.endswith(("__run", "__evidence"))
        ]
        links.append(page + (f" ({', '.join(named)})" if named else ""))
    return "<br>".join(links)


def render(root: Path = RESULTS, link_root: str = "../results") -> str:
    """The page, from the runs under ``root``."""
    found = measured(root)
    versions = sorted({m.release for m in found} | {OWNER_VERSION})
    lines = [
        "# What memoryd should do, question by question",
        "",
        "Generated by `scripts/render_answers.py` from the workbook's record, `results/` (runs",
        "on real servers only: the emulator is not evidence about Honcho); do not edit.",
        "`scripts/test.sh` fails when it is stale. One row per question: the decision for",
        "memoryd; the latest answer on each server version seen, per authentication and",
        "deriver setting (with the run's date); whether it varies between trials on one server,",
        "with the rate; and the evidence (each answer's page and its tables). How each answer",
        "changed from run to run: [results/ACROSS.md](../results/ACROSS.md).",
        "",
        "Where a version says *not yet measured*, the command in its cell measures that one",
        "question on the owner's server (through the tunnel of [handover.md](handover.md); add",
        "`--api-key-file <a file holding the admin key>` when auth is on) and writes it to",
        "`results/`; then run `python scripts/render_answers.py`. The whole acceptance run:",
        "",
        "```sh",
        ACCEPTANCE,
        "```",
        "",
        "| question | decision for memoryd | "
        + " | ".join(f"{v}{' (the owner)' if v == OWNER_VERSION else ''}" for v in versions)
        + " | varies between trials | evidence |",
        "|---|---|" + "---|" * len(versions) + "---|---|",
    ]
    for question in QUESTIONS:
        mine = [m for m in found if m.answer.notebook in question.notebooks]
        owners = [m for m in mine if m.release == OWNER_VERSION]
        cells = [f"**{question.id}** {question.title}", question.decide(latest(owners or mine))]
        for version in versions:
            on_version = [m for m in mine if m.release == version]
            cells.append(
                value(question, on_version)
                if on_version
                else f"not yet measured, run `{one_question(question.notebooks)}`"
            )
        links = evidence(mine, link_root) or "none"
        cells += [variance(mine) if mine else "not measured", links]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    args = parser.parse_args(argv)
    page = render()
    if args.check:
        if not PAGE.is_file() or PAGE.read_text(encoding="utf-8") != page:
            print("docs/answers.md is stale: run python scripts/render_answers.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
