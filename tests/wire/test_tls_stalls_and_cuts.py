"""Over TLS, both clients keep the same clocks and the same verdicts as in the clear: a
handshake that never completes is a ConnectTimeout within the connect timeout, a server
that stops sending is a ReadTimeout within the idle timeout (also inside a large body read
into its own buffer), and a connection cut mid-body is a ProtocolError, never garbage.

The server is a loopback TLS listener with a throwaway self-signed certificate made by the
openssl command (skipped where there is none)."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from pathlib import Path

import pytest
from rawserver import Conn, Handler, RawServer

import roncho
import roncho._client_core
from roncho import ConnectTimeout, ProtocolError, ReadTimeout

pytestmark = [
    pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl command"),
    pytest.mark.timeout(20),
]
SHORT = 0.5  # the clocks under test
PATIENT = 30.0  # the clocks not under test


def make_certificate(folder: Path, name: str) -> tuple[Path, Path]:
    """A throwaway self-signed certificate for ``name`` (an IP address or a DNS name)."""
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    kind = "IP" if name[0].isdigit() else "DNS"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", f"/CN={name}", "-addext", f"subjectAltName={kind}:{name}",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_certificate(tmp_path_factory.mktemp("tls"), "127.0.0.1")


@pytest.fixture
def server_tls(certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> ssl.SSLContext:
    """Clients made in the test trust the throwaway certificate; the server's context."""
    cafile = str(certificate[0])
    monkeypatch.setattr(
        roncho._client_core, "tls_context", lambda: ssl.create_default_context(cafile=cafile)
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    return context


def silent(conn: Conn) -> None:
    """Take the connection and say nothing (not even the TLS handshake) until it closes."""
    conn.wait_closed()


def test_a_handshake_the_server_never_answers_ends_at_the_connect_timeout(
    server_tls: ssl.SSLContext,
) -> None:
    with RawServer([silent]) as server:
        url = server.url.replace("http://", "https://")
        client = roncho.Client(url, "w", connect_timeout=SHORT, read_timeout=PATIENT)
        with pytest.raises(ConnectTimeout) as info:
            client.probe()
    err = info.value
    assert type(err) is ConnectTimeout
    assert err.request_sent is False
    assert str(err) == "GET /health: TLS handshake timed out"


def stall_after(data: bytes) -> Handler:
    def handler(conn: Conn) -> None:
        conn.read_request()
        if data:
            conn.send(data)
        conn.wait_closed()

    return handler


@pytest.mark.parametrize(
    "sent",
    [
        b"",
        # A large body: the client reads it into a buffer of its own (the exchange's room).
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 300000\r\n\r\n"
        + b"["
        + b" " * 1000,
    ],
    ids=["before-the-head", "inside-a-large-body"],
)
def test_a_tls_server_that_stops_sending_ends_at_the_read_timeout(
    server_tls: ssl.SSLContext, sent: bytes
) -> None:
    with RawServer([stall_after(sent)], tls=server_tls) as server:
        client = roncho.Client(server.url, "w", connect_timeout=PATIENT, read_timeout=SHORT)
        with pytest.raises(ReadTimeout) as info:
            client.probe()
    err = info.value
    assert type(err) is ReadTimeout
    assert err.request_sent is True
    assert str(err) == f"GET /health: no bytes for {SHORT} s while waiting for the response"


def cut_after(data: bytes) -> Handler:
    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(data)  # then the handler returns and the socket closes, no close_notify

    return handler


@pytest.mark.parametrize("length", [100, 300_000], ids=["small", "large"])
def test_a_tls_connection_cut_mid_body_is_a_protocol_error(
    server_tls: ssl.SSLContext, length: int
) -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
    sent = b'{"status": "o'
    handler = cut_after(head % length + sent)
    with RawServer([handler], tls=server_tls) as server:
        client = roncho.Client(server.url, "w", connect_timeout=PATIENT, read_timeout=PATIENT)
        with pytest.raises(ProtocolError) as info:
            client.probe()
    err = info.value
    assert type(err) is ProtocolError
    assert err.request_sent is True
    assert str(err) == (
        f"GET /health: connection closed with {length - len(sent)} bytes of the body still to come"
    )


def test_a_refused_certificate_says_why_the_handshake_failed(
    certificate: tuple[Path, Path],
) -> None:
    """The client's own trust store (not the test's): the self-signed certificate is
    refused, and the error carries the TLS library's reason, not just its class name."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    with RawServer([silent], tls=context) as server:
        client = roncho.Client(server.url, "w", connect_timeout=PATIENT, read_timeout=PATIENT)
        with pytest.raises(roncho.ConnectError) as info:
            client.probe()
    err = info.value
    assert type(err) is roncho.ConnectError
    assert err.request_sent is False
    assert str(err).startswith(
        "GET /health: TLS handshake failed "
        "([SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"
    )


def test_a_trusted_certificate_for_another_name_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The certificate is trusted but names another host: the client checks the name it
    connected to (127.0.0.1), not only the signature."""
    cert, key = make_certificate(tmp_path, "other.example")
    monkeypatch.setattr(
        roncho._client_core, "tls_context", lambda: ssl.create_default_context(cafile=str(cert))
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    with RawServer([silent], tls=context) as server:
        client = roncho.Client(server.url, "w", connect_timeout=PATIENT, read_timeout=PATIENT)
        with pytest.raises(roncho.ConnectError) as info:
            client.probe()
    err = info.value
    assert type(err) is roncho.ConnectError
    assert err.request_sent is False
    assert str(err).startswith(
        "GET /health: TLS handshake failed "
        "([SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: IP address mismatch"
    )
