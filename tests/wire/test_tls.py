"""https:// for both clients (tests/wire/conftest.py): a certificate the system does not
trust is refused before anything is sent, and with one the client trusts, calls, a large
answer and a stream go through TLS and come back whole.

The server is a loopback TLS listener with a throwaway self-signed certificate made by the
openssl command (skipped where there is none)."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from rawserver import SERVER_WAIT, Conn, RawServer, chunked, reply

import roncho
import roncho._client_core

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl command")


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


def server_context(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    return context


@pytest.fixture
def tls_port(certificate: tuple[Path, Path]) -> Iterator[int]:
    context = server_context(certificate)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)  # so the thread sees ``stop`` soon
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(SERVER_WAIT)
            try:
                with context.wrap_socket(conn, server_side=True) as tls:
                    tls.recv(1)  # the client refuses the certificate: nothing arrives
            except (OSError, ssl.SSLError):
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        listener.close()
        thread.join(SERVER_WAIT)


def test_an_untrusted_certificate_is_refused_before_sending(tls_port: int) -> None:
    client = roncho.Client(f"https://127.0.0.1:{tls_port}", "ws", api_key="sk-tls-key")
    with pytest.raises(roncho.ConnectError, match="TLS handshake failed") as info:
        client.probe()
    assert info.value.request_sent is False
    assert "sk-tls-key" not in str(info.value)


@pytest.fixture
def trusted(certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> ssl.SSLContext:
    """Clients made in the test trust the throwaway certificate (the system's defaults
    otherwise, hostname checked); the server context that presents it."""
    cafile = str(certificate[0])
    monkeypatch.setattr(
        roncho._client_core, "tls_context", lambda: ssl.create_default_context(cafile=cafile)
    )
    return server_context(certificate)


PEER = {"id": "alice", "workspace_id": "ws", "metadata": {}, "configuration": {}, "created_at": "t"}
# Over 64 KiB, so the body is read into its own buffer (the exchange's room()).
MESSAGES = [
    {"id": f"m{i}", "content": "x" * 1000, "peer_id": "alice", "session_id": "s",
     "created_at": "t", "token_count": 1}
    for i in range(100)
]  # fmt: skip
STREAM = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    + chunked(
        b'data: {"delta": {"content": "tea"}, "done": false}\n\n',
        b'data: {"delta": {"content": " please"}, "done": false}\n\n',
        b'data: {"done": true}\n\n',
    )
)


def test_calls_a_large_answer_and_a_stream_go_through_tls(trusted: ssl.SSLContext) -> None:
    page = {"items": MESSAGES, "total": 100, "page": 1, "size": 100, "pages": 1}
    handlers = [
        reply(201, PEER),
        reply(200, page),
        lambda conn: (conn.read_request(), conn.send(STREAM)),
    ]
    with RawServer(handlers, tls=trusted) as server:
        assert server.url.startswith("https://127.0.0.1:")
        with roncho.Client(server.url, "ws", api_key="sk-tls-key", read_timeout=SERVER_WAIT) as c:
            peer = c.get_or_create_peer("alice")
            assert peer.id == "alice" and peer.created is True
            listed = c.list_messages("s", size=100)
            assert [m.id for m in listed.items] == [m["id"] for m in MESSAGES]
            assert all(m.content == "x" * 1000 for m in listed.items)
            with c.chat_stream("alice", "what to drink?") as stream:
                assert stream.read_all().content == "tea please"
    assert not server.errors
    assert len(server.requests) == 3
    assert all(r.headers["authorization"] == "Bearer sk-tls-key" for r in server.requests)
    assert server.requests[0].json == {"id": "alice"}


def test_a_server_that_closes_during_the_handshake_is_a_connect_error(
    trusted: ssl.SSLContext,
) -> None:
    """A plain listener that closes at once: the handshake fails, and nothing was sent."""
    with RawServer([lambda conn: None]) as server:
        url = server.url.replace("http://", "https://")
        with pytest.raises(roncho.ConnectError, match="TLS handshake failed") as info:
            roncho.Client(url, "ws", api_key="sk-tls-key").probe()
    assert info.value.request_sent is False
    assert "sk-tls-key" not in str(info.value)


def test_https_to_a_plain_http_port_names_the_likely_cause() -> None:
    """A plain HTTP server answers the TLS hello with its own 400, as uvicorn does."""

    def plain_http(conn: Conn) -> None:
        conn.sock.recv(4096)  # the client's hello
        conn.send(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")

    with RawServer([plain_http]) as server:
        url = server.url.replace("http://", "https://")
        with pytest.raises(roncho.ConnectError, match="TLS handshake failed") as info:
            roncho.Client(url, "ws", api_key="sk-tls-key").probe()
    # The hint ends the text, whole (what OpenSSL says before it varies by version).
    assert str(info.value).endswith(
        ": the port likely speaks plain HTTP, so use an http:// base URL"
    )
    assert info.value.request_sent is False
    assert "sk-tls-key" not in str(info.value)


def test_another_handshake_failure_claims_no_cause(tls_port: int) -> None:
    client = roncho.Client(f"https://127.0.0.1:{tls_port}", "ws")
    with pytest.raises(roncho.ConnectError, match="TLS handshake failed") as info:
        client.probe()
    assert "plain HTTP" not in str(info.value)
