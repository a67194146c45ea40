"""The emulator's token counts against what a real 3.0.12 counted (tiktoken o200k_base).

The corpus and its true counts are in data/token_counts.json (tests/emulator/
record_token_counts.py records them from a server). The figures printed here are the ones
docs/emulator.md states; the bounds are that statement, checked.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from roncho.testing._common import estimate_tokens
from roncho.testing._tokens import pieces

CORPUS = json.loads((Path(__file__).parent / "data" / "token_counts.json").read_text("utf-8"))
TEXTS: list[tuple[str, int]] = [(text, int(n)) for text, n in CORPUS["texts"]]


def _errors() -> tuple[float, float, float]:
    relative = sorted(abs(estimate_tokens(t) - n) / n for t, n in TEXTS if n)
    mean = sum(relative) / len(relative)
    p95 = relative[int(0.95 * len(relative))]
    total = sum(estimate_tokens(t) for t, _ in TEXTS) / sum(n for _, n in TEXTS) - 1
    return mean, p95, total


def test_corpus_is_from_a_real_server() -> None:
    assert CORPUS["server"] == "3.0.12"
    assert len(TEXTS) >= 300


def test_error_on_the_corpus_is_as_documented() -> None:
    mean, p95, total = _errors()
    print(
        f"token_count error on {len(TEXTS)} texts: mean {mean:.1%}, p95 {p95:.1%}, "
        f"total {total:+.1%}"
    )
    assert mean <= 0.05
    assert p95 <= 0.20
    assert abs(total) <= 0.04


def test_short_messages_count_as_the_server_does() -> None:
    # Seen in the TypeScript SDK's flow on a real 3.0.12.
    for text, n in [("I like green tea", 4), ("Tea is nice", 3), ("Rain makes me sad", 4)]:
        assert estimate_tokens(text) == n


def test_empty_text_counts_zero_as_the_server() -> None:
    assert estimate_tokens("") == 0


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_pieces_cover_the_text(text: str) -> None:
    # The pre-tokenizer's pattern matches everywhere, so its pieces are the text, cut.
    assert "".join(pieces(text)) == text
    assert estimate_tokens(text) >= (1 if text else 0)
