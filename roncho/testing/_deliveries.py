"""The emulator's webhook poster: one thread that posts each signed event, once.

As the server does, it never retries: whatever the receiver answers, or when it is down,
the attempt is over. Unlike the server, it posts only to loopback addresses unless
``allow_remote`` (an emulator in a test suite must not post to the world), and it keeps a
journal of every attempt (``deliveries()``; ``FakeHoncho.webhook_deliveries()``). The
thread starts with the first event and stops on ``close()``.
"""

from __future__ import annotations

import http.client
import ipaddress
import queue
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

# The server's httpx client waits 30 s; an emulator in a test suite should not.
DELIVERY_TIMEOUT = 5.0
# How often a delivery held by a stopped deriver looks again.
HOLD_POLL = 0.01
SIGNATURE_HEADER = "X-Honcho-Signature"
USER_AGENT = "roncho-fake-honcho"
# How much of a receiver's answer is read before the connection is closed.
ANSWER_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class Delivery:
    """One post the emulator made, or did not make (``sent`` False, ``error`` says why).

    ``status`` is the receiver's answer, None when there was none; ``at`` is
    ``time.monotonic()`` when the attempt ended."""

    url: str
    event_type: str
    body: bytes
    signature: str
    sent: bool
    status: int | None
    error: str | None
    at: float


def _not_loopback(url: str) -> str | None:
    """Why ``url`` may not be posted to without ``allow_remote``, or None when it may."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        infos = socket.getaddrinfo(host, parts.port or 80, type=socket.SOCK_STREAM)
    except OSError as exc:
        return f"cannot resolve {host!r}: {exc}"
    addresses = {str(info[4][0]) for info in infos}
    remote = sorted(a for a in addresses if not ipaddress.ip_address(a.split("%")[0]).is_loopback)
    if remote:
        return f"{host!r} resolves to non-loopback {', '.join(remote)}; allow_remote is off"
    return None


class Deliverer:
    """Posts events on its own thread and journals every attempt."""

    def __init__(
        self, *, allow_remote: bool = False, failing: Callable[[str], bool] = lambda _: False
    ) -> None:
        self.allow_remote = allow_remote
        self._failing = failing  # the fault rules' "webhook_lost" and "deriver_stopped"
        self._lock = threading.Lock()
        self._journal: list[Delivery] = []
        self._outbox: queue.Queue[tuple[str, str, bytes, str | None] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._closed = False

    def post(self, url: str, event_type: str, body: bytes, signature: str | None) -> None:
        with self._lock:
            if self._closed:
                return
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="roncho-fake-webhooks", daemon=True
                )
                self._thread.start()
        self._outbox.put((url, event_type, body, signature))

    def deliveries(self) -> list[Delivery]:
        """Every attempt so far, oldest first (a copy)."""
        with self._lock:
            return list(self._journal)

    def wait_for(
        self, count: int, *, timeout: float, sleep: Callable[[float], object] = time.sleep
    ) -> list[Delivery]:
        """The journal once it holds ``count`` attempts, or as it is after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            journal = self.deliveries()
            if len(journal) >= count or time.monotonic() >= deadline:
                return journal
            sleep(0.01)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            thread = self._thread
        if thread is not None:
            self._outbox.put(None)
            thread.join(timeout=DELIVERY_TIMEOUT + 1.0)

    def _run(self) -> None:
        while (item := self._outbox.get()) is not None:
            # On the server a delivery is a deriver queue item: a stopped deriver holds it.
            while self._failing("deriver_stopped") and not self._closed:
                time.sleep(HOLD_POLL)
            record = self._deliver(*item)
            with self._lock:
                self._journal.append(record)

    def _deliver(self, url: str, event_type: str, body: bytes, signature: str | None) -> Delivery:
        def outcome(sent: bool, status: int | None, error: str | None) -> Delivery:
            return Delivery(
                url=url,
                event_type=event_type,
                body=body,
                signature=signature or "",
                sent=sent,
                status=status,
                error=error,
                at=time.monotonic(),
            )

        if signature is None:  # the server logs "WEBHOOK_SECRET not found" and sends nothing
            return outcome(False, None, "no webhook secret: nothing is signed or sent")
        if self._failing("webhook_lost"):
            return outcome(False, None, "lost (fault webhook_lost): never sent, never retried")
        if not self.allow_remote:
            why = _not_loopback(url)
            if why is not None:
                return outcome(False, None, why)
        parts = urlsplit(url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host = parts.hostname or ""
        connection: http.client.HTTPConnection
        if parts.scheme == "https":
            connection = http.client.HTTPSConnection(host, parts.port, timeout=DELIVERY_TIMEOUT)
        else:
            connection = http.client.HTTPConnection(host, parts.port, timeout=DELIVERY_TIMEOUT)
        headers = {
            "Content-Type": "application/json",
            SIGNATURE_HEADER: signature,
            "User-Agent": USER_AGENT,
        }
        try:
            connection.request("POST", target, body=body, headers=headers)
            response = connection.getresponse()
            response.read(ANSWER_BYTES)
            return outcome(True, response.status, None)
        except (OSError, http.client.HTTPException) as exc:
            return outcome(True, None, f"{type(exc).__name__}: {exc}")
        finally:
            connection.close()
