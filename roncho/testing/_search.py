"""Keyword ranking, the emulator's stand-in for Honcho's hybrid full-text + vector search.

A text's score is the number of distinct query words (case-insensitive `\\w+` runs) it
contains. Matches rank by score, highest first, then by their order in the input. Texts with
no shared word are dropped, unless `keep_unmatched` (vector search always returns its nearest
rows, so the conclusions query keeps them, after every match).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
_WORD = re.compile(r"\w+")


def words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text)}


def rank(
    query: str, items: Sequence[T], text_of: Callable[[T], str], *, keep_unmatched: bool = False
) -> list[T]:
    """Items ordered by keyword score (see the module docstring)."""
    wanted = words(query)
    scored: list[tuple[int, int, T]] = []
    for index, item in enumerate(items):
        score = len(wanted & words(text_of(item)))
        if score or keep_unmatched:
            scored.append((-score, index, item))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    return [item for _, _, item in scored]
