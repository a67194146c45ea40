"""The Q10 probe on the emulator, and how its answer and figure read.

The emulator writes summaries as 3.0.12 does (a short one every 20th message, a long one
every 60th) and cuts the context to the budget as its source does; it keeps no peer cards
but those set by hand, and its dreams queue nothing (docs in roncho/testing/__init__.py):
so every part of the probe has something to see, and what the emulator lacks is said.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from roncho_workbook import DeriverConfig, Finding, open_target, probe_context, wait_until
from roncho_workbook._context import summary_chosen, switch_point
from roncho_workbook._prose import COUNTED_ESTIMATE, COUNTED_EXACTLY, _long_lost, context_answer

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "roncho-q10test"
FLUSH = DeriverConfig(flush=True, age_gate=1800.0, source="emulator")


@pytest.fixture(scope="module")
def figures() -> Iterator[Any]:
    sys.path.insert(0, str(ROOT / "notebooks"))
    try:
        yield importlib.import_module("_figures")
    finally:
        sys.path.remove(str(ROOT / "notebooks"))


def _probe(messages: int, budgets: list[int], trials: int = 0) -> Finding:
    options = {"flush": True, "deriver_delay": 0.01}
    with open_target(emulator_options=options) as target:
        finding = probe_context(
            target,
            PREFIX,
            config=FLUSH,
            messages=messages,
            budgets=budgets,
            wait_bound=10.0,
            poll=0.02,
            grace=0.05,
            trials=trials,
            llm="no LLM (the emulator)",
        )
        reader = target.reader()

        def gone() -> bool:
            return not [w for w in reader.list_workspaces().items if w.id.startswith(PREFIX)]

        assert wait_until(gone, bound=5.0, interval=0.05) is not None  # its own, deleted
    return finding


@pytest.mark.timeout(60)
def test_q10_full_form_on_the_emulator() -> None:
    finding = _probe(60, [50, 400, 4000], trials=2)
    firsts = {}
    for row in finding.tables["summaries"]:
        firsts.setdefault(row["kind"], row["after_messages"])
        assert row["listed_after_s"] is not None and row["listed_after_s"] >= 0
        assert row["canned_text"] is True
    assert firsts == {"short": 20, "long": 60}
    assert sorted(r["after_messages"] for r in finding.tables["summaries"]) == [20, 40, 60, 60]
    [derivation] = finding.tables["derivation"]
    assert (derivation["turns"], derivation["turns_done"], derivation["whole_sync"]) == (
        30,
        30,
        "done",
    )
    budgets = {(r["mode"], r["tokens_asked"]): r for r in finding.tables["budgets"]}
    assert len(budgets) == 9
    assert all(r["within_budget"] and not r["error"] for r in budgets.values())
    # 50 tokens hold a few of the newest messages; 4000 the long summary and what follows it.
    assert budgets[("summary on", 50)]["messages"] > 0
    assert budgets[("summary on", 4000)]["summary"] == "long"
    assert budgets[("summary=false", 4000)]["messages"] == 60
    assert budgets[("peer_target=owner", 50)]["messages"] == 0  # the representation ate it
    assert budgets[("peer_target=owner", 50)]["representation_chars"] > 0
    presence = {r["case"]: r for r in finding.tables["presence"]}
    assert presence["observed peer, after derivation"]["representation"] is True
    assert presence["observe_me false peer, after derivation"]["representation"] is False
    assert not presence["observed peer, after the dreams"]["card"]  # the emulator makes none
    assert presence["observed peer, card set by hand"]["card_lines"] == 1
    perspective = {r["peer_perspective"]: r for r in finding.tables["perspective"]}
    assert perspective["the assistant (observe_others true)"]["same_representation"] is True
    bystander = perspective["the bystander (observe_others false)"]
    assert bystander["same_representation"] is False and bystander["same_messages"] is True
    assert {d["queue"] for d in finding.tables["dreams"]} == {"nothing queued"}
    # The emulator saves both summaries of the 60th message: none is lost, no note says so.
    trials = finding.tables["long_summary_trials"]
    assert [(t["wait"], t["short_after_last"], t["long_after_last"]) for t in trials] == [
        ("done", True, True)
    ] * 2
    assert "the long summary was kept in 2/2 (the short in 2/2)" in finding.answer
    assert not [n for n in finding.notes if "_save_summary" in n]
    said = finding.answer
    assert "the short summary first after 20 messages (as Honcho's default 20" in said
    assert "the long summary first after 60 messages (as Honcho's default 60)" in said
    # The headline counts every read, the peer_target ones with what they returned.
    assert "tokens=N over all 9 context reads: without peer_target it held in 6/6" in said
    assert "with peer_target the messages and summary stayed within N in 3/3, but 2 of" in said
    assert "returned no message at all (tokens=50, 400)" in said
    assert "(with it, 2/3 reads came to more than N)" in said
    # Part 5: the representation per option, counted and as the server charged it.
    rep = {r["option"]: r for r in finding.tables["representation"]}
    assert len(rep) == 7 and not any(r["error"] or r["own_call_error"] for r in rep.values())
    whole, ten, three = rep["no option"], rep["max_conclusions=10"], rep["max_conclusions=3"]
    assert whole["conclusions"] == 30  # one a message of the owner's
    assert (ten["conclusions"], three["conclusions"]) == (10, 3)
    assert whole["tokens"] > ten["tokens"] > three["tokens"] > 0
    for row in rep.values():
        # The server charges its own rendering (numbered, headed): more than the markdown.
        assert row["server_charge_tokens"] > row["tokens"]
        assert row["counted"] in (COUNTED_EXACTLY, COUNTED_ESTIMATE)
    assert rep["search_query, search_top_k=3, max_conclusions=3"]["conclusions"] == 3
    assert whole["own_call_chars"] < whole["chars"]  # the own call's default is 25, not 30
    assert f"no option: {whole['chars']} chars, 30 conclusion(s)" in said
    # The switch: every summary-on read as the 40% rule says, and the reads at each point.
    switch = finding.tables["summary_switch"]
    assert all(r["by_the_rule"] == r["seen"] for r in switch)
    [short] = {r["short_tokens"] for r in switch}
    [long] = {r["long_tokens"] for r in switch}
    points = {r["read"] for r in switch} - {"budgets"}
    assert points == {f"switch at {switch_point(short)}", f"switch at {switch_point(long)}"}
    at = {r["tokens_asked"]: r["seen"] for r in switch if r["read"] != "budgets"}
    assert at[switch_point(short) - 1] == "none" and at[switch_point(short)] == "short"
    assert at[switch_point(long)] == "long"
    assert f"The rule named the summary in {len(switch)}/{len(switch)} reads" in said
    assert f"it switches at {switch_point(short)} (tokens={switch_point(short) - 1}: " in said
    # Latency: a handful of reads of each call, as median and p90.
    latency = {r["call"]: r for r in finding.tables["latency"]}
    assert set(latency) == {
        "get_session_context, no peer_target",
        "get_session_context, peer_target",
        "get_peer_representation",
    }
    assert all(r["n"] == 5 and r["failed"] == 0 and r["median_s"] > 0 for r in latency.values())
    assert "Latency (median / p90 of 5 reads each): get_session_context, no peer_target" in said
    assert "LLM: the run was told it is no LLM (the emulator)" in said
    assert "None" not in said


@pytest.mark.timeout(90)
def test_q10_on_a_batching_deriver_waits_for_no_age_gate() -> None:
    """Honcho's defaults (flush off, 512 tokens, 1800 s): the turns are below the gate, so
    the first wait says "batching" after a deriver look and later turns are not waited for;
    the summaries are still seen where they are due, a gate-passing message of the owner's
    gives the presence reads a representation, and the dreams' wait ends on their own work."""
    options = {"flush": False, "batch_tokens": 512, "batch_max_age": 1800.0, "deriver_delay": 0.01}
    config = DeriverConfig(flush=False, age_gate=1800.0, token_gate=512, prompt=0.3)
    with open_target(emulator_options=options) as target:
        finding = probe_context(
            target, PREFIX + "-b", config=config, messages=60, budgets=[400], wait_bound=10.0,
            poll=0.02, grace=0.05,
        )  # fmt: skip
    assert sorted(r["after_messages"] for r in finding.tables["summaries"]) == [20, 40, 60, 60]
    [derivation] = finding.tables["derivation"]
    assert derivation["turns_done"] == 0 and derivation["whole_sync"] == "batching"
    assert derivation["first_not_done"].startswith("batching after")
    [release] = finding.tables["release"]
    assert release["wait"] == "done" and release["chars"] >= 512 * 8
    presence = {r["case"]: r for r in finding.tables["presence"]}
    assert presence["observed peer, after derivation"]["representation"] is True
    assert {d["queue"] for d in finding.tables["dreams"]} == {"nothing queued"}
    assert "the short summary first after 20 messages (as Honcho's default 20" in finding.answer
    assert "one message of the owner's that passes the token gate" in finding.answer
    # Part 5 reads after the release: the owner's conclusions are all of the release
    # session, so the session's own (limit_to_session) is empty and still charged for.
    rep = {r["option"]: r for r in finding.tables["representation"]}
    assert rep["no option"]["conclusions"] == 1 and rep["limit_to_session"]["chars"] == 0
    assert 0 < rep["limit_to_session"]["server_charge_tokens"] < rep["no option"]["tokens"]
    assert all(r["by_the_rule"] == r["seen"] for r in finding.tables["summary_switch"])


@pytest.mark.timeout(60)
def test_q10_short_form_says_the_long_summary_was_not_reached() -> None:
    finding = _probe(20, [100])
    assert [r["after_messages"] for r in finding.tables["summaries"]] == [20]
    assert "no long summary within 20 messages (fewer than Honcho's default 60 were sent)" in (
        finding.answer
    )


def _tables(first_short: int, returned: int) -> Finding:
    finding = Finding(question="Q10")
    summary = {"listed_after_s": 1.5, "canned_text": False}
    finding.tables["summaries"] = [
        dict(summary, kind="short", after_messages=first_short),
        dict(summary, kind="short", after_messages=2 * first_short),
    ]
    finding.tables["budgets"] = [
        {"mode": "summary on", "tokens_asked": 100, "messages": 3, "returned_tokens": returned,
         "within_budget": returned <= 100, "summary": "none", "summary_tokens": 0,
         "messages_tokens": returned, "representation_chars": 0, "error": ""},
        {"mode": "peer_target=owner", "tokens_asked": 100, "messages": 0, "returned_tokens": 0,
         "within_budget": True, "summary": "none", "summary_tokens": 0, "messages_tokens": 0,
         "representation_chars": 900, "error": ""},
    ]  # fmt: skip
    finding.tables["presence"] = [
        {"case": "observed peer, after derivation", "representation": True,
         "representation_chars": 900, "card": True, "card_lines": 2, "error": ""},
        {"case": "observed peer, after the dreams", "error": "StatusError"},
    ]  # fmt: skip
    return finding


def test_q10_answer_names_a_threshold_or_a_budget_the_defaults_do_not_explain() -> None:
    said = context_answer(_tables(25, 130), FLUSH, 60, "")
    first = "the short summary first after 25 messages (NOT as Honcho's default 20; again at 50)"
    assert first in said
    assert "no long summary within 60 messages (though Honcho's default is every 60th)" in said
    assert "without peer_target it held in 0/1" in said
    assert "the representation (900 chars) is paid for first and is returned whatever N" in said
    empty = _tables(25, 130)
    empty.tables["budgets"][1].update(representation_chars=0, messages=2)
    said_empty = context_answer(empty, FLUSH, 60, "")
    assert "and every one returned messages: the representation, empty at these reads" in (
        said_empty
    )
    assert "but 1 of those 1 returned no message at all (tokens=100)" in said
    assert "observed peer, after derivation: representation 900 chars, card 2 line(s)" in said
    assert "observed peer, after the dreams: StatusError" in said
    assert "not told which LLM" in said and "a model wrote them" in said
    # Due at 60 and missing (in the session, or in a trial session): explained in a note.
    lost = _tables(20, 90)
    assert _long_lost(lost, 60) and not _long_lost(lost, 40)
    lost.tables["long_summary_trials"] = [
        {"trial": 0, "messages": 60, "short_after_last": True, "long_after_last": False}
    ]
    assert _long_lost(lost, 40)
    assert "the long summary was kept in 0/1 (the short in 1/1)" in context_answer(
        lost, FLUSH, 40, ""
    )


def test_q10_figure_draws_every_part_with_units(figures: Any) -> None:
    finding = _tables(20, 90)
    finding.tables["perspective"] = [
        {"peer_perspective": "none", "representation": True, "representation_chars": 900,
         "card": False, "card_lines": 0, "error": ""},
        {"peer_perspective": "the bystander", "representation": "False",
         "representation_chars": 0, "card": "False", "card_lines": 0, "error": ""},
    ]  # fmt: skip
    fig = figures.draw_context(finding, figures.Stamp("honcho.lan", "3.0.12", "2026-01-02"))
    try:
        budgets, summaries, presence = fig.axes[:3]
        assert "(tokens)" in budgets.get_xlabel() and "(tokens)" in budgets.get_ylabel()
        assert "(count)" in summaries.get_xlabel() and "(s)" in summaries.get_ylabel()
        assert "honcho.lan · version 3.0.12 · 2026-01-02" in budgets.get_title()
        labels = [t.get_text() for t in budgets.get_legend().get_texts()]
        assert "returned = asked (the budget)" in labels
        assert "summary=false" not in labels  # no such rows: no legend entry
        cases = " ".join(t.get_text().replace("\n", " ") for t in presence.get_xticklabels())
        assert "the bystander" in cases and "after the dreams" in cases
        drawn = [t.get_text() for t in presence.texts]
        assert "none" in drawn and "StatusError" in drawn  # the CSV's "False" reads as False
    finally:
        figures.plt.close(fig)


def test_q10_summary_rule_is_3_0_12s_forty_percent() -> None:
    """src/utils/summarizer.py get_session_context: int(tokens * 0.4) is the summary's room;
    the long one when it fits and is longer than the short, else the short one if it fits."""
    assert switch_point(169) == 423  # int(422 * 0.4) == 168, int(423 * 0.4) == 169
    assert [summary_chosen(n, 169, None) for n in (422, 423)] == ["none", "short"]
    assert summary_chosen(1000, 169, 401) == "short"  # the long one does not fit in 400
    assert summary_chosen(1000, 169, 400) == "long"
    assert summary_chosen(1000, 169, 169) == "short"  # not longer than the short
    assert summary_chosen(1000, None, 300) == "long"
    assert summary_chosen(1000, 0, None) == "none"
    assert all(
        int(switch_point(c) * 0.4) >= c > int((switch_point(c) - 1) * 0.4) for c in range(1, 500)
    )
