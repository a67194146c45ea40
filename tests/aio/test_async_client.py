"""What only the asyncio client has: cancellation, many calls in flight on one loop, the
parity of its surface with Client's, and a memoryd-style flow through it against the
emulator. (Everything both clients share runs in tests/wire and tests/live for both.)

pytest here has no asyncio plugin: each test runs its coroutine with asyncio.run, and
every wait is bounded (asyncio.timeout, the servers' own socket timeouts).
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
import os
import pickle
import socket
import threading
import time
import traceback
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest
from rawserver import SERVER_WAIT, Conn, RawServer, Request, response_bytes

import roncho
from roncho.aio import AsyncChatStream, AsyncClient
from roncho.testing import FakeHoncho

T = TypeVar("T")
KEY = "sk-cancel-0123456789"
LIMIT = 20.0  # no test coroutine may take longer
_LIBRARY = Path(roncho.__file__).resolve().parent


def run(coro: Coroutine[Any, Any, T]) -> T:
    async def bounded() -> T:
        async with asyncio.timeout(LIMIT):
            return await coro

    return asyncio.run(bounded())


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def frames_holding_key(exc: BaseException) -> list[str]:
    found = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if Path(code.co_filename).resolve().is_relative_to(_LIBRARY):
            for name, value in tb.tb_frame.f_locals.items():
                shown = bytes(value) if isinstance(value, (bytes, bytearray)) else repr(value)
                if (KEY.encode() in shown) if isinstance(shown, bytes) else (KEY in shown):
                    found.append(f"{code.co_name}.{name}")
        tb = tb.tb_next
    return found


# -- cancellation --------------------------------------------------------------------------
def test_a_cancelled_call_closes_its_socket_at_once_and_leaves_nothing_behind() -> None:
    received = threading.Event()
    closed = threading.Event()

    def stall(conn: Conn) -> None:
        conn.read_request()
        received.set()
        conn.wait_closed()  # returns when the client's socket closes
        closed.set()

    async def scenario(url: str) -> BaseException:
        client = AsyncClient(url, "ws", api_key=KEY, read_timeout=SERVER_WAIT)
        fds = open_fds()
        task = asyncio.create_task(client.chat("alice", "q"))
        while not received.is_set():
            await asyncio.sleep(0.005)
        cancelled_at = time.monotonic()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError as exc:
            error: BaseException = exc
        else:
            raise AssertionError("the call was not cancelled")
        # The socket closes on the loop's next turn: the server sees it at once, not after
        # the call's read timeout (SERVER_WAIT).
        while not closed.is_set():
            await asyncio.sleep(0.005)
        assert time.monotonic() - cancelled_at < 1.0
        assert asyncio.all_tasks() == {asyncio.current_task()}  # no task left behind
        # No descriptor is left either (the server thread, in this process, closes its
        # end just after it saw ours close: give it a moment).
        give_up = time.monotonic() + SERVER_WAIT
        while open_fds() > fds and time.monotonic() < give_up:
            await asyncio.sleep(0.01)
        assert open_fds() <= fds
        client.close()
        return error

    with RawServer([stall]) as server:
        error = run(scenario(server.url))
    assert frames_holding_key(error) == []
    assert KEY not in "".join(traceback.format_exception(error))


def test_cancelling_mid_stream_closes_the_connection() -> None:
    closed = threading.Event()

    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
            b'data: {"delta": {"content": "one"}, "done": false}\n\n'
        )
        conn.wait_closed()
        closed.set()

    async def scenario(url: str) -> None:
        client = AsyncClient(url, "ws", read_timeout=SERVER_WAIT)
        stream = await client.chat_stream("alice", "q")
        assert (await stream.__anext__()).content == "one"
        task = asyncio.create_task(stream.__anext__())
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        with pytest.raises(roncho.ProtocolError, match="closed before its final event"):
            await stream.__anext__()  # a cut answer never passes as whole

    with RawServer([handler]) as server:
        run(scenario(server.url))
        assert closed.wait(SERVER_WAIT)


def test_async_for_over_a_finished_stream_again_says_it_was_read() -> None:
    """``async for`` itself (not the test facade's pulls): a second pass is an error."""
    answer = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
        b'data: {"delta": {"content": "tea"}, "done": false}\n\n'
        b'data: {"done": true}\n\n'
    )

    async def scenario(url: str) -> None:
        async with AsyncClient(url, "ws", read_timeout=SERVER_WAIT) as client:
            stream = await client.chat_stream("alice", "q")
            assert [chunk.content async for chunk in stream] == ["tea", ""]
            with pytest.raises(roncho.ConfigError, match="already read to its end"):
                async for _ in stream:
                    pass
            assert (await stream.read_all()).content == "tea"

    with RawServer([lambda conn: (conn.read_request(), conn.send(answer))]) as server:
        run(scenario(server.url))
    assert len(server.requests) == 1


def test_a_deadline_bounds_the_whole_async_call() -> None:
    def stall(conn: Conn) -> None:
        conn.read_request()
        conn.wait_closed()

    async def scenario(url: str) -> None:
        client = AsyncClient(url, "ws", read_timeout=SERVER_WAIT)
        with pytest.raises(roncho.DeadlineExceeded) as info:
            await client.probe(deadline=0.2)
        assert info.value.request_sent is True

    with RawServer([stall]) as server:
        run(scenario(server.url))


# -- many calls in flight ------------------------------------------------------------------
def test_two_hundred_calls_in_flight_on_one_loop_lose_and_double_nothing() -> None:
    calls = 200

    async def scenario(url: str) -> None:
        async with AsyncClient(url, "ws-many", read_timeout=30.0) as client:
            await client.get_or_create_workspace()
            await client.get_or_create_session("s", peers={"alice": None})
            fds = open_fds()
            sent = await asyncio.gather(
                *[
                    client.add_messages("s", [roncho.MessageCreate("alice", f"turn {i}")])
                    for i in range(calls)
                ]
            )
            assert [batch[0].content for batch in sent] == [f"turn {i}" for i in range(calls)]
            stored = [m.content async for m in client.iter_messages("s")]
            assert sorted(stored) == sorted(f"turn {i}" for i in range(calls))  # once each
            # Every connection closed: the client's own at once, the emulator's (same process)
            # as its handler threads finish, which may take a moment on a loaded machine.
            for _ in range(500):
                if open_fds() <= fds:
                    break
                await asyncio.sleep(0.01)
            assert open_fds() <= fds

    with FakeHoncho() as fake:
        run(scenario(fake.url))


# -- the same surface as Client --------------------------------------------------------------
ASYNC_ONLY = {"aclose"}
RENAMED = {"__enter__": "__aenter__", "__exit__": "__aexit__"}
SYNC_IN_BOTH = {"close", "with_workspace", "with_options"}


def _public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_")}


def test_parity_same_method_names_parameters_and_return_types() -> None:
    assert _public(AsyncClient) - ASYNC_ONLY == _public(roncho.Client)
    client = roncho.Client("http://127.0.0.1:9", "ws")
    aclient = AsyncClient("http://127.0.0.1:9", "ws")
    for name in sorted(_public(roncho.Client)):
        mine, theirs = getattr(client, name), getattr(aclient, name)
        if not callable(mine):  # properties
            assert type(mine) is type(theirs), name
            continue
        sync_sig, async_sig = inspect.signature(mine), inspect.signature(theirs)
        assert list(sync_sig.parameters.values()) == list(async_sig.parameters.values()), name
        returns = str(sync_sig.return_annotation)
        returns = returns.replace("Iterator", "AsyncIterator").replace(
            "ChatStream", "AsyncChatStream"
        )
        if name in SYNC_IN_BOTH:
            assert not inspect.iscoroutinefunction(theirs), name
            assert str(async_sig.return_annotation) in (returns, "C"), name
            continue
        assert str(async_sig.return_annotation) == returns, name
        assert inspect.iscoroutinefunction(theirs) or inspect.isasyncgenfunction(theirs), name
    for sync_name, async_name in RENAMED.items():
        assert hasattr(roncho.Client, sync_name) and hasattr(AsyncClient, async_name)
    stream_api = {"text", "evidence", "finished", "read_all", "close"}
    assert stream_api <= _public(roncho.ChatStream) and stream_api <= _public(AsyncChatStream)
    client.close()
    aclient.close()


def test_the_async_client_keeps_the_key_as_the_blocking_one_does() -> None:
    aclient = AsyncClient("http://127.0.0.1:9", "ws", api_key=KEY)
    assert KEY not in repr(aclient) and KEY not in str(aclient)
    with pytest.raises(TypeError):
        pickle.dumps(aclient)
    key = aclient._key
    aclient.close()
    assert key is not None and set(key) == {0}
    with pytest.raises(roncho.ConfigError, match=r"roncho\.aio\.AsyncClient is closed"):
        run(aclient.probe())


# -- a memoryd-style flow --------------------------------------------------------------------
def test_memoryd_flow_through_the_async_client_against_the_emulator() -> None:
    async def flow(url: str) -> None:
        async with AsyncClient(url, "memoryd", read_timeout=10.0) as honcho:
            assert (await honcho.get_or_create_workspace()).created is True
            await honcho.get_or_create_peer("user")
            await honcho.get_or_create_peer("assistant", configuration={"observe_me": False})
            await honcho.get_or_create_session("conv-1", peers={"user": None, "assistant": None})
            turns = [
                roncho.MessageCreate(peer_id="user", content="I moved to Lisbon last spring"),
                roncho.MessageCreate(peer_id="assistant", content="How do you like it?"),
            ]
            stored = await honcho.add_messages("conv-1", turns)
            assert [m.content for m in stored] == [t.content for t in turns]
            assert (await honcho.list_messages("conv-1")).total == 2
            # The best hit (the server's search fills up to the limit with the rest).
            hits = await honcho.search_session("conv-1", "Lisbon", limit=1)
            assert [m.peer_id for m in hits] == ["user"]
            async with await honcho.chat_stream("user", "Where do I live?") as stream:
                chunks = [chunk async for chunk in stream]
            assert chunks[-1].done and stream.text
            answer = await honcho.chat("user", "Where do I live?")
            assert answer.content
            await honcho.delete_session("conv-1")
            with pytest.raises(roncho.ReadOnlyError):
                await honcho.with_workspace("memoryd", read_only=True).delete_workspace()

    with FakeHoncho(flush=True) as fake:
        run(flow(fake.url))
    gc.collect()


def test_the_readme_async_example_runs_against_the_emulator() -> None:
    """The README's AsyncClient example, with the emulator's URL in place of the server's."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in readme.split("```python\n")[1:] if "roncho.aio" in b.split("```")[0]]
    assert len(blocks) == 1
    with FakeHoncho(flush=True) as fake:
        code = blocks[0].split("```")[0].replace("http://127.0.0.1:8000", fake.url)
        assert "127.0.0.1:8000" not in code  # never the real server
        exec(compile(code, "README.md (AsyncClient example)", "exec"), {"__name__": "__main__"})


def test_a_large_request_arrives_whole_although_its_key_bytes_are_wiped_after_sending() -> None:
    """A large request to a server that reads slowly arrives byte for byte, key included,
    although the client wipes its copy after sending. (asyncio 3.12+ keeps a view of the
    bytes written, so the wipe waits until the transport's buffer is empty. On this
    machine's loopback the kernel takes the whole request at once, so this test could not
    be made to fail without that wait: it guards the result, not the wait itself.)"""
    batch = [roncho.MessageCreate("alice", f"{i:04d}" + "x" * 24_000) for i in range(100)]
    got: list[Request] = []

    def slow_reader(conn: Conn) -> None:
        time.sleep(0.3)  # the ~2.4 MB request fills the socket buffers and waits in asyncio's
        got.append(conn.read_request())
        answer = [
            {**m, "id": f"m{i}", "session_id": "s", "created_at": "2026-11-30T12:00:00Z"}
            for i, m in enumerate(json.loads(got[0].body)["messages"])
        ]
        conn.send(response_bytes(201, answer))

    async def scenario(url: str) -> None:
        client = AsyncClient(url, "ws", api_key=KEY, read_timeout=SERVER_WAIT)
        stored = await client.add_messages("s", batch)
        assert [m.content for m in stored] == [m.content for m in batch]

    with RawServer([slow_reader]) as server:
        # A small receive window, so the request cannot all sit in the kernel's buffers.
        server._listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        run(scenario(server.url))
    assert got[0].headers["authorization"] == f"Bearer {KEY}"
    assert json.loads(got[0].body) == {
        "messages": [{"peer_id": "alice", "content": m.content} for m in batch]
    }
