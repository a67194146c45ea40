"""Blocking socket I/O for one request per connection: ``connect()`` gives a ``Connection``.

Strategy: resolve the host, try each address in order with the connect timeout applied
per address, wrap in TLS for https (ssl is imported only then), send the request bytes,
then hand back whatever bytes arrive (the sans-IO exchange makes sense of them). Every
OSError becomes a roncho error here, at this one boundary, in the words of ``_network``,
which the asyncio transport shares.
"""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

from . import _network as network
from ._checks import Endpoint
from ._errors import RonchoError
from ._network import Attempts, ConnectionCore, SocketFactory, Timeouts

if TYPE_CHECKING:
    import ssl


def connect(
    endpoint: Endpoint,
    timeouts: Timeouts,
    tls: ssl.SSLContext | None,
    what: str,
    new_socket: SocketFactory = socket.socket,
) -> Connection:
    """A connection to the first of the endpoint's addresses that answers (TLS done)."""
    try:
        addresses = network.resolve(endpoint.host, endpoint.port)
    except OSError as exc:  # socket.gaierror and friends
        raise network.cannot_resolve(what, endpoint.host, exc) from None
    attempts = Attempts(endpoint, what, timeouts)
    for family, kind, proto, address, seconds in attempts.each(addresses):
        sock = new_socket(family, kind, proto)
        try:
            sock.settimeout(seconds)
            sock.connect(address)
        except OSError as exc:
            sock.close()
            attempts.failed(address, exc)
            continue
        if tls is not None:
            sock = _wrap_tls(sock, tls, endpoint.host, what)
        return Connection(sock, timeouts, what)
    raise attempts.error()


def _wrap_tls(sock: socket.socket, tls: ssl.SSLContext, host: str, what: str) -> socket.socket:
    try:
        return tls.wrap_socket(sock, server_hostname=host)
    except OSError as exc:  # ssl.SSLError (and CertificateError) are OSErrors
        sock.close()
        raise network.handshake_failed(what, exc) from None


class Connection(ConnectionCore):
    """One open connection carrying one request; closes on any error."""

    def __init__(self, sock: socket.socket, timeouts: Timeouts, what: str) -> None:
        super().__init__(timeouts, what)
        self._sock: socket.socket | None = sock

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()

    def _ready(self) -> tuple[socket.socket, bool]:
        """The open socket, its timeout set for the next send or read, and whether the
        deadline binds."""
        seconds, by_deadline = self._wait_for()
        assert self._sock is not None
        self._sock.settimeout(seconds)
        return self._sock, by_deadline

    def send(self, data: bytes | bytearray) -> None:
        # ``data`` holds the Authorization header. A frame keeps its locals after it
        # raises, and traceback.TracebackException(capture_locals=True) or a debugger
        # would print them, so the name is dropped before any error leaves this method.
        failure: RonchoError | None = None
        by_deadline = False
        try:
            sock, by_deadline = self._ready()
            self.request_sent = True  # from here on, bytes may have reached the server
            sock.sendall(data)
        except OSError as exc:
            failure = self._send_failed(exc, by_deadline)
        finally:
            del data
        if failure is not None:
            raise failure

    def read(self, room: memoryview | None = None) -> bytes | int:
        """The bytes received or, given ``room``, how many were received into it (``b""``
        or 0 once the server has closed)."""
        by_deadline = False
        try:
            sock, by_deadline = self._ready()
            return sock.recv(network.RECV_BYTES) if room is None else sock.recv_into(room)
        except OSError as exc:
            raise self._read_failed(exc, by_deadline) from None
