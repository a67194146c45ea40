"""A scripted raw-socket server on loopback, for exact request bytes and hostile answers.

Each accepted connection is handed to the next handler in the script. A handler gets a
``Conn`` (the socket, with helpers to read one request and to send bytes slowly) and does
what it likes: answer correctly, stall, drip, close mid-body. Every wait is bounded: the
listener's accept, each recv, and the thread join on exit.

    with RawServer([reply(200, {"status": "ok"})]) as server:
        client = Client(server.url, "w")
        client.probe()
    assert server.requests[0].startswith(b"GET /health HTTP/1.1\\r\\n")
"""

from __future__ import annotations

import json
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

# Every wait in a fake server is bounded by this (seconds): long enough for a loaded
# 2-core CI machine, short enough that a broken test fails instead of hanging.
SERVER_WAIT = 10.0


@dataclass
class Request:
    head: bytes
    body: bytes

    @property
    def raw(self) -> bytes:
        return self.head + b"\r\n\r\n" + self.body

    @property
    def request_line(self) -> str:
        return self.head.split(b"\r\n", 1)[0].decode("latin-1")

    @property
    def headers(self) -> dict[str, str]:
        lines = self.head.split(b"\r\n")[1:]
        out: dict[str, str] = {}
        for line in lines:
            name, _, value = line.decode("latin-1").partition(":")
            out[name.strip().lower()] = value.strip()
        return out

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass
class Conn:
    sock: socket.socket
    server: RawServer
    requests: list[Request] = field(default_factory=list)

    def read_request(self) -> Request:
        """Read one request (head plus Content-Length body); record and return it."""
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        match = re.search(rb"(?im)^content-length:\s*(\d+)", head)
        length = int(match.group(1)) if match else 0
        while len(body) < length:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            body += chunk
        request = Request(head, body)
        self.server.requests.append(request)
        return request

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def drip(self, data: bytes, interval: float, *, stop: threading.Event | None = None) -> None:
        """Send one byte every ``interval`` seconds (until the client goes away)."""
        for i in range(len(data)):
            if stop is not None and stop.is_set():
                return
            try:
                self.sock.sendall(data[i : i + 1])
            except OSError:
                return
            time.sleep(interval)

    def wait_closed(self, limit: float = SERVER_WAIT) -> None:
        """Block until the client closes (or ``limit`` passes); used by 'never answer'."""
        self.sock.settimeout(limit)
        try:
            while self.sock.recv(65536):
                pass
        except OSError:
            pass


Handler = Callable[[Conn], None]


class RawServer:
    """Serves one scripted handler per connection, on 127.0.0.1 (or ::1), then stops."""

    def __init__(
        self,
        handlers: Sequence[Handler],
        *,
        host: str = "127.0.0.1",
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.handlers = list(handlers)
        self._tls = tls  # a server context: each connection is TLS, the handlers unchanged
        self.requests: list[Request] = []
        self.connections = 0
        self.errors: list[BaseException] = []
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._listener = socket.socket(family, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, 0))
        self._listener.listen(16)
        self._listener.settimeout(0.1)
        self.host = host
        self.port: int = self._listener.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self._tls else 'http'}://{host}:{self.port}"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(SERVER_WAIT)
        self._listener.close()

    @property
    def stopping(self) -> threading.Event:
        return self._stop

    def _serve(self) -> None:
        deadline = time.monotonic() + 60
        while self.handlers and not self._stop.is_set() and time.monotonic() < deadline:
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            handler = self.handlers.pop(0)
            self.connections += 1
            sock.settimeout(SERVER_WAIT)
            try:
                if self._tls is not None:
                    sock = self._tls.wrap_socket(sock, server_side=True)
                handler(Conn(sock, self))
            except OSError:
                pass  # the client went away, which many tests cause on purpose
            except BaseException as exc:  # surfaced by tests that check server.errors
                self.errors.append(exc)
            finally:
                sock.close()


# -- canned handlers ---------------------------------------------------------------------
def response_bytes(
    status: int,
    body: object = None,
    *,
    headers: Sequence[tuple[str, str]] = (),
    raw_body: bytes | None = None,
    reason: str = "X",
    content_type: str | None = "application/json",
) -> bytes:
    """A complete Content-Length response; ``body`` is JSON-encoded unless raw_body."""
    payload = (
        raw_body if raw_body is not None else (b"" if body is None else json.dumps(body).encode())
    )
    lines = [f"HTTP/1.1 {status} {reason}"]
    if content_type:
        lines.append(f"Content-Type: {content_type}")
    lines.append(f"Content-Length: {len(payload)}")
    lines.extend(f"{name}: {value}" for name, value in headers)
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload


def reply(status: int, body: object = None, **kwargs: Any) -> Handler:
    """Read the request, then answer with one complete response."""
    data = response_bytes(status, body, **kwargs)

    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(data)

    return handler


def send_raw(data: bytes | Sequence[bytes], *, pause: float = 0.0) -> Handler:
    """Read the request, then send these bytes (pieces with a pause between) and close."""
    pieces = [data] if isinstance(data, bytes) else list(data)

    def handler(conn: Conn) -> None:
        conn.read_request()
        for piece in pieces:
            conn.send(piece)
            if pause:
                time.sleep(pause)

    return handler


def chunked(*parts: bytes, trailers: bytes = b"") -> bytes:
    """A chunked body: one chunk per part, the last chunk, optional trailers."""
    out = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts if p)
    return out + b"0\r\n" + trailers + b"\r\n"


# -- listeners that must not be contacted, and addresses that refuse -----------------------
class Trap:
    """A loopback listener that should never get a connection (redirect targets, proxies).

    It never answers. ``connections()`` drains its accept queue without blocking: a
    blocking client's connect has completed (and sits in the queue) by the time its call
    returns, so a count of 0 after the call means nothing was ever sent this way.
    """

    def __init__(self, *, host: str = "127.0.0.1") -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._listener = socket.socket(family, socket.SOCK_STREAM)
        self._listener.bind((host, 0))
        self._listener.listen(16)
        self._listener.setblocking(False)
        self.host = host
        self.port: int = self._listener.getsockname()[1]
        self._seen = 0

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def connections(self) -> int:
        while True:
            try:
                sock, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return self._seen
            sock.close()
            self._seen += 1

    def __enter__(self) -> Trap:
        return self

    def __exit__(self, *exc: object) -> None:
        self._listener.close()


class RefusingPort:
    """A loopback port that refuses connections: bound but not listening, held open so no
    other process can take the port while the test runs (Linux answers RST, so ECONNREFUSED).
    """

    def __init__(self, *, host: str = "127.0.0.1") -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._sock = socket.socket(family, socket.SOCK_STREAM)
        self._sock.bind((host, 0))
        self.host = host
        self.port: int = self._sock.getsockname()[1]

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def __enter__(self) -> RefusingPort:
        return self

    def __exit__(self, *exc: object) -> None:
        self._sock.close()


def never_answer(conn: Conn) -> None:
    """Read the request, then say nothing until the client gives up and closes."""
    conn.read_request()
    conn.wait_closed()


def sse_events(*payloads: object, newline: bytes = b"\n") -> bytes:
    """An event stream: one ``data:`` event per payload (JSON-encoded unless bytes)."""
    out = b""
    for payload in payloads:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        out += b"data: " + data + newline + newline
    return out


def stream_head(*, content_type: str = "text/event-stream; charset=utf-8") -> bytes:
    """The head of a 200 chunked answer, as Honcho starts a streamed chat."""
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: "
        + content_type.encode("latin-1")
        + b"\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
