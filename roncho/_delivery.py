"""Delivering one batch of messages once, sans-IO: the rules of docs/delivery.md's recipe.

Honcho has no idempotency key, and a write whose answer was lost may have been stored.
``sync_batch`` (``roncho.delivery``, and ``roncho.aio.delivery`` for the asyncio client)
tags every message of a batch with the caller's marker, sends it, and after an error that
may have reached the server waits for a write still in progress to land, then looks for
the marker before sending again. This module holds what both loops share and no I/O: the
checks, the stamped batch, how long to wait (``settle_time``), what a look means
(``Attempt.judge``) and the record of what was done (``Delivery``).

Nothing here retries on its own: a loop runs only when the caller calls ``sync_batch``,
and it sends at most ``attempts`` times.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal

from ._checks import check_positive_int, check_timeout
from ._client_core import ClientCore
from ._errors import ConfigError, RedirectError, RonchoError, UnauthorizedError
from ._models import Message, MessageCreate, Page
from ._record import Record, store
from ._request_checks import MAX_BATCH

__all__ = ["Attempt", "BatchMismatchError", "Delivery", "DeliveryOutcome", "settle_time"]

DeliveryOutcome = Literal["sent", "found", "resent"]

# Errors that sending again cannot fix: a bad argument or a read-only client (nothing was
# sent), a key the server refuses, a redirect roncho will not follow. They end the call.
FINAL: Final = (ConfigError, UnauthorizedError, RedirectError)
DEFAULT_MARKER_KEY: Final = "sync_id"
DEFAULT_ATTEMPTS: Final = 3
# The pause before sending again after an error that left no byte of the request in this
# process (a refused connection): it cannot store anything twice, so it is a matter of
# load only, not of correctness. One second, as a server restarting takes that at least.
DEFAULT_PAUSE: Final = 1.0


def settle_time(client: ClientCore) -> float:
    """How long to wait, after a write failed with ``request_sent`` true, before looking.

    The client's read timeout: the longest silence the caller accepts from a live server.
    The attempt failed no sooner than the request left; a write still running then has
    had, by the time of the look, the whole time the attempt waited plus a whole read
    timeout more. A server that stores the batch later than that kept silent on it longer
    than the caller's own setting allows a live server, and may still store it twice.
    """
    return client._timeouts.read


class Delivery(Record):
    """What ``sync_batch`` did with one batch. ``outcome`` is one of:

    - ``"sent"``: the first send was answered; ``messages`` is the server's answer;
    - ``"found"``: a send failed in a way that may have reached the server (or the caller
      asked to look first), and a look found the whole batch under its marker: it was not
      sent again; ``messages`` are the stored ones, oldest first;
    - ``"resent"``: an earlier send failed and did not land (``request_sent`` false, or a
      look after the settle time found nothing), and a later send was answered.
    """

    __slots__ = ("outcome", "messages", "attempts", "looks", "errors", "settled", "elapsed")  # noqa: RUF023

    outcome: DeliveryOutcome
    messages: tuple[Message, ...]
    attempts: int
    """Sends made (0 when a first look found the batch)."""
    looks: int
    """Looks for the marker made."""
    errors: tuple[str, ...]
    """The error class of each failed send, in order (``"ReadTimeout"``)."""
    settled: float
    """Seconds waited for a write that might still land (``settle_time`` per wait)."""
    elapsed: float
    """Seconds the whole call took."""

    def __init__(
        self,
        *,
        outcome: DeliveryOutcome,
        messages: tuple[Message, ...],
        attempts: int,
        looks: int,
        errors: tuple[str, ...],
        settled: float,
        elapsed: float,
    ) -> None:
        store(self, "outcome", outcome)
        store(self, "messages", messages)
        store(self, "attempts", attempts)
        store(self, "looks", looks)
        store(self, "errors", errors)
        store(self, "settled", settled)
        store(self, "elapsed", elapsed)


class BatchMismatchError(RonchoError):
    """A look found the marker on messages that are not the batch, whole and once.

    ``held`` messages carry the marker where the batch has ``expected``: fewer means the
    server stored part of one request, more that it was stored twice (a write that landed
    later than the settle time) or the marker was used for another batch; the same count
    with other contents means the marker was reused. Nothing is sent after it: the caller
    decides. Only counts are in the message (no content, no marker).
    """

    def __init__(self, held: int, expected: int, *, same_contents: bool) -> None:
        self.held = held
        self.expected = expected
        what = "other contents" if held == expected and not same_contents else "not once"
        super().__init__(
            f"{held} messages carry this batch's marker where the batch has {expected} "
            f"({what}); not sent again",
            request_sent=True,
        )


class Attempt:
    """One ``sync_batch`` call's state: its checked arguments, the stamped batch, and the
    counts its record reports. The loops ask it what a look means and build the record."""

    __slots__ = (
        "attempts",
        "batch",
        "errors",
        "filters",
        "looks",
        "pause",
        "sends",
        "settle",
        "settled",
        "started",
    )

    def __init__(
        self,
        client: ClientCore,
        batch: Iterable[MessageCreate],
        marker: str,
        marker_key: str,
        attempts: int,
        pause: float,
        started: float,
    ) -> None:
        if not isinstance(marker, str) or not marker:
            raise ConfigError("marker must be a non-empty string, unique to the batch")
        if not isinstance(marker_key, str) or not marker_key:
            raise ConfigError("marker_key must be a non-empty string")
        items = list(batch) if not isinstance(batch, (str, bytes, Mapping)) else None
        if items is None or not all(isinstance(m, MessageCreate) for m in items):
            raise ConfigError("batch must be an iterable of roncho.MessageCreate")
        if not 1 <= len(items) <= MAX_BATCH:
            raise ConfigError(f"batch must hold 1 to {MAX_BATCH} messages, got {len(items)}")
        self.attempts = check_positive_int(attempts, "attempts")
        self.pause = 0.0 if pause == 0 else check_timeout(pause, "pause")
        self.batch = [m.replace(metadata={**(m.metadata or {}), marker_key: marker}) for m in items]
        self.filters: dict[str, Any] = {"metadata": {marker_key: marker}}
        self.settle = settle_time(client)
        self.started = started
        self.sends = 0
        self.looks = 0
        self.settled = 0.0
        self.errors: list[str] = []

    def failed(self, error: RonchoError) -> None:
        self.errors.append(type(error).__name__)

    def judge(self, page: Page[Message]) -> tuple[Message, ...] | None:
        """What a look found: the whole batch (its messages), nothing (None), or anything
        else (``BatchMismatchError``)."""
        self.looks += 1
        if page.total == 0 and not page.items:
            return None
        wanted = [(m.peer_id, m.content) for m in self.batch]
        same = [(m.peer_id, m.content) for m in page.items] == wanted
        if page.total != len(self.batch) or not same:
            raise BatchMismatchError(page.total, len(self.batch), same_contents=same)
        return page.items

    def done(self, outcome: DeliveryOutcome, messages: tuple[Message, ...], now: float) -> Delivery:
        return Delivery(
            outcome=outcome,
            messages=messages,
            attempts=self.sends,
            looks=self.looks,
            errors=tuple(self.errors),
            settled=self.settled,
            elapsed=now - self.started,
        )
