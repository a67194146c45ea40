"""The real server's deriver as a comparison was told it, and when a wait for it may stop.

The differential and the two SDK flows run the same calls against a real server and against
the emulator and compare what comes back. What the deriver derived depends on its settings:
with batching on (Honcho's default) a short turn is held for up to 30 minutes. So the
emulator side is started with the settings the real side was told, and a wait for the
deriver ends either "drained" (nothing pending or in progress) or "held" (work pending,
nothing in progress, for a whole deriver look: a batch below the token gate), never at its
bound on a setting.

scripts/test-real.sh says the settings in `RONCHO_LIVE_DERIVER`, as space-separated
`key=value` words: `flush=on` (the kit's default, and the meaning of no variable at all), or
`flush=off age=SECONDS tokens=TOKENS look=SECONDS`. Standard library only: the Python SDK's
flow imports this from the SDK's own venv.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

VARIABLE = "RONCHO_LIVE_DERIVER"
# Honcho's defaults (src/config.py DeriverSettings): the age gate, the token gate, and the
# longest sleep between two looks for work (POLLING_SLEEP_MAX_INTERVAL_SECONDS 30 s, scattered
# by POLLING_JITTER_RATIO 0.5).
HONCHO_AGE_GATE = 1800.0
HONCHO_TOKEN_GATE = 512
HONCHO_LOOK = 45.0
# The emulator's deriver looks at once: a second is room enough on a loaded machine.
EMULATOR_LOOK = 1.0


@dataclass(frozen=True)
class Deriver:
    """How a server's deriver is set, as far as a comparison knows."""

    flush: bool = True
    age_gate: float = HONCHO_AGE_GATE
    token_gate: int = HONCHO_TOKEN_GATE
    look: float = HONCHO_LOOK

    def emulator_options(self) -> dict[str, object]:
        """FakeHoncho's keyword arguments for a deriver set the same way."""
        if self.flush:
            return {"flush": True}
        return {
            "flush": False,
            "batch_tokens": self.token_gate,
            "batch_max_age": self.age_gate if self.age_gate > 0 else None,
        }

    def words(self) -> str:
        if self.flush:
            return "flush on"
        return f"flush off, age gate {self.age_gate:g}s, token gate {self.token_gate}"


def told(environ: dict[str, str] | None = None) -> Deriver:
    """The settings in `RONCHO_LIVE_DERIVER` (flush on without it); a bad word is an error."""
    text = (environ if environ is not None else os.environ).get(VARIABLE, "").strip()
    if not text:
        return Deriver()
    words = [word.partition("=") for word in text.split()]
    fields = {key: value for key, _, value in words}
    unknown = set(fields) - {"flush", "age", "tokens", "look"}
    if unknown or not all(sep for _, sep, _ in words) or fields.get("flush") not in ("on", "off"):
        raise ValueError(f"{VARIABLE}={text!r}: expected flush=on|off [age= tokens= look=]")
    return Deriver(
        flush=fields["flush"] == "on",
        age_gate=float(fields.get("age", HONCHO_AGE_GATE)),
        token_gate=int(fields.get("tokens", HONCHO_TOKEN_GATE)),
        look=float(fields.get("look", HONCHO_LOOK)),
    )


class Watch:
    """One wait for the deriver: feed it each queue read; it says when the wait may end.

    ``look`` is the waited-on server's deriver look (`Deriver.look` for the real one,
    `EMULATOR_LOOK` for the emulator); 0 for a flushing server, where pending work is
    always about to be taken.
    """

    def __init__(self, look: float) -> None:
        self.look = look
        self.quiet_since: float | None = None

    def see(self, total: int, pending: int, in_progress: int, now: float) -> str | None:
        """The wait's end, "drained" or "held", or None: go on waiting."""
        if total > 0 and not pending and not in_progress:
            return "drained"
        if not self.look or not pending or in_progress:
            self.quiet_since = None
            return None
        if self.quiet_since is None:
            self.quiet_since = now
        return "held" if now - self.quiet_since >= self.look else None
