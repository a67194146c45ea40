"""Send one batch of messages so that the server holds it once: docs/delivery.md's recipe as
a function, opt-in. Nothing in roncho retries; this sends again only when called, at most
``attempts`` times, and never before it has looked for a batch that may have landed.

Written once, in roncho/aio/delivery.py, for both clients: ``scripts/render_clients.py``
writes roncho/delivery.py from it (``scripts/_unasync.py``). The rules are
``roncho._delivery``'s (sans-IO); this is the loop that does the calls.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .._delivery import (
    DEFAULT_ATTEMPTS,
    DEFAULT_MARKER_KEY,
    DEFAULT_PAUSE,
    FINAL,
    Attempt,
    BatchMismatchError,
    Delivery,
    DeliveryOutcome,
    settle_time,
)
from .._errors import RonchoError
from .._models import Message, MessageCreate, Page
from .._request_checks import MAX_PAGE_SIZE

if TYPE_CHECKING:
    from ._client import AsyncClient

__all__ = ["BatchMismatchError", "Delivery", "DeliveryOutcome", "settle_time", "sync_batch"]


async def sync_batch(
    client: AsyncClient,
    session_id: str,
    batch: Iterable[MessageCreate],
    marker: str,
    *,
    marker_key: str = DEFAULT_MARKER_KEY,
    attempts: int = DEFAULT_ATTEMPTS,
    pause: float = DEFAULT_PAUSE,
    look_first: bool = False,
    deadline: float | None = None,
) -> Delivery:
    """Add ``batch`` to the session once, and say how (a ``Delivery``).

    Every message is sent with ``metadata[marker_key] = marker``: give each batch a marker
    of its own, the same on every call for that batch. Then:

    - a send that is answered ends the call (``"sent"``, or ``"resent"`` after a failure);
    - ``ConfigError``, ``UnauthorizedError`` and ``RedirectError`` are raised at once;
    - after an error with ``request_sent`` false it pauses ``pause`` seconds and sends
      again (nothing can have reached the server);
    - after an error with ``request_sent`` true it waits ``settle_time(client)`` (the
      client's read timeout), then lists the session's messages with the marker: the
      whole batch there is ``"found"`` and not sent again; none there, it sends again;
      anything else raises ``BatchMismatchError``;
    - when no attempt is left, the last send's error is raised, after its look.

    An error of a look is raised as it is; the batch's fate is then unknown, so call again
    with ``look_first=True`` (a look before the first send) and the same marker. So too
    after any error this raised with ``request_sent`` true. ``deadline`` bounds each call
    (send or look), not the whole; the waits are on top.
    """
    started = time.monotonic()
    state = Attempt(client, batch, marker, marker_key, attempts, pause, started)
    if look_first:
        found = state.judge(await _look(client, session_id, state, deadline))
        if found is not None:
            return state.done("found", found, time.monotonic())
    while True:
        state.sends += 1
        try:
            sent = await client.add_messages(session_id, state.batch, deadline=deadline)
        except FINAL:
            raise
        except RonchoError as error:
            state.failed(error)
            if error.request_sent:
                await asyncio.sleep(state.settle)
                state.settled += state.settle
                found = state.judge(await _look(client, session_id, state, deadline))
                if found is not None:
                    return state.done("found", found, time.monotonic())
                if state.sends >= state.attempts:
                    raise
            else:
                if state.sends >= state.attempts:
                    raise
                await asyncio.sleep(state.pause)
            continue
        outcome: DeliveryOutcome = "sent" if state.sends == 1 else "resent"
        return state.done(outcome, sent, time.monotonic())


async def _look(
    client: AsyncClient, session_id: str, state: Attempt, deadline: float | None
) -> Page[Message]:
    """The session's messages that carry the batch's marker, oldest first (one page
    holds a whole batch)."""
    return await client.list_messages(
        session_id, size=MAX_PAGE_SIZE, filters=state.filters, deadline=deadline
    )
