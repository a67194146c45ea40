"""What a call costs at a round-trip time of 20 ms, over TLS and plain HTTP, against the
emulator: python benchmarks/bench_rtt.py [--rounds N] [--calls N] [--rtt-ms MS].

The hosted Honcho is tens of milliseconds away, and roncho opens a connection per call
while the official SDK (honcho-ai) keeps one alive: on loopback that difference is a
TCP connect (about 100 us), at a distance it is whole round trips. Everything runs on
loopback; the distance is made by a small proxy written here:

    client --> delay proxy --> keep-alive proxy (TLS ends here for https) --> FakeHoncho
               10 ms each way    HTTP/1.1, one fresh connection to the emulator per request

- delay proxy: raw bytes, each read forwarded half the RTT later, in order, both ways. The
  TCP handshake itself cannot be delayed from user space (the kernel completes it), so the
  first bytes of a new connection are held one extra RTT: they reach the far side when they
  would after a real SYN / SYN-ACK exchange. TLS handshake messages pass through it like
  any other bytes, so their round trips are counted as they happen.
- keep-alive proxy: the emulator answers every request with ``Connection: close``; this
  proxy keeps the client's connection open unless the request asked for ``close`` (as
  roncho's and the one-shot's do), so the SDK can keep its connection alive as it would
  against a real server. It re-frames each answer with its Content-Length.
- the certificate: self-signed for IP 127.0.0.1, made at start with the openssl command;
  each client trusts it explicitly (roncho through the same hook its tests use, since it
  takes no TLS context; http.client through its context; the SDK through an httpx.Client).

Contenders (each its own process per round, taking turns in a rotating order): roncho, the
hand-written http.client one-shot (the floor for one connection per call), and the SDK.
Per operation: the median wall time of ``calls`` calls after 2 warm-up calls.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness import Interpreters, interpreters, machine, rotating_rounds
from stats import Summary, ratio, table

OPS = ["peer", "add:10", "list:long"]
READ = 64 * 1024


# -- the distance --------------------------------------------------------------------------
async def _pump(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float, first: float
) -> None:
    """Forward what ``reader`` gives to ``writer``, each read ``delay`` seconds later (the
    first not before ``first``), in order."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def deliver() -> None:
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                writer.write_eof() if writer.can_write_eof() else writer.close()
                return
            writer.write(data)
            await writer.drain()

    sender = asyncio.create_task(deliver())
    try:
        while True:
            data = await reader.read(READ)
            due = max(loop.time() + delay, first)
            first = 0.0
            await queue.put((due, data))
            if not data:
                break
        await sender
    except (ConnectionError, OSError):
        # A side went away: close the other, so the pump the other way ends too (the
        # keep-alive proxy would otherwise wait for a next request for ever).
        sender.cancel()
        writer.close()


async def _delayed(
    client_r: asyncio.StreamReader,
    client_w: asyncio.StreamWriter,
    upstream: tuple[str, int],
    one_way: float,
) -> None:
    loop = asyncio.get_running_loop()
    syn_done = loop.time() + 2 * one_way  # when a real connect() would have returned
    up_r, up_w = await asyncio.open_connection(*upstream)
    try:
        await asyncio.gather(
            _pump(client_r, up_w, one_way, syn_done + one_way),
            _pump(up_r, client_w, one_way, 0.0),
        )
    except (ConnectionError, OSError):
        pass  # a side went away: so does the connection
    finally:
        up_w.close()
        client_w.close()


# -- keep-alive in front of the emulator ---------------------------------------------------
async def _keep_alive(
    client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter, emulator: tuple[str, int]
) -> None:
    try:
        while True:
            try:
                head = await client_r.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
                return
            fields = dict(
                (k.strip().lower(), v.strip())
                for k, _, v in (line.partition(b":") for line in head.split(b"\r\n")[1:-2])
            )
            body = await client_r.readexactly(int(fields.get(b"content-length", b"0")))
            close = fields.get(b"connection", b"").lower() == b"close"
            up_r, up_w = await asyncio.open_connection(*emulator)
            up_w.write(head + body)
            answer = await up_r.read()  # the emulator closes after each answer
            up_w.close()
            status, _, rest = answer.partition(b"\r\n")
            lines, _, payload = rest.partition(b"\r\n\r\n")
            kept = [
                line
                for line in lines.split(b"\r\n")
                if line.split(b":")[0].strip().lower()
                not in (b"connection", b"content-length", b"transfer-encoding")
            ]
            assert b"transfer-encoding" not in lines.lower(), "a chunked answer: not re-framed"
            kept += [b"Content-Length: %d" % len(payload)]
            kept += [b"Connection: close" if close else b"Connection: keep-alive"]
            client_w.write(status + b"\r\n" + b"\r\n".join(kept) + b"\r\n\r\n" + payload)
            await client_w.drain()
            if close:
                return
    finally:
        client_w.close()


class Distance:
    """The two proxies on one event loop thread; ``url(scheme)`` is where clients go."""

    def __init__(self, emulator: tuple[str, int], tls: ssl.SSLContext, one_way: float) -> None:
        self._emulator = emulator
        self._tls = tls
        self._one_way = one_way
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._ports: dict[str, int] = {}
        self._servers: list[asyncio.Server] = []
        self._thread = threading.Thread(target=self._run, name="distance", daemon=True)

    def _run(self) -> None:
        self._loop.run_until_complete(self._start())
        self._ready.set()
        self._loop.run_forever()

    async def _start(self) -> None:
        for scheme, tls in (("http", None), ("https", self._tls)):
            front = await asyncio.start_server(
                lambda r, w: _keep_alive(r, w, self._emulator), "127.0.0.1", 0, ssl=tls
            )
            port = front.sockets[0].getsockname()[1]
            far = await asyncio.start_server(
                lambda r, w, port=port: _delayed(r, w, ("127.0.0.1", port), self._one_way),
                "127.0.0.1",
                0,
            )
            self._ports[scheme] = far.sockets[0].getsockname()[1]
            self._servers += [front, far]

    async def _stop(self) -> None:
        # Connections still open (the SDK's kept ones) end cancelled: nothing to report.
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: None)
        for server in self._servers:
            server.close()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def url(self, scheme: str) -> str:
        return f"{scheme}://127.0.0.1:{self._ports[scheme]}"

    def __enter__(self) -> Distance:
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the proxies did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


@contextmanager
def certificate() -> Iterator[tuple[Path, ssl.SSLContext]]:
    """A throwaway self-signed certificate for 127.0.0.1 and the server context with it."""
    if shutil.which("openssl") is None:
        raise SystemExit("bench_rtt needs the openssl command to make its certificate")
    with tempfile.TemporaryDirectory(prefix="roncho-rtt-") as folder:
        cert, key = Path(folder) / "cert.pem", Path(folder) / "key.pem"
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
             "-keyout", str(key), "-out", str(cert)],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        yield cert, context


def seed(url: str) -> None:
    """The workspace, peer and sessions the operations use; a page of 50 1 KiB messages."""
    import roncho

    with roncho.Client(url, "bench") as client:
        client.get_or_create_peer("alice")
        for session in ("b10", "long"):
            client.get_or_create_session(session)
        batch = [roncho.MessageCreate(peer_id="alice", content="x" * 1024) for _ in range(50)]
        client.add_messages("long", batch)


# -- the run -------------------------------------------------------------------------------
Samples = dict[str, dict[str, dict[str, list[float]]]]  # scheme -> contender -> op -> ms


def run(interp: Interpreters, rounds: int, calls: int, one_way: float) -> Samples:
    """The emulator (of the roncho measured), behind the distance, for each scheme."""
    sys.path.insert(0, interp.env["PYTHONPATH"])
    from roncho.testing import FakeHoncho

    contenders = interp.contenders("roncho", "stdlib", "sdk")
    samples: Samples = {}
    with certificate() as (cert, tls), FakeHoncho(deriver="manual") as fake:
        seed(fake.url)
        with Distance((fake.host, fake.port), tls, one_way) as distance:
            for scheme in ("https", "http"):
                spec = {
                    "kind": "run_calls",
                    "url": distance.url(scheme),
                    "ca": str(cert),
                    "ops": [[op, calls] for op in OPS],
                    "warmup": 2,
                }
                by = rotating_rounds(interp, contenders, spec, rounds)
                samples[scheme] = {
                    c: {op: [us / 1e3 for us in by[c][op]["wall_us"]] for op in OPS}
                    for c in contenders
                }
    return samples


def report(samples: Samples, rtt_ms: float) -> str:
    out = []
    for scheme, by in samples.items():
        contenders = list(by)
        header = ["operation", *(f"{c} ms" for c in contenders)]
        header += [f"{c} / sdk" for c in contenders if c != "sdk" and "sdk" in by]
        header += [f"{c} in RTTs" for c in contenders]
        rows = []
        for op in OPS:
            medians = {c: Summary.of(by[c][op]) for c in contenders}
            row = [op, *(medians[c].show(1) for c in contenders)]
            if "sdk" in by:
                sdk = medians["sdk"].median
                row += [ratio(medians[c].median, sdk) for c in contenders if c != "sdk"]
            row += [f"{medians[c].median / rtt_ms:.1f}" for c in contenders]
            rows.append(row)
        out += [f"{scheme}, RTT {rtt_ms:g} ms (median [min-max] over rounds)", ""]
        out += [table(header, rows), ""]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=10, help="timed calls per operation")
    parser.add_argument("--rtt-ms", type=float, default=20.0)
    parser.add_argument("--no-sdk", action="store_true")
    args = parser.parse_args(argv)
    interp = interpreters(not args.no_sdk, not args.no_sdk)
    started = time.perf_counter()
    samples = run(interp, args.rounds, args.calls, args.rtt_ms / 2e3)
    header = machine(interp)
    print("\n".join(f"- {line}" for line in header))
    print(f"- {args.rounds} rounds of {args.calls} calls per operation; took "
          f"{time.perf_counter() - started:.0f} s\n")  # fmt: skip
    print(report(samples, args.rtt_ms))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
