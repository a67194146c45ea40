"""The two clocks every wait obeys, as a pure object: the caller passes the time.

``read_timeout`` is idle time ("no byte for N seconds"); the optional total ``deadline``
bounds the whole call. Both executors (blocking and asyncio) ask ``wait_for`` before each
connect, send or read how long they may wait, and whether it is the deadline that binds.
"""

from __future__ import annotations

from typing import NamedTuple

from ._errors import DeadlineExceeded


class Limits(NamedTuple):
    """The caller's limits, fixed for the life of a client."""

    connect_timeout: float
    read_timeout: float
    max_response_bytes: int


class Deadline:
    __slots__ = ("ends_at", "read_timeout", "total")

    def __init__(self, read_timeout: float, total: float | None, now: float) -> None:
        self.read_timeout = read_timeout
        self.total = total
        self.ends_at = None if total is None else now + total

    def wait_for(self, limit: float, now: float) -> tuple[float, bool]:
        """Seconds to wait now (at most ``limit``), and whether the deadline binds."""
        if self.ends_at is None:
            return limit, False
        left = self.ends_at - now
        if left <= 0:
            raise DeadlineExceeded(f"the call's deadline of {self.total} s passed")
        return (left, True) if left < limit else (limit, False)

    def expired(self, what: str, doing: str, request_sent: bool) -> DeadlineExceeded:
        return DeadlineExceeded(
            f"{what}: the call's deadline of {self.total} s passed while {doing}",
            request_sent=request_sent,
        )
