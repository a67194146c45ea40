"""Token counts close to tiktoken `o200k_base` (what Honcho 3.0.12 counts with), stdlib only.

Honcho stores `len(o200k_base.encode(content))` as a message's `token_count` (0 for empty
text), and its deriver's 512-token batching gate adds those up. The emulator cannot ship the
tokenizer's 200k-entry vocabulary, so it counts in two steps:

1. It splits the text exactly as o200k_base's pre-tokenizer does (its regular expression,
   run here on a copy of the text where every non-ASCII character is replaced by a stand-in of
   its Unicode class, since `re` has no `\\p{...}` classes).
2. It estimates each piece's BPE tokens from its class and length: a word of up to 16 ASCII
   letters is one token (the vocabulary has nearly every common English word), longer ones
   about one per 5 letters; runs of punctuation about one per 2 characters beyond 3; digits
   are split in threes by the pre-tokenizer already; other scripts and symbols by their UTF-8
   length.

On the corpus of `tests/emulator/data/token_counts.json` (recorded from a real 3.0.12) the
error is stated in docs/emulator.md; `estimate_tokens` of `_common` calls `count`.
"""

from __future__ import annotations

import math
import re
import unicodedata

# Stand-ins for non-ASCII characters, by Unicode class (see `_code`).
_UPPER = "A"  # Lu, Lt
_LOWER = "a"  # Ll
_LETTER_OTHER = "\x01"  # Lm, Lo: in both the upper and the lower class, and a letter
_MARK = "\x02"  # M*: in both classes, but not a letter
_DIGIT = "0"  # N*
_SPACE = "\t"  # other Unicode whitespace (not " ", not a line break)
_OTHER = "!"  # everything else (symbols, emoji, punctuation)

_U = "A-Z\x01\x02"
_L = "a-z\x01\x02"
_LETTERS_DIGITS = "A-Za-z\x010-9"
_CONTRACTION = "(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
# o200k_base's pattern, with \p{...} classes written for the coded text.
_PIECES = re.compile(
    f"[^\\r\\n{_LETTERS_DIGITS}]?[{_U}]*[{_L}]+{_CONTRACTION}"
    f"|[^\\r\\n{_LETTERS_DIGITS}]?[{_U}]+[{_L}]*{_CONTRACTION}"
    "|[0-9]{1,3}"
    f"| ?[^\\s{_LETTERS_DIGITS}]+[\\r\\n/]*"
    "|\\s*[\\r\\n]+"
    "|\\s+(?!\\S)"
    "|\\s+"
)
_LONGEST_WORD = 16
_SPLIT_PER_LETTER = 0.04
# Letters of other alphabets (accented Latin, Cyrillic, Greek, Arabic...) per token.
_LETTERS_PER_TOKEN = 4.5


def _code(char: str) -> str:
    if char.isascii():
        return char
    category = unicodedata.category(char)
    if category in ("Lu", "Lt"):
        return _UPPER
    if category == "Ll":
        return _LOWER
    if category in ("Lm", "Lo"):
        return _LETTER_OTHER
    if category.startswith("M"):
        return _MARK
    if category.startswith("N"):
        return _DIGIT
    if char.isspace():
        return "\n" if char in "\x85\u2028\u2029" else _SPACE
    return _OTHER


def pieces(text: str) -> list[str]:
    """`text` split as o200k_base's pre-tokenizer splits it."""
    coded = "".join(_code(char) for char in text)
    return [text[m.start() : m.end()] for m in _PIECES.finditer(coded)]


_ASCII_WORD = re.compile(r"[^A-Za-z0-9]?([A-Za-z]+)('[A-Za-z]{1,2})?")


def _piece_tokens(piece: str) -> float:
    """The expected BPE tokens of one piece (fractional: a message's pieces are summed)."""
    if piece.isascii():
        word = _ASCII_WORD.fullmatch(piece)
        if word:
            size = len(word.group(1))
            # Longer words are more often split in two (rarer words, identifiers).
            tokens = 1 + _SPLIT_PER_LETTER * max(0, size - 5)
            if size > _LONGEST_WORD:
                tokens = size / 5
            return tokens + bool(word.group(2))
        core = piece.lstrip(" ")
        if core.isdigit() or piece.isspace():
            return 1
        return 1 if len(piece) <= 3 else math.ceil(len(piece) / 2)
    return _mixed_tokens(piece)


def _mixed_tokens(piece: str) -> float:
    """A piece with non-ASCII characters: by script and UTF-8 length (fitted on the corpus)."""
    letters = wide = 0
    cost = 0.0
    for char in piece.lstrip(" "):
        letter = unicodedata.category(char).startswith("L")
        if letter and unicodedata.east_asian_width(char) in "WF":
            wide += 1
        elif letter:
            letters += 1
        elif char.isascii():
            cost += 0.5
        else:
            cost += 1.0 if len(char.encode("utf-8")) <= 3 else 1.5
    cost += 0.7 * wide + letters / _LETTERS_PER_TOKEN
    return max(1.0, cost)


def count(text: str) -> int:
    """The estimated o200k_base token count of `text` (0 for empty text, as Honcho)."""
    if not text:
        return 0
    return max(1, round(sum(_piece_tokens(piece) for piece in pieces(text))))
