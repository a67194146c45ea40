"""Every wire test runs twice: against roncho.Client and against roncho.aio.AsyncClient.

For the "asyncio" run, ``roncho.Client`` is the blocking facade of tests/both_clients.py
over an AsyncClient, so one body of test code asserts the same for both clients. A test
that reaches into the blocking transport itself says so with
``@pytest.mark.blocking_only("why")`` and runs once.

An "asyncio" run that never makes an AsyncClient claims coverage it does not have (a client
class bound before the swap, a helper only the blocking client has): every AsyncClient made
during the run is counted, and a run that passes having made none fails.
"""

from __future__ import annotations

import functools
from collections.abc import Generator, Iterator
from typing import Any

import pytest
from both_clients import BlockingAsync, Loop

import roncho
from roncho.aio import AsyncClient

ASYNC_CLIENTS_MADE = pytest.StashKey[list[int]]()


@pytest.fixture(params=["blocking", "asyncio"], autouse=True)
def client_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if request.param == "blocking":
        yield "blocking"
        return
    marker = request.node.get_closest_marker("blocking_only")
    if marker is not None:
        pytest.skip(f"blocking client only: {marker.args[0]}")
    made = request.node.stash.setdefault(ASYNC_CLIENTS_MADE, [0])
    original_init = AsyncClient.__init__

    @functools.wraps(original_init)
    def counted_init(self: AsyncClient, *args: Any, **kwargs: Any) -> None:
        made[0] += 1
        original_init(self, *args, **kwargs)

    monkeypatch.setattr(AsyncClient, "__init__", counted_init)
    loop = Loop()
    monkeypatch.setattr(BlockingAsync, "loop", loop, raising=False)
    monkeypatch.setattr(roncho, "Client", BlockingAsync)
    try:
        yield "asyncio"
    finally:
        loop.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """A passing "asyncio" run must have made an AsyncClient (a failing one says enough)."""
    yield
    made = item.stash.get(ASYNC_CLIENTS_MADE, None)
    if made is not None and made[0] == 0:
        pytest.fail(
            "this asyncio run made no AsyncClient, so it tested the blocking client again: "
            "use roncho.Client as the fixture leaves it at call time (not a class bound at "
            "import), or mark the test blocking_only with why",
            pytrace=False,
        )
