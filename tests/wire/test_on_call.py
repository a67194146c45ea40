"""``on_call``: each call, once it has ended, reported to the caller's hook, in both clients.

A conversation against the emulator is reported call by call, and neither the key nor
the content (ids, message text, a query, a chat question) reaches any report's fields or
repr. Each kind of failure gives the report its fields (status, request_sent, bytes,
error class); a stream reports once, when it ends; what the hook raises reaches the
caller. The route each method reports is checked against the server's own route list in
test_every_server_route.py.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import Any

import pytest
from rawserver import (
    Conn,
    RawServer,
    RefusingPort,
    chunked,
    never_answer,
    reply,
    response_bytes,
    send_raw,
    sse_events,
    stream_head,
)

import roncho
from roncho.testing import FakeHoncho

KEY = "KEY-on-call-never-5150"
WORKSPACE = "ws-private-4711"
PEER = "peer-private-0815"
SESSION = "sess-private-2342"
CONTENT = "CONTENT I keep my spare key under the blue flowerpot"
QUESTION = "QUESTION where is the spare key hidden"
QUERY = "QUERY flowerpot"
SECRETS = (KEY, WORKSPACE, PEER, SESSION, CONTENT, QUESTION, QUERY, "flowerpot", "private")
READ_TIMEOUT = 5.0
DEADLINE = 0.2
WS = "/v3/workspaces/{workspace_id}"


def _reported(reports: list[roncho.CallReport]) -> Callable[[roncho.CallReport], None]:
    return reports.append


def _no_secret_in(reports: list[roncho.CallReport]) -> None:
    for report in reports:
        texts = [repr(report), str(report), *(repr(getattr(report, f)) for f in report.__slots__)]
        for text in texts:
            for secret in SECRETS:
                assert secret not in text, (secret, text)


def test_a_conversation_is_reported_call_by_call_and_never_its_content() -> None:
    reports: list[roncho.CallReport] = []
    with FakeHoncho(auth=True, flush=True, deriver_delay=0.0) as fake:
        admin = fake.admin_key
        client = roncho.Client(
            fake.url, WORKSPACE, api_key=admin, read_timeout=READ_TIMEOUT, on_call=reports.append
        )
        client.get_or_create_workspace()
        client.get_or_create_peer(PEER)
        client.get_or_create_session(SESSION, peers={PEER: None})
        client.add_messages(SESSION, [roncho.MessageCreate(PEER, CONTENT)] * 2)
        # a walk of two pages is two calls
        assert [m.content for m in client.iter_messages(SESSION, size=1)] == [CONTENT] * 2
        client.search(QUERY)
        client.chat(PEER, QUESTION)
        with client.chat_stream(PEER, QUESTION) as chat:
            assert len(reports) == 8  # the stream has not ended: not reported yet
            chat.read_all()
        assert len(reports) == 9  # its final chunk ended it; leaving the block adds nothing
        with pytest.raises(roncho.StatusError):
            client.get_message(SESSION, "no-such-message")
        scoped = client.with_options(read_timeout=1.0)  # a copy keeps the hook
        scoped.delete_session(SESSION)
        client.close()
    assert [(r.op, r.method, r.path) for r in reports] == [
        ("get_or_create_workspace", "POST", "/v3/workspaces"),
        ("get_or_create_peer", "POST", f"{WS}/peers"),
        ("get_or_create_session", "POST", f"{WS}/sessions"),
        ("add_messages", "POST", f"{WS}/sessions/{{session_id}}/messages"),
        ("list_messages", "POST", f"{WS}/sessions/{{session_id}}/messages/list"),
        ("list_messages", "POST", f"{WS}/sessions/{{session_id}}/messages/list"),
        ("search", "POST", f"{WS}/search"),
        ("chat", "POST", f"{WS}/peers/{{peer_id}}/chat"),
        ("chat_stream", "POST", f"{WS}/peers/{{peer_id}}/chat"),
        ("get_message", "GET", f"{WS}/sessions/{{session_id}}/messages/{{message_id}}"),
        ("delete_session", "DELETE", f"{WS}/sessions/{{session_id}}"),
    ]
    assert [r.status for r in reports] == [201, 201, 201, 201, 200, 200, 200, 200, 200, 404, 202]
    assert [r.error for r in reports] == [None] * 9 + [roncho.StatusError, None]
    for report in reports:
        assert report.request_sent is True
        assert report.bytes_sent > 0 and report.bytes_received > 0
        assert report.seconds >= 0.0
    # the message's text went out in add_messages and came back in the page, so both
    # counts hold it: more than the bare requests and answers around it
    assert reports[3].bytes_sent > 2 * len(CONTENT) and reports[4].bytes_received > len(CONTENT)
    _no_secret_in(reports)
    for report in reports:
        assert admin not in repr(report)
    assert isinstance(reports[0], roncho.CallReport)
    assert type(reports[0]).__module__ == "roncho"


def _client(url: str, reports: list[roncho.CallReport], **options: Any) -> roncho.Client:
    settings: dict[str, Any] = {"api_key": KEY, "read_timeout": READ_TIMEOUT, **options}
    return roncho.Client(url, WORKSPACE, on_call=reports.append, **settings)


def _add(client: roncho.Client) -> Any:
    return client.add_messages(SESSION, [roncho.MessageCreate(PEER, CONTENT)])


ADD = ("add_messages", "POST", f"{WS}/sessions/{{session_id}}/messages")


def test_connect_refused_nothing_sent_nothing_received() -> None:
    reports: list[roncho.CallReport] = []
    with RefusingPort() as refusing, pytest.raises(roncho.ConnectError):
        _add(_client(refusing.url, reports, connect_timeout=2.0))
    [report] = reports
    assert (report.op, report.method, report.path) == ADD
    assert report.status is None
    assert report.error is roncho.ConnectError
    assert report.request_sent is False
    assert (report.bytes_sent, report.bytes_received) == (0, 0)
    _no_secret_in(reports)


class _InterruptedWhileConnecting(socket.socket):
    """Ctrl-C arrives while the connection is being made: no byte has been handed over."""

    def connect(self, address: Any) -> None:
        raise KeyboardInterrupt


class _InterruptedClient(roncho.Client):
    __slots__ = ()
    _new_socket = _InterruptedWhileConnecting


@pytest.mark.blocking_only(
    "the seam's socket raises in connect(), which the blocking client calls itself; both "
    "clients build the report with one function (roncho/_reports.py)"
)
def test_an_interrupt_before_the_request_was_handed_over_reports_it_not_sent() -> None:
    """An interrupt is not a RonchoError: whether the request left is read from the bytes
    handed over, none here."""
    reports: list[roncho.CallReport] = []
    with RawServer([]) as server, pytest.raises(KeyboardInterrupt):
        _add(_InterruptedClient(server.url, WORKSPACE, on_call=reports.append, api_key=KEY))
    [report] = reports
    assert report.error is KeyboardInterrupt
    assert report.request_sent is False
    assert (report.bytes_sent, report.bytes_received) == (0, 0)
    assert report.status is None


class _ConnectsAfterTheDeadline(socket.socket):
    """connect() succeeds, but only once the call's deadline has passed."""

    def connect(self, address: Any) -> None:
        time.sleep(DEADLINE * 2)
        super().connect(address)


class _LateClient(roncho.Client):
    __slots__ = ()
    _new_socket = _ConnectsAfterTheDeadline


@pytest.mark.blocking_only("the seam's socket sleeps in connect(), which the blocking client calls")
def test_a_deadline_passed_before_sending_reports_no_byte_sent() -> None:
    """The request was built (its length known) but never handed over: no byte is counted."""
    reports: list[roncho.CallReport] = []
    with RawServer([]) as server, pytest.raises(roncho.DeadlineExceeded) as caught:
        client = _LateClient(server.url, WORKSPACE, on_call=reports.append, api_key=KEY)
        client.add_messages(SESSION, [roncho.MessageCreate(PEER, CONTENT)], deadline=DEADLINE)
    assert caught.value.request_sent is False
    [report] = reports
    assert report.error is roncho.DeadlineExceeded
    assert report.request_sent is False
    assert (report.bytes_sent, report.bytes_received) == (0, 0)


def test_read_timeout_the_request_went_no_answer_came() -> None:
    reports: list[roncho.CallReport] = []
    with RawServer([never_answer]) as server, pytest.raises(roncho.ReadTimeout):
        _add(_client(server.url, reports, read_timeout=0.3))
    [report] = reports
    assert report.status is None
    assert report.error is roncho.ReadTimeout
    assert report.request_sent is True
    assert report.bytes_sent == len(server.requests[0].raw)
    assert report.bytes_received == 0
    _no_secret_in(reports)


@pytest.mark.parametrize(
    ("answer", "error", "options"),
    [
        (response_bytes(500, {"detail": "An unexpected error occurred"}), roncho.StatusError, {}),
        (response_bytes(401, {"detail": "Invalid JWT"}), roncho.UnauthorizedError, {}),
        (response_bytes(307, headers=[("Location", "http://127.0.0.1:9/x")]),
         roncho.RedirectError, {}),
        (response_bytes(200, {"not": "a list"}), roncho.DecodeError, {}),
        (response_bytes(200, raw_body=b"\xff\xfe not UTF-8"), roncho.DecodeError, {}),
        (response_bytes(200, raw_body=b"[" + b" " * 64 + b"]"), roncho.ResponseTooLargeError,
         {"max_response_bytes": 64}),
    ],
    ids=["status-500", "status-401", "redirect", "not-a-list", "not-utf8", "too-large"],
)  # fmt: skip
def test_an_answer_that_fails_gives_its_status_and_error_class(
    answer: bytes, error: type[roncho.RonchoError], options: dict[str, Any]
) -> None:
    reports: list[roncho.CallReport] = []
    with RawServer([send_raw(answer)]) as server, pytest.raises(error):
        _add(_client(server.url, reports, **options))
    [report] = reports
    assert (report.op, report.method, report.path) == ADD
    assert report.status == int(answer[9:12])
    assert report.error is error
    assert report.request_sent is True
    assert report.bytes_sent == len(server.requests[0].raw)
    if error is roncho.ResponseTooLargeError:  # refused at the head: the body is not read
        assert 0 < report.bytes_received <= len(answer)
    else:
        assert report.bytes_received == len(answer)
    _no_secret_in(reports)


def test_a_status_the_operation_gives_a_meaning_is_a_result_not_an_error() -> None:
    reports: list[roncho.CallReport] = []
    with RawServer([reply(404, {"detail": "Not Found"})]) as server:
        assert _client(server.url, reports).server_version() is None
    [report] = reports
    assert (report.op, report.method, report.path, report.status) == (
        "server_version",
        "GET",
        "/openapi.json",
        404,
    )
    assert report.error is None and report.request_sent is True


def test_a_call_refused_before_connecting_is_reported_an_argument_error_is_not() -> None:
    reports: list[roncho.CallReport] = []
    client = _client("http://127.0.0.1:9", reports, read_only=True)
    seen: list[roncho.CallReport] = []
    read_only = _client("http://127.0.0.1:9", seen, read_only=True)
    with pytest.raises(roncho.ConfigError):
        client.delete_session("no spaces allowed")  # its argument: there is no call yet
    assert reports == []
    with pytest.raises(roncho.ReadOnlyError):
        client.delete_session(SESSION)
    with pytest.raises(roncho.ConfigError):
        client.probe(deadline=-1.0)
    client.close()
    with pytest.raises(roncho.ConfigError):
        client.probe()
    got = [
        (r.op, r.error, r.status, r.request_sent, r.bytes_sent, r.bytes_received) for r in reports
    ]
    assert got == [
        ("delete_session", roncho.ReadOnlyError, None, False, 0, 0),
        ("probe", roncho.ConfigError, None, False, 0, 0),
        ("probe", roncho.ConfigError, None, False, 0, 0),
    ]
    # seconds runs from the call's start to its end: within what the caller saw it take
    started = time.monotonic()
    with pytest.raises(roncho.ReadOnlyError):
        read_only.delete_session(SESSION)
    took = time.monotonic() - started
    assert 0.0 <= seen[-1].seconds <= took


def test_the_path_of_a_base_url_with_a_prefix_is_the_route_alone() -> None:
    reports: list[roncho.CallReport] = []
    with RawServer([reply(200, {"status": "ok"})]) as server:
        _client(server.url + "/honcho/api", reports).probe()
    assert server.requests[0].request_line.startswith("GET /honcho/api/health ")
    assert [r.path for r in reports] == ["/health"]


# -- streams --------------------------------------------------------------------------------
START = sse_events({"delta": {"content": "the "}})
FIRST = stream_head() + b"%x\r\n%s\r\n" % (len(START), START)  # no final event, no last chunk


def first_chunk_then_wait(conn: Conn) -> None:
    """Start the answer, then wait for the client to close (the last chunk never comes)."""
    conn.read_request()
    conn.send(FIRST)
    conn.wait_closed()


def test_a_stream_closed_early_reports_once_when_closed() -> None:
    reports: list[roncho.CallReport] = []
    with RawServer([first_chunk_then_wait]) as server:
        client = _client(server.url, reports)
        with client.chat_stream(PEER, QUESTION) as chat:
            next(iter(chat))
            assert reports == []  # the stream is still open
        chat.close()  # a second close adds nothing
    [report] = reports
    assert (report.op, report.status, report.error) == ("chat_stream", 200, None)
    assert report.path == f"{WS}/peers/{{peer_id}}/chat"
    assert report.bytes_received == len(FIRST)
    _no_secret_in(reports)


def test_a_stream_cut_before_its_end_reports_the_error() -> None:
    cut = stream_head() + chunked(sse_events({"delta": {"content": "the "}}))
    reports: list[roncho.CallReport] = []
    with RawServer([send_raw(cut)]) as server:
        chat = _client(server.url, reports).chat_stream(PEER, QUESTION)
        with chat, pytest.raises(roncho.ProtocolError):
            chat.read_all()
    [report] = reports
    assert (report.status, report.error, report.request_sent) == (200, roncho.ProtocolError, True)
    assert report.bytes_received == len(cut)


def test_a_stream_refused_with_a_status_reports_at_once() -> None:
    answer = response_bytes(404, {"detail": "Peer not found"})
    reports: list[roncho.CallReport] = []
    with RawServer([send_raw(answer)]) as server, pytest.raises(roncho.StatusError):
        _client(server.url, reports).chat_stream(PEER, QUESTION)
    [report] = reports
    assert (report.op, report.status, report.error) == ("chat_stream", 404, roncho.StatusError)
    assert report.bytes_received == len(answer)


# -- the hook's own failures ----------------------------------------------------------------
class HookFailed(Exception):
    pass


def _failing(report: roncho.CallReport) -> None:
    raise HookFailed(report.op)


def test_what_the_hook_raises_reaches_the_caller() -> None:
    with RawServer([reply(200, {"status": "ok"})]) as server:
        client = roncho.Client(server.url, WORKSPACE, on_call=_failing, read_timeout=READ_TIMEOUT)
        with pytest.raises(HookFailed, match="probe"):
            client.probe()  # answered: the hook's error comes instead of the result


def test_the_hooks_error_keeps_the_calls_error_as_its_context() -> None:
    with RawServer([reply(500, {"detail": "boom"})]) as server:
        client = roncho.Client(server.url, WORKSPACE, on_call=_failing, read_timeout=READ_TIMEOUT)
        with pytest.raises(HookFailed) as raised:
            client.probe()
    assert isinstance(raised.value.__context__, roncho.StatusError)


def test_a_hook_that_is_not_callable_is_refused_at_construction() -> None:
    with pytest.raises(roncho.ConfigError, match="on_call"):
        roncho.Client("http://127.0.0.1:9", WORKSPACE, on_call="print")  # type: ignore[arg-type]


# The methods whose routes are not in 3.0.12's list (test_every_server_route.py holds those).
BEYOND_THE_LIST: list[tuple[Callable[[roncho.Client], Any], str]] = [
    (lambda c: c.probe(), "GET /health"),
    (lambda c: c.server_version(), "GET /openapi.json"),
    (lambda c: c.get_conclusion("list"), f"GET {WS}/conclusions/{{conclusion_id}}"),
    (lambda c: c.chat_workspace(QUESTION), f"POST {WS}/chat"),
    (lambda c: c.chat_workspace_stream(QUESTION), f"POST {WS}/chat"),
]


@pytest.mark.parametrize(("call", "route"), BEYOND_THE_LIST, ids=[r for _, r in BEYOND_THE_LIST])
def test_the_routes_beyond_the_servers_list_are_reported_as_routes(
    call: Callable[[roncho.Client], Any], route: str
) -> None:
    reports: list[roncho.CallReport] = []
    answer = reply(500, {"detail": "checked no further"})
    with RawServer([answer]) as server, pytest.raises(roncho.StatusError):
        call(_client(server.url, reports))
    [report] = reports
    assert (f"{report.method} {report.path}", report.status) == (route, 500)
    _no_secret_in(reports)


def _first_cases() -> dict[str, Any]:
    from test_every_option import CASES  # every operation, with arguments that pass

    return {case.method: case for case in reversed(CASES)}


@pytest.mark.parametrize("case", list(_first_cases().values()), ids=list(_first_cases()))
def test_each_operation_is_reported_under_its_own_name(case: Any) -> None:
    """``op`` is the method the caller called, for every operation (a stream's too)."""
    reports: list[roncho.CallReport] = []
    answer = reply(500, {"detail": "checked no further"})
    with RawServer([answer]) as server, pytest.raises(roncho.StatusError):
        getattr(_client(server.url, reports), case.method)(*case.args, **case.kwargs)
    [report] = reports
    assert (report.op, report.method) == (case.method, case.request.split(" ", 1)[0])
    assert report.status == 500


def test_bytes_received_counts_every_read_of_an_answer_that_comes_in_pieces() -> None:
    """Head and body in three sends, apart: the count is the sum of every read's."""
    answer = response_bytes(200, {"status": "ok"})
    pieces = [answer[:10], answer[10:40], answer[40:]]
    reports: list[roncho.CallReport] = []
    with RawServer([send_raw(pieces, pause=0.05)]) as server:
        client = roncho.Client(server.url, "w", read_timeout=READ_TIMEOUT, on_call=reports.append)
        client.probe()
    [report] = reports
    assert (report.status, report.error) == (200, None)
    assert report.bytes_received == len(answer)
