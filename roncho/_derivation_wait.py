# GENERATED WHOLE from roncho/aio/_derivation_wait.py by scripts/render_clients.py
# (scripts/_unasync.py takes async and await out): edit that module, not this one.
"""The loop of ``wait_for_derivation``: the calls and pauses the deriver wait's rules ask for.

An add-on beside the call path, as those rules are (``roncho._derivation``, sans-IO): the
client's method loads this on the first wait, so ``import roncho`` loads neither. Written
once, in roncho/aio/_derivation_wait.py, for both clients: ``scripts/render_clients.py``
writes roncho/_derivation_wait.py from it (``scripts/_unasync.py``).
"""

from __future__ import annotations

import time
from typing import Protocol

from ._derivation import DerivationOutcome, DerivationWait, DeriverGates, Pause
from ._errors import DeadlineExceeded
from ._models import QueueStatus


class QueueReader(Protocol):
    """What the wait needs of its client (named so, not imported: the client imports this)."""

    def queue_status(
        self, *, session_id: str | None = None, deadline: float | None = None
    ) -> QueueStatus: ...


def wait_for_derivation(
    client: QueueReader,
    session_id: str,
    since: QueueStatus,
    *,
    grace: float,
    interval: float,
    gates: DeriverGates | None,
    deadline: float,
) -> DerivationOutcome:
    """What ``client.wait_for_derivation`` returns (its docstring says how it waits)."""
    wait = DerivationWait(
        session_id,
        since,
        grace=grace,
        interval=interval,
        gates=gates,
        deadline=deadline,
        now=time.monotonic(),
    )
    while True:
        step = wait.next(time.monotonic())
        if isinstance(step, DerivationOutcome):
            return step
        if isinstance(step, Pause):
            time.sleep(step.seconds)
            continue
        try:
            status = client.queue_status(session_id=step.session_id, deadline=step.deadline)
        except DeadlineExceeded as error:
            wait.ran_out(error)
            continue
        wait.received(step, status)
