"""Socket I/O for one request per connection: the only module that imports socket.

Strategy: resolve the host, try each address in order with the connect timeout applied
per address, wrap in TLS for https (ssl is imported only then), send the request bytes,
then hand back whatever bytes arrive (the sans-IO exchange makes sense of them). Every OSError
becomes a roncho error here, at this one boundary. Two clocks apply to every wait: the
idle ``read_timeout`` (no byte for N seconds) and the optional total deadline.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ._checks import Endpoint
from ._deadline import Deadline, Limits
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
# for it every time (a 60 KiB answer: 26 us a read at 256 KiB, 5 us at 64 KiB). A larger
# body is read into a buffer of its own size instead (Exchange.room).
RECV_BYTES = 64 * 1024

# How a socket is made for each resolved address: ``(family, type, proto) -> socket``. The
# connection seam: ``Client._new_socket`` hands one to every Connection, so a test can give
# a client of its own a socket whose connect() or sendall() misbehaves (a blackholed
# address, a reset on send) instead of patching ``socket.socket`` for the whole process.
SocketFactory = Callable[[int, int, int], socket.socket]


def _resolve(host: str, port: int) -> list[tuple[Any, ...]]:
    """getaddrinfo, kept apart so tests can patch it (and so bypass no real resolver).

    An IP literal is its own one address (getaddrinfo would say the same, slower)."""
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


class Failures:
    """What both transports' connections share: the call's two clocks, and the error a
    failed send or read becomes (naming the request, saying whether it was sent)."""

    def __init__(self, limits: Limits, clock: Deadline, what: str) -> None:
        self._what = what  # "METHOD /path" for messages; never headers
        self._clock = clock
        self._limits = limits
        self.request_sent = False

    def close(self) -> None:
        raise NotImplementedError

    def _wait_for(self) -> tuple[float, bool]:
        """Seconds the next send or read may wait, and whether the deadline binds."""
        try:
            return self._clock.wait_for(self._limits.read_timeout, time.monotonic())
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
        return kind(f"{self._what}: connection lost while {lost} ({_why(exc)})", request_sent=True)

    def _timeout_error(self, by_deadline: bool, doing: str) -> RonchoError:
        if by_deadline:
            return self._clock.expired(self._what, doing, self.request_sent)
        return idle_timeout(self._what, self._limits.read_timeout, doing, self.request_sent)


class Connection(Failures):
    """One open connection carrying one request; closes on any error."""

    def __init__(
        self,
        endpoint: Endpoint,
        limits: Limits,
        clock: Deadline,
        tls: ssl.SSLContext | None,
        what: str,
        new_socket: SocketFactory = socket.socket,
    ) -> None:
        super().__init__(limits, clock, what)
        self._sock: socket.socket | None = self._connect(endpoint, tls, new_socket)

    def _connect(
        self, endpoint: Endpoint, tls: ssl.SSLContext | None, new_socket: SocketFactory
    ) -> socket.socket:
        try:
            addresses = _resolve(endpoint.host, endpoint.port)
        except OSError as exc:  # socket.gaierror and friends
            raise cannot_resolve(self._what, endpoint.host, exc) from None
        attempts = Attempts(endpoint, self._what, self._limits.connect_timeout, self._clock)
        for family, kind, proto, address, seconds in attempts.each(addresses):
            sock = new_socket(family, kind, proto)
            try:
                sock.settimeout(seconds)
                sock.connect(address)
            except OSError as exc:
                sock.close()
                attempts.failed(address, exc)
                continue
            return sock if tls is None else _wrap_tls(sock, tls, endpoint.host, self._what)
        raise attempts.error()

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()

    def _settimeout(self) -> bool:
        seconds, by_deadline = self._wait_for()
        assert self._sock is not None
        self._sock.settimeout(seconds)
        return by_deadline

    def send(self, data: bytes | bytearray) -> None:
        # ``data`` holds the Authorization header. A frame keeps its locals after it
        # raises, and traceback.TracebackException(capture_locals=True) or a debugger
        # would print them, so the name is dropped before any error leaves this method.
        failure: RonchoError | None = None
        by_deadline = False
        try:
            by_deadline = self._settimeout()
            self.request_sent = True  # from here on, bytes may have reached the server
            assert self._sock is not None
            self._sock.sendall(data)
        except OSError as exc:
            failure = self._send_failed(exc, by_deadline)
        finally:
            del data
        if failure is not None:
            raise failure

    def read(self, room: memoryview | None) -> bytes | int:
        """The bytes received (``room`` None; ``b""`` once the server has closed), or how
        many were read into ``room`` (a large body's own buffer: one copy fewer)."""
        by_deadline = False
        try:
            by_deadline = self._settimeout()
            assert self._sock is not None
            return self._sock.recv(RECV_BYTES) if room is None else self._sock.recv_into(room)
        except OSError as exc:
            raise self._read_failed(exc, by_deadline) from None

    def recv(self) -> bytes:
        data = self.read(None)
        assert isinstance(data, bytes)
        return data


def idle_timeout(what: str, seconds: float, doing: str, request_sent: bool) -> ReadTimeout:
    return ReadTimeout(f"{what}: no bytes for {seconds} s while {doing}", request_sent=request_sent)


class Attempts:
    """Each resolved address's connect attempt, for the one error that names them all.

    ``each`` hands out the addresses with the seconds each may take (the connect timeout,
    or less when the deadline is nearer); ``failed`` notes why one failed (raising at once
    when it was the deadline that ran out); ``error`` is what to raise when none connected.
    """

    def __init__(self, endpoint: Endpoint, what: str, limit: float, clock: Deadline) -> None:
        self._endpoint = endpoint
        self._what = what
        self._limit = limit
        self._clock = clock
        self._by_deadline = False
        self._failures: list[str] = []
        self._timed_out = 0

    def each(self, addresses: list[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
        """``(family, type, proto, address, seconds)`` for each address in turn."""
        if not addresses:
            raise ConnectError(f"{self._what}: {self._endpoint.host!r} resolved to no address")
        for family, kind, proto, _canon, address in addresses:
            seconds, self._by_deadline = self._clock.wait_for(self._limit, time.monotonic())
            yield family, kind, proto, address, seconds

    def failed(self, address: tuple[Any, ...], exc: OSError) -> None:
        if not isinstance(exc, TimeoutError):
            self._failures.append(f"{_show(address)}: {_why(exc)}")
            return
        if self._by_deadline:
            raise self._clock.expired(self._what, "connecting", False) from None
        self._timed_out += 1
        self._failures.append(f"{_show(address)}: timed out after {self._limit} s")

    def error(self) -> ConnectError:
        where = f"{self._what}: cannot connect to {self._endpoint.host_header}"
        summary = "; ".join(self._failures)
        if self._timed_out == len(self._failures):
            return ConnectTimeout(f"{where} ({summary})")
        return ConnectError(f"{where} ({summary})")


def cannot_resolve(what: str, host: str, exc: OSError) -> ConnectError:
    return ConnectError(f"{what}: cannot resolve {host!r} ({_why(exc)})")


def _wrap_tls(sock: socket.socket, tls: ssl.SSLContext, host: str, what: str) -> socket.socket:
    import ssl  # only ever loaded for an https base URL

    try:
        return tls.wrap_socket(sock, server_hostname=host)
    except (ssl.SSLError, ssl.CertificateError, OSError) as exc:
        sock.close()
        if isinstance(exc, TimeoutError):
            raise ConnectTimeout(f"{what}: TLS handshake timed out") from None
        raise ConnectError(f"{what}: TLS handshake failed ({_why(exc)})") from None


def _show(address: tuple[Any, ...]) -> str:
    host, port = address[0], address[1]
    return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def tls_context() -> ssl.SSLContext:
    """System certificates, hostname checked: the standard library's defaults, no less."""
    import ssl

    return ssl.create_default_context()
