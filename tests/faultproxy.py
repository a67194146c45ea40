"""A fault proxy on loopback: between roncho and an HTTP server, it breaks chosen exchanges
the ways a network and a restarting server do, deterministically by seed.

Each connection carries one request (roncho always sends ``Connection: close``). The proxy
reads the request whole, asks its ``FaultPlan`` what to do with it, and then:

==================  =========================================================================
``pass``            forwards it and relays the answer
``reset_early``     resets the client's connection (RST) without forwarding: the server
                    never sees the request, the client had sent it all
``reset_sent``      forwards it, then resets the client at once, before the server answered
                    (the server goes on and is answered into the void)
``reset_answered``  forwards it, reads the server's whole answer, then resets the client
``hold``            forwards it, reads the whole answer, and holds it ``hold`` seconds (past
                    the client's read timeout) before sending it
``cut``             forwards it and relays the answer's head and half its body, then closes
``refuse``          forwards it and relays the answer; then stops listening for
                    ``refuse_for`` seconds: the next connections are refused (ECONNREFUSED)
==================  =========================================================================

Only requests the plan's ``applies`` says are faulted (a predicate on the request line);
the rest pass. The plan draws from ``random.Random(seed)`` once per such request, in the
order they come: a client that sends one request at a time gets the same faults on every
run. Standard library only; it lives in tests/ because it is a harness for roncho's own
checks (tests/delivery_soak.py, tests/wire/test_delivery_function.py), not something a
user of the library needs: the emulator's fault switches serve those.
"""

from __future__ import annotations

import contextlib
import random
import select
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

KINDS = ("reset_early", "reset_sent", "reset_answered", "hold", "cut", "refuse")
# Every wait of the proxy on a socket is bounded by this (seconds): longer than any answer
# a test server gives, short enough that a stuck exchange ends.
IO_WAIT = 60.0
ACCEPT_POLL = 0.05


def is_message_write(request_line: str) -> bool:
    """``POST .../sessions/{id}/messages``: add_messages, the write sync_batch sends."""
    method, _, rest = request_line.partition(" ")
    path = rest.split(" ", 1)[0].split("?", 1)[0]
    return method == "POST" and path.endswith("/messages")


class FaultPlan:
    """Which fault each request the plan applies to gets: ``rate`` of them a fault, its kind
    drawn from ``kinds`` (each equally likely), by ``random.Random(seed)``; or, with
    ``script``, the kinds in that order (then ``pass``)."""

    def __init__(
        self,
        seed: int = 0,
        *,
        rate: float = 0.3,
        kinds: Sequence[str] = KINDS,
        script: Sequence[str] | None = None,
        applies: Callable[[str], bool] = is_message_write,
    ) -> None:
        unknown = set(kinds) - set(KINDS) | set(script or ()) - {*KINDS, "pass"}
        if unknown:
            raise ValueError(f"unknown fault kinds: {sorted(unknown)}")
        self._rng = random.Random(seed)
        self._rate = rate
        self._kinds = tuple(kinds)
        self._script = list(script) if script is not None else None
        self.applies = applies

    def next(self) -> str:
        if self._script is not None:
            return self._script.pop(0) if self._script else "pass"
        if self._rng.random() >= self._rate:
            return "pass"
        return self._rng.choice(self._kinds)


class FaultProxy:
    """``with FaultProxy(("127.0.0.1", 8000), plan, hold=3.0) as proxy:`` then point a
    client at ``proxy.url``. ``injected`` counts the faults done, by kind; ``requests``
    every request seen; ``errors`` what went wrong inside the proxy (empty if nothing)."""

    def __init__(
        self,
        upstream: tuple[str, int],
        plan: FaultPlan,
        *,
        hold: float,
        refuse_for: float = 1.0,
    ) -> None:
        self.upstream = upstream
        self.plan = plan
        self.hold = hold
        self.refuse_for = refuse_for
        self.injected: Counter[str] = Counter()
        self.requests = 0
        self.refused_periods = 0
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._refuse_until = 0.0
        self._workers: list[threading.Thread] = []
        self._listener: socket.socket | None = self._listen(0)
        self.port: int = self._listener.getsockname()[1]
        self._acceptor = threading.Thread(target=self._accept_loop, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> FaultProxy:
        self._acceptor.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._acceptor.join(IO_WAIT)
        for worker in list(self._workers):
            worker.join(IO_WAIT)

    # -- listening, and refusing for a while ------------------------------------------------
    def _listen(self, port: int) -> socket.socket:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(64)
        return sock

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                listener = self._listener
                if listener is None and time.monotonic() >= self._refuse_until:
                    listener = self._listener = self._listen(self.port)  # the same port again
            if listener is None:
                time.sleep(ACCEPT_POLL)
                continue
            try:
                ready, _, _ = select.select([listener], [], [], ACCEPT_POLL)
                if not ready:
                    continue
                conn, _ = listener.accept()
            except OSError:  # a worker closed the listener to refuse: go round
                continue
            worker = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self._workers = [w for w in self._workers if w.is_alive()]
            self._workers.append(worker)
            worker.start()
        with self._lock:
            if self._listener is not None:
                self._listener.close()

    def _refuse(self) -> None:
        """Stop listening now, before the answer goes out: every connection the client
        makes after it is refused until ``refuse_for`` has passed."""
        with self._lock:
            self.refused_periods += 1
            self._refuse_until = time.monotonic() + self.refuse_for
            if self._listener is not None:
                # shutdown first: a select() on it in the accept loop keeps the socket
                # listening past close() until it returns; shutdown stops it at once.
                with contextlib.suppress(OSError):
                    self._listener.shutdown(socket.SHUT_RDWR)
                self._listener.close()
                self._listener = None

    # -- one exchange ---------------------------------------------------------------------
    def _serve(self, client: socket.socket) -> None:
        try:
            client.settimeout(IO_WAIT)
            request = _read_request(client)
            if request is None:
                return
            line = request.split(b"\r\n", 1)[0].decode("latin-1")
            with self._lock:
                self.requests += 1
                kind = self.plan.next() if self.plan.applies(line) else "pass"
                if kind != "pass":
                    self.injected[kind] += 1
            self._exchange(client, request, kind)
        except Exception as error:
            self.errors.append(f"{type(error).__name__}: {error}")
        finally:
            client.close()

    def _exchange(self, client: socket.socket, request: bytes, kind: str) -> None:
        if kind == "reset_early":
            _reset(client)
            return
        server = socket.create_connection(self.upstream, timeout=IO_WAIT)
        try:
            server.sendall(request)
            if kind == "reset_sent":
                _reset(client)
                _read_all(server)  # the server finishes its work; its answer goes nowhere
                return
            answer = _read_all(server)
        finally:
            server.close()
        if kind == "reset_answered":
            _reset(client)
        elif kind == "cut":
            head, _, body = answer.partition(b"\r\n\r\n")
            _send_quietly(client, head + b"\r\n\r\n" + body[: len(body) // 2])
        elif kind == "hold":
            time.sleep(self.hold)
            _send_quietly(client, answer)
        else:  # pass, refuse
            if kind == "refuse":
                self._refuse()
            _send_quietly(client, answer)


def _read_request(sock: socket.socket) -> bytes | None:
    """One request, head and Content-Length body (roncho sends no chunked request)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        body += chunk
    return head + b"\r\n\r\n" + body


def _read_all(sock: socket.socket) -> bytes:
    """Everything until the server closes (it does, after ``Connection: close``)."""
    parts = []
    while chunk := sock.recv(65536):
        parts.append(chunk)
    return b"".join(parts)


def _reset(sock: socket.socket) -> None:
    """Close with RST, not FIN: the client's next read or send fails with ECONNRESET."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _send_quietly(sock: socket.socket, data: bytes) -> None:
    """Send what the client may no longer want (it gave up on a held answer)."""
    with contextlib.suppress(OSError):
        sock.sendall(data)


def counts(proxy: FaultProxy) -> dict[str, Any]:
    """The proxy's figures, every kind named (0 when it never came)."""
    return {
        "requests": proxy.requests,
        "faults": {kind: proxy.injected.get(kind, 0) for kind in KINDS},
        "proxy_errors": list(proxy.errors),
    }
