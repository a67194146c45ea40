"""The emulator's options, each declared once: name, default, kind, check and help text.

`FakeHoncho(...)` takes each field as a keyword of its own (written out in its signature,
so that editors and type checkers see them) and builds an `Options` from them; server mode
(`fake-honcho`) makes one command-line flag per field from the same declaration
(`flag_specs`). So a new option is one field here and its keyword in `FakeHoncho.__init__`
(tests/emulator/test_options_signature.py fails until both agree). A field's `kind` says how
it is checked and how its flag reads: `switch` (a bool flag, True or False), `maybe`
(`--x/--no-x`, None = as the version says),
`seconds` (a number >= 0), `count` (an int >= 0), `version` (a known profile name),
`text` (a non-empty string or None) and `choice` (one of `choices`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from ._profiles import DEFAULT_VERSION, Profile, profile_for
from ._tokens import TOKEN_MODES, resolve

# The flag groups of `fake-honcho --help`, in the order they are shown.
DERIVER_MODES = ("auto", "manual")
GROUPS = (
    "where it listens",
    "authentication",
    "server behaviour",
    "deriver (background reasoning queue)",
    "other delays",
    "webhooks",
)


def _option(
    default: Any, kind: str, group: str, text: str, *, repr: bool = True, **extra: Any
) -> Any:
    meta = {"kind": kind, "group": group, "help": text, **extra}
    return field(default=default, repr=repr, metadata=meta)


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """Timings and switches of one emulator; each field's help text says what it does."""

    allow_remote: bool = _option(
        False,
        "switch",
        GROUPS[0],
        "allow a --host that is not a loopback address, and webhook deliveries to addresses "
        "that are not loopback (the emulator has no real security)",
    )
    auth: bool = _option(False, "switch", GROUPS[1], "require keys (AUTH_USE_AUTH=true)")
    refuse_expiring_keys: bool = _option(
        False,
        "switch",
        GROUPS[1],
        "copy a 3.0.12 bug: refuse every key made with expires_at as 401 Invalid JWT, whatever "
        "its expiry (the server stores exp as a string PyJWT cannot read); off, an expiry is "
        "honoured as the route promises",
    )
    version: str = _option(
        DEFAULT_VERSION,
        "version",
        GROUPS[2],
        "the Honcho release to imitate where releases differ",
        flag="--honcho-version",
    )
    workspace_chat: bool | None = _option(
        None,
        "maybe",
        GROUPS[2],
        "serve POST /v3/workspaces/{w}/chat or answer 404 there (default: as the version does)",
    )
    tokens: str = _option(
        "auto",
        "choice",
        GROUPS[2],
        "how token_count and context budgets are counted: exact (tiktoken o200k_base, as the "
        "server; needs the roncho[tokens] extra), estimate (standard library), or auto (exact "
        "when the extra is installed)",
        choices=TOKEN_MODES,
    )
    deriver: str = _option(
        "auto",
        "choice",
        GROUPS[2],
        "auto: the deriver works on its own thread; manual: nothing is derived until a step "
        "(fake.deriver.step() or POST /_fake/deriver/step)",
        choices=DERIVER_MODES,
    )
    flush: bool = _option(
        False, "switch", GROUPS[3], "release every batch at once (DERIVER_FLUSH_ENABLED)"
    )
    batch_tokens: int = _option(
        512, "count", GROUPS[3], "token target of the batching gate, 0 turns the gate off"
    )
    batch_max_age: float = _option(
        1800.0, "seconds", GROUPS[3], "seconds after which a waiting batch is released anyway"
    )
    deriver_delay: float = _option(
        0.05, "seconds", GROUPS[3], "seconds from a batch being claimed to its conclusions"
    )
    enqueue_delay: float = _option(
        0.0, "seconds", GROUPS[3], "seconds before new queue items become visible"
    )
    purge_delay: float = _option(
        0.2, "seconds", GROUPS[4], "seconds from an accepted session/workspace delete to its purge"
    )
    chat_delay: float = _option(0.0, "seconds", GROUPS[4], "seconds a chat takes before answering")
    stream_chunk_delay: float = _option(
        0.0, "seconds", GROUPS[4], "seconds between streamed chat chunks"
    )
    webhook_secret: str | None = _option(
        None,
        "text",
        GROUPS[5],
        "sign webhook deliveries with this secret (WEBHOOK_SECRET); without one nothing is "
        "sent, as on the server",
        repr=False,  # a secret: never in a repr, a log or /_fake/info
    )

    @property
    def profile(self) -> Profile:
        return profile_for(self.version)

    @property
    def serves_workspace_chat(self) -> bool:
        if self.workspace_chat is None:
            return self.profile.workspace_chat
        return self.workspace_chat

    @property
    def manual_deriver(self) -> bool:
        return self.deriver == "manual"

    @property
    def token_counting(self) -> str:
        """`"exact"` or `"estimate"`: what `tokens` means on this installation."""
        return resolve(self.tokens)

    def __post_init__(self) -> None:
        for spec in fields(self):
            _check(spec.name, spec.metadata, getattr(self, spec.name))
        resolve(self.tokens)  # "exact" without the extra fails here, not at the first count


def option_names() -> list[str]:
    """The options' names, in their order (what `FakeHoncho` takes as keywords)."""
    return [spec.name for spec in fields(Options)]


def _check(name: str, meta: Any, value: object) -> None:
    kind = meta["kind"]
    if kind == "switch":
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be True or False, got {value!r}")
    elif kind == "maybe":
        if value is not None and not isinstance(value, bool):
            raise ValueError(f"{name} must be True, False or None, got {value!r}")
    elif kind == "version":
        profile_for(value)  # type: ignore[arg-type]  # an unknown version fails here
    elif kind == "seconds":
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ValueError(f"{name} must be a number >= 0, got {value!r}")
    elif kind == "count":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be an int >= 0, got {value!r}")
    elif kind == "text":
        if value is not None and (not isinstance(value, str) or not value):
            raise ValueError(f"{name} must be a non-empty string or None")
    elif kind == "choice" and value not in meta["choices"]:
        known = ", ".join(repr(choice) for choice in meta["choices"])
        raise ValueError(f"{name} must be one of {known}, got {value!r}")


@dataclass(frozen=True, slots=True)
class FlagSpec:
    """One `fake-honcho` flag made from an option: what argparse needs to add it."""

    option: str
    flag: str
    kind: str
    group: str
    help: str
    default: Any
    choices: tuple[str, ...] = ()


def flag_specs() -> list[FlagSpec]:
    """Every option as a command-line flag (`deriver_delay` -> `--deriver-delay`)."""
    specs = []
    for spec in fields(Options):
        meta = spec.metadata
        choices: tuple[str, ...] = tuple(meta.get("choices", ()))
        specs.append(
            FlagSpec(
                option=spec.name,
                flag=meta.get("flag", "--" + spec.name.replace("_", "-")),
                kind=meta["kind"],
                group=meta["group"],
                help=meta["help"],
                default=spec.default,
                choices=choices,
            )
        )
    return specs
