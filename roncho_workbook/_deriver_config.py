"""How the server's deriver is set, as far as a run knows: `DeriverConfig`.

Q3 checks every release it sees against it, Q9 and Q10 say it beside their answers; it is
what the runner was told (``--deriver-flush``, ``--age-gate``, ``--token-gate``), Honcho's
defaults when it was told nothing, or the emulator's own settings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Characters of sample text per token of the gate, for a sync that must pass it at once: the
# sample text counts about 4.5 characters a token in o200k (the emulator's estimate: 4), so
# 8 passes the gate with room to spare (4,096 characters for Honcho's 512 tokens).
CHARS_PER_GATE_TOKEN = 8
# The longest message a sync sends: Honcho refuses more than MAX_MESSAGE_SIZE (25,000).
LONGEST_MESSAGE = 20_000
# A release this much earlier than the age gate cannot be the age gate's doing: the server
# dates a message before our POST returns, and the deriver polls on its own schedule.
AGE_SLACK_SHARE = 0.1
AGE_SLACK_SECONDS = 0.5


@dataclass(frozen=True, slots=True, kw_only=True)
class DeriverConfig:
    """How the server's deriver is set, as far as the run knows.

    ``flush``: DERIVER_FLUSH_ENABLED (batching off). ``age_gate``:
    DERIVER_REPRESENTATION_BATCH_MAX_AGE_SECONDS (0 disables it). ``token_gate``:
    DERIVER_REPRESENTATION_BATCH_WORK_UNIT_TARGET_TOKENS. ``source`` says where the
    settings come from: ``told`` (the run was told them), ``assumed`` (Honcho's defaults,
    the run was told nothing) or ``emulator`` (the emulator was started with them). Nobody
    here can read a real server's configuration, so it is never called "configured".
    """

    flush: bool
    age_gate: float
    token_gate: int = 512
    # Seconds within which an open gate's batch is processed (deriver poll + LLM) once the
    # deriver is warm: about 2 s on the kit's server, which polls at least every 2 s. An
    # upstream deriver backs off to 30 s when idle: raise it there.
    prompt: float = 10.0
    source: str = "told"

    def settings(self) -> str:
        """``Deriver as told: batching on (...)`` and the like: the settings and their source."""
        how = {
            "told": "as told",
            "assumed": "as assumed (Honcho's defaults; the run was not told)",
            "emulator": "as set on the emulator",
        }.get(self.source, f"as {self.source}")
        return f"Deriver {how}: {self.describe()}"

    def describe(self) -> str:
        if self.flush:
            return "batching off (flush on)"
        age = f"age gate {self.age_gate:g}s" if self.age_gate > 0 else "age gate disabled"
        return f"batching on (flush off, token gate {self.token_gate}, {age})"

    def expected(self, tokens: int | None) -> tuple[str, ...]:
        """The gates that may release a lone message of ``tokens`` under this config."""
        if self.flush:
            return ("flush", "tokens")  # both open at once; only the emulator tells them apart
        if tokens is not None and tokens >= self.token_gate:
            return ("tokens",)
        return ("age",) if self.age_gate > 0 else ("not released",)

    @property
    def batching(self) -> bool:
        """Whether a sync below the token gate waits for the age gate (or for ever)."""
        return not self.flush and self.token_gate > 0

    def chars_to_pass(self) -> int:
        """Characters one sender sends in one sync so its batch passes the token gate at
        once, not at the age gate (0: nothing holds it: flush on, or no token gate)."""
        return self.token_gate * CHARS_PER_GATE_TOKEN if self.batching else 0

    def sync_shape(self, messages: int, chars: int, senders: int = 1) -> tuple[int, int]:
        """``(messages, chars per message)`` for a sync of at least ``messages`` messages of
        at least ``chars`` characters, from ``senders`` senders in turn, such that each
        sender's share passes the token gate: a question that is not about the gates must
        not wait for the age gate. Unchanged when nothing holds a batch."""
        need = self.chars_to_pass()
        if need == 0:
            return messages, chars
        count = max(messages, senders * math.ceil(need / LONGEST_MESSAGE))
        per_sender = count // senders  # the fewest messages any one sender gets
        return count, max(chars, math.ceil(need / max(per_sender, 1)))

    def before_age_gate(self, seconds: float) -> bool:
        """True when a release after ``seconds`` came too early to be the age gate's."""
        if self.age_gate <= 0:
            return True
        return seconds < self.age_gate * (1 - AGE_SLACK_SHARE) - AGE_SLACK_SECONDS
