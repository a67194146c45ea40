"""The benchmarks' one loopback server: canned Honcho v3 answers, identical for every client.

Every contender gets the same response bytes for the same route (status line, headers and
body are built once and cached). The server never looks at the request body beyond
reading ``Content-Length`` bytes of it, so its own cost does not depend on who asks.

Keep-alive: HTTP/1.1 connections stay open for the next request (the official SDK reuses
connections); a request carrying ``Connection: close`` (roncho, the hand-written
one-shot) gets the same bytes and then the server closes its side.

What a route answers is chosen by the path alone, so the response size is fixed before
the request arrives:

    POST /v3/workspaces                          one workspace
    POST /v3/workspaces/{w}/peers                one peer
    POST /v3/workspaces/{w}/sessions             one session
    POST /v3/workspaces/{w}/sessions/b{N}/messages        N messages (the batch answer)
    POST /v3/workspaces/{w}/sessions/p{N}c{C}/messages/list  a page of N messages, C chars each
    POST /v3/workspaces/{w}/sessions/m{MiB}/messages/list    a page of about MiB MiB
    POST /v3/workspaces/{w}/search               10 messages
    POST /v3/workspaces/{w}/peers/s{K}p{MS}x{ID}/chat   an SSE stream of K events, MS ms apart

The SSE route is the Honcho chat format (reference O12): ``data: {json}\\n\\n`` per event,
chunked transfer encoding, one event per chunk, final ``data: {"done": true}\\n\\n``. The
server notes a ``time.monotonic_ns()`` just before and just after each event's
``sendall``, so a client in another process on this machine can compare its own clock
(CLOCK_MONOTONIC on Linux for both) with the moment the event's last byte was written.
"""

from __future__ import annotations

import json
import re
import socket
import socketserver
import threading
import time
from collections.abc import Callable
from typing import Any

# One request head is far below this; a body is read by its Content-Length.
MAX_HEAD_BYTES = 64 * 1024
# Idle keep-alive connections are dropped after this many seconds (every wait is bounded).
IDLE_SECONDS = 30.0
# The message content used everywhere: 1 KiB of plain text.
CONTENT_1K = ("Alice told Bob about the trip to the coast; they planned the route. " * 16)[:1024]
TIMESTAMP = "2026-11-30T12:00:00.123456Z"
WORKSPACE = "bench"


def message(i: int, content: str, session: str) -> dict[str, Any]:
    """One Message as Honcho 3.2 answers it (reference O4)."""
    return {
        "id": f"msg{i:018d}",
        "content": content,
        "peer_id": "alice",
        "session_id": session,
        "metadata": {},
        "created_at": TIMESTAMP,
        "workspace_id": WORKSPACE,
        "token_count": len(content) // 4,
    }


def page(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"items": items, "total": len(items), "page": 1, "size": len(items), "pages": 1}


def content_of(chars: int) -> str:
    return (CONTENT_1K * (chars // len(CONTENT_1K) + 1))[:chars]


def page_of_mib(mib: float, session: str) -> bytes:
    """A message page whose JSON body is just over ``mib`` MiB, built from 1 KiB messages."""
    target = int(mib * 1024 * 1024)
    one = len(json.dumps(message(0, CONTENT_1K, session)).encode()) + 2
    count = target // one + 1
    return json.dumps(page([message(i, CONTENT_1K, session) for i in range(count)])).encode()


def response_bytes(status: int, body: bytes, content_type: str = "application/json") -> bytes:
    reason = {200: "OK", 201: "Created", 404: "Not Found"}[status]
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        f"date: Mon, 30 Nov 2026 12:00:00 GMT\r\n"
        f"server: uvicorn\r\n"
        f"content-length: {len(body)}\r\n"
        f"content-type: {content_type}\r\n\r\n"
    )
    return head.encode("ascii") + body


def _json(status: int, value: object) -> bytes:
    return response_bytes(status, json.dumps(value).encode())


_ROUTES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], bytes]]] = [
    (
        re.compile(r"/v3/workspaces"),
        lambda m: _json(
            200, {"id": WORKSPACE, "metadata": {}, "configuration": {}, "created_at": TIMESTAMP}
        ),
    ),
    (
        re.compile(r"/v3/workspaces/[^/]+/peers"),
        lambda m: _json(
            200,
            {
                "id": "alice",
                "workspace_id": WORKSPACE,
                "created_at": TIMESTAMP,
                "metadata": {},
                "configuration": {},
            },
        ),
    ),
    (
        re.compile(r"/v3/workspaces/[^/]+/sessions"),
        lambda m: _json(
            200,
            {
                "id": "s",
                "is_active": True,
                "workspace_id": WORKSPACE,
                "metadata": {},
                "configuration": {},
                "created_at": TIMESTAMP,
            },
        ),
    ),
    (
        re.compile(r"/v3/workspaces/[^/]+/sessions/(b([0-9]+))/messages"),
        lambda m: _json(201, [message(i, CONTENT_1K, m.group(1)) for i in range(int(m.group(2)))]),
    ),
    (
        re.compile(r"/v3/workspaces/[^/]+/sessions/(p([0-9]+)c([0-9]+))/messages/list"),
        lambda m: _json(
            200,
            page(
                [
                    message(i, content_of(int(m.group(3))), m.group(1))
                    for i in range(int(m.group(2)))
                ]
            ),
        ),
    ),
    (
        re.compile(r"/v3/workspaces/[^/]+/sessions/(m([0-9]+))/messages/list"),
        lambda m: response_bytes(200, page_of_mib(int(m.group(2)), m.group(1))),
    ),
    (
        re.compile(r"/v3/workspaces/[^/]+/search"),
        lambda m: _json(200, [message(i, CONTENT_1K, "b100") for i in range(10)]),
    ),
]
_STREAM = re.compile(r"/v3/workspaces/[^/]+/peers/s([0-9]+)p([0-9]+)x([A-Za-z0-9]+)/chat")


class Server(socketserver.ThreadingTCPServer):
    """Threaded loopback server; use as a context manager, ``url`` is its base URL."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self._cache: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self.stream_times: dict[str, list[tuple[int, int]]] = {}
        self._stored = threading.Condition()
        self._thread = threading.Thread(target=self.serve_forever, name="bench-server")

    def written(self, key: str, timeout: float = 10.0) -> list[tuple[int, int]]:
        """The write times of stream ``key``. The worker may have read the last event before
        this thread stored them (a smoke run once read first): so wait, bounded."""
        with self._stored:
            if not self._stored.wait_for(lambda: key in self.stream_times, timeout):
                raise RuntimeError(f"stream {key}: the server stored no write times")
            return self.stream_times[key]

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> Server:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=10)

    def answer(self, path: str) -> bytes:
        with self._lock:
            cached = self._cache.get(path)
        if cached is not None:
            return cached
        for pattern, build in _ROUTES:
            match = pattern.fullmatch(path)
            if match is not None:
                data = build(match)
                break
        else:
            data = _json(404, {"detail": "Not Found"})
        with self._lock:
            self._cache[path] = data
        return data

    def warm(self, *paths: str) -> None:
        """Build answers before the clock starts (a page of 8 MiB takes a while)."""
        for path in paths:
            self.answer(path)


class _Handler(socketserver.BaseRequestHandler):
    server: Server

    def handle(self) -> None:
        sock: socket.socket = self.request
        sock.settimeout(IDLE_SECONDS)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buf = b""
        try:
            while True:
                while b"\r\n\r\n" not in buf:
                    data = sock.recv(65536)
                    if not data:
                        return
                    buf += data
                    if len(buf) > MAX_HEAD_BYTES and b"\r\n\r\n" not in buf:
                        return
                head, _, buf = buf.partition(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                target = lines[0].split(" ")[1]
                headers = {}
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip().lower()
                length = int(headers.get("content-length", "0"))
                while len(buf) < length:
                    data = sock.recv(max(65536, length - len(buf)))
                    if not data:
                        return
                    buf += data
                buf = buf[length:]
                path = target.split("?", 1)[0]
                stream = _STREAM.fullmatch(path)
                if stream is not None:
                    self._stream(sock, stream)
                    return
                sock.sendall(self.server.answer(path))
                if headers.get("connection") == "close":
                    return
        except OSError:
            return

    def _stream(self, sock: socket.socket, match: re.Match[str]) -> None:
        count, pause_ms, key = int(match.group(1)), int(match.group(2)), match.group(3)
        times: list[tuple[int, int]] = []
        sock.sendall(
            b"HTTP/1.1 200 OK\r\ndate: Mon, 30 Nov 2026 12:00:00 GMT\r\nserver: uvicorn\r\n"
            b"content-type: text/event-stream; charset=utf-8\r\n"
            b"transfer-encoding: chunked\r\n\r\n"
        )
        events = [
            json.dumps({"delta": {"content": f"e{i:04d} "}, "done": False}) for i in range(count)
        ]
        events.append(json.dumps({"done": True}))
        for text in events:
            time.sleep(pause_ms / 1000)
            payload = f"data: {text}\n\n".encode()
            chunk = b"%x\r\n%s\r\n" % (len(payload), payload)
            before = time.monotonic_ns()
            sock.sendall(chunk)
            times.append((before, time.monotonic_ns()))
        with self.server._stored:
            self.server.stream_times[key] = times
            self.server._stored.notify_all()
        sock.sendall(b"0\r\n\r\n")


if __name__ == "__main__":  # a quick manual look: python benchmarks/server.py
    with Server() as server:
        print(server.url, "(Ctrl-C to stop)")
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            pass
