"""A stream closed from another task while a read of it waits: the socket leaves the
event loop's selector before it is closed, so the next connection (which the kernel gives
the same descriptor number) works; a stale registration would make its connect fail."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from rawserver import Conn, RawServer, reply, stream_head

from roncho.aio import AsyncClient

pytestmark = pytest.mark.timeout(30)


def head_then_hold(conn: Conn) -> None:
    conn.read_request()
    conn.send(stream_head())
    conn.wait_closed()


def test_a_stream_closed_while_another_task_reads_it_leaves_the_loop_clean() -> None:
    with RawServer([head_then_hold, reply(200, {"status": "ok"})]) as server:

        async def scenario() -> str:
            client = AsyncClient(server.url, "w", read_timeout=20.0)
            stream = await client.chat_stream("alice", "hi")
            reader = asyncio.create_task(stream.__anext__())
            await asyncio.sleep(0.2)  # the reader now waits for the body's first bytes
            assert not reader.done()
            await stream.aclose()  # from this task, not the reader's
            try:
                health = await client.probe()  # a new socket, most likely the same number
            finally:
                reader.cancel()
                with contextlib.suppress(BaseException):
                    await reader
            return health.status

        assert asyncio.run(scenario()) == "ok"
