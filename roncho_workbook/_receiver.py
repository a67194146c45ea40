"""The workbook's one webhook receiver: a loopback HTTP server that records every delivery.

``/ok/...`` answers 200 and ``/fail/...`` 500 (any other path answers 200, as ``ok``). Each
delivery is kept as an `Arrival`, with its signature checked by ``roncho.webhooks.verify``
when there is a secret to check with. Q9 runs one on a free port for the whole probe, and
one on a port it holds down (a `DownPort`), to see whether a receiver that was down gets
anything once back.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from roncho.webhooks import WebhookError, read_event, verify

# What each mode of the receiver answers.
OK, FAIL = "ok", "fail"
# Seconds a receiver's socket waits on a stalled sender.
RECEIVER_TIMEOUT = 10.0


@dataclass(slots=True, kw_only=True)
class Arrival:
    """One delivery as the receiver saw it."""

    mono: float
    wall: float
    mode: str
    body: bytes
    signature: str | None
    event: Any = None  # the verified WebhookEvent, or None
    verified: bool | None = None  # None: no secret to check with
    problem: str = ""


class DownPort:
    """A loopback port held down: bound but not listening, so a delivery to it is refused
    (Linux answers RST), and held, so no other process can take it before a `Receiver`
    comes up on it (a port found free, closed and bound again later was taken on a busy
    machine: EADDRINUSE)."""

    def __init__(self) -> None:
        self.sock: socket.socket | None = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = int(self.sock.getsockname()[1])

    def take(self) -> socket.socket:
        """The bound socket, handed over once (to the receiver that comes up on it)."""
        sock, self.sock = self.sock, None
        if sock is None:
            raise RuntimeError("this port has already been handed over")
        return sock

    def __enter__(self) -> DownPort:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.sock is not None:
            self.sock.close()


class Receiver:
    """Records deliveries on 127.0.0.1, on a free port or on a `DownPort` it brings up, from
    construction until the ``with`` block ends. A context manager: the thread stops on exit."""

    def __init__(self, secret: str, *, down: DownPort | None = None) -> None:
        self.secret = secret
        self.arrivals: list[Arrival] = []
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            timeout = RECEIVER_TIMEOUT

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                mode = FAIL if self.path.startswith("/fail") else OK
                receiver._take(body, self.headers.get("X-Honcho-Signature"), mode)
                self.send_response(500 if mode == FAIL else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return None

        if down is None:
            self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        else:  # listen on the socket held down: the port was never free to take
            self._server = ThreadingHTTPServer(
                ("127.0.0.1", down.port), Handler, bind_and_activate=False
            )
            self._server.socket.close()
            self._server.socket = down.take()
            # What HTTPServer.server_bind would have set, had it bound the socket itself.
            self._server.server_name, self._server.server_port = "127.0.0.1", down.port
            self._server.server_activate()
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def url(self, mode: str, tag: str) -> str:
        return f"http://localhost:{self.port}/{mode}/{tag}"

    def _take(self, body: bytes, signature: str | None, mode: str) -> None:
        arrival = Arrival(
            mono=time.monotonic(), wall=time.time(), mode=mode, body=body, signature=signature
        )
        try:
            if self.secret:
                arrival.event = verify(body, signature, self.secret)
                arrival.verified = True
            else:  # nothing to check with: read it unverified (``verified`` stays None)
                arrival.event = read_event(json.loads(body))
        except (WebhookError, ValueError, RecursionError) as exc:
            arrival.verified = False if self.secret else None
            arrival.problem = str(exc)
        with self._arrived:
            self.arrivals.append(arrival)
            self._arrived.notify_all()

    def snapshot(self) -> list[Arrival]:
        with self._lock:
            return list(self.arrivals)

    def wait_new(self, seen: int, timeout: float) -> None:
        """Until more than ``seen`` arrivals are recorded, or ``timeout`` seconds."""
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.arrivals) > seen, timeout=max(timeout, 0))

    def __enter__(self) -> Receiver:
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=2.0)
