"""The asyncio side of the benchmarks, loaded by worker.py only for the async kinds (so the
blocking contenders never import asyncio).

Contenders:
    roncho-async   roncho.aio.AsyncClient, one connection per call
    asyncio-floor  a hand-written asyncio.open_connection one-shot: build the request
                   bytes, write, read to EOF, split the head, json.loads; the floor for
                   one connection per request on asyncio
    sdk-async      the official SDK's async view (``Honcho(...).aio``), keeps connections

Per call (``run_async_calls``): each call awaited on its own inside one running loop,
client CPU (time.process_time) and wall per call, medians. Load (``run_load``): ``calls``
get-or-create peers with ``in_flight`` at a time, per-call latency, throughput, and the
peak of open file descriptors (sampled every millisecond and at every call start).
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import time
from typing import Any
from urllib.parse import urlsplit

from worker import CONTENT_1K, IO_TIMEOUT, LARGE_CAP, QUERY


class RonchoAsyncOps:
    def __init__(self, url: str, workspace: str = "bench") -> None:
        import roncho
        from roncho.aio import AsyncClient

        self.roncho = roncho
        self.client = AsyncClient(
            url,
            workspace,
            connect_timeout=IO_TIMEOUT,
            read_timeout=IO_TIMEOUT,
            max_response_bytes=LARGE_CAP,
        )

    async def start(self) -> None:
        pass

    async def peer(self, name: str = "alice") -> Any:
        return await self.client.get_or_create_peer(name)

    async def add(self, n: int) -> Any:
        batch = [self.roncho.MessageCreate(peer_id="alice", content=CONTENT_1K) for _ in range(n)]
        result = await self.client.add_messages(f"b{n}", batch)
        assert len(result) == n
        return result

    async def search(self) -> Any:
        result = await self.client.search(QUERY, limit=10)
        assert len(result) == 10
        return result

    async def list(self, session: str) -> Any:
        return (await self.client.list_messages(session, size=50)).items


class FloorOps:
    """What a careful hand-written asyncio client does with open_connection, and no more."""

    def __init__(self, url: str, workspace: str = "bench") -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.ws = f"/v3/workspaces/{workspace}"

    async def start(self) -> None:
        pass

    async def call(self, method: str, path: str, body: object) -> Any:
        payload = json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nAccept: application/json\r\n"
            f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
        ).encode()
        async with asyncio.timeout(IO_TIMEOUT):
            reader, writer = await asyncio.open_connection(self.host, self.port)
            try:
                writer.write(head + payload)
                data = await reader.read()
            finally:
                writer.close()
        head_bytes, _, raw = data.partition(b"\r\n\r\n")
        status = int(head_bytes.split(b" ", 2)[1])
        if not 200 <= status < 300:
            raise RuntimeError(f"{method} {path} answered {status}")
        return json.loads(raw)

    async def peer(self, name: str = "alice") -> Any:
        return await self.call("POST", f"{self.ws}/peers", {"id": name})

    async def add(self, n: int) -> Any:
        batch = [{"peer_id": "alice", "content": CONTENT_1K} for _ in range(n)]
        result = await self.call("POST", f"{self.ws}/sessions/b{n}/messages", {"messages": batch})
        assert len(result) == n
        return result

    async def search(self) -> Any:
        result = await self.call("POST", f"{self.ws}/search", {"query": QUERY, "limit": 10})
        assert len(result) == 10
        return result

    async def list(self, session: str) -> Any:
        path = f"{self.ws}/sessions/{session}/messages/list?page=1&size=50"
        return (await self.call("POST", path, {}))["items"]


class SdkAsyncOps:
    def __init__(self, url: str, workspace: str = "bench") -> None:
        from honcho import Honcho

        self.honcho = Honcho(base_url=url, workspace_id=workspace, timeout=IO_TIMEOUT).aio
        self.sessions: dict[str, Any] = {}

    async def start(self) -> None:
        self.alice = await self.honcho.peer("alice")  # also the once-per-client workspace call

    async def _session(self, session_id: str) -> Any:
        if session_id not in self.sessions:
            self.sessions[session_id] = await self.honcho.session(session_id)
        return self.sessions[session_id]

    async def peer(self, name: str = "alice") -> Any:
        return await self.honcho.peer(name)

    async def add(self, n: int) -> Any:
        session = await self._session(f"b{n}")
        result = await session.aio.add_messages([self.alice.message(CONTENT_1K) for _ in range(n)])
        assert len(result) == n
        return result

    async def search(self) -> Any:
        result = await self.honcho.search(QUERY, limit=10)
        assert len(result) == 10
        return result

    async def list(self, session: str) -> Any:
        return (await (await self._session(session)).aio.messages(size=50)).items


CONTENDERS: dict[str, Any] = {
    "roncho-async": RonchoAsyncOps,
    "asyncio-floor": FloorOps,
    "sdk-async": SdkAsyncOps,
}


def _op(ops: Any, name: str) -> Any:
    kind, _, arg = name.partition(":")
    if kind == "add":
        return lambda: ops.add(int(arg))
    if kind == "list":
        return lambda: ops.list(arg)
    return getattr(ops, kind)


async def _calls(spec: dict[str, Any]) -> dict[str, Any]:
    ops = CONTENDERS[spec["contender"]](spec["url"])
    await ops.start()
    out: dict[str, Any] = {}
    wall_clock, cpu_clock = time.perf_counter, time.process_time
    for name, iterations in spec["ops"]:
        call = _op(ops, name)
        for _ in range(spec["warmup"]):
            await call()
        walls, cpus = [], []
        faults = _minor_faults()
        for _ in range(iterations):
            wall0, cpu0 = wall_clock(), cpu_clock()
            await call()
            cpu1, wall1 = cpu_clock(), wall_clock()
            walls.append(wall1 - wall0)
            cpus.append(cpu1 - cpu0)
        out[name] = {
            "wall_us": statistics.median(walls) * 1e6,
            "cpu_us": statistics.median(cpus) * 1e6,
            "faults": (_minor_faults() - faults) / iterations,
        }
    return out


def _minor_faults() -> int:
    """Page faults of this process so far: a call that grows the heap pays for its pages
    (benchmarks/RESULTS.md, 2026-12-07)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def run_async_calls(spec: dict[str, Any]) -> dict[str, Any]:
    return asyncio.run(_calls(spec))


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def _load(spec: dict[str, Any]) -> dict[str, Any]:
    ops = CONTENDERS[spec["contender"]](spec["url"], spec["workspace"])
    await ops.start()
    gate = asyncio.Semaphore(spec["in_flight"])
    latencies: list[float] = []
    peak = _fds()
    baseline = peak
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _fds())
            await asyncio.sleep(0.001)

    async def one(i: int) -> str:
        nonlocal peak
        async with gate:
            peak = max(peak, _fds())
            start = time.perf_counter()
            peer = await ops.peer(f"load-{i}")
            latencies.append(time.perf_counter() - start)
        return str(getattr(peer, "id", None) or peer["id"])

    sampler = asyncio.create_task(sample())
    cpu0, wall0 = time.process_time(), time.perf_counter()
    ids = await asyncio.gather(*[one(i) for i in range(spec["calls"])])
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    done.set()
    await sampler
    latencies.sort()
    return {
        "calls": len(ids),
        "distinct": len(set(ids)),
        "wall_s": wall,
        "cpu_s": cpu,
        "per_s": len(ids) / wall,
        "p50_ms": latencies[len(latencies) // 2] * 1e3,
        "p99_ms": latencies[int(len(latencies) * 0.99) - 1] * 1e3,
        "peak_fds": peak - baseline,
    }


def run_load(spec: dict[str, Any]) -> dict[str, Any]:
    return asyncio.run(_load(spec))
