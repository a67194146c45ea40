"""The client side of every benchmark, run in its own process per contender and round.

    python benchmarks/worker.py '<json spec>'   ->   one JSON line on stdout

Contenders:
    roncho   roncho.Client (imported from the repo via PYTHONPATH), one connection per call
    stdlib   a hand-written http.client one-shot: build JSON, send with Connection: close,
             read, json.loads; the floor for one connection per request
    sdk      the official honcho-ai SDK (run with its own venv's interpreter); keeps
             connections alive

Only the standard library and the contender's own package are imported here, so that
one contender's imports never warm up another's. Timings use time.perf_counter (wall)
and time.process_time (this process's CPU, user + system); stream timestamps use
time.monotonic_ns, the same CLOCK_MONOTONIC the server thread reads.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

CONTENT_1K = ("Alice told Bob about the trip to the coast; they planned the route. " * 16)[:1024]
QUERY = "what did alice say about the trip"
# Every socket wait in a worker is bounded by this (seconds).
IO_TIMEOUT = 30.0
# The large-response runs raise the client's cap above the default 8 MiB.
LARGE_CAP = 64 * 1024 * 1024


# -- the three clients ---------------------------------------------------------------------
class RonchoOps:
    def __init__(self, url: str, ca: str | None = None) -> None:
        import roncho

        if ca is not None:  # trust the benchmark's own certificate (roncho's tests do the same)
            import ssl

            import roncho._client_core

            roncho._client_core.tls_context = lambda: ssl.create_default_context(cafile=ca)
        self.roncho = roncho
        self.client = roncho.Client(
            url,
            "bench",
            connect_timeout=IO_TIMEOUT,
            read_timeout=IO_TIMEOUT,
            max_response_bytes=LARGE_CAP,
        )

    def peer(self) -> Any:
        return self.client.get_or_create_peer("alice")

    def add(self, n: int) -> Any:
        batch = [self.roncho.MessageCreate(peer_id="alice", content=CONTENT_1K) for _ in range(n)]
        result = self.client.add_messages(f"b{n}", batch)
        assert len(result) == n
        return result

    def search(self) -> Any:
        result = self.client.search(QUERY, limit=10)
        assert len(result) == 10
        return result

    def list(self, session: str) -> Any:
        return self.client.list_messages(session, size=50).items

    def stream(self, peer: str) -> list[tuple[str, int]]:
        seen = []
        with self.client.chat_stream(peer, QUERY) as stream:
            for chunk in stream:
                seen.append((chunk.content, time.monotonic_ns()))
        return seen


class StdlibOps:
    """What a careful hand-written client does with http.client, and no more."""

    def __init__(self, url: str, ca: str | None = None) -> None:
        import http.client

        self.http = http.client
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.tls: Any = None
        if parts.scheme == "https":
            import ssl

            self.tls = ssl.create_default_context(cafile=ca)

    def connection(self) -> Any:
        if self.tls is None:
            return self.http.HTTPConnection(self.host, self.port, timeout=IO_TIMEOUT)
        return self.http.HTTPSConnection(self.host, self.port, timeout=IO_TIMEOUT, context=self.tls)

    def call(self, method: str, path: str, body: object) -> Any:
        payload = json.dumps(body).encode()
        conn = self.connection()
        try:
            conn.request(
                method,
                path,
                body=payload,
                headers={
                    "Content-Type": "application/json",
                    "Accept": "application/json",
                    "Connection": "close",
                },
            )
            response = conn.getresponse()
            data = response.read()
        finally:
            conn.close()
        if not 200 <= response.status < 300:
            raise RuntimeError(f"{method} {path} answered {response.status}")
        return json.loads(data)

    def peer(self) -> Any:
        return self.call("POST", "/v3/workspaces/bench/peers", {"id": "alice"})

    def add(self, n: int) -> Any:
        batch = [{"peer_id": "alice", "content": CONTENT_1K} for _ in range(n)]
        result = self.call(
            "POST", f"/v3/workspaces/bench/sessions/b{n}/messages", {"messages": batch}
        )
        assert len(result) == n
        return result

    def search(self) -> Any:
        result = self.call("POST", "/v3/workspaces/bench/search", {"query": QUERY, "limit": 10})
        assert len(result) == 10
        return result

    def list(self, session: str) -> Any:
        path = f"/v3/workspaces/bench/sessions/{session}/messages/list?page=1&size=50"
        return self.call("POST", path, {})["items"]

    def stream(self, peer: str) -> list[tuple[str, int]]:
        """read1() hands over each chunk as it arrives; events split on the blank line."""
        conn = self.connection()
        seen = []
        try:
            body = json.dumps({"query": QUERY, "stream": True}).encode()
            conn.request(
                "POST",
                f"/v3/workspaces/bench/peers/{peer}/chat",
                body=body,
                headers={"Content-Type": "application/json", "Accept": "text/event-stream"},
            )
            response = conn.getresponse()
            buf = b""
            done = False
            while not done:
                data = response.read1(65536)
                if not data:
                    break
                buf += data
                while b"\n\n" in buf:
                    raw, buf = buf.split(b"\n\n", 1)
                    event = json.loads(raw.decode()[len("data: ") :])
                    done = bool(event.get("done"))
                    seen.append(
                        ((event.get("delta") or {}).get("content", ""), time.monotonic_ns())
                    )
        finally:
            conn.close()
        return seen


class SdkOps:
    def __init__(self, url: str, ca: str | None = None) -> None:
        from honcho import Honcho

        client = None
        if ca is not None:  # trust the benchmark's own certificate
            import ssl

            import httpx

            verify = ssl.create_default_context(cafile=ca)
            client = httpx.Client(verify=verify, timeout=IO_TIMEOUT)
        self.honcho = Honcho(
            base_url=url, workspace_id="bench", timeout=IO_TIMEOUT, http_client=client
        )
        self.alice = self.honcho.peer("alice")  # also the SDK's once-per-client workspace call
        self.sessions: dict[str, Any] = {}

    def _session(self, session_id: str) -> Any:
        if session_id not in self.sessions:
            self.sessions[session_id] = self.honcho.session(session_id)
        return self.sessions[session_id]

    def peer(self) -> Any:
        return self.honcho.peer("alice")

    def add(self, n: int) -> Any:
        session = self._session(f"b{n}")
        result = session.add_messages([self.alice.message(CONTENT_1K) for _ in range(n)])
        assert len(result) == n
        return result

    def search(self) -> Any:
        result = self.honcho.search(QUERY, limit=10)
        assert len(result) == 10
        return result

    def list(self, session: str) -> Any:
        return self._session(session).messages(size=50).items

    def stream(self, peer: str) -> list[tuple[str, int]]:
        seen = []
        for content in self.honcho.peer(peer).chat_stream(QUERY):
            seen.append((content, time.monotonic_ns()))
        seen.append(("", time.monotonic_ns()))  # the SDK yields no item for the final event
        return seen


CONTENDERS: dict[str, Callable[[str, str | None], Any]] = {
    "roncho": RonchoOps,
    "stdlib": StdlibOps,
    "sdk": SdkOps,
}


def op_function(ops: Any, name: str) -> Callable[[], Any]:
    """``peer``, ``search``, ``add:N``, ``list:SESSION`` as a no-argument call."""
    kind, _, arg = name.partition(":")
    if kind == "add":
        return lambda: ops.add(int(arg))
    if kind == "list":
        return lambda: ops.list(arg)
    return getattr(ops, kind)  # type: ignore[no-any-return]


# -- the benchmark kinds -------------------------------------------------------------------
def run_calls(spec: dict[str, Any]) -> dict[str, Any]:
    """Per-call wall and CPU time over ``iterations`` calls after ``warmup`` calls.

    Each call is timed on its own and the median is kept: on a shared 2-core machine a
    call now and then loses its core to another process, and a mean would carry that.
    """
    ops = CONTENDERS[spec["contender"]](spec["url"], spec.get("ca"))
    out: dict[str, Any] = {}
    wall_clock, cpu_clock = time.perf_counter, time.process_time
    for name, iterations in spec["ops"]:
        call = op_function(ops, name)
        for _ in range(spec["warmup"]):
            call()
        walls, cpus = [], []
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(iterations):
            wall0, cpu0 = wall_clock(), cpu_clock()
            call()
            cpu1, wall1 = cpu_clock(), wall_clock()
            walls.append(wall1 - wall0)
            cpus.append(cpu1 - cpu0)
        out[name] = {
            "wall_us": statistics.median(walls) * 1e6,
            "cpu_us": statistics.median(cpus) * 1e6,
            "wall_mean_us": statistics.fmean(walls) * 1e6,
            "cpu_mean_us": statistics.fmean(cpus) * 1e6,
            # page faults a call: one that grows the heap pays for its pages (RESULTS.md)
            "faults": (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / iterations,
        }
    return out


def _proc_status(field: str) -> int:
    """A VmRSS / VmHWM figure of this process in bytes (Linux /proc), or -1."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return -1


def _reset_peak_rss() -> bool:
    """Writing 5 to clear_refs resets VmHWM to the current RSS (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def run_large(spec: dict[str, Any]) -> dict[str, Any]:
    """Wall time, peak RSS growth and tracemalloc peak of one large list call.

    The RSS figure comes from the first large call in a fresh process (freed memory stays
    in the allocator's arenas, so a later call would look cheaper than it is).
    """
    ops = CONTENDERS[spec["contender"]](spec["url"], spec.get("ca"))
    session = spec["session"]
    ops.list("p1c16")  # warm the code path on a tiny answer
    gc.collect()
    reset = _reset_peak_rss()
    rss0 = _proc_status("VmRSS")
    t0 = time.perf_counter()
    result = ops.list(session)
    first = time.perf_counter() - t0
    hwm = _proc_status("VmHWM")
    items = len(result)
    del result
    walls = [first]
    for _ in range(spec["repeat"] - 1):
        gc.collect()
        t0 = time.perf_counter()
        result = ops.list(session)
        walls.append(time.perf_counter() - t0)
        del result
    import tracemalloc

    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    result = ops.list(session)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del result
    walls.sort()
    return {
        "items": items,
        "wall_ms": walls[len(walls) // 2] * 1e3,
        "rss_delta": hwm - rss0 if reset and hwm >= 0 and rss0 >= 0 else None,
        "tracemalloc_peak": peak,
    }


def run_stream(spec: dict[str, Any]) -> dict[str, Any]:
    ops = CONTENDERS[spec["contender"]](spec["url"], spec.get("ca"))
    ops.stream(spec["warm_peer"])  # connection code paths and imports warm
    return {"events": ops.stream(spec["peer"])}


def main() -> None:
    spec = json.loads(sys.argv[1])
    gc.collect()
    if spec["kind"] in ("run_async_calls", "run_load"):
        import worker_async  # asyncio only for the async kinds

        result = getattr(worker_async, spec["kind"])(spec)
    else:
        result = {"run_calls": run_calls, "run_large": run_large, "run_stream": run_stream}[
            spec["kind"]
        ](spec)
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: nothing here needs it


if __name__ == "__main__":
    main()
