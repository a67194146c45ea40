"""The emulator's constructor options, checked once."""

from __future__ import annotations

from dataclasses import dataclass

from ._profiles import DEFAULT_VERSION, Profile, profile_for


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """Timings and switches of one emulator (see `FakeHoncho` for each field's meaning)."""

    auth: bool = False
    deriver_delay: float = 0.05
    enqueue_delay: float = 0.0
    batch_tokens: int = 512
    batch_max_age: float = 1800.0
    flush: bool = False
    purge_delay: float = 0.2
    chat_delay: float = 0.0
    stream_chunk_delay: float = 0.0
    # None: as the version profile says.
    workspace_chat: bool | None = None
    version: str = DEFAULT_VERSION

    @property
    def profile(self) -> Profile:
        return profile_for(self.version)

    @property
    def serves_workspace_chat(self) -> bool:
        if self.workspace_chat is None:
            return self.profile.workspace_chat
        return self.workspace_chat

    def __post_init__(self) -> None:
        profile_for(self.version)  # an unknown version fails here, before any socket opens
        for name in (
            "deriver_delay",
            "enqueue_delay",
            "batch_max_age",
            "purge_delay",
            "chat_delay",
            "stream_chunk_delay",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValueError(f"{name} must be a number >= 0, got {value!r}")
        if (
            isinstance(self.batch_tokens, bool)
            or not isinstance(self.batch_tokens, int)
            or self.batch_tokens < 0
        ):
            raise ValueError(f"batch_tokens must be an int >= 0, got {self.batch_tokens!r}")
