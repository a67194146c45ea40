"""https:// reaches a TLS handshake (ssl is loaded for it) and a certificate the system does
not trust is refused before anything is sent, for both clients (tests/wire/conftest.py).

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
from rawserver import SERVER_WAIT

import roncho

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl command")


@pytest.fixture
def tls_port(tmp_path: Path) -> Iterator[int]:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
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
