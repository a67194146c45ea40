"""asyncio I/O for one request per connection, the async twin of ``_transport``.

Same strategy and the same errors: resolve, try each address with the connect timeout
applied per address (and the deadline), TLS only for https (the context comes from the
client, so none is made for http), send, then hand back whatever bytes arrive within the
idle read timeout. A small ``asyncio.Protocol`` collects the bytes: no stream objects, and
one timer per wait. A cancelled call aborts its transport at once.
"""

from __future__ import annotations

import asyncio
import socket
import time
from typing import TYPE_CHECKING, Any

from .. import _transport as blocking
from .._config import Endpoint
from .._deadline import Deadline, Limits
from .._errors import ConnectError, ConnectTimeout, ProtocolError, RonchoError

if TYPE_CHECKING:
    import ssl


async def _resolve(host: str, port: int) -> list[tuple[Any, ...]]:
    """An IP literal is resolved in place; a name through the loop's resolver (a thread of
    the loop's default executor, as every asyncio name lookup is)."""
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in host else socket.AF_INET, host)
    except OSError:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, blocking._resolve, host, port)
    return blocking._resolve(host, port)  # numeric: no lookup, and the tests' one seam


class _Wire(asyncio.Protocol):
    """Received bytes and the two things a call waits for: data, and a flushed send."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self.transport: asyncio.Transport | None = None
        self.chunks: list[bytes] = []
        self.buffered = 0
        self.reading_paused = False
        self.eof = False
        self.lost: Exception | None = None
        self.paused = False
        self._waiter: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        # Sending waits until the request has left the transport's buffer, so the bytes
        # holding the key can be wiped right after (asyncio may keep a view of them).
        transport.set_write_buffer_limits(high=0)

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.buffered += len(data)
        if self.buffered >= blocking.RECV_BYTES and self.transport is not None:
            # No more is read until the call takes these: a slow reader of a stream never
            # holds more than this, whatever the server sends (the cap is the exchange's).
            self.transport.pause_reading()
            self.reading_paused = True
        self._wake()

    def take(self) -> bytes:
        data = self.chunks[0] if len(self.chunks) == 1 else b"".join(self.chunks)
        self.chunks.clear()
        self.buffered = 0
        if self.reading_paused and self.transport is not None and not self.eof:
            self.reading_paused = False
            self.transport.resume_reading()
        return data

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.lost = exc
        self.paused = False
        self._wake()

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self, seconds: float) -> None:
        """Until the next event, or TimeoutError after ``seconds``."""
        waiter = self._waiter = self._loop.create_future()
        timer = self._loop.call_later(seconds, _expire, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self._waiter = None


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())


class AsyncConnection:
    """One open connection carrying one request; closes on any error or cancellation."""

    def __init__(self, limits: Limits, clock: Deadline, what: str) -> None:
        self._what = what
        self._clock = clock
        self._limits = limits
        self.request_sent = False
        self._wire: _Wire | None = None

    def close(self) -> None:
        wire, self._wire = self._wire, None
        if wire is not None and wire.transport is not None:
            wire.transport.abort()  # the socket is closed on the loop's next turn

    async def connect(
        self,
        endpoint: Endpoint,
        tls: ssl.SSLContext | None,
        new_socket: blocking.SocketFactory = socket.socket,
    ) -> None:
        what = self._what
        try:
            addresses = await _resolve(endpoint.host, endpoint.port)
        except OSError as exc:
            raise ConnectError(
                f"{what}: cannot resolve {endpoint.host!r} ({blocking._why(exc)})"
            ) from None
        if not addresses:
            raise ConnectError(f"{what}: {endpoint.host!r} resolved to no address")
        loop = asyncio.get_running_loop()
        failures: list[str] = []
        timed_out = 0
        limit = self._limits.connect_timeout
        for family, kind, proto, _canon, address in addresses:
            seconds, by_deadline = self._clock.wait_for(limit, time.monotonic())
            wire = _Wire(loop)
            # The socket is made here, by the client's factory (the connection seam, see
            # _transport.SocketFactory), and handed to the transport once connected.
            sock = new_socket(family, kind, proto)
            try:
                try:
                    sock.setblocking(False)
                    async with asyncio.timeout(seconds):
                        await loop.sock_connect(sock, address)
                        await loop.create_connection(
                            lambda wire=wire: wire,
                            sock=sock,
                            ssl=tls,
                            server_hostname=endpoint.host if tls is not None else None,
                        )
                except BaseException:
                    # Not connected, a failed handshake, or cancelled: the socket is closed
                    # at once (closing again what a transport closed is harmless).
                    sock.close()
                    raise
                self._wire = wire
                return
            except TimeoutError:
                if by_deadline:
                    raise self._clock.expired(what, "connecting", False) from None
                timed_out += 1
                failures.append(f"{blocking._show(address)}: timed out after {limit} s")
            except OSError as exc:
                if tls is not None and _is_tls(exc):
                    raise ConnectError(
                        f"{what}: TLS handshake failed ({blocking._why(exc)})"
                    ) from None
                failures.append(f"{blocking._show(address)}: {blocking._why(exc)}")
        summary = "; ".join(failures)
        if timed_out == len(failures):
            raise ConnectTimeout(f"{what}: cannot connect to {endpoint.host_header} ({summary})")
        raise ConnectError(f"{what}: cannot connect to {endpoint.host_header} ({summary})")

    def _wait_for(self, doing: str) -> tuple[float, bool]:
        try:
            return self._clock.wait_for(self._limits.read_timeout, time.monotonic())
        except RonchoError:
            self.close()
            raise self._timeout_error(True, doing) from None

    async def send(self, data: bytes | bytearray) -> None:
        """Write the request and wait until the transport has handed all of it on."""
        wire = self._wire
        assert wire is not None and wire.transport is not None
        self.request_sent = True
        wire.transport.write(data)
        del data  # it holds the key: no frame a traceback keeps may hold it
        if wire.transport.is_closing() and wire.lost is None:
            await asyncio.sleep(0)  # the write failed; connection_lost says why on this turn
        while wire.paused and wire.lost is None:
            seconds, by_deadline = self._wait_for("sending the request")
            try:
                await wire.wait(seconds)
            except TimeoutError:
                self.close()
                raise self._timeout_error(by_deadline, "sending the request") from None
        if wire.lost is not None:
            self.close()
            raise ConnectError(
                f"{self._what}: connection lost while sending ({_why(wire.lost)})",
                request_sent=True,
            )

    async def recv(self) -> bytes:
        """The bytes received since the last call; ``b""`` once the server has closed."""
        wire = self._wire
        assert wire is not None
        # The deadline is judged before every read, as the blocking client does, also when
        # bytes are already here (a caller slow to iterate a stream runs out of it too).
        seconds, by_deadline = self._wait_for("waiting for the response")
        while not wire.chunks and not wire.eof:
            try:
                await wire.wait(seconds)
            except TimeoutError:
                self.close()
                raise self._timeout_error(by_deadline, "waiting for the response") from None
            seconds, by_deadline = self._wait_for("waiting for the response")
        if wire.chunks:
            return wire.take()
        if wire.lost is not None:
            self.close()
            raise ProtocolError(
                f"{self._what}: connection lost while reading ({_why(wire.lost)})",
                request_sent=True,
            )
        return b""

    def _timeout_error(self, by_deadline: bool, doing: str) -> RonchoError:
        if by_deadline:
            return self._clock.expired(self._what, doing, self.request_sent)
        return blocking.idle_timeout(
            self._what, self._limits.read_timeout, doing, self.request_sent
        )


def _why(exc: Exception) -> str:
    return blocking._why(exc) if isinstance(exc, OSError) else type(exc).__name__


def _is_tls(exc: OSError) -> bool:
    import sys

    ssl = sys.modules.get("ssl")
    return ssl is not None and isinstance(exc, (ssl.SSLError, ssl.CertificateError))
