"""The asyncio client looks a host name up off the event loop (a thread of the loop's
executor, as every asyncio lookup is), so a slow resolver never stalls the other tasks;
an IP literal needs no lookup. The resolver is replaced (``roncho._network.resolve``, the
tests' seam), so no real name service is asked."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

import pytest
from rawserver import RawServer, reply

import roncho._network
from roncho.aio import AsyncClient

pytestmark = pytest.mark.timeout(30)


def test_a_host_name_is_looked_up_off_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    looked_up_on: list[threading.Thread] = []

    with RawServer([reply(200, {"status": "ok"})]) as server:

        def slow_resolve(host: str, port: int) -> list[tuple[Any, ...]]:
            looked_up_on.append(threading.current_thread())
            address = ("127.0.0.1", port)  # the port it was asked for, the server's
            return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", address)]

        monkeypatch.setattr(roncho._network, "resolve", slow_resolve)

        async def scenario() -> str:
            client = AsyncClient(f"http://honcho.invalid:{server.port}", "w", read_timeout=10.0)
            return (await client.probe()).status

        assert asyncio.run(scenario()) == "ok"
    assert len(looked_up_on) == 1
    assert looked_up_on[0] is not threading.main_thread()  # not the loop's own thread
