"""How the probes' findings are said: the answers of Q9 and Q10, and the words they share.

A probe measures and fills its tables (``_push.py``, ``_context.py``); what those tables
say, in the one-line answer and the notes a notebook shows under it, is written here from
the tables alone. The words a table and its answer both use (a test event's outcome, a
budget mode, a summary's kind) and the yardsticks an answer reads against (Honcho's
default summary intervals, the canned text of a stand-in LLM) are defined here too, and
the probes take them from here.
"""

from __future__ import annotations

import json
from typing import Any

from ._deriver import DeriverConfig
from ._finding import Finding

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
    test = f"{test_s:.2f}s" if test_s is not None else _NOT_DELIVERED.get(outcome, outcome)
    parts = [
        f"queue.empty arrived in {len(got)}/{len(rows)} trials of a {size}-message sync "
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
    starved = [r["tokens_asked"] for r in targeted if r["messages"] == 0]
    target_note = ""
    if targeted:
        target_note = (
            f"; with peer_target the representation ({targeted[0]['representation_chars']} "
            "chars) is paid for first"
            + (
                f": at tokens={', '.join(map(str, starved))} no message came back"
                if starved
                else ""
            )
        )
    return (
        f"tokens=N held in {held}/{len(plain)} reads{unknown_note} (the messages' token_count "
        f"plus the summary's within N){summary_note}{target_note}"
    )


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


def context_answer(finding: Finding, config: DeriverConfig, messages: int, llm: str) -> str:
    """Q10's answer from its tables: summaries, budgets, presence, perspective, derivation,
    the deriver's settings and the LLM."""
    derivation = (finding.tables.get("derivation") or [{}])[0]
    parts = [
        summary_part(finding, messages),
        budget_part(finding),
        presence_part(finding),
        perspective_part(finding),
        _derivation_words(derivation),
        config.settings(),
        "LLM: " + _llm_words(llm, _canned(finding)),
    ]
    return ". ".join(parts) + "."
