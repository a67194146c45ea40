"""What a failed connection tells the caller, word for word: which address, what happened
to it, and (through ``request_sent``) whether the request can have left the process."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest
from rawserver import Conn, RawServer, RefusingPort, Trap, never_answer, reply
from seams import blackholed, client_class

import roncho
import roncho._network
from roncho import ConnectError, ConnectTimeout, DeadlineExceeded

pytestmark = pytest.mark.timeout(30)


def refusal(client_kind: str) -> str:
    """The reason a refused connect gives: the OS's words. (The asyncio loop words it
    itself, with the address again: "Connect call failed ('127.0.0.1', 8000)".)"""
    return "Connection refused" if client_kind == "blocking" else "Connect call failed ("


def test_a_refused_connection_names_the_address_and_the_reason(client_kind: str) -> None:
    with RefusingPort() as port, pytest.raises(ConnectError) as info:
        roncho.Client(port.url, "w").probe()
    err = info.value
    assert type(err) is ConnectError
    assert err.request_sent is False
    where = f"127.0.0.1:{port.port}"
    start = f"GET /health: cannot connect to {where} ({where}: {refusal(client_kind)}"
    assert str(err).startswith(start)
    assert str(err).endswith(")")


def test_a_refused_ipv6_connection_shows_the_address_in_brackets(client_kind: str) -> None:
    try:
        port = RefusingPort(host="::1")
    except OSError:
        pytest.skip("no IPv6 loopback here")
    with port, pytest.raises(ConnectError) as info:
        roncho.Client(port.url, "w").probe()
    where = f"[::1]:{port.port}"
    start = f"GET /health: cannot connect to {where} ({where}: {refusal(client_kind)}"
    assert str(info.value).startswith(start)


def test_a_connect_timeout_names_the_address_and_the_timeout() -> None:
    with Trap() as trap:
        client = client_class(blackholed(trap.port))(trap.url, "w", connect_timeout=0.3)
        with pytest.raises(ConnectTimeout) as info:
            client.probe()
    err = info.value
    assert type(err) is ConnectTimeout
    assert err.request_sent is False
    where = f"127.0.0.1:{trap.port}"
    assert str(err) == f"GET /health: cannot connect to {where} ({where}: timed out after 0.3 s)"


class ResetOnEverySend(socket.socket):
    """connect() succeeds without connecting; every send is reset (both clients' ways of
    sending: sendall for the blocking one, send for the asyncio one)."""

    def connect(self, address: Any) -> None:
        return None

    def send(self, data: Any, flags: int = 0) -> int:
        raise ConnectionResetError(104, "Connection reset by peer")

    def sendall(self, data: Any, flags: int = 0) -> None:
        raise ConnectionResetError(104, "Connection reset by peer")


def test_a_reset_while_sending_says_so_and_that_the_request_may_have_left() -> None:
    with Trap() as trap:
        client = client_class(ResetOnEverySend)(trap.url, "w", read_timeout=5.0)
        with pytest.raises(ConnectError) as info:
            client.add_messages("s", [roncho.MessageCreate("alice", "hello")])
    err = info.value
    assert type(err) is ConnectError
    assert err.request_sent is True  # some bytes may have reached the server
    assert str(err) == (
        "POST /v3/workspaces/w/sessions/s/messages: connection lost while sending "
        "(Connection reset by peer)"
    )


def read_the_hello_then_close(conn: Conn) -> None:
    conn.sock.recv(65536)  # the ClientHello; then a plain close (FIN, nothing unread)


def test_a_plain_server_that_closes_during_the_tls_handshake_says_why(client_kind: str) -> None:
    with RawServer([read_the_hello_then_close]) as server:
        url = server.url.replace("http://", "https://")
        with pytest.raises(ConnectError) as info:
            roncho.Client(url, "w").probe()
    err = info.value
    assert type(err) is ConnectError
    assert err.request_sent is False
    if client_kind == "asyncio":
        assert str(err) == "GET /health: TLS handshake failed (the server closed the connection)"
    else:
        assert str(err).startswith("GET /health: TLS handshake failed (")


def test_a_name_that_resolves_to_no_address_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(roncho._network, "resolve", lambda host, port: [])
    with pytest.raises(ConnectError) as info:
        roncho.Client("http://honcho.invalid:8000", "w").probe()
    assert type(info.value) is ConnectError
    assert info.value.request_sent is False
    assert str(info.value) == "GET /health: 'honcho.invalid' resolved to no address"


def test_a_host_name_is_resolved_with_its_port() -> None:
    """ "localhost" goes through the system's resolver (an IP literal would not)."""
    with RawServer([reply(200, {"status": "ok"})]) as server:
        client = roncho.Client(f"http://localhost:{server.port}", "w", read_timeout=10.0)
        assert client.probe().status == "ok"


class SlowConnect(socket.socket):
    """connect() takes longer than the call's whole deadline, then succeeds (at once, even
    on the asyncio client's non-blocking socket)."""

    def connect(self, address: Any) -> None:
        time.sleep(0.5)
        timeout = self.gettimeout()
        self.settimeout(10.0)
        super().connect(address)
        self.settimeout(timeout)


def test_a_deadline_spent_by_the_connect_says_nothing_was_sent() -> None:
    with RawServer([never_answer]) as server:
        client = client_class(SlowConnect)(server.url, "w", connect_timeout=10.0)
        with pytest.raises(DeadlineExceeded) as info:
            client.probe(deadline=0.2)
    err = info.value
    assert type(err) is DeadlineExceeded
    assert err.request_sent is False
    assert str(err) == "GET /health: the call's deadline of 0.2 s passed while sending the request"
