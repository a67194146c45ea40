"""HTTP plumbing of the emulator: `FakeHoncho`, its fault switches and request record.

One `ThreadingHTTPServer` on 127.0.0.1 (ephemeral port) answers each request on its own daemon
thread: read the request, record it, apply a pending fault, hand it to `App.dispatch`, write
the answer with `Connection: close`. Every wait inside the server (slow, stall, chunk delays)
waits on the close event, so `close()` never hangs on a sleeping handler.
"""

from __future__ import annotations

import json
import secrets
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Never
from urllib.parse import parse_qsl, unquote, urlsplit

from . import _auth
from ._app import App
from ._common import ApiError
from ._deliveries import Delivery
from ._deriver import Deriver, DeriverRecord
from ._faults import Faults, error_event, split_utf8_chunks
from ._options import Options, option_names
from ._profiles import DEFAULT_VERSION
from ._routes import control
from ._web import RecordedRequest, Request, Response, error_response, json_response

# Seconds a handler waits for the rest of a request before giving up on the client.
SOCKET_TIMEOUT = 5.0
# serve_forever's poll interval: bounds how long close() waits for the accept loop.
POLL_INTERVAL = 0.05
# Bodies larger than this are refused (the real server has no stated cap; a test tool needs one).
MAX_REQUEST_BODY = 16 * 1024 * 1024
_REDACTED = "[redacted]"
# Seconds between the two halves of an event cut by a split_utf8 fault, so that they reach
# the client as separate reads.
SPLIT_PAUSE = 0.005


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default backlog of 5 resets connections once an asyncio client has
    # a few hundred calls in flight; a real server's backlog is far larger.
    request_queue_size = 512
    allow_reuse_address = False
    fake: FakeHoncho


class _Server6(_Server):
    address_family = socket.AF_INET6


def _listen(address: tuple[str, int]) -> _Server:
    """A server bound to `address` (IPv4 or IPv6 literal); raises OSError if taken."""
    server_class = _Server6 if ":" in address[0] else _Server
    return server_class(address, _Handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "roncho-fake"
    sys_version = ""
    timeout = SOCKET_TIMEOUT
    server: _Server
    # (method, decoded path) of the request being answered, for the stream fault rules.
    _fault_target: tuple[str, str] = ("", "")

    def version_string(self) -> str:
        return self.server_version

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log."""

    def do_GET(self) -> None:
        self._handle()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_GET

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts: list[bytes] = []
            while True:
                size = int(self.rfile.readline(1024).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024).strip():
                        pass
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline(1024)
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_REQUEST_BODY:
            raise ApiError(413, "Request body too large")
        return self.rfile.read(length) if length > 0 else b""

    def _handle(self) -> None:
        fake = self.server.fake
        self.close_connection = True
        try:
            body = self._read_body()
        except ApiError as error:
            self._send(error_response(error), mid_body=False)
            return
        except (OSError, ValueError):
            return
        split = urlsplit(self.path)
        query = dict(parse_qsl(split.query, keep_blank_values=True))
        request = Request(
            method=self.command,
            path=unquote(split.path),  # decoded before routing, as Starlette does
            query=query,
            headers=dict(self.headers.items()),
            body=body,
            raw_query=split.query,
            raw_path=split.path,
        )
        if control.addressed(split.path):
            # The control surface (a prefix Honcho never uses): never recorded, never faulted.
            self._send(self._answer(fake, request), mid_body=False)
            return
        headers = {
            key: (_REDACTED if key.lower() == "authorization" else value)
            for key, value in self.headers.items()
        }
        try:
            parsed: object | None = json.loads(body) if body else None
        except ValueError:
            parsed = None
        fake._record(
            RecordedRequest(
                method=self.command,
                path=split.path,
                query=query,
                headers=headers,
                body=body,
                json=parsed,
            )
        )
        self._fault_target = (self.command, request.path)
        streamed = isinstance(parsed, dict) and parsed.get("stream") is True
        plan = fake.faults.on_request(self.command, request.path, streamed=streamed)
        mid_body = plan.close_mid_body
        if plan.delay:
            fake._closing.wait(plan.delay)
        if plan.status is not None:
            self._send(json_response(plan.status, {"detail": plan.detail}), mid_body=mid_body)
            return
        response = self._answer(fake, request)
        if response.delay:
            fake._closing.wait(response.delay)
        self._send(response, mid_body=mid_body)

    @staticmethod
    def _answer(fake: FakeHoncho, request: Request) -> Response:
        try:
            return fake._app.dispatch(request)
        except Exception:
            return error_response(ApiError(500, "An unexpected error occurred"))

    def _send(self, response: Response, *, mid_body: bool) -> None:
        try:
            if response.events is not None:
                self._send_stream(response, mid_body=mid_body)
                return
            body = response.body
            self.send_response(response.status)
            if response.content_type is not None:
                self.send_header("Content-Type", response.content_type)
            if mid_body:
                self.send_header("Content-Length", str(len(body) + max(16, len(body))))
                body = body[: len(body) // 2]
            elif response.status not in (204, 304):
                self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            self.wfile.flush()
        except OSError:
            pass  # the client went away; nothing to tell it

    def _send_stream(self, response: Response, *, mid_body: bool) -> None:
        fake = self.server.fake
        events = list(response.events or [])
        rule = fake.faults.on_stream(*self._fault_target)
        fault = rule.stream if rule is not None else None
        if rule is not None and fault == "error":
            events = [*events[:-1], error_event(rule.detail)]
        elif fault == "end_early":
            events = events[:-1]
        elif rule is not None and fault == "abort":
            events = events[: rule.after_events]
        stall_at = rule.after_events if rule is not None and fault == "stall" else None
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type or "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        for index, event in enumerate(events):
            if rule is not None and stall_at == index and fake._closing.wait(rule.stall):
                return
            if index and response.event_delay and fake._closing.wait(response.event_delay):
                return
            pieces = split_utf8_chunks(event) if fault == "split_utf8" else [event]
            for number, piece in enumerate(pieces):
                if number and fake._closing.wait(SPLIT_PAUSE):
                    return
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            if index == 0 and mid_body:
                return  # headers promised a chunked body; it ends without its last chunk
        stall_last = rule is not None and stall_at is not None and stall_at >= len(events)
        if stall_last and rule is not None and fake._closing.wait(rule.stall):
            return
        if fault == "abort":
            return  # as a server whose stream raised: the connection closes, the body unended
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class FakeHoncho:
    """An in-process Honcho v3 server on 127.0.0.1 for tests and notebooks.

    It starts listening when constructed and stops on `close()` (or leaving a `with` block).

    Its keywords are the fields of `roncho.testing.Options`, with their defaults, e.g.
    `auth=True` (require keys as a server with `AUTH_USE_AUTH=true`), `flush=True`,
    `deriver_delay=0.2`, `version="3.0.12"`, `webhook_secret="s"` (sign and send webhook
    deliveries, to loopback only unless `allow_remote=True`); each field's help text in
    `Options` says what it does.

    Raises:
        ValueError: an option is out of range or of the wrong type (`auth="yes"`), or
            `version` is not a known profile.
        TypeError: a keyword that is not an option, named with the options there are.
    """

    # Where to listen. Server mode (`python -m roncho.testing`) sets it on the instance before
    # calling __init__; tests always get loopback on an ephemeral port.
    _bind: tuple[str, int] = ("127.0.0.1", 0)
    # Whether the control routes under /_fake/ answer (server mode's --control turns it on).
    control_enabled: bool = False

    # One keyword per field of Options, in its order and with its default, so that editors
    # and type checkers see them (tests/emulator/test_options_signature.py holds the two
    # alike). `**unknown: Never` makes a type checker refuse any other keyword, and lets
    # this one name the options there are at run time.
    def __init__(
        self,
        *,
        allow_remote: bool = False,
        auth: bool = False,
        refuse_expiring_keys: bool = False,
        version: str = DEFAULT_VERSION,
        workspace_chat: bool | None = None,
        tokens: str = "auto",
        deriver: str = "auto",
        flush: bool = False,
        batch_tokens: int = 512,
        batch_max_age: float = 1800.0,
        deriver_delay: float = 0.05,
        enqueue_delay: float = 0.0,
        purge_delay: float = 0.2,
        chat_delay: float = 0.0,
        stream_chunk_delay: float = 0.0,
        webhook_secret: str | None = None,
        **unknown: Never,
    ) -> None:
        if unknown:
            wrong = ", ".join(repr(name) for name in unknown)
            raise TypeError(
                f"FakeHoncho has no option {wrong}; its options are: {', '.join(option_names())}"
            )
        self.options = Options(
            allow_remote=allow_remote,
            auth=auth,
            refuse_expiring_keys=refuse_expiring_keys,
            version=version,
            workspace_chat=workspace_chat,
            tokens=tokens,
            deriver=deriver,
            flush=flush,
            batch_tokens=batch_tokens,
            batch_max_age=batch_max_age,
            deriver_delay=deriver_delay,
            enqueue_delay=enqueue_delay,
            purge_delay=purge_delay,
            chat_delay=chat_delay,
            stream_chunk_delay=stream_chunk_delay,
            webhook_secret=webhook_secret,
        )
        self.faults = Faults()
        self._secret = secrets.token_bytes(32)
        self._app = App(self.options, self._secret, self, self.faults.failing)
        self._requests: list[RecordedRequest] = []
        self._requests_lock = threading.Lock()
        self._closing = threading.Event()
        self._closed = False
        self._server = _listen(self._bind)
        self._server.fake = self
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": POLL_INTERVAL},
            name="roncho-fake-http",
            daemon=True,
        )
        self._thread.start()
        self._app.deriver.start()
        self.admin_key: str = _auth.mint(self._secret, admin=True)
        """An admin key (valid whether or not `auth` is on)."""

    @property
    def host(self) -> str:
        return str(self._server.server_address[0])

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """Base URL, e.g. `http://127.0.0.1:54321` (no trailing slash)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def issue_key(
        self,
        workspace: str | None = None,
        peer: str | None = None,
        session: str | None = None,
        *,
        expires_at: str | None = None,
    ) -> str:
        """Mint a key scoped like `POST /v3/keys` would (no scope at all gives an admin key)."""
        if workspace is None and peer is None and session is None:
            return self.admin_key
        return _auth.mint(
            self._secret, workspace=workspace, peer=peer, session=session, expires_at=expires_at
        )

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, oldest first (a copy)."""
        with self._requests_lock:
            return list(self._requests)

    def clear_requests(self) -> None:
        with self._requests_lock:
            self._requests.clear()

    def reset(self) -> None:
        """Forget everything: workspaces, queue, deriver log, request record, pending faults.

        Options, the port and the signing secret stay, so keys issued before remain valid.
        """
        fresh = App(self.options, self._secret, self, self.faults.failing)
        old, self._app = self._app, fresh
        old.deriver.stop()
        old.deliverer.close()
        if not self._closed:
            fresh.deriver.start()
        self.faults.clear()
        self.clear_requests()

    def _record(self, request: RecordedRequest) -> None:
        with self._requests_lock:
            self._requests.append(request)

    @property
    def deriver(self) -> Deriver:
        """The simulated deriver: `fake.deriver.step()` derives now (see `deriver="manual"`),
        `fake.deriver.log()` is `deriver_log()`."""
        return self._app.deriver

    def deriver_log(self) -> list[DeriverRecord]:
        """Every completed deriver queue item with the gate that released it, oldest first.

        `gate` is `"tokens"`, `"age"` or `"flush"` for representation items and `"immediate"`
        for summary items.
        """
        return self._app.deriver.log()

    def webhook_deliveries(self) -> list[Delivery]:
        """Every webhook delivery attempted so far, oldest first: the URL, the event type,
        the body and signature sent, and what came of it (``sent``, ``status``, ``error``).

        Deliveries go out on their own thread, so one may still be on its way; wait with
        ``fake.wait_for_webhooks(count, timeout=...)``.
        """
        return self._app.deliverer.deliveries()

    def wait_for_webhooks(self, count: int, *, timeout: float) -> list[Delivery]:
        """The deliveries once there are ``count`` of them, or as they are after ``timeout``."""
        return self._app.deliverer.wait_for(count, timeout=timeout)

    def export_state(self) -> dict[str, Any]:
        """Everything the emulator holds (workspaces, peers, sessions, messages, conclusions,
        queue, cards, scopes, the deriver log) as versioned JSON-ready data; the request
        record and fault rules are not part of it."""
        return self._app.export_state()

    def restore_state(self, snapshot: object) -> None:
        """Replace all state by an `export_state()` snapshot (from this emulator or another of
        the same roncho version). Options, faults and the request record stay.

        Raises:
            SnapshotError: (a ValueError) the snapshot is of another emulator version, another
                format, or broken; nothing changed.
        """
        self._app.restore_state(snapshot)

    def close(self) -> None:
        """Stop serving, the deriver and webhook deliveries; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._app.deriver.stop()
        self._app.deliverer.close()
        self._thread.join(timeout=2.0)

    def __enter__(self) -> FakeHoncho:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        try:
            state = "closed" if self._closed else self.url
            options = self.options
        except AttributeError:  # __init__ failed before listening (pytest shows `self`)
            return "<FakeHoncho not started>"
        return f"<FakeHoncho {state} version={options.version} auth={options.auth}>"
