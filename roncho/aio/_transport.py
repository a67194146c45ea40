"""asyncio socket I/O for one request per connection, the async twin of ``_transport``.

Same strategy and the same errors: resolve, try each address with the connect timeout
applied per address (and the deadline), TLS only for https (the context comes from the
client, so ssl is loaded only then), send, then hand back whatever bytes arrive within
the idle read timeout. A cancelled call aborts its transport at once.
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

RECV_BYTES = blocking.RECV_BYTES


async def _resolve(host: str, port: int) -> list[tuple[Any, ...]]:
    """An IP literal is resolved in place; a name through the loop's resolver (a thread of
    the loop's default executor, as every asyncio name lookup is)."""
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in host else socket.AF_INET, host)
    except OSError:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, blocking._resolve, host, port)
    return blocking._resolve(host, port)  # numeric: no lookup, and the tests' one seam


class AsyncConnection:
    """One open connection carrying one request; closes on any error or cancellation."""

    def __init__(self, limits: Limits, clock: Deadline, what: str) -> None:
        self._what = what
        self._clock = clock
        self._limits = limits
        self.request_sent = False
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    def close(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.transport.abort()  # no graceful close: the fd goes on the next loop turn

    async def connect(self, endpoint: Endpoint, tls: ssl.SSLContext | None) -> None:
        what = self._what
        try:
            addresses = await _resolve(endpoint.host, endpoint.port)
        except OSError as exc:
            raise ConnectError(
                f"{what}: cannot resolve {endpoint.host!r} ({blocking._why(exc)})"
            ) from None
        if not addresses:
            raise ConnectError(f"{what}: {endpoint.host!r} resolved to no address")
        failures: list[str] = []
        timed_out = 0
        limit = self._limits.connect_timeout
        for family, kind, proto, _canon, address in addresses:
            seconds, by_deadline = self._clock.wait_for(limit, time.monotonic())
            sock = socket.socket(family, kind, proto)
            sock.setblocking(False)
            try:
                async with asyncio.timeout(seconds):
                    await asyncio.get_running_loop().sock_connect(sock, address)
                    self._reader, self._writer = await asyncio.open_connection(
                        sock=sock,
                        ssl=tls,
                        server_hostname=endpoint.host if tls is not None else None,
                        limit=RECV_BYTES,
                    )
                return
            except TimeoutError:
                sock.close()
                if by_deadline:
                    raise self._clock.expired(what, "connecting", False) from None
                timed_out += 1
                failures.append(f"{blocking._show(address)}: timed out after {limit} s")
            except OSError as exc:
                sock.close()
                if tls is not None and self._writer is None and _is_tls(exc):
                    raise ConnectError(
                        f"{what}: TLS handshake failed ({blocking._why(exc)})"
                    ) from None
                failures.append(f"{blocking._show(address)}: {blocking._why(exc)}")
            except BaseException:
                sock.close()
                raise
        summary = "; ".join(failures)
        if timed_out == len(failures):
            raise ConnectTimeout(f"{what}: cannot connect to {endpoint.host_header} ({summary})")
        raise ConnectError(f"{what}: cannot connect to {endpoint.host_header} ({summary})")

    def _wait(self, doing: str) -> tuple[float, bool]:
        try:
            return self._clock.wait_for(self._limits.read_timeout, time.monotonic())
        except RonchoError:
            self.close()
            raise self._timeout_error(True, doing) from None

    async def send(self, data: bytes | bytearray) -> None:
        failure: RonchoError | None = None
        seconds, by_deadline = self._wait("sending the request")
        try:
            self.request_sent = True
            assert self._writer is not None
            self._writer.write(data)
            del data  # it holds the key: no frame a traceback keeps may hold it
            async with asyncio.timeout(seconds):
                await self._writer.drain()
        except TimeoutError:
            failure = self._timeout_error(by_deadline, "sending the request")
        except OSError as exc:
            failure = ConnectError(
                f"{self._what}: connection lost while sending ({blocking._why(exc)})",
                request_sent=True,
            )
        if failure is not None:
            self.close()
            raise failure

    async def recv(self) -> bytes:
        seconds, by_deadline = self._wait("waiting for the response")
        try:
            assert self._reader is not None
            async with asyncio.timeout(seconds):
                return await self._reader.read(RECV_BYTES)
        except TimeoutError:
            self.close()
            raise self._timeout_error(by_deadline, "waiting for the response") from None
        except OSError as exc:
            self.close()
            raise ProtocolError(
                f"{self._what}: connection lost while reading ({blocking._why(exc)})",
                request_sent=True,
            ) from None

    def _timeout_error(self, by_deadline: bool, doing: str) -> RonchoError:
        if by_deadline:
            return self._clock.expired(self._what, doing, self.request_sent)
        return blocking.idle_timeout(
            self._what, self._limits.read_timeout, doing, self.request_sent
        )


def _is_tls(exc: OSError) -> bool:
    import sys

    ssl = sys.modules.get("ssl")
    return ssl is not None and isinstance(exc, (ssl.SSLError, ssl.CertificateError))
