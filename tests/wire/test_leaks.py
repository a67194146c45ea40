"""The API key never leaves the Authorization header, and nothing leaves for anywhere else.

Every error path is driven with a recognisable key, and the key is looked for in every
text a caller might print or log: ``str``/``repr``/``args`` of the error, its pickled form,
``traceback.format_exception``, a logger's ``exception()`` record (caplog at DEBUG, every
logger), stdout/stderr, and the locals of every frame a
``traceback.TracebackException(..., capture_locals=True)`` captures (what a crash reporter
or ``pytest --showlocals`` prints). The key lives in this module's globals, never in a
test's locals, so a hit can only come from roncho.

A second part proves configuration comes only from the caller: proxy and HONCHO_*
environment variables pointing at a trap are ignored, and a redirect's Location gets nothing.
"""

from __future__ import annotations

import dataclasses
import logging
import pickle
import socket
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from rawserver import (
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
from seams import ResetOnSend, blackholed, client_class

import roncho
from roncho.testing import FakeHoncho

KEY = "KEY-must-not-leak-1234"
CONNECT_TIMEOUT = 0.5
READ_TIMEOUT = 5.0
SHORT_READ_TIMEOUT = 0.3
DEADLINE = 0.3
CAP = 64
log = logging.getLogger("memoryd.sync")  # stands in for the caller's own logger


# -- the error paths ----------------------------------------------------------------------
@dataclass(frozen=True)
class Path:
    name: str
    # handlers for a RawServer, or "refused" / "blackhole" / "unresolved" / "send-fails"
    script: list[Handler] | str
    call: Callable[[roncho.Client], Any]
    expect: type[roncho.RonchoError]
    options: tuple[tuple[str, Any], ...] = ()


def probe(client: roncho.Client) -> Any:
    return client.probe()


def add(client: roncho.Client) -> Any:
    return client.add_messages("s1", [roncho.MessageCreate(peer_id="alice", content="hi")])


def stream(client: roncho.Client) -> Any:
    with client.chat_stream("alice", "q") as chat:
        return chat.read_all()


def closed(client: roncho.Client) -> Any:
    client.close()
    return client.probe()


def echo(status: int, *, location: bool = False) -> Handler:
    """A server that echoes the request it got (key included) in its answer."""

    def handler(conn: Conn) -> None:
        request = conn.read_request()
        auth = request.headers.get("authorization", "")
        headers = [("Location", "http://127.0.0.1:9/?echo=" + auth.replace(" ", "+"))]
        conn.send(
            response_bytes(
                status,
                raw_body=request.raw,
                headers=headers if location else [],
                content_type="text/plain",
            )
        )

    return handler


def drip(conn: Any) -> None:
    conn.read_request()
    conn.drip(b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 100, 0.05, stop=conn.server.stopping)


PATHS = [
    Path("config-bad-id", [], lambda c: c.get_or_create_peer("no spaces"), roncho.ConfigError),
    Path(
        "config-read-only", [], lambda c: c.with_workspace("w", read_only=True).delete_workspace(),
        roncho.ReadOnlyError,
    ),
    Path("config-closed-client", [], closed, roncho.ConfigError),
    Path("refused", "refused", add, roncho.ConnectError),
    Path("connect-timeout", "blackhole", add, roncho.ConnectTimeout),
    Path("unresolved", "unresolved", add, roncho.ConnectError),
    Path("send-fails", "send-fails", add, roncho.ConnectError),
    Path(
        "read-timeout", [never_answer], add, roncho.ReadTimeout,
        (("read_timeout", SHORT_READ_TIMEOUT),),
    ),
    Path("deadline", [drip], lambda c: c.probe(deadline=DEADLINE), roncho.DeadlineExceeded),
    Path("protocol-head", [send_raw(b"HTTP/1.1 200 OK\r\nno colon\r\n\r\n")], add,
         roncho.ProtocolError),
    Path("protocol-body", [send_raw(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n[")], add,
         roncho.ProtocolError),
    Path("too-large", [reply(200, raw_body=b"[" + b" " * CAP + b"]")], add,
         roncho.ResponseTooLargeError, (("max_response_bytes", CAP),)),
    Path("decode", [reply(200, {"not": "a list"})], add, roncho.DecodeError),
    Path("status-500", [reply(500, {"detail": "An unexpected error occurred"})], add,
         roncho.StatusError),
    Path("status-401", [reply(401, {"detail": "Invalid JWT"})], add, roncho.UnauthorizedError),
    Path("busy-409", [reply(409, {"detail": "active session(s) remain"})],
         lambda c: c.delete_workspace(), roncho.WorkspaceBusyError),
    Path("redirect", [reply(307, headers=[("Location", "http://127.0.0.1:9/x")])], add,
         roncho.RedirectError),
    Path("echoed-in-500-body", [echo(500)], add, roncho.StatusError),
    Path("echoed-in-200-body", [echo(200)], add, roncho.DecodeError),
    Path("echoed-in-location", [echo(302, location=True)], add, roncho.RedirectError),
    Path("stream-cut", [send_raw(stream_head() + chunked(sse_events({"delta": {"content": "a"}})))],
         stream, roncho.ProtocolError),
    Path("stream-not-json", [send_raw(stream_head() + chunked(b"data: {\n\n"))], stream,
         roncho.DecodeError),
]  # fmt: skip


def _client(
    url: str, options: tuple[tuple[str, Any], ...], kind: type[roncho.Client] | None = None
) -> roncho.Client:
    """A client holding the key; by default ``roncho.Client`` as it is when called, which the
    asyncio run has replaced by the facade over AsyncClient (a default bound here, when the
    module is imported, would be the blocking class in both runs)."""
    settings: dict[str, Any] = {
        "api_key": KEY,
        "connect_timeout": CONNECT_TIMEOUT,
        "read_timeout": READ_TIMEOUT,
        **dict(options),
    }
    return (kind or roncho.Client)(url, "w", **settings)


def raise_error(
    path: Path, monkeypatch: pytest.MonkeyPatch, sent: list[bytes] | None = None
) -> roncho.RonchoError:
    """Drive one error path; return the error raised (with its traceback). The raw requests
    a server of the path received are added to ``sent``."""
    with RefusingPort() as refusing:
        if isinstance(path.script, str):
            address = ("127.0.0.1", refusing.port)
            url = "http://honcho.invalid:8000"
            kind = roncho.Client
            if path.script == "refused":
                url = refusing.url
            elif path.script == "unresolved":

                def unresolvable(host: str, port: int) -> list[tuple[Any, ...]]:
                    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

                monkeypatch.setattr(roncho._network, "resolve", unresolvable)
            else:
                monkeypatch.setattr(
                    roncho._network,
                    "resolve",
                    lambda h, p: [(socket.AF_INET, socket.SOCK_STREAM, 6, "", address)],
                )
                if path.script == "blackhole":
                    kind = client_class(blackholed())
                else:
                    assert path.script == "send-fails"
                    # connect "succeeds" (to the refusing port: the socket does not really
                    # connect) and the first send is reset, as a dying server does.
                    kind = client_class(ResetOnSend)
            try:
                path.call(_client(url, path.options, kind))
            except roncho.RonchoError as exc:
                return exc
            finally:
                monkeypatch.undo()
            raise AssertionError(f"{path.name}: no error")
        with RawServer(path.script) as server:
            try:
                path.call(_client(server.url, path.options))
            except roncho.RonchoError as exc:
                return exc
            finally:
                if sent is not None:
                    sent.extend(request.raw for request in server.requests)
        raise AssertionError(f"{path.name}: no error")


def _frame_locals(te: traceback.TracebackException) -> Iterator[tuple[str, str, str]]:
    """(file, function, repr of each local) for every frame in the chain, suppressed or not."""
    seen: set[int] = set()
    todo = [te]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for frame in current.stack:
            for name, value in (frame.locals or {}).items():
                yield frame.filename, f"{frame.name}:{name}", value
        todo.extend(e for e in (current.__cause__, current.__context__) if e is not None)


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_error_text_never_holds_the_key(
    path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)  # the root logger: every logger's records land here
    sent: list[bytes] = []
    error = raise_error(path, monkeypatch, sent)
    assert type(error) is path.expect
    log.exception("sync failed: %s", error, exc_info=error)
    print(error, repr(error))
    texts = [
        str(error),
        repr(error),
        repr(error.args),
        repr(vars(error)),
        repr(pickle.loads(pickle.dumps(error)).__dict__),
        "".join(traceback.format_exception(error)),
        caplog.text,
        *(record.getMessage() for record in caplog.records),
    ]
    out = capsys.readouterr()
    texts += [out.out, out.err]
    # The needle is the key the client held: every request a server of the path read
    # carried it (a path refused before sending has none to show).
    assert all(b"Authorization: Bearer " + KEY.encode() in raw for raw in sent), path.name
    assert bool(sent) == (isinstance(path.script, list) and bool(path.script)), path.name
    for text in texts:
        assert KEY not in text
    assert caplog.records[-1].name == "memoryd.sync"
    assert all(r.name == "memoryd.sync" for r in caplog.records), "roncho logs nothing"


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_traceback_locals_never_hold_the_key(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    error = raise_error(path, monkeypatch)
    te = traceback.TracebackException.from_exception(error, capture_locals=True)
    assert KEY not in "".join(te.format())
    leaks = [
        (file.rsplit("/", 1)[-1], where)
        for file, where, value in _frame_locals(te)
        if KEY in value or KEY.encode().hex() in value
    ]
    assert leaks == []


# -- public objects -----------------------------------------------------------------------
def test_repr_and_str_of_every_public_object_hold_no_key() -> None:
    with FakeHoncho(auth=True, flush=True, deriver_delay=0.0) as fake:
        admin = fake.admin_key
        client = roncho.Client(fake.url, "w", api_key=admin, read_timeout=READ_TIMEOUT)
        objects: list[object] = [client, client.with_options(read_timeout=1.0)]
        objects.append(client.with_workspace("w", read_only=True))
        objects.append(client.get_or_create_workspace())
        objects.append(client.get_or_create_peer("alice"))
        objects.append(client.get_or_create_session("s1", peers={"alice": None}))
        objects.append(client.get_session_peer_config("s1", "alice"))
        objects.extend(
            client.add_messages(
                "s1", [roncho.MessageCreate(peer_id="alice", content="I like the sea")]
            )
        )
        objects.append(client.list_messages("s1"))
        objects.extend(
            client.create_conclusions(
                [roncho.ConclusionCreate(content="likes sea", observer_id="alice",
                                         observed_id="alice")]
            )
        )  # fmt: skip
        objects.append(client.queue_status())
        objects.append(client.probe())
        objects.append(client.chat("alice", "what does alice like?", include_evidence=True))
        with client.chat_stream("alice", "what does alice like?") as chat:
            objects.append(chat)
            objects.extend(list(chat))
        objects.append(chat)
        scoped = client.create_key(workspace_id="w")
        other = client.with_workspace("w", api_key=scoped)
        objects.append(other)
        objects.append(client.delete_session("s1"))
        client.close()
        other.close()
        objects.append(client)  # a closed client
    assert len(objects) > 15
    for obj in objects:
        for text in (repr(obj), str(obj), format(obj)):
            assert KEY not in text
            assert admin not in text and scoped not in text
    with pytest.raises(TypeError) as refused:
        pickle.dumps(client)
    assert admin not in str(refused.value)


def test_client_repr_says_whether_a_key_is_set_not_which() -> None:
    with_key = roncho.Client("http://127.0.0.1:9", "w", api_key=KEY)
    without = roncho.Client("http://127.0.0.1:9", "w")
    assert "key=set" in repr(with_key) and KEY not in repr(with_key)
    assert "key=none" in repr(without)


# -- nothing goes anywhere the caller did not name -------------------------------------------
ENVIRONMENT = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "REQUESTS_CA_BUNDLE",
    "SSL_CERT_FILE",
    "HONCHO_URL",
    "HONCHO_BASE_URL",
    "HONCHO_API_URL",
    "HONCHO_API_KEY",
    "HONCHO_KEY",
    "HONCHO_AUTH_TOKEN",
    "HONCHO_WORKSPACE",
    "HONCHO_WORKSPACE_ID",
    "HONCHO_APP_ID",
    "HONCHO_ENVIRONMENT",
    "HONCHO_TIMEOUT",
    "HONCHO_MAX_RETRIES",
    "HONCHO_LOG",
    "HONCHO_DEBUG",
    "RONCHO_URL",
    "RONCHO_API_KEY",
]


def test_environment_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    with Trap() as trap, FakeHoncho() as fake:
        for name in ENVIRONMENT:
            value = trap.url
            if "KEY" in name or "TOKEN" in name:
                value = "ENV-KEY-must-not-be-sent"
            elif name == "NO_PROXY":
                value = "nothing.invalid"
            elif name.endswith(("WORKSPACE", "WORKSPACE_ID", "APP_ID")):
                value = "env-workspace"
            monkeypatch.setenv(name, value)
            monkeypatch.setenv(name.lower(), value)
        with pytest.raises(roncho.ConfigError):
            roncho.Client(None, "w")  # type: ignore[arg-type]  # no default from HONCHO_URL
        client = roncho.Client(fake.url, "w", read_timeout=READ_TIMEOUT)
        assert client.probe().ok
        client.get_or_create_workspace()
        client.add_messages("s1", [roncho.MessageCreate(peer_id="alice", content="hi")])
        assert client.list_messages("s1").total == 1
        assert trap.connections() == 0
        assert fake.requests, "the calls went to the server that was named"
        for request in fake.requests:
            assert "authorization" not in {h.lower() for h in request.headers}
            assert "/env-workspace" not in request.path
            assert "proxy-authorization" not in {h.lower() for h in request.headers}


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirect_to_another_host_sends_it_nothing(status: int) -> None:
    with Trap() as trap:
        location = trap.url + "/v3/workspaces/w/sessions/s1/messages"
        server = RawServer([reply(status, headers=[("Location", location)])])
        with server, pytest.raises(roncho.RedirectError) as caught:
            add(_client(server.url, ()))
        assert trap.connections() == 0
    assert caught.value.location == location
    assert server.connections == 1
    assert KEY.encode() in server.requests[0].raw  # it went to the named server only
    assert KEY not in str(caught.value)


def test_trap_would_notice_a_connection() -> None:
    """The trap's count is real: a client pointed straight at it is seen."""
    with Trap() as trap:
        with pytest.raises(roncho.ReadTimeout):
            roncho.Client(trap.url, "w", read_timeout=SHORT_READ_TIMEOUT).probe()
        assert trap.connections() == 1


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_on_call_reports_never_hold_the_key(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every error path, told to a hook: one report (none for an argument refused before
    there is a call), of the error's class, and the key in none of its fields."""
    reports: list[roncho.CallReport] = []
    options = (*path.options, ("on_call", reports.append))
    error = raise_error(dataclasses.replace(path, options=options), monkeypatch)
    assert type(error) is path.expect
    if path.name == "config-bad-id":
        assert reports == []
        return
    [report] = reports
    assert report.error is path.expect
    assert report.request_sent is error.request_sent
    for text in (repr(report), *(repr(getattr(report, name)) for name in report.__slots__)):
        assert KEY not in text
