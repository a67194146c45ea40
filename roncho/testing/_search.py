"""Ranking: the emulator's stand-ins for Honcho's full-text and vector search, without embeddings.

Honcho 3.0.12 (`src/utils/search.py`) answers a message search by fusing two ranked lists with
Reciprocal Rank Fusion (k = 60, `sum(1 / (k + rank))`, ties in first-seen order):

- a *semantic* list: the 2 x limit messages nearest the query's embedding, with no distance
  cut-off, so it names messages that share no word with the query;
- a *full-text* list: the 2 x limit messages that PostgreSQL's English full-text search
  (`plainto_tsquery`: every non-stopword of the query, stemmed) or a case-insensitive substring
  match finds, by `ts_rank` then newest first; a query with punctuation is a substring match
  only, newest first.

So a search fills up to `limit` whenever there are that many candidate messages, and word
matches lead. Here the semantic list is ordered by a stand-in similarity (cosine of character
trigram counts) instead of embeddings, and `ts_rank` by a count of matched query terms; the
rest is as the server does it. What cannot be imitated: which non-matching messages the
embeddings put first, hence the order after the word matches, and which candidates a full
semantic list leaves out when there are more than 2 x limit.

The conclusions query (`nearest`) is the semantic part alone: the `top_k` nearest, none farther
than `distance` (cosine distance, 1 - the stand-in similarity).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

T = TypeVar("T")
_WORD = re.compile(r"\w+")
# Honcho's test for a query that goes to the substring match only.
_SPECIAL = re.compile(r"[~`!@#$%^&*()_+=\[\]{};':\"\\|,.<>/?-]")
RRF_K = 60
# PostgreSQL's English stopword list (snowball), which plainto_tsquery drops.
_STOPWORD_TEXT = """i me my myself we our ours ourselves you your yours yourself yourselves he
    him his
    himself she her hers herself it its itself they them their theirs themselves what which who
    whom this that these those am is are was were be been being have has had having do does did
    doing a an the and but if or because as until while of at by for with about against between
    into through during before after above below to from up down in out on off over under again
    further then once here there when where why how all any both each few more most other some
    such no nor not only own same so than too very s t can will just don should now"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text)}


def _stem(word: str) -> str:
    """A rough English stemmer (the shape of snowball's common suffix rules)."""
    for suffix, replacement in (("sses", "ss"), ("ies", "y"), ("ing", ""), ("ed", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: len(word) - len(suffix)] + replacement
    return word


def _lexemes(text: str) -> list[str]:
    return [_stem(w.lower()) for w in _WORD.findall(text) if w.lower() not in _STOPWORDS]


def _trigrams(text: str) -> Counter[str]:
    padded = f"  {text.lower()} "
    return Counter(padded[i : i + 3] for i in range(len(padded) - 2))


def similarity(query: str, text: str) -> float:
    """Cosine of the character-trigram counts of the two texts, in [0, 1]."""
    a, b = _trigrams(query), _trigrams(text)
    dot = sum(count * b[gram] for gram, count in a.items())
    norm = math.sqrt(sum(c * c for c in a.values()) * sum(c * c for c in b.values()))
    return dot / norm if norm else 0.0


def _fulltext(
    query: str,
    items: Sequence[T],
    text_of: Callable[[T], str],
    created_of: Callable[[T], datetime],
    limit: int,
) -> list[T]:
    wanted = query.lower()
    newest_first = sorted(range(len(items)), key=lambda i: created_of(items[i]), reverse=True)
    if _SPECIAL.search(query):
        return [items[i] for i in newest_first if wanted in text_of(items[i]).lower()][:limit]
    terms = set(_lexemes(query))
    scored: list[tuple[int, int]] = []
    for order, index in enumerate(newest_first):
        lexemes = _lexemes(text_of(items[index]))
        fts = bool(terms) and terms <= set(lexemes)
        if fts or wanted in text_of(items[index]).lower():
            rank = sum(1 for lexeme in lexemes if lexeme in terms) if fts else 0
            scored.append((-rank, order))
    scored.sort()
    return [items[newest_first[order]] for _, order in scored][:limit]


def _semantic(query: str, items: Sequence[T], text_of: Callable[[T], str], limit: int) -> list[T]:
    order = sorted(range(len(items)), key=lambda i: -similarity(query, text_of(items[i])))
    return [items[i] for i in order][:limit]


def fuse(*ranked: Sequence[T], limit: int, k: int = RRF_K) -> list[T]:
    """Reciprocal Rank Fusion, as Honcho's `reciprocal_rank_fusion` (stable among ties)."""
    scores: dict[int, float] = {}
    first: dict[int, T] = {}
    for ranking in ranked:
        for rank, item in enumerate(ranking, 1):
            key = id(item)
            first.setdefault(key, item)
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    best = sorted(scores, key=lambda key: scores[key], reverse=True)
    return [first[key] for key in best][:limit]


def hybrid(
    query: str,
    items: Sequence[T],
    text_of: Callable[[T], str],
    created_of: Callable[[T], datetime],
    limit: int,
    embedded: Callable[[T], bool] | None = None,
) -> list[T]:
    """A message search's answer: semantic and full-text lists of 2 x limit, fused (see above).
    The semantic list holds only the items `embedded` accepts (the server's vector search
    joins the embeddings' table: an item without one is found by its words only)."""
    vectors = items if embedded is None else [item for item in items if embedded(item)]
    semantic = _semantic(query, vectors, text_of, 2 * limit)
    fulltext = _fulltext(query, items, text_of, created_of, 2 * limit)
    return fuse(semantic, fulltext, limit=limit)


def nearest(
    query: str,
    items: Sequence[T],
    text_of: Callable[[T], str],
    top_k: int,
    max_distance: float | None = None,
) -> list[T]:
    """The `top_k` items nearest the query, none farther than `max_distance` (stable)."""
    scored = [(1.0 - similarity(query, text_of(item)), index) for index, item in enumerate(items)]
    if max_distance is not None:
        scored = [entry for entry in scored if entry[0] <= max_distance]
    scored.sort()
    return [items[index] for _, index in scored][:top_k]


def rank(
    query: str, items: Sequence[T], text_of: Callable[[T], str], *, keep_unmatched: bool = False
) -> list[T]:
    """Items by the number of distinct query words they contain, highest first, then in input
    order; items sharing no word are dropped unless `keep_unmatched` (used where the server's
    dialectic and representation pick evidence, which the emulator only approximates)."""
    wanted = words(query)
    scored: list[tuple[int, int, T]] = []
    for index, item in enumerate(items):
        score = len(wanted & words(text_of(item)))
        if score or keep_unmatched:
            scored.append((-score, index, item))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    return [item for _, _, item in scored]
