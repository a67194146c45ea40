"""The acceptance run's verdict: one line per question and stage, then whether the server is fit.

    python scripts/fitness.py [--expect-auth on|off|URL=on|off]... [--stage LINE]...
                              [--deliveries-unchecked WHY] RUN_FOLDER...

scripts/test-real.sh ends with these lines. Its stage verdicts say what ran; "notebooks: PASS"
means that the notebooks ran, not that their answers suit memoryd. This reads the answers the
run's notebooks wrote (their CSV tables and manifests, in the run folders given) and the
verdict lines of the stages that check roncho against the server (``--stage``, as
test-real.sh printed them), and prints one line per question and stage, each PASS, FAIL or
SKIP with its reason, then the overall line: "fit" when no line is FAIL, else "NOT fit" and
every FAIL's reason. What each line holds the server to (what memoryd relies on):

- Q1: authentication is on or off as the owner says it should be (``--expect-auth on|off``,
  or ``URL=on|off`` per server for a run over several); with it on, every scoped key reached
  what the source says. With no expectation given, SKIP: nothing to hold the server to.
- Q2: a session delete makes the session inactive at once; the purge then removes its
  messages and the conclusions made in it, and keeps conclusions made outside a session.
- Q3: every release the deriver made came as the deriver settings the run was told say it
  must (no ``INCONSISTENT``); every derivation switch did what the source says.
- Q4: every metadata filter case behaved as the source says.
- Q5: both kinds of conclusion were readable, and chat with ``include_evidence`` answered.
- Q6: a workspace delete answers 409 while a session is active, the session delete frees it,
  and the workspace is then gone within the bound.
- Q7: ``GET /health`` answered 200 and ``probe()`` said ok.
- Q8: every topic matched a source roncho was written against; on a 3.2.x server, no answer
  differs from upstream 3.2 in a field memoryd reads (other differences are reported, for
  the owner, and do not count against).
- Q9: every webhook trial whose queue drained got its ``queue.empty``, every conclusion was
  readable when it came, and no signature was bad. Deliveries reach only the machine the
  server runs on: ``--deliveries-unchecked WHY`` makes the line a SKIP that says so.
- Q10: every context read kept to its ``tokens=N`` and answered.
- each stage given (the live suite, the differential, the SDK conformance runs): as it ended.

A reason that comes from a deriver setting, not from the server, is never a FAIL: a release
bounded by the age gate and not waited for, a push not observed because the deriver batches
and released nothing within the trial, a result that varies between trials (a race the
server has, with its rate). Such a line is a PASS or SKIP that says so. A question with no
answer in any folder (its notebook failed or did not run) is a FAIL: what was not shown is
not claimed. Exit 0 when fit, 1 when not, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
# The check value roncho_workbook._deriver writes for a release no told setting explains.
INCONSISTENT = "INCONSISTENT"
# The stages whose outcome says whether roncho works against the server (the others, such as
# the kit's setup or the leftover check, say whether the run itself went right).
JUDGED_STAGES = re.compile(r"live suite|differential|SDK conformance")
# A stage's verdict line as scripts/test-real.sh prints it.
STAGE_LINE = re.compile(
    r"^(?:test-real: )?(?P<name>.+?): (?P<outcome>PASS|FAIL|SKIP)"
    r"(?: \(\d+ s\))?(?: - (?P<why>.*))?$"
)
# What a notebook that did not answer leaves: no table at all.
NO_ANSWER = "gave no answer: its notebook failed or did not run"


@dataclass(frozen=True)
class Line:
    """One question's or stage's outcome, and why."""

    what: str
    outcome: str
    why: str

    def text(self) -> str:
        return f"fitness: {self.what}: {self.outcome} - {self.why}"


@dataclass
class Verdict:
    """Every line; fit when none is FAIL."""

    lines: list[Line] = field(default_factory=list)

    @property
    def fit(self) -> bool:
        return not self.reasons

    @property
    def reasons(self) -> list[str]:
        return [f"{x.what}: {x.why}" for x in self.lines if x.outcome == FAIL]

    def line(self) -> str:
        """The overall line, the last the run prints."""
        if not self.fit:
            return "test-real: the server is NOT fit for memoryd: " + "; ".join(self.reasons)
        counts = ", ".join(f"{sum(x.outcome == o for x in self.lines)} {o}" for o in (PASS, SKIP))
        return (
            "test-real: the server is fit for memoryd: no question or stage above failed "
            f"({counts}; a SKIP says why it is not the server's)"
        )

    def report(self) -> str:
        return "\n".join([*(x.text() for x in self.lines), self.line()])


# -- reading what the notebooks wrote ------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One run folder: its manifest (empty when it has none) and its tables."""

    folder: Path
    manifest: dict[str, Any]

    def rows(self, table: str) -> list[dict[str, str]]:
        path = self.folder / f"{table}.csv"
        if not path.is_file():
            return []
        with path.open(newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))

    @property
    def base_url(self) -> str:
        return str(self.manifest.get("server", {}).get("base_url") or "").rstrip("/")

    @property
    def batching(self) -> bool:
        """Whether the run was told (or saw) that the deriver batches (flush off)."""
        return self.manifest.get("deriver", {}).get("flush") is False

    def answer(self, notebook: str) -> str:
        """The notebook's answer in words (empty where it did not answer)."""
        path = self.folder / f"{notebook}.answer.json"
        if not path.is_file():
            return ""
        return str(json.loads(path.read_text(encoding="utf-8")).get("answer") or "")

    def deriver_words(self) -> str:
        deriver = self.manifest.get("deriver", {})
        age = deriver.get("age_gate_seconds")
        gate = f", age gate {age:g} s" if isinstance(age, int | float) else ""
        return f"the deriver batches (flush off{gate})"


def load_run(folder: Path) -> Run:
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return Run(folder, manifest)


def _all(runs: Iterable[Run], table: str) -> list[tuple[Run, dict[str, str]]]:
    return [(run, row) for run in runs for row in run.rows(table)]


def _is_2xx(status: str | None) -> bool:
    try:
        return 200 <= float(status or "") < 300
    except ValueError:
        return False


def _number(value: str | None) -> float:
    try:
        return float(value or 0)
    except ValueError:
        return 0.0


def _true(value: str | None) -> bool:
    return value == "True"


# -- one function per question: the runs in, one line out ------------------------------------


def q1_auth(runs: Sequence[Run], expect: dict[str, str]) -> Line:
    what = "Q1 auth"
    seen: list[str] = []
    problems: list[str] = []
    unjudged: list[str] = []
    for run in runs:
        evidence = run.rows("q1_auth__evidence")
        no_key = next((r for r in evidence if r.get("step", "").startswith("no key")), None)
        if no_key is None:
            continue
        status = no_key.get("status") or "no answer"
        state = "off" if _is_2xx(status) else "on" if status[:3] in ("401", "403") else ""
        where = f" at {run.base_url}" if run.base_url else ""
        if not state:
            problems.append(f"a request with no key{where} answered {status}")
            continue
        wanted = expect.get(run.base_url) or expect.get("")
        scopes = run.rows("q1_auth__scopes")
        off_scope = [r for r in scopes if not _true(r.get("agrees"))]
        said = f"auth {state}{where} (no key: {status})"
        if state == "on":
            if not scopes:
                problems.append(f"{said}, but no scoped key was tried: give the run an admin key")
                continue
            said += (
                f", scoped keys as the source says in {len(scopes) - len(off_scope)}/{len(scopes)}"
            )
            if off_scope:
                tries = sorted({f"{r.get('key')} key: {r.get('action')}" for r in off_scope})
                problems.append(f"{said}; not as the source says: {', '.join(tries)}")
                continue
        if wanted is None:
            unjudged.append(said)
        elif wanted != state:
            problems.append(f"{said}, but the owner says it should be {wanted}")
        else:
            seen.append(f"{said}, as the owner says")
    if problems:
        return Line(what, FAIL, "; ".join(problems))
    if not seen and not unjudged:
        return Line(what, FAIL, NO_ANSWER)
    if unjudged:
        return Line(
            what,
            SKIP,
            "; ".join(seen + unjudged)
            + "; not judged: say what it should be with --expect-auth on|off",
        )
    return Line(what, PASS, "; ".join(seen))


def q2_deletion(runs: Sequence[Run]) -> Line:
    what = "Q2 deletion"
    timing = _all(runs, "q2_deletion__timing")
    items = _all(runs, "q2_deletion__session_delete")
    if not timing or not items:
        return Line(what, FAIL, NO_ANSWER)
    problems = []
    for _, row in timing:
        if not _is_2xx(row.get("delete status")):
            problems.append(f"the session delete answered {row.get('delete status')}")
        if not row.get("purge seen after s"):
            problems.append(
                f"the session's messages were still listed at the {row.get('wait bound s')} s bound"
            )
    # (item, column, value memoryd relies on, what it means when it is not)
    wanted = (
        ("session listed as active", "right after 202", "False", "the session stayed active"),
        ("messages listed", "after purge", "0", "messages survived the purge"),
        ("conclusion with session_id", "after purge", "False",
         "a conclusion made in the session survived the purge"),
        ("conclusion without session_id", "after purge", "True",
         "the purge removed a conclusion made outside the session"),
    )  # fmt: skip
    for _, row in items:
        for item, column, value, meaning in wanted:
            if row.get("item") == item and column in row and row[column] != value:
                problems.append(f"{meaning} ({item}: {row[column]})")
    if problems:
        return Line(what, FAIL, "; ".join(dict.fromkeys(problems)))
    purged = max(float(row["purge seen after s"]) for _, row in timing)
    return Line(
        what,
        PASS,
        f"a session delete made it inactive at once; its messages and conclusions were purged "
        f"within {purged:g} s, the session-less conclusion kept",
    )


def q3_deriver_latency(runs: Sequence[Run]) -> Line:
    what = "Q3 deriver latency"
    releases = _all(runs, "q3_deriver_latency__latency")
    if not releases:
        return Line(what, FAIL, NO_ANSWER)
    off = [r for _, r in releases if r.get("check") == INCONSISTENT]
    if off:
        gates = sorted({f"{r.get('size')} the token gate: {r.get('gate')}" for r in off})
        return Line(
            what,
            FAIL,
            f"{len(off)} of {len(releases)} releases disagree with the deriver settings told "
            f"({', '.join(gates)}; expected {off[0].get('expected gate')})",
        )
    settled = [r for _, r in releases if r.get("check") == "consistent"]
    # Anything else is a release the run did not wait for (bounded by the age gate): what the
    # deriver was set to, not what the server did.
    waiting = [r for _, r in releases if r.get("check") != "consistent"]
    why = f"{len(settled)} releases as the deriver settings told"
    # A case the run chose not to wait for (the below-gate case outside the long mode) is
    # said in the answer's words; it is the settings', not the server's.
    skipped = [
        clause.strip(" .")
        for run in runs
        for clause in re.split(r"(?<=[;.])\s+", run.answer("q3_deriver_latency"))
        if "not waited for" in clause
    ]
    if skipped:
        why += f"; {'; '.join(dict.fromkeys(skipped))} (a deriver setting, not the server)"
    if waiting:
        kinds = sorted({f"{r.get('size')} the token gate: {r.get('check')}" for r in waiting})
        why += (
            f"; {len(waiting)} not waited for, a deriver setting and not the server "
            f"({', '.join(kinds)})"
        )
    return Line(what, PASS, why)


def q3_derivation_switches(runs: Sequence[Run]) -> Line:
    what = "Q3 derivation switches"
    switches = [r for _, r in _all(runs, "q3_derivation_switches__switches")]
    if not switches:
        return Line(what, FAIL, NO_ANSWER)
    wrong = [r for r in switches if not _true(r.get("agrees"))]
    if wrong:
        cases = sorted({f"{r.get('case')}: {r.get('verdict')}" for r in wrong})
        return Line(
            what,
            FAIL,
            f"{len(wrong)} derivation switch case(s) not as the source says ({'; '.join(cases)})",
        )
    return Line(what, PASS, f"{len(switches)} derivation switch cases as the source says")


def q4_filters(runs: Sequence[Run]) -> Line:
    what = "Q4 filters"
    cases = [r for _, r in _all(runs, "q4_filters__filters")]
    if not cases:
        return Line(what, FAIL, NO_ANSWER)
    wrong = [r for r in cases if not _true(r.get("agrees"))]
    if wrong:
        named = sorted({f"{r.get('where')} {r.get('case')}: {r.get('status')}" for r in wrong})
        return Line(
            what, FAIL, f"{len(wrong)} filter case(s) not as the source says ({'; '.join(named)})"
        )
    return Line(what, PASS, f"{len(cases)} filter cases as the source says")


def q5_provenance(runs: Sequence[Run]) -> Line:
    what = "Q5 provenance"
    fields = [r for _, r in _all(runs, "q5_provenance__fields")]
    chat = [r for _, r in _all(runs, "q5_provenance__chat_evidence")]
    if not fields or not chat:
        return Line(what, FAIL, NO_ANSWER)
    problems = [f"no {r.get('conclusion')} conclusion to read" for r in fields
                if not _true(r.get("present"))]  # fmt: skip
    problems += [f"chat with include_evidence answered {r.get('status')}" for r in chat
                 if not _is_2xx(r.get("status"))]  # fmt: skip
    if problems:
        return Line(what, FAIL, "; ".join(problems))
    links = sorted({r.get("message link field") or "none" for r in fields})
    evidence = "evidence" if any(_true(r.get("evidence returned")) for r in chat) else "no evidence"
    return Line(
        what,
        PASS,
        f"{len(fields)} kinds of conclusion read (message link: {', '.join(links)}); chat with "
        f"include_evidence answered with {evidence}",
    )


def q6_workspace_delete(runs: Sequence[Run]) -> Line:
    what = "Q6 workspace delete"
    steps = [r for _, r in _all(runs, "q6_workspace_delete__steps")]
    timing = [r for _, r in _all(runs, "q6_workspace_delete__timing")]
    if not steps or not timing:
        return Line(what, FAIL, NO_ANSWER)
    status = {r.get("step"): r.get("status") or "no answer" for r in steps}
    problems = []
    busy = status.get("delete workspace, session active")
    if busy != "409":
        problems.append(f"the workspace delete with a session active answered {busy}, not 409")
    for step in ("delete the session", "delete workspace again"):
        if not _is_2xx(status.get(step)):
            problems.append(f"{step}: {status.get(step)}")
    gone = [r.get("workspace gone after s") for r in timing]
    if not all(gone):
        problems.append(
            f"the workspace was still there at the {timing[0].get('wait bound s')} s bound"
        )
    if problems:
        return Line(what, FAIL, "; ".join(problems))
    return Line(
        what,
        PASS,
        f"409 while a session was active; the session delete freed it; gone within "
        f"{max(float(g or 0) for g in gone):g} s",
    )


def q7_health(runs: Sequence[Run]) -> Line:
    what = "Q7 health"
    rows = [r for _, r in _all(runs, "q7_health__answers")]
    if not rows:
        return Line(what, FAIL, NO_ANSWER)
    bad = [r for r in rows if r.get("health status") != "200" or r.get("probe()") != "ok"]
    if bad:
        r = bad[0]
        return Line(
            what,
            FAIL,
            f"GET /health answered {r.get('health status')} {r.get('health body')}, "
            f"probe() {r.get('probe()')}",
        )
    version = rows[0].get("server_version()") or "no version reported"
    return Line(what, PASS, f"/health 200 ok ({version})")


# What memoryd reads of each answer Q8 holds against upstream 3.2: the fields roncho's typed
# records require (docs/api.md, "required are only the fields memoryd reads"), by the SDK
# model the difference names. A difference elsewhere is the owner's to know, not a fault.
MEMORYD_READS: dict[str, frozenset[str]] = {
    "MessageResponse": frozenset(
        {"id", "content", "peer_id", "session_id", "created_at", "metadata"}
    ),
    "ConclusionResponse": frozenset({"id", "content", "observer_id", "observed_id"}),
    "PeerResponse": frozenset({"id"}),
    "SessionResponse": frozenset({"id"}),
    "WorkspaceResponse": frozenset({"id"}),
    "DialecticResponse": frozenset({"content"}),
    "EvidenceObservation": frozenset({"id", "content"}),
    "PageResponse": frozenset({"items", "total", "page", "size", "pages"}),
    "QueueStatusResponse": frozenset(
        {"total_work_units", "completed_work_units", "in_progress_work_units", "pending_work_units"}
    ),
    "SessionContextResponse": frozenset({"id"}),
    "SessionSummariesResponse": frozenset({"id"}),
    "PeerContextResponse": frozenset({"peer_id", "target_id"}),
}


def _upstream_differences(text: str) -> list[tuple[str, str]]:
    """Each difference of a row as roncho_workbook._upstream32 words it, ``what [source]``,
    joined by "; " outside brackets (a source may hold "; " and a path "[0]")."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth == 0 and text.startswith("; ", index):
            parts.append(text[start:index])
            start = index + 2
    parts.append(text[start:])
    found = []
    for part in parts:
        cut = part.rfind(" [")
        found.append((part[:cut], part[cut + 2 : -1]) if cut > 0 else (part, ""))
    return found


def _memoryd_reads(what: str, source: str) -> bool:
    """Whether one difference from upstream 3.2 is in a field memoryd reads (absent or of
    another type); an undeclared key is ignored by roncho's records, a status is the live
    suite's to hold."""
    if "not declared" in what or what.startswith(("status ", "no answer")):
        return False
    model = source.split(" ")[-1].split("[")[0]
    if "`" not in what:  # the body or an item is not an object at all: nothing is readable
        return model in MEMORYD_READS
    name = re.sub(r"\[\d+\]", "", what.split("`")[1]).split(".")[-1]
    return name in MEMORYD_READS.get(model, frozenset())


def q8_differences(runs: Sequence[Run]) -> Line:
    what = "Q8 differences"
    topics = [r for _, r in _all(runs, "q8_differences__differences")]
    if not topics:
        return Line(what, FAIL, NO_ANSWER)
    lone = [r.get("topic") or "?" for r in topics if (r.get("agrees with") or "none") == "none"]
    if lone:
        return Line(
            what,
            FAIL,
            f"{len(lone)} of {len(topics)} topics match no source roncho was written against "
            f"({'; '.join(lone)})",
        )
    said = f"{len(topics)} topics match a known source"
    # A 3.2.x server is also held against upstream 3.2 (none of this for another version).
    upstream = [r for _, r in _all(runs, "q8_differences__upstream_3_2")]
    if not upstream:
        return Line(what, PASS, said)
    differ = [r for r in upstream if (r.get("differences") or "none") != "none"]
    if not differ:
        return Line(
            what, PASS, f"{said}; against upstream 3.2: none found in {len(upstream)} endpoints"
        )
    relied = [
        f"{r.get('endpoint')}: {said_} [{source}]"
        for r in differ
        for said_, source in _upstream_differences(r.get("differences") or "")
        if _memoryd_reads(said_, source)
    ]
    if relied:
        return Line(
            what,
            FAIL,
            f"{len(relied)} differences from upstream 3.2 in fields memoryd reads "
            f"({'; '.join(relied)})",
        )
    return Line(
        what,
        PASS,
        f"{said}; against upstream 3.2: {len(differ)} of {len(upstream)} endpoints differ "
        f"({', '.join(str(r.get('endpoint')) for r in differ)}), for the owner to know, not "
        "against fitness: none in a field memoryd reads (statuses: the live suite holds them)",
    )


def q9_webhooks(runs: Sequence[Run], unchecked: str) -> Line:
    what = "Q9 webhooks"
    if unchecked:
        return Line(what, SKIP, f"deliveries not judged ({unchecked})")
    trials = _all(runs, "q9_webhooks__trials")
    if not trials:
        return Line(what, FAIL, NO_ANSWER)
    # A trial whose queue never drained had nothing to push yet: with a batching deriver that
    # is the gate's doing (a setting), not a lost event.
    held = [(run, t) for run, t in trials if t.get("event") != "True"
            and not t.get("drained_seen_s") and run.batching]  # fmt: skip
    held_ids = {id(t) for _, t in held}
    judged = [t for _, t in trials if id(t) not in held_ids]
    missed = sum(1 for t in judged if t.get("event") != "True")
    early = sum(
        1 for t in judged if t.get("event") == "True" and t.get("complete_at_event") != "True"
    )
    forged = sum(1 for t in judged if t.get("verified") == "False")
    problems = [
        f"{n} of {len(judged)} {text}"
        for n, text in (
            (missed, "webhook trials got no queue.empty"),
            (early, "queue.empty came before every conclusion was readable"),
            (forged, "deliveries had a bad signature"),
        )
        if n
    ]
    if problems:
        return Line(what, FAIL, ", ".join(problems))
    note = (
        f"{len(held)} trial(s) whose queue had not drained got no queue.empty: "
        f"{held[0][0].deriver_words()} and released nothing within the trial, a deriver "
        "setting and not the server"
        if held
        else ""
    )
    if not judged:
        return Line(what, SKIP, f"push not observed: {note}")
    got = f"deliveries {len(judged)}/{len(judged)} complete at the event"
    return Line(what, PASS, f"{got}; {note}" if note else got)


def q10_context(runs: Sequence[Run]) -> Line:
    what = "Q10 context"
    reads = [r for _, r in _all(runs, "q10_context__budgets")]
    if not reads:
        return Line(what, FAIL, NO_ANSWER)
    failed = [r for r in reads if r.get("error")]
    over = [r for r in reads if not r.get("error") and not _true(r.get("within_budget"))]
    problems = []
    if failed:
        problems.append(
            f"{len(failed)} of {len(reads)} context reads failed "
            f"({failed[0].get('mode')}, tokens={failed[0].get('tokens_asked')}: "
            f"{failed[0].get('error')})"
        )
    if over:
        r = over[0]
        problems.append(
            f"{len(over)} of {len(reads)} context reads went over tokens=N "
            f"({r.get('mode')}, tokens={r.get('tokens_asked')}: {r.get('returned_tokens')})"
        )
    if problems:
        return Line(what, FAIL, "; ".join(problems))
    why = f"{len(reads)}/{len(reads)} context reads kept to tokens=N"
    # With peer_target the server pays the representation first and returns it whatever N
    # is: the messages still keep to N, so not a fault, but memoryd must bound the
    # representation itself (docs/recall.md); the line says how often it went past N.
    targeted = [r for r in reads if r.get("mode", "").startswith("peer_target")]
    past = [
        r
        for r in targeted
        if _number(r.get("representation_tokens")) + _number(r.get("returned_tokens"))
        > _number(r.get("tokens_asked"))
    ]
    if past:
        why += (
            f" (messages and summary); with peer_target the representation came whatever N "
            f"was, past N in {len(past)}/{len(targeted)}: bound it as docs/recall.md does"
        )
    trials = [r for _, r in _all(runs, "q10_context__long_summary_trials")]
    kept = sum(_true(r.get("long_after_last")) for r in trials)
    if trials and 0 < kept < len(trials):
        why += (
            f"; the long summary varies between trials (kept in {kept}/{len(trials)}): a race "
            "in the server's summarizer, not a reason against it, so read it as optional"
        )
    return Line(what, PASS, why)


def stage_line(text: str) -> Line | None:
    """A judged stage's verdict line (``NAME: PASS (12 s) - why``) as a Line, else None."""
    match = STAGE_LINE.match(text.strip())
    if match is None or not JUDGED_STAGES.search(match["name"]):
        return None
    why = match["why"] or {PASS: "passed", FAIL: "failed (see its verdict above)"}.get(
        match["outcome"], "skipped"
    )
    if match["outcome"] == FAIL and match["why"]:
        why = f"failed, {match['why']} (see its output above)"
    return Line(match["name"], match["outcome"], why)


def judge(
    folders: Sequence[Path],
    stages: Sequence[str] = (),
    expect_auth: dict[str, str] | None = None,
    deliveries_unchecked: str = "",
) -> Verdict:
    """The verdict over the run folders a run wrote, and its stages' verdict lines."""
    runs = [load_run(folder) for folder in folders]
    questions: list[Callable[[Sequence[Run]], Line]] = [
        lambda r: q1_auth(r, expect_auth or {}),
        q2_deletion,
        q3_deriver_latency,
        q3_derivation_switches,
        q4_filters,
        q5_provenance,
        q6_workspace_delete,
        q7_health,
        q8_differences,
        lambda r: q9_webhooks(r, deliveries_unchecked),
        q10_context,
    ]
    lines = [question(runs) for question in questions]
    lines += [line for text in stages if (line := stage_line(text)) is not None]
    return Verdict(lines)


def expectation(value: str) -> tuple[str, str]:
    """``on``/``off`` for every server, or ``URL=on|off`` for one."""
    url, _, state = value.rpartition("=")
    url = url.rstrip("/")
    if state not in ("on", "off"):
        raise argparse.ArgumentTypeError(
            f"--expect-auth takes on, off or URL=on|off, not {value!r}"
        )
    return url, state


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--expect-auth", action="append", default=[], type=expectation,
                        metavar="on|off|URL=on|off")  # fmt: skip
    parser.add_argument("--stage", action="append", default=[], metavar="LINE")
    parser.add_argument("--deliveries-unchecked", default="", metavar="WHY")
    parser.add_argument("folders", nargs="*", type=Path, metavar="RUN_FOLDER")
    args = parser.parse_args(argv)
    verdict = judge(args.folders, args.stage, dict(args.expect_auth), args.deliveries_unchecked)
    print(verdict.report())
    return 0 if verdict.fit else 1


if __name__ == "__main__":
    sys.exit(main())
