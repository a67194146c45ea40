"""Sockets that misbehave, handed to one client through the connection seam
(``roncho.Client._new_socket``, see ``roncho._network.SocketFactory``), so no test has to
patch ``socket.socket`` for the whole process (and every other socket in it)."""

from __future__ import annotations

import socket
import time
from typing import Any

from rawserver import SERVER_WAIT

import roncho


def client_class(new_socket: Any) -> type[roncho.Client]:
    """A Client whose connections are made by ``new_socket(family, type, proto)``."""

    class SeamClient(roncho.Client):
        __slots__ = ()
        _new_socket = new_socket

    return SeamClient


def blackholed(*ports: int, attempts: list[tuple[Any, ...]] | None = None) -> type[socket.socket]:
    """A socket whose connect() to ``ports`` (to any port if none is given) waits out its
    timeout and fails, as when SYNs go unanswered; other ports connect for real. Every
    address connect() is called with is appended to ``attempts``."""

    class Blackholed(socket.socket):
        def connect(self, address: Any) -> None:
            if attempts is not None:
                attempts.append(tuple(address))
            if not ports or address[1] in ports:
                timeout = self.gettimeout()
                time.sleep(SERVER_WAIT if timeout is None else timeout)
                raise TimeoutError("timed out")
            super().connect(address)

    return Blackholed


class ResetOnSend(socket.socket):
    """connect() succeeds without connecting, and the first send is reset, as a dying
    server does."""

    def connect(self, address: Any) -> None:
        return None

    def sendall(self, data: Any, flags: int = 0) -> None:
        raise ConnectionResetError(104, "Connection reset by peer")
