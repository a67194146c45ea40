"""What both transports share: the connection interface, the two clocks, name resolution,
and the wording of every connection failure.

``_transport`` (blocking sockets) and ``aio._transport`` (the event loop's socket methods)
each has a ``connect()`` that returns its connection (``Connection``, ``AsyncConnection``,
both a ``ConnectionCore``); both import only this module, never each other. The clients
drive a connection the same way: ``send`` the request, then ``read`` until the exchange has
its answer, then ``close`` (given the ``room`` the exchange offers, a body of known length
is read into its buffer).

``Timeouts`` holds every clock of a call: the connect timeout, the idle read timeout ("no
byte for N seconds") and the optional total ``deadline``. Each transport asks it, before
each connect, send or read, how long it may wait.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ._checks import Endpoint
from ._errors import (
    ConnectError,
    ConnectTimeout,
    DeadlineExceeded,
    ProtocolError,
    ReadTimeout,
    RonchoError,
)

if TYPE_CHECKING:
    import ssl

# The most one read takes. Not more: CPython makes a bytes object of this size for each
# recv() and shrinks it to what came, and at 128 KiB or more glibc's malloc maps fresh pages
# for it every time (benchmarks/RESULTS.md has the figures).
RECV_BYTES = 64 * 1024

# How a socket is made for each resolved address: ``(family, type, proto) -> socket``. The
# connection seam: ``Client._new_socket`` is handed to every connect(), so a test can give
# a client of its own a socket whose connect() or sendall() misbehaves (a blackholed
# address, a reset on send) instead of patching ``socket.socket`` for the whole process.
SocketFactory = Callable[[int, int, int], socket.socket]


# -- the clocks --------------------------------------------------------------------------
class Timeouts:
    """Every clock of a call, in one object: ``connect`` (seconds per resolved address),
    ``read`` (an idle timeout: no byte for that long), and the optional ``total`` (the
    call's deadline, counted from ``started``).

    A client keeps one without a total; each call gets its own from ``for_call``. It is the
    one place that says how long the next wait may be (``connect_wait``, ``read_wait``):
    its own limit, or less when the deadline is nearer. Pure: the caller passes the time.
    """

    __slots__ = ("connect", "ends_at", "read", "total")

    def __init__(
        self, connect: float, read: float, total: float | None = None, started: float = 0.0
    ) -> None:
        self.connect = connect
        self.read = read
        self.total = total
        self.ends_at = None if total is None else started + total

    def for_call(self, total: float | None, now: float) -> Timeouts:
        """These timeouts for one call, its deadline (if any) counted from ``now``."""
        return Timeouts(self.connect, self.read, total, now)

    def connect_wait(self, now: float) -> tuple[float, bool]:
        """Seconds one connect may wait, and whether it is the deadline that binds."""
        return self._wait(self.connect, now)

    def read_wait(self, now: float) -> tuple[float, bool]:
        """Seconds the next send or read may wait, and whether the deadline binds."""
        return self._wait(self.read, now)

    def _wait(self, limit: float, now: float) -> tuple[float, bool]:
        if self.ends_at is None:
            return limit, False
        left = self.ends_at - now
        if left <= 0:
            raise DeadlineExceeded(f"the call's deadline of {self.total} s passed")
        return (left, True) if left < limit else (limit, False)

    def expired(self, what: str, doing: str, request_sent: bool) -> DeadlineExceeded:
        return DeadlineExceeded(
            f"{what}: the call's deadline of {self.total} s passed while {doing}",
            request_sent=request_sent,
        )


# -- resolving and connecting --------------------------------------------------------------
def resolve(host: str, port: int) -> list[tuple[Any, ...]]:
    """getaddrinfo, in one place both transports call (so tests can patch it, and so
    bypass every real resolver). An IP literal is its own one address (getaddrinfo would
    say the same, slower)."""
    family = numeric_family(host)
    if family == socket.AF_INET:
        return [(family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (host, port))]
    if family == socket.AF_INET6:
        return [(family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (host, port, 0, 0))]
    return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)


def numeric_family(host: str) -> int | None:
    """AF_INET or AF_INET6 for an IP literal (without a zone: that takes getaddrinfo)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        socket.inet_pton(family, host)
    except OSError:
        return None
    return family


class Attempts:
    """Each resolved address's connect attempt, for the one error that names them all.

    ``each`` hands out the addresses with the seconds each may take (the connect timeout,
    or less when the deadline is nearer); ``failed`` notes why one failed (raising at once
    when it was the deadline that ran out); ``error`` is what to raise when none connected.
    """

    def __init__(self, endpoint: Endpoint, what: str, timeouts: Timeouts) -> None:
        self._endpoint = endpoint
        self._what = what
        self._timeouts = timeouts
        self._by_deadline = False
        self._failures: list[str] = []
        self._timed_out = 0

    def each(self, addresses: list[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
        """``(family, type, proto, address, seconds)`` for each address in turn."""
        if not addresses:
            raise ConnectError(f"{self._what}: {self._endpoint.host!r} resolved to no address")
        for family, kind, proto, _canon, address in addresses:
            try:
                seconds, self._by_deadline = self._timeouts.connect_wait(time.monotonic())
            except DeadlineExceeded:  # spent before this address (a slow resolver, say)
                raise self._timeouts.expired(self._what, "connecting", False) from None
            yield family, kind, proto, address, seconds

    def failed(self, address: tuple[Any, ...], exc: OSError) -> None:
        if not isinstance(exc, TimeoutError):
            self._failures.append(f"{_show(address)}: {why(exc)}")
            return
        if self._by_deadline:
            raise self._timeouts.expired(self._what, "connecting", False) from None
        self._timed_out += 1
        self._failures.append(f"{_show(address)}: timed out after {self._timeouts.connect} s")

    def error(self) -> ConnectError:
        where = f"{self._what}: cannot connect to {self._endpoint.host_header}"
        summary = "; ".join(self._failures)
        if self._timed_out == len(self._failures):
            return ConnectTimeout(f"{where} ({summary})")
        return ConnectError(f"{where} ({summary})")


def cannot_resolve(what: str, host: str, exc: OSError) -> ConnectError:
    return ConnectError(f"{what}: cannot resolve {host!r} ({why(exc)})")


# What OpenSSL says when the answer to its hello is not TLS at all: a plain HTTP server's
# "HTTP/1.1 400" read as a TLS record (OpenSSL 3.0 and 3.1; later ones say the second).
_NOT_TLS_REASONS = frozenset({"WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE"})


def handshake_failed(what: str, exc: BaseException) -> ConnectError:
    """The error a failed TLS handshake is (SSLError is an OSError), with the likely cause
    when the server answered in something other than TLS."""
    if isinstance(exc, TimeoutError):
        return ConnectTimeout(f"{what}: TLS handshake timed out")
    hint = ""
    if getattr(exc, "reason", None) in _NOT_TLS_REASONS:
        hint = ": the port likely speaks plain HTTP, so use an http:// base URL"
    return ConnectError(f"{what}: TLS handshake failed ({why(exc)}){hint}")


def tls_context() -> ssl.SSLContext:
    """System certificates, hostname checked: the standard library's defaults, no less."""
    import ssl  # only ever loaded for an https base URL

    return ssl.create_default_context()


# -- what a failed send or read becomes ----------------------------------------------------
class ConnectionCore:
    """What both transports' connections share: the call's timeouts, and the error a
    failed send or read becomes (naming the request, saying whether it was sent)."""

    def __init__(self, timeouts: Timeouts, what: str) -> None:
        self._what = what  # "METHOD /path" for messages; never headers
        self._timeouts = timeouts
        self.request_sent = False

    def close(self) -> None:
        raise NotImplementedError

    def _wait_for(self) -> tuple[float, bool]:
        """Seconds the next send or read may wait, and whether the deadline binds."""
        try:
            return self._timeouts.read_wait(time.monotonic())
        except DeadlineExceeded:
            # The deadline ran out between reads (e.g. a caller slow to iterate a stream):
            # the same error as running out during a read, naming the request and saying
            # whether it was sent, not the clock's bare one (which says request_sent False).
            self.close()
            doing = "waiting for the response" if self.request_sent else "sending the request"
            raise self._timeout_error(True, doing) from None

    def _send_failed(self, exc: OSError, by_deadline: bool) -> RonchoError:
        return self._failed(exc, by_deadline, "sending the request", "sending", ConnectError)

    def _read_failed(self, exc: OSError, by_deadline: bool) -> RonchoError:
        return self._failed(exc, by_deadline, "waiting for the response", "reading", ProtocolError)

    def _failed(
        self, exc: OSError, by_deadline: bool, doing: str, lost: str, kind: type[RonchoError]
    ) -> RonchoError:
        """Close, and say what ran out (a clock) or broke (``kind``) while ``doing``."""
        self.close()
        if isinstance(exc, TimeoutError):
            return self._timeout_error(by_deadline, doing)
        return kind(f"{self._what}: connection lost while {lost} ({why(exc)})", request_sent=True)

    def _timeout_error(self, by_deadline: bool, doing: str) -> RonchoError:
        if by_deadline:
            return self._timeouts.expired(self._what, doing, self.request_sent)
        return ReadTimeout(
            f"{self._what}: no bytes for {self._timeouts.read} s while {doing}",
            request_sent=self.request_sent,
        )


def _show(address: tuple[Any, ...]) -> str:
    host, port = address[0], address[1]
    return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"


def why(exc: BaseException) -> str:
    """An OSError's own words (never its address or arguments), else the error's kind."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return type(exc).__name__
