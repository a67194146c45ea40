"""The fault matrix: one table of hostile servers, each with the exact error it must raise.

Every row runs a real ``roncho.Client`` against a scripted loopback server (or a refused,
blackholed or unresolvable address) and asserts:

- the exact class of the error (``type(err) is``, so a ConnectTimeout is not accepted where
  a plain ConnectError is expected), or success and the decoded value;
- ``request_sent``: False when nothing can have left the process, True otherwise;
- no API key in the error's ``str``, ``repr`` or ``args``;
- that the call ended within the row's bound (a generous ceiling, not a speed goal).

How the blackholed connect is made (``"blackhole"`` rows): ``roncho._network.resolve`` is
patched to return one loopback address, and the client is given sockets (tests/seams.py,
through the connection seam) whose connect() sleeps for the socket's timeout and then
raises TimeoutError, which is what the kernel does for a SYN nobody answers. A real
full-backlog listener also blackholes on this machine's Linux, but not everywhere, so that
variant lives in test_connect.py and skips when the kernel completes the handshake anyway.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from rawserver import (
    SERVER_WAIT,
    Conn,
    Handler,
    RawServer,
    RefusingPort,
    Trap,
    chunked,
    never_answer,
    reply,
    response_bytes,
    send_raw,
    sse_events,
    stream_head,
)
from seams import blackholed, client_class

import roncho
from roncho import (
    ConnectError,
    ConnectTimeout,
    DeadlineExceeded,
    DecodeError,
    ProtocolError,
    ReadTimeout,
    RedirectError,
    ResponseTooLargeError,
    RonchoError,
    StatusError,
    UnauthorizedError,
    WorkspaceBusyError,
)

KEY = "KEY-must-not-leak-1234"
CONNECT_TIMEOUT = 0.5
# Rows that expect an answer get a long idle timeout, so a loaded CI machine cannot turn a
# slow loopback answer into a ReadTimeout; rows that expect a timeout get a short one.
READ_TIMEOUT = 5.0
SHORT_READ_TIMEOUT = 0.3
DEADLINE = 0.6
# Seconds between dripped bytes: below the idle timeout, so only the deadline can end it.
DRIP_INTERVAL = 0.05
# max_response_bytes for the rows about caps: small, so "one byte over" is cheap to send.
CAP = 64
# Pause between single-byte writes in the split-at-every-byte stream.
BYTE_PAUSE = 0.0005
# Bounds: how long a row may take at most (quick rows, and rows that wait for a timer).
QUICK = 5.0
TIMED = 8.0

Call = Callable[[roncho.Client], Any]


# -- client calls -------------------------------------------------------------------------
def probe(client: roncho.Client) -> Any:
    return client.probe()


def probe_with_deadline(client: roncho.Client) -> Any:
    return client.probe(deadline=DEADLINE)


def add_peer(client: roncho.Client) -> Any:
    return client.get_or_create_peer("alice")


def delete_workspace(client: roncho.Client) -> Any:
    return client.delete_workspace()


def stream(client: roncho.Client) -> Any:
    with client.chat_stream("alice", "what does bob like?") as chat:
        return chat.read_all()


# -- canned bodies ------------------------------------------------------------------------
OK = b'{"status":"ok"}'


def ok_of_size(size: int) -> bytes:
    """A health answer padded to exactly ``size`` bytes."""
    body = b'{"status":"ok","pad":""}'
    padded = body[:-2] + b"x" * (size - len(body)) + b'"}'
    assert len(padded) == size
    return padded


def head_only(status_line: bytes, *headers: bytes) -> bytes:
    return status_line + b"\r\n" + b"".join(h + b"\r\n" for h in headers) + b"\r\n"


HTML_ERROR = (
    b"<html><head><title>Bad Gateway</title></head><body><h1>Bad Gateway</h1>"
    + b"<p>upstream said no</p>" * 400
    + b"</body></html>"
)
assert len(HTML_ERROR) > roncho._errors.MAX_ERROR_BODY_BYTES

DELTAS = ["Bob likes ", "the sea, ", "wörld 🙂"]
ANSWER = "".join(DELTAS)
EVENTS = [{"delta": {"content": d}, "done": False} for d in DELTAS] + [{"done": True}]
SSE = sse_events(*EVENTS)


def stream_reply(body: bytes) -> Handler:
    """A streamed chat answer: chunked, one chunk per 7 bytes so events straddle chunks."""
    return send_raw(stream_head() + chunked(*[body[i : i + 7] for i in range(0, len(body), 7)]))


def stream_stalls_after(first: bytes) -> Handler:
    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(stream_head() + chunked(first)[: -len(b"0\r\n\r\n")])
        conn.wait_closed()

    return handler


def byte_by_byte(data: bytes) -> Handler:
    """Send the whole response one byte per write, Nagle off, so reads split everywhere."""

    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i in range(len(data)):
            conn.send(data[i : i + 1])
            time.sleep(BYTE_PAUSE)

    return handler


def drip_forever(conn: Conn) -> None:
    """A valid head, then a body one byte per DRIP_INTERVAL for longer than any row lasts."""
    conn.read_request()
    conn.send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n")
    conn.drip(b" " * int(SERVER_WAIT / DRIP_INTERVAL), DRIP_INTERVAL, stop=conn.server.stopping)


def send_then_wait(data: bytes) -> Handler:
    """Send these bytes, then keep the connection open until the client closes it."""

    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(data)
        conn.wait_closed()

    return handler


def redirect(status: int, *, to_trap: bool) -> Callable[[str], list[Handler]]:
    def script(trap_url: str) -> list[Handler]:
        headers = [("Location", trap_url + "/health")] if to_trap else []
        return [reply(status, {"detail": "moved"}, headers=headers)]

    return script


# -- the table ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    """One hostile behaviour. ``script`` is the server's handlers, a function of the trap's
    URL (redirect rows), or "refused" / "blackhole" / "unresolved" for connect failures."""

    name: str
    script: Sequence[Handler] | Callable[[str], list[Handler]] | str
    expect: type[RonchoError] | None
    call: Call = probe
    bound: float = QUICK
    options: dict[str, Any] = field(default_factory=dict)
    sent: bool = True
    check: Callable[[Any], None] | None = None


def status_is(status: int, *, detail: object, body: bytes) -> Callable[[Any], None]:
    def check(err: StatusError) -> None:
        assert err.status == status
        assert err.detail == detail
        assert err.body == body[: roncho._errors.MAX_ERROR_BODY_BYTES]
        assert len(err.body) <= 4096
        assert (err.method, err.path) == ("POST", "/v3/workspaces/w/peers")

    return check


def answer_is(text: str) -> Callable[[Any], None]:
    def check(answer: roncho.ChatAnswer) -> None:
        assert answer.content == text

    return check


def healthy(result: roncho.Health) -> None:
    assert result.ok


def trap_untouched(err: RedirectError) -> None:
    assert err.location is None or err.location.endswith("/health")


STATUS_DETAILS: dict[int, object] = {
    401: "Invalid JWT",
    403: "Not authorized to access this resource",
    404: "Peer not found",
    409: "Unable to create or get peer: alice",
    422: [{"loc": ["body", "id"], "msg": "String should match pattern", "type": "string"}],
    429: "Too many requests",
    500: "An unexpected error occurred",
    502: "Bad gateway",
    503: "Service unavailable",
}


def status_rows() -> list[Case]:
    rows = []
    for status, detail in STATUS_DETAILS.items():
        expect = UnauthorizedError if status in (401, 403) else StatusError
        fastapi = json.dumps({"detail": detail}).encode()
        rows.append(
            Case(
                f"{status}-fastapi-detail",
                [reply(status, raw_body=fastapi)],
                expect,
                add_peer,
                check=status_is(status, detail=detail, body=fastapi),
            )
        )
        rows.append(
            Case(
                f"{status}-html-body-capped-at-4KiB",
                [reply(status, raw_body=HTML_ERROR, content_type="text/html")],
                expect,
                add_peer,
                check=status_is(status, detail=None, body=HTML_ERROR),
            )
        )
    busy = json.dumps(
        {
            "detail": "Cannot delete workspace 'w': active session(s) remain. "
            "Delete all sessions first."
        }
    ).encode()

    def busy_check(err: WorkspaceBusyError) -> None:
        assert err.status == 409 and "active session" in err.detail
        assert (err.method, err.path) == ("DELETE", "/v3/workspaces/w")

    rows.append(
        Case(
            "409-on-workspace-delete",
            [reply(409, raw_body=busy)],
            WorkspaceBusyError,
            delete_workspace,
            check=busy_check,
        )
    )
    return rows


CASES: list[Case] = [
    # -- connecting ----------------------------------------------------------------------
    Case("refused", "refused", ConnectError, sent=False),
    Case("blackholed-connect", "blackhole", ConnectTimeout, bound=TIMED, sent=False),
    Case("name-not-resolved", "unresolved", ConnectError, sent=False),
    # -- silence and slowness ------------------------------------------------------------
    Case(
        "accepts-never-answers",
        [never_answer],
        ReadTimeout,
        bound=TIMED,
        options={"read_timeout": SHORT_READ_TIMEOUT},
    ),
    Case(
        "drips-with-deadline",
        [drip_forever],
        DeadlineExceeded,
        probe_with_deadline,
        bound=TIMED,
    ),
    Case(
        "head-then-silence",
        [send_then_wait(b"HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n")],
        ReadTimeout,
        bound=TIMED,
        options={"read_timeout": SHORT_READ_TIMEOUT},
    ),
    Case(
        "stops-mid-body-and-stalls",
        [send_then_wait(b'HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n{"sta')],
        ReadTimeout,
        bound=TIMED,
        options={"read_timeout": SHORT_READ_TIMEOUT},
    ),
    # -- early closes and malformed heads ------------------------------------------------
    Case("closes-without-answering", [send_raw(b"")], ProtocolError),
    Case("closes-after-status-line", [send_raw(b"HTTP/1.1 200 OK\r\n")], ProtocolError),
    Case(
        "closes-mid-header",
        [send_raw(b"HTTP/1.1 200 OK\r\nContent-Type: applic")],
        ProtocolError,
    ),
    Case(
        "header-section-over-cap-one-line",
        [send_then_wait(b"HTTP/1.1 200 OK\r\nX-Pad: " + b"a" * 70_000 + b"\r\n")],
        ResponseTooLargeError,
    ),
    Case(
        "header-section-over-cap-many-lines",
        [send_then_wait(b"HTTP/1.1 200 OK\r\n" + (b"X-Pad: " + b"a" * 1000 + b"\r\n") * 70)],
        ResponseTooLargeError,
    ),
    Case(
        "header-line-without-colon",
        [send_raw(head_only(b"HTTP/1.1 200 OK", b"Content-Length 15") + OK)],
        ProtocolError,
    ),
    Case(
        "obsolete-line-folding",
        [
            send_raw(
                head_only(b"HTTP/1.1 200 OK", b"X-A: b", b" folded", b"Content-Length: 15") + OK
            )
        ],
        ProtocolError,
    ),
    Case("malformed-status-line", [send_raw(b"HTTP/2 200\r\n\r\n" + OK)], ProtocolError),
    Case("not-http-at-all", [send_raw(b"SSH-2.0-OpenSSH_9.6\r\n")], ProtocolError),
    Case(
        "switching-protocols",
        [send_raw(head_only(b"HTTP/1.1 101 Switching Protocols", b"Upgrade: h2c"))],
        ProtocolError,
    ),
    Case(
        "interim-1xx-then-200",
        [
            send_raw(
                head_only(b"HTTP/1.1 100 Continue")
                + head_only(b"HTTP/1.1 103 Early Hints", b"Link: </x>; rel=preload")
                + response_bytes(200, raw_body=OK)
            )
        ],
        None,
        check=healthy,
    ),
    # -- framing -------------------------------------------------------------------------
    Case(
        "http10-close-delimited",
        [send_raw(head_only(b"HTTP/1.0 200 OK", b"Content-Type: application/json") + OK)],
        None,
        check=healthy,
    ),
    Case(
        "content-length-longer-than-body",
        [send_raw(head_only(b"HTTP/1.1 200 OK", b"Content-Length: 40") + OK)],
        ProtocolError,
    ),
    Case(
        "content-length-and-chunked",
        [
            send_raw(
                head_only(b"HTTP/1.1 200 OK", b"Content-Length: 15", b"Transfer-Encoding: chunked")
                + chunked(OK)
            )
        ],
        ProtocolError,
    ),
    Case(
        "duplicate-conflicting-content-length",
        [
            send_raw(
                head_only(b"HTTP/1.1 200 OK", b"Content-Length: 15", b"Content-Length: 16") + OK
            )
        ],
        ProtocolError,
    ),
    Case(
        "duplicate-equal-content-length",
        [
            send_raw(
                head_only(b"HTTP/1.1 200 OK", b"Content-Length: 15", b"Content-Length: 15") + OK
            )
        ],
        None,
        check=healthy,
    ),
    Case(
        "negative-content-length",
        [send_raw(head_only(b"HTTP/1.1 200 OK", b"Content-Length: -1") + OK)],
        ProtocolError,
    ),
    Case(
        "huge-content-length-over-cap",
        [send_then_wait(head_only(b"HTTP/1.1 200 OK", b"Content-Length: 9999999999999999999"))],
        ResponseTooLargeError,
    ),
    Case(
        "content-length-beyond-20-digits",
        [send_raw(head_only(b"HTTP/1.1 200 OK", b"Content-Length: " + b"9" * 30) + OK)],
        ProtocolError,
    ),
    Case(
        "chunk-size-hex-overflow",
        [send_raw(stream_head(content_type="application/json") + b"1" + b"0" * 16 + b"\r\n")],
        ProtocolError,
    ),
    Case(
        "chunk-size-not-hex",
        [send_raw(stream_head(content_type="application/json") + b"zz\r\n" + OK)],
        ProtocolError,
    ),
    Case(
        "chunk-extension-accepted",
        [
            send_raw(
                stream_head(content_type="application/json")
                + b'f;name="value";x\r\n'
                + OK
                + b"\r\n0;last\r\n\r\n"
            )
        ],
        None,
        check=healthy,
    ),
    Case(
        "missing-final-chunk",
        [send_raw(stream_head(content_type="application/json") + b"f\r\n" + OK + b"\r\n")],
        ProtocolError,
    ),
    Case(
        "trailers-accepted",
        [
            send_raw(
                stream_head(content_type="application/json")
                + chunked(OK, trailers=b"X-Checksum: abc\r\nX-Other: 1\r\n")
            )
        ],
        None,
        check=healthy,
    ),
    Case(
        "transfer-coding-other-than-chunked",
        [send_raw(head_only(b"HTTP/1.1 200 OK", b"Transfer-Encoding: gzip, chunked") + OK)],
        ProtocolError,
    ),
    # -- the body cap, in each framing ---------------------------------------------------
    Case(
        "cap-exact-content-length",
        [reply(200, raw_body=ok_of_size(CAP))],
        None,
        options={"max_response_bytes": CAP},
        check=healthy,
    ),
    Case(
        "cap-plus-one-content-length",
        [send_then_wait(response_bytes(200, raw_body=ok_of_size(CAP + 1)))],
        ResponseTooLargeError,
        options={"max_response_bytes": CAP},
    ),
    Case(
        "cap-exact-chunked",
        [
            send_raw(
                stream_head(content_type="application/json")
                + chunked(ok_of_size(CAP)[:10], ok_of_size(CAP)[10:])
            )
        ],
        None,
        options={"max_response_bytes": CAP},
        check=healthy,
    ),
    Case(
        "cap-plus-one-chunked",
        [
            send_then_wait(
                stream_head(content_type="application/json")
                + chunked(ok_of_size(CAP + 1)[:10], ok_of_size(CAP + 1)[10:])
            )
        ],
        ResponseTooLargeError,
        options={"max_response_bytes": CAP},
    ),
    Case(
        "cap-exact-close-delimited",
        [send_raw(head_only(b"HTTP/1.1 200 OK") + ok_of_size(CAP))],
        None,
        options={"max_response_bytes": CAP},
        check=healthy,
    ),
    Case(
        "cap-plus-one-close-delimited",
        [send_then_wait(head_only(b"HTTP/1.1 200 OK") + ok_of_size(CAP + 1))],
        ResponseTooLargeError,
        options={"max_response_bytes": CAP},
    ),
    # -- bodies that are not the JSON we expect -------------------------------------------
    Case(
        "gzip-content-encoding-refused",
        [
            reply(
                200,
                raw_body=b"\x1f\x8b\x08\x00" + b"\x00" * 11,
                headers=[("Content-Encoding", "gzip")],
            )
        ],
        DecodeError,
    ),
    Case("invalid-utf8", [reply(200, raw_body=b'{"status":"\xff\xfe"}')], DecodeError),
    Case("deeply-nested-json", [reply(200, raw_body=b"[" * 100_000 + b"]" * 100_000)], DecodeError),
    Case(
        "deeply-nested-json-inside-object",
        [reply(200, raw_body=b'{"status":"ok","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}")],
        DecodeError,
    ),
    Case("array-where-object-expected", [reply(200, [])], DecodeError),
    Case("field-of-wrong-type", [reply(200, {"status": 1})], DecodeError),
    Case(
        "html-instead-of-json",
        [reply(200, raw_body=b"<html>ok</html>", content_type="text/html")],
        DecodeError,
    ),
    Case("nan-is-not-json", [reply(200, raw_body=b'{"status":NaN}')], DecodeError),
    Case("empty-200-body", [reply(200, raw_body=b"")], DecodeError),
    # -- redirects: never followed, the Location gets nothing ------------------------------
    Case("301-to-another-host", redirect(301, to_trap=True), RedirectError, check=trap_untouched),
    Case("302-without-location", redirect(302, to_trap=False), RedirectError, check=trap_untouched),
    Case("307-to-another-host", redirect(307, to_trap=True), RedirectError, add_peer),
    Case("308-to-another-host", redirect(308, to_trap=True), RedirectError, add_peer),
    # -- statuses ------------------------------------------------------------------------
    *status_rows(),
    # -- server-sent events (chat_stream) ------------------------------------------------
    Case("sse-lf", [stream_reply(SSE)], None, stream, check=answer_is(ANSWER)),
    Case(
        "sse-crlf",
        [stream_reply(sse_events(*EVENTS, newline=b"\r\n"))],
        None,
        stream,
        check=answer_is(ANSWER),
    ),
    Case(
        "sse-cr-only",
        [stream_reply(sse_events(*EVENTS, newline=b"\r"))],
        None,
        stream,
        check=answer_is(ANSWER),
    ),
    Case(
        "sse-comments-and-other-fields",
        [
            stream_reply(
                b": keep-alive\n\n"
                + b"event: message\nid: 7\nretry: 1000\n"
                + SSE.replace(b"\n\ndata:", b"\n\n: ping\n\ndata:")
            )
        ],
        None,
        stream,
        check=answer_is(ANSWER),
    ),
    Case(
        "sse-split-at-every-byte",
        [byte_by_byte(stream_head() + chunked(*[SSE[i : i + 1] for i in range(len(SSE))]))],
        None,
        stream,
        bound=TIMED,
        check=answer_is(ANSWER),
    ),
    Case(
        "sse-close-delimited-stream",
        [send_raw(head_only(b"HTTP/1.1 200 OK", b"Content-Type: text/event-stream") + SSE)],
        None,
        stream,
        check=answer_is(ANSWER),
    ),
    Case(
        "sse-unterminated-final-line",
        [stream_reply(SSE.removesuffix(b"\n\n"))],
        ProtocolError,
        stream,
    ),
    Case(
        "sse-final-event-without-blank-line",
        [stream_reply(SSE.removesuffix(b"\n"))],
        ProtocolError,
        stream,
    ),
    Case(
        "sse-ends-without-final-event",
        [stream_reply(sse_events(*EVENTS[:-1]))],
        ProtocolError,
        stream,
    ),
    Case(
        "sse-event-over-cap",
        [stream_reply(sse_events({"delta": {"content": "x" * (2 * CAP)}, "done": False}))],
        ResponseTooLargeError,
        stream,
        options={"max_response_bytes": CAP},
    ),
    Case(
        "sse-stall-between-chunks",
        [stream_stalls_after(sse_events(EVENTS[0]))],
        ReadTimeout,
        stream,
        bound=TIMED,
        options={"read_timeout": SHORT_READ_TIMEOUT},
    ),
    Case(
        "sse-event-not-json",
        [stream_reply(b"data: {not json\n\n")],
        DecodeError,
        stream,
    ),
    Case(
        "sse-stream-cut-mid-chunk",
        [send_raw(stream_head() + b"40\r\n" + SSE[:20])],
        ProtocolError,
        stream,
    ),
    Case(
        "stream-request-answered-with-json",
        [reply(200, {"content": ANSWER})],
        None,
        stream,
        check=answer_is(ANSWER),
    ),
    Case(
        "stream-request-answered-500",
        [reply(500, {"detail": "An unexpected error occurred"})],
        StatusError,
        stream,
    ),
]


def _unresolvable(host: str, port: int) -> list[tuple[Any, ...]]:
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


def _run(
    case: Case, url: str, kind: type[roncho.Client] | None = None
) -> tuple[Any, RonchoError | None, float]:
    options: dict[str, Any] = {
        "api_key": KEY,
        "connect_timeout": CONNECT_TIMEOUT,
        "read_timeout": READ_TIMEOUT,
        **case.options,
    }
    client = (kind or roncho.Client)(url, "w", **options)
    started = time.monotonic()
    try:
        result, error = case.call(client), None
    except RonchoError as exc:
        result, error = None, exc
    return result, error, time.monotonic() - started


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fault_matrix(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    trap = Trap()
    refusing = RefusingPort()
    try:
        if isinstance(case.script, str):
            kind = None
            if case.script == "blackhole":
                address = ("127.0.0.1", refusing.port)
                monkeypatch.setattr(
                    roncho._network,
                    "resolve",
                    lambda host, port: [(socket.AF_INET, socket.SOCK_STREAM, 6, "", address)],
                )
                kind = client_class(blackholed())
                url = "http://honcho.invalid:8000"
            elif case.script == "unresolved":
                monkeypatch.setattr(roncho._network, "resolve", _unresolvable)
                url = "http://honcho.invalid:8000"
            else:
                assert case.script == "refused"
                url = refusing.url
            result, error, took = _run(case, url, kind)
            monkeypatch.undo()
        else:
            handlers = case.script(trap.url) if callable(case.script) else case.script
            with RawServer(handlers) as server:
                result, error, took = _run(case, server.url)
            assert not server.errors
            assert server.connections == 1, "one call, one connection, no retry"
            assert server.requests, "the server got the request"
        assert trap.connections() == 0, "nothing may be sent to a Location or elsewhere"
    finally:
        trap.__exit__()
        refusing.__exit__()

    assert took < case.bound, f"{case.name} took {took:.2f} s (bound {case.bound} s)"
    if case.expect is None:
        assert error is None, f"expected success, got {error!r}"
        if case.check is not None:
            case.check(result)
        return
    assert error is not None, f"expected {case.expect.__name__}, got {result!r}"
    assert type(error) is case.expect, f"expected {case.expect.__name__}, got {error!r}"
    assert error.request_sent is case.sent
    for text in (str(error), repr(error), repr(error.args), repr(vars(error))):
        assert KEY not in text
    if case.check is not None:
        case.check(error)


@pytest.mark.blocking_only("a check of the table itself: no client runs")
def test_fault_matrix_covers_every_error_class() -> None:
    """The table reaches every error a server (or the network) can cause."""
    raised = {c.expect for c in CASES if c.expect is not None}
    assert raised == {
        ConnectError,
        ConnectTimeout,
        ReadTimeout,
        DeadlineExceeded,
        ProtocolError,
        ResponseTooLargeError,
        DecodeError,
        StatusError,
        UnauthorizedError,
        WorkspaceBusyError,
        RedirectError,
    }
    assert len({c.name for c in CASES}) == len(CASES)
