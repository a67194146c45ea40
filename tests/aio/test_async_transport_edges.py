"""Two edges of the asyncio transport that no server of the test suite can reach, held with
a stand-in for the one part that cannot be made here (the whole mutation run found both
unheld):

- a TLS read that must first send (TLS 1.3 answers a server's key update inside a read) is
  bounded by the read timeout too: a server that asks and then stops reading cannot hold
  the read past it. No standard-library TLS server sends a key update, so the TLS object
  is a stand-in that always wants more bytes and has a large record to send first; the
  socket is real, and its peer never reads;
- closing a connection mid-wait on an event loop without ``remove_reader`` (Windows'
  Proactor loop raises NotImplementedError there) still closes the socket, and raises
  nothing. The loop is a stand-in; the socket is real."""

from __future__ import annotations

import asyncio
import socket
import ssl

import pytest

from roncho import ReadTimeout
from roncho._network import Timeouts
from roncho.aio._transport import AsyncConnection

pytestmark = pytest.mark.timeout(30)
READ_TIMEOUT = 0.3
OUTER_BOUND = 10.0  # far past the read timeout: only a read without its timeout reaches it
PENDING = 32 * 1024 * 1024  # more than any socket buffers hold


class _Incomplete:
    """The SSLObject: every read wants more bytes than have come."""

    def read(self, most: int) -> bytes:
        raise ssl.SSLWantReadError("the record is not complete")


class _OneLargeRecord:
    """The outgoing buffer: a record larger than the peer will ever take, given once."""

    def __init__(self) -> None:
        self.sent = False

    def read(self) -> bytes:
        if self.sent:
            return b""
        self.sent = True
        return b"\x17" * PENDING


class _WantsToSendFirst:
    """What the connection uses of its _Tls."""

    ssl = ssl

    def __init__(self) -> None:
        self.object = _Incomplete()
        self.outgoing = _OneLargeRecord()


async def _read_over_a_peer_that_never_reads() -> BaseException:
    ours, theirs = socket.socketpair()
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    ours.setblocking(False)
    try:
        connection = AsyncConnection(ours, Timeouts(5.0, READ_TIMEOUT), "GET /v3/x")
        tls = _WantsToSendFirst()
        connection._tls = tls  # type: ignore[assignment]
        try:
            await asyncio.wait_for(connection.read(), OUTER_BOUND)
        except BaseException as exc:  # the test reads what came out
            assert tls.outgoing.sent, "the read never tried to send what TLS had written"
            return exc
        raise AssertionError("the read returned although nothing can arrive")
    finally:
        ours.close()
        theirs.close()


def test_a_tls_read_that_must_send_first_keeps_its_read_timeout() -> None:
    error = asyncio.run(_read_over_a_peer_that_never_reads())
    assert type(error) is ReadTimeout, f"{type(error).__name__}: {error}"
    assert str(error) == f"GET /v3/x: no bytes for {READ_TIMEOUT} s while waiting for the response"


class _ProactorLike:
    """What Windows' Proactor loop does for the two calls close() makes."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def remove_reader(self, fd: int) -> bool:
        self.asked.append("remove_reader")
        raise NotImplementedError

    def remove_writer(self, fd: int) -> bool:
        self.asked.append("remove_writer")
        raise NotImplementedError


async def _close_mid_wait_on_a_proactor_like_loop() -> tuple[socket.socket, _ProactorLike]:
    ours, theirs = socket.socketpair()
    theirs.close()
    connection = AsyncConnection(ours, Timeouts(5.0, READ_TIMEOUT), "GET /v3/x")
    loop = _ProactorLike()
    connection._loop = loop  # type: ignore[assignment]
    connection._waiting = True  # as while another task waits on this socket
    connection.close()
    connection.close()  # a second close is a no-op, as everywhere
    return ours, loop


def test_close_mid_wait_on_a_loop_without_remove_reader_still_closes() -> None:
    sock, loop = asyncio.run(_close_mid_wait_on_a_proactor_like_loop())
    assert loop.asked == ["remove_reader", "remove_writer"]
    assert sock.fileno() == -1  # closed
