"""Data and bounds of the live suite: memoryd-like turns, the ids it uses, every wait.

Everything here is made up for the suite; nothing is read from the environment.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import roncho
from roncho.testing import FakeHoncho

T = TypeVar("T")

# Per-address connect timeout and idle read timeout of the suite's clients (seconds).
CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 30.0
# The dialectic answers in a few seconds at "minimal" and 30 to 50 s at higher levels
# (reference O12): the chat client gets a long idle timeout and each chat a total deadline.
CHAT_READ_TIMEOUT = 180.0
CHAT_DEADLINE = 300.0
# pytest-timeout bound for a test that talks to the dialectic (more than one chat).
CHAT_TEST_TIMEOUT = 700
# How long to wait for the queue to show the messages' work (the real server enqueues
# after the response; 0.1 to 0.25 s on loopback 3.0.12, reference §7) and for search to
# find a fresh message (full text is immediate; embeddings take "a few seconds").
QUEUE_WAIT = 30.0
SEARCH_WAIT = 20.0
POLL_INTERVAL = 0.25
# Honcho's default token gate (DERIVER_REPRESENTATION_BATCH_WORK_UNIT_TARGET_TOKENS): a server
# that batches, as Honcho does by default, holds a smaller batch for up to 30 minutes (its age
# gate). A test that waits for the deriver and is not about its gates sends a message past
# it (`past_the_gate`), so it runs alike on a flushing and on a batching server.
HONCHO_TOKEN_GATE = 512
_FILLER = (
    "the afternoon was spent sorting old letters from the attic into boxes by year while the "
    "radio played and the kettle boiled twice"
)


def past_the_gate(sentence: str, gate: int = HONCHO_TOKEN_GATE) -> str:
    """``sentence``, then a second one of plain words to about 8 characters per gate token
    (4,096 for Honcho's 512): o200k_base counts such text at about 4.5 characters a token,
    so the message alone releases its batch."""
    filler = _FILLER.split()
    words: list[str] = []
    length = len(sentence)
    while length < gate * 8:
        word = filler[len(words) % len(filler)]
        words.append(word)
        length += len(word) + 1
    return f"{sentence} {' '.join(words).capitalize()}."

USER = "memoryd-user"
ASSISTANT = "memoryd-assistant"
SESSION_PREFIX = "memoryd-conv"
REASONING_LEVEL = "minimal"

# (speaker, content, metadata): one conversation as memoryd would sync it.
TURNS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    (
        USER,
        "I'm planning a trip to Lisbon in May with my sister; we both love seafood.",
        {"turn": 1, "role": "user", "source": "memoryd", "channel": "cli"},
    ),
    (
        ASSISTANT,
        "Lisbon in May is lovely. Would you like restaurant ideas in Alfama or Cais do Sodre?",
        {"turn": 2, "role": "assistant", "source": "memoryd", "channel": "cli"},
    ),
    (
        USER,
        "Alfama please. Also I'm allergic to peanuts, so keep that in mind.",
        {"turn": 3, "role": "user", "source": "memoryd", "channel": "cli", "tags": ["health"]},
    ),
    (
        ASSISTANT,
        "Noted: no peanuts. I'll look for grilled sardine places near the Se cathedral.",
        {"turn": 4, "role": "assistant", "source": "memoryd", "channel": "cli"},
    ),
    (
        USER,
        "Great. We land on the 12th and leave on the 18th, staying near Rossio.",
        {"turn": 5, "role": "user", "source": "memoryd", "channel": "cli", "tz": "Europe/Lisbon"},
    ),
)
USER_TURNS = sum(1 for speaker, _, _ in TURNS if speaker == USER)
CONCLUSIONS: tuple[str, ...] = (
    "The user is allergic to peanuts.",
    "The user is travelling to Lisbon in May with their sister.",
)
SEARCH_WORD = "Lisbon"

# Raw keys the server's objects carry (reference §3 and §7); the suite checks the raw JSON,
# since roncho's models ignore keys they do not use.
WORKSPACE_KEYS = {"id", "metadata", "configuration", "created_at"}
PEER_KEYS = {"id", "workspace_id", "metadata", "configuration", "created_at"}
SESSION_KEYS = {"id", "is_active", "workspace_id", "metadata", "configuration", "created_at"}
MESSAGE_KEYS = {
    "id", "content", "peer_id", "session_id", "metadata", "created_at", "workspace_id",
    "token_count",
}  # fmt: skip
CONCLUSION_KEYS = {"id", "content", "observer_id", "observed_id", "session_id", "created_at"}
PAGE_KEYS = {"items", "total", "page", "size", "pages"}
QUEUE_KEYS = {
    "total_work_units", "completed_work_units", "in_progress_work_units", "pending_work_units",
}  # fmt: skip


@dataclass
class World:
    """What the suite put into its scratch workspace, shared by the tests of one target."""

    client: roncho.Client
    session: str
    messages: tuple[roncho.Message, ...] = ()
    conclusions: tuple[roncho.Conclusion, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def user_messages(self) -> list[roncho.Message]:
        return [m for m in self.messages if m.peer_id == USER]


def wait_until(
    probe: Callable[[], T],
    done: Callable[[T], bool],
    timeout: float,
    interval: float = POLL_INTERVAL,
) -> T:
    """Call ``probe`` until ``done`` holds for its result or ``timeout`` passes; last result."""
    give_up = time.monotonic() + timeout
    while True:
        result = probe()
        if done(result) or time.monotonic() >= give_up:
            return result
        time.sleep(interval)


def keys_of(value: object) -> set[str]:
    assert isinstance(value, dict), f"expected a JSON object, got {type(value).__name__}"
    return set(value)


def has_keys(value: object, required: set[str]) -> bool:
    return isinstance(value, dict) and required <= set(value)


@dataclass
class Target:
    """Where one variant of the suite runs."""

    name: str
    kind: str  # "live" or "emulator"
    url: str
    key: str | None
    label: str
    auth: bool | None  # None: not known until probed (a real server)
    fake: FakeHoncho | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def client(self, workspace: str, **options: Any) -> roncho.Client:
        return roncho.Client(
            self.url,
            workspace,
            api_key=options.pop("api_key", self.key),
            connect_timeout=CONNECT_TIMEOUT,
            read_timeout=options.pop("read_timeout", READ_TIMEOUT),
        )
