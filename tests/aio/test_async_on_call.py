"""on_call in what only the asyncio client has: a cancelled call is reported once, with
the cancellation as its error; concurrent calls on one loop are reported one each."""

from __future__ import annotations

import asyncio
import threading

import pytest
from rawserver import Conn, RawServer, reply

import roncho
from roncho.aio import AsyncClient

pytestmark = pytest.mark.timeout(30)
SERVER_WAIT = 10.0


def test_a_cancelled_call_is_reported_with_the_cancellation() -> None:
    received = threading.Event()

    def stall(conn: Conn) -> None:
        conn.read_request()
        received.set()
        conn.wait_closed()

    reports: list[roncho.CallReport] = []

    async def scenario(url: str) -> None:
        client = AsyncClient(url, "ws", read_timeout=SERVER_WAIT, on_call=reports.append)
        task = asyncio.create_task(client.chat("alice", "where is the key?"))
        while not received.is_set():
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        client.close()

    with RawServer([stall]) as server:
        asyncio.run(scenario(server.url))
        sent = len(server.requests[0].raw)
    [report] = reports
    assert report.op == "chat"
    assert report.path == "/v3/workspaces/{workspace_id}/peers/{peer_id}/chat"
    assert report.error is asyncio.CancelledError
    assert report.status is None
    assert report.request_sent is True  # it was handed over: the server may act on it
    assert (report.bytes_sent, report.bytes_received) == (sent, 0)


def test_calls_in_flight_together_are_reported_one_each() -> None:
    reports: list[roncho.CallReport] = []

    async def scenario(url: str) -> None:
        client = AsyncClient(url, "ws", read_timeout=SERVER_WAIT, on_call=reports.append)
        await asyncio.gather(*(client.probe() for _ in range(3)))
        client.close()

    with RawServer([reply(200, {"status": "ok"})] * 3) as server:
        asyncio.run(scenario(server.url))
    assert [(r.op, r.path, r.status, r.error) for r in reports] == [
        ("probe", "/health", 200, None)
    ] * 3
