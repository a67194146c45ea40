"""Every wire test runs twice: against roncho.Client and against roncho.aio.AsyncClient.

For the "asyncio" run, ``roncho.Client`` is the blocking facade of tests/both_clients.py
over an AsyncClient, so one body of test code asserts the same for both clients. A test
that reaches into the blocking transport itself says so with
``@pytest.mark.blocking_only("why")`` and runs once.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from both_clients import BlockingAsync, Loop

import roncho


@pytest.fixture(params=["blocking", "asyncio"], autouse=True)
def client_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if request.param == "blocking":
        yield "blocking"
        return
    marker = request.node.get_closest_marker("blocking_only")
    if marker is not None:
        pytest.skip(f"blocking client only: {marker.args[0]}")
    loop = Loop()
    monkeypatch.setattr(BlockingAsync, "loop", loop, raising=False)
    monkeypatch.setattr(roncho, "Client", BlockingAsync)
    try:
        yield "asyncio"
    finally:
        loop.close()
