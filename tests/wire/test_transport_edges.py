"""What both transports do at the edges the whole mutation run found unheld: an IP
literal needs no resolver, a name is resolved for stream sockets only, a resolver's
refusal names the call, and a TLS server that stops reading cannot hold a send past the
deadline."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rawserver import SERVER_WAIT, Conn, RawServer, reply

import roncho
import roncho._client_core
import roncho._network
from roncho import ConnectError, DeadlineExceeded

pytestmark = pytest.mark.timeout(30)
PATIENT = 30.0  # the clocks not under test


def test_an_ip_literal_is_connected_to_without_asking_a_resolver(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server named by its address works where name resolution is broken or slow."""

    def no_resolver(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("getaddrinfo was called for an IP literal")

    with RawServer([reply(200, {"status": "ok"})]) as server:
        monkeypatch.setattr(socket, "getaddrinfo", no_resolver)
        assert roncho.Client(server.url, "w", read_timeout=PATIENT).probe().status == "ok"


def test_a_name_is_tried_once_per_address_as_a_stream_socket() -> None:
    """On "localhost" at a closed port: each address is tried once, over TCP, and each
    refusal is listed; no datagram socket is ever "connected" to the port."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    addresses = socket.getaddrinfo("localhost", port, type=socket.SOCK_STREAM)
    client = roncho.Client(f"http://localhost:{port}", "w", connect_timeout=SERVER_WAIT)
    with pytest.raises(ConnectError) as caught:
        client.probe()
    err = caught.value
    assert type(err) is ConnectError
    assert err.request_sent is False
    text = str(err)
    assert text.startswith(f"GET /health: cannot connect to localhost:{port} (")
    assert text.count("; ") == len(addresses) - 1, text


def test_a_name_the_resolver_refuses_is_an_error_naming_the_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(host: str, port: int) -> list[tuple[Any, ...]]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(roncho._network, "resolve", refuse)
    client = roncho.Client("http://honcho.invalid:8000", "w")
    with pytest.raises(ConnectError) as caught:
        client.probe()
    assert type(caught.value) is ConnectError
    assert caught.value.request_sent is False
    assert str(caught.value) == (
        "GET /health: cannot resolve 'honcho.invalid' (Name or service not known)"
    )


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A throwaway self-signed certificate for 127.0.0.1, made by the openssl command."""
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "cert.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


def test_a_tls_send_the_server_never_reads_ends_at_the_deadline(
    certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over TLS too, a request larger than the socket buffers (about 9.6 MB) stalls when
    the peer stops reading, and the deadline ends it."""
    cafile = str(certificate[0])
    monkeypatch.setattr(
        roncho._client_core, "tls_context", lambda: ssl.create_default_context(cafile=cafile)
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    batch = [roncho.MessageCreate("alice", f"{i:04d}" + "\U0001f375" * 24_000) for i in range(100)]

    def never_reads(conn: Conn) -> None:
        conn.server.stopping.wait(SERVER_WAIT)

    with RawServer([never_reads], tls=context) as server:
        server._listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client = roncho.Client(server.url, "w", connect_timeout=PATIENT, read_timeout=PATIENT)
        with pytest.raises(DeadlineExceeded) as caught:
            client.add_messages("s", batch, deadline=1.0)
    err = caught.value
    assert type(err) is DeadlineExceeded
    assert err.request_sent is True
    assert str(err) == (
        "POST /v3/workspaces/w/sessions/s/messages: the call's deadline of 1.0 s passed "
        "while sending the request"
    )
