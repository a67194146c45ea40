"""asyncio I/O for one request per connection: ``connect()`` gives an ``AsyncConnection``.

The async twin of ``_transport``, with the same strategy and the same errors (both take
their words from ``_network``): resolve, try each address with the connect timeout
applied per address (and the deadline), TLS only for https, send, then hand back whatever
bytes arrive within the idle read timeout. The socket is non-blocking and driven by the
loop's own socket methods (``sock_connect``, ``sock_sendall``, ``sock_recv``,
``sock_recv_into`` for a body of known length): no transport,
no protocol, no buffer between the kernel and the exchange, and nothing read that the call
did not ask for. Each send and read is first tried at once; only when the kernel has nothing
does the call wait, under one timer. TLS is an ``ssl.SSLObject`` over memory buffers fed by
the same reads and writes (ssl is imported only for it). A cancelled call closes its
socket at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

from .. import _network as network
from .._checks import Endpoint
from .._errors import RonchoError
from .._network import Attempts, ConnectionCore, SocketFactory, Timeouts

if TYPE_CHECKING:
    import ssl

T = TypeVar("T")


async def _resolve(host: str, port: int) -> list[tuple[Any, ...]]:
    """An IP literal is resolved in place; a name through the loop's resolver (a thread of
    the loop's default executor, as every asyncio name lookup is)."""
    if network.numeric_family(host) is None:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, network.resolve, host, port)
    return network.resolve(host, port)  # numeric: no lookup, and the tests' one seam


async def connect(
    endpoint: Endpoint,
    timeouts: Timeouts,
    tls: ssl.SSLContext | None,
    what: str,
    new_socket: SocketFactory = socket.socket,
) -> AsyncConnection:
    """A connection to the first of the endpoint's addresses that answers (TLS done). A
    cancelled connect closes its socket at once."""
    try:
        addresses = await _resolve(endpoint.host, endpoint.port)
    except OSError as exc:
        raise network.cannot_resolve(what, endpoint.host, exc) from None
    loop = asyncio.get_running_loop()
    attempts = Attempts(endpoint, what, timeouts)
    for family, kind, proto, address, seconds in attempts.each(addresses):
        sock = new_socket(family, kind, proto)
        connection = AsyncConnection(sock, timeouts, what)
        try:
            sock.setblocking(False)
            await connection._wait(seconds, loop.sock_connect(sock, address))
        except BaseException as exc:
            connection.close()  # not connected, or cancelled: closed at once
            if not isinstance(exc, OSError):
                raise
            attempts.failed(address, exc)
            continue
        if tls is not None:
            await connection._handshake(tls, endpoint.host, seconds)
        return connection
    raise attempts.error()


class _Tls:
    """TLS as bytes in, bytes out: an SSLObject between two memory buffers."""

    def __init__(self, context: ssl.SSLContext, host: str) -> None:
        import ssl  # only ever loaded for an https base URL

        self.ssl = ssl
        self.incoming = ssl.MemoryBIO()
        self.outgoing = ssl.MemoryBIO()
        self.object = context.wrap_bio(self.incoming, self.outgoing, server_hostname=host)


class AsyncConnection(ConnectionCore):
    """One open connection carrying one request; closes on any error or cancellation."""

    def __init__(self, sock: socket.socket, timeouts: Timeouts, what: str) -> None:
        super().__init__(timeouts, what)
        self._sock: socket.socket | None = sock
        self._tls: _Tls | None = None
        self._loop = asyncio.get_running_loop()
        self._waiting = False

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is None:
            return
        if self._waiting:
            # Closed from another task while this one waits (a stream closed mid-read): the
            # socket leaves the selector first, so the pending wait cannot later unregister
            # another socket that reuses its number. (A wait that ends, by an answer, a
            # timeout or a cancellation, has already left it when its caller resumes.)
            for remove in (self._loop.remove_reader, self._loop.remove_writer):
                with contextlib.suppress(NotImplementedError):  # a loop with no such waits
                    remove(sock.fileno())
        sock.close()

    async def _wait(self, seconds: float, waiting: Awaitable[T]) -> T:
        """``waiting`` (one of the loop's socket methods), within ``seconds``."""
        self._waiting = True
        try:
            async with asyncio.timeout(seconds):
                return await waiting
        finally:
            self._waiting = False

    # -- TLS -----------------------------------------------------------------------------
    async def _handshake(self, context: ssl.SSLContext, host: str, seconds: float) -> None:
        """The TLS handshake, within the connect timeout, as the blocking client's."""
        try:
            tls = self._tls = _Tls(context, host)
            await self._wait(seconds, self._shake(tls))
        except BaseException as exc:
            self.close()
            if isinstance(exc, (OSError, ValueError)):  # SSLError and TimeoutError are OSErrors
                raise network.handshake_failed(self._what, exc) from None
            raise

    async def _shake(self, tls: _Tls) -> None:
        while True:
            try:
                tls.object.do_handshake()
                done = True
            except tls.ssl.SSLWantReadError:
                done = False
            await self._flush(tls)
            if done:
                return
            data = await self._loop.sock_recv(self._sock_now(), network.RECV_BYTES)
            if not data:
                raise ConnectionAbortedError(0, "the server closed the connection")
            tls.incoming.write(data)

    async def _flush(self, tls: _Tls) -> None:
        """Send what TLS has written (handshake messages, encrypted records)."""
        pending = tls.outgoing.read()
        if pending:
            await self._loop.sock_sendall(self._sock_now(), pending)

    def _sock_now(self) -> socket.socket:
        assert self._sock is not None, "the connection is closed"
        return self._sock

    # -- sending ---------------------------------------------------------------------------
    async def send(self, data: bytes | bytearray) -> None:
        """Write the whole request. ``data`` is never copied into a new object here (a
        bytearray holding the key is wiped by the caller once this returns)."""
        seconds, by_deadline = self._wait_for()
        self.request_sent = True  # from here on, bytes may have reached the server
        failure: RonchoError | None = None
        try:
            await self._send(memoryview(data), seconds)
        except OSError as exc:
            failure = self._send_failed(exc, by_deadline)
        except BaseException:
            self.close()
            raise
        finally:
            del data  # it holds the key: no frame a traceback keeps may hold it
        if failure is not None:
            raise failure

    async def _send(self, view: memoryview, seconds: float) -> None:
        tls = self._tls
        if tls is not None:
            tls.object.write(view)
            await self._wait(seconds, self._flush(tls))
            return
        sock = self._sock_now()
        try:
            sent = sock.send(view)
        except (BlockingIOError, InterruptedError):
            sent = 0
        if sent < len(view):
            await self._wait(seconds, self._loop.sock_sendall(sock, view[sent:]))

    # -- reading ---------------------------------------------------------------------------
    async def read(self, room: memoryview | None = None) -> bytes | int:
        """The bytes received or, given ``room``, how many were received into it (``b""``
        or 0 once the server has closed)."""
        seconds, by_deadline = self._wait_for()
        try:
            if self._tls is not None:
                return await self._recv_tls(seconds, room)
            sock, loop = self._sock_now(), self._loop
            try:
                return sock.recv(network.RECV_BYTES) if room is None else sock.recv_into(room)
            except (BlockingIOError, InterruptedError):
                if room is None:
                    return await self._wait(seconds, loop.sock_recv(sock, network.RECV_BYTES))
                return await self._wait(seconds, loop.sock_recv_into(sock, room))
        except OSError as exc:
            raise self._read_failed(exc, by_deadline) from None
        except BaseException:
            self.close()  # cancelled: the socket goes at once
            raise

    async def _recv_tls(self, seconds: float, room: memoryview | None) -> bytes | int:
        """Decrypted bytes (into ``room``: their count), reading records as they are needed."""
        tls = self._tls
        assert tls is not None
        most = network.RECV_BYTES if room is None else len(room)
        while True:
            try:
                return tls.object.read(most) if room is None else tls.object.read(most, room)
            except tls.ssl.SSLWantReadError:
                pass
            except (tls.ssl.SSLZeroReturnError, tls.ssl.SSLEOFError):
                return b"" if room is None else 0  # closed, with or without close_notify
            await self._wait(seconds, self._flush(tls))  # e.g. an answer to a key update
            sock = self._sock_now()
            data = await self._wait(seconds, self._loop.sock_recv(sock, network.RECV_BYTES))
            if data:
                tls.incoming.write(data)
            else:
                tls.incoming.write_eof()
