"""What a probe hands back to its notebook: a one-line answer, tables and the evidence."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ._trace import Trace


@dataclass(slots=True, kw_only=True)
class Finding:
    """The outcome of one probe.

    ``answer`` is one line for the results index; ``tables`` maps a table name to its rows
    (each a flat dict, CSV-ready); ``trace`` holds every call made, for the evidence;
    ``notes`` are lines the answer page shows under the answer (what its labels mean);
    ``fits``, for an answer INCONSISTENT with the settings given, the settings that would
    explain what was seen (the runner repeats it).
    """

    question: str
    answer: str = ""
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    trace: Trace = field(default_factory=Trace)
    notes: list[str] = field(default_factory=list)
    fits: str = ""

    def table(self, name: str) -> list[dict[str, Any]]:
        return self.tables.setdefault(name, [])


def wait_until(
    check: Callable[[], bool],
    *,
    bound: float,
    interval: float,
    sleep: Callable[[float], None] = time.sleep,
) -> float | None:
    """Call ``check`` every ``interval`` seconds until it is true or ``bound`` has passed.

    Returns the seconds it took, or None when the bound ran out first.
    """
    started = time.monotonic()
    while True:
        if check():
            return time.monotonic() - started
        if time.monotonic() - started >= bound:
            return None
        sleep(interval)


def fmt_status(status: int | None) -> str:
    return "2xx" if status is None else str(status)


_PHRASE = (
    "the owner walked to the harbour market on saturday and bought figs, bread, olives "
    "and a small notebook; later they wrote about the trip, the weather, a long call with "
    "their sister about moving house, plans for the garden, and a recipe for lemon cake"
)
_WORDS = tuple(_PHRASE.split())


def sample_text(chars: int, tag: str = "") -> str:
    """Plain English-like text of about ``chars`` characters (a real tokenizer counts it
    at roughly 4 to 5 characters per token), starting with ``tag`` so each is distinct."""
    words: list[str] = [tag] if tag else []
    length = len(tag)
    i = 0
    while length < chars:
        word = _WORDS[i % len(_WORDS)]
        words.append(word)
        length += len(word) + 1
        i += 1
    return " ".join(words)[: max(chars, len(tag))]
