"""Answers at the edges of what the client reads: each one turns into exactly one result
or one error, and the error's text tells the caller what happened.

Redirects at the bottom of the 3xx range and a Location at its cut; an empty answer where a
JSON document is needed; a 422 whose ``detail`` is long; a request the server never reads
while the call's deadline runs out; stream events that are not what a chat stream carries.
"""

from __future__ import annotations

import json
import socket

import pytest
from rawserver import (
    SERVER_WAIT,
    Conn,
    Handler,
    RawServer,
    Trap,
    reply,
    send_raw,
    sse_events,
    stream_head,
)
from seams import blackholed, client_class

import roncho
from roncho import DeadlineExceeded, DecodeError, ProtocolError, RedirectError, StatusError

PATIENT = 30.0
pytestmark = pytest.mark.timeout(30)


def probe_error(handler: Handler, kind: type[Exception]) -> roncho.RonchoError:
    with RawServer([handler]) as server, pytest.raises(kind) as info:
        roncho.Client(server.url, "w", read_timeout=PATIENT).probe()
    err = info.value
    assert type(err) is kind
    assert isinstance(err, roncho.RonchoError)
    assert err.request_sent is True
    return err


# -- redirects ----------------------------------------------------------------------------
@pytest.mark.parametrize("status", [300, 301, 399])
def test_every_3xx_from_300_is_a_redirect_and_refused(status: int) -> None:
    err = probe_error(reply(status, headers=[("Location", "/elsewhere")]), RedirectError)
    assert isinstance(err, RedirectError)
    assert err.status == status
    assert err.location == "/elsewhere"
    assert str(err) == (
        f"GET /health answered {status}, a redirect to '/elsewhere'; redirects are refused"
    )


@pytest.mark.parametrize("status", [299, 400])
def test_the_statuses_around_the_3xx_range_are_not_redirects(status: int) -> None:
    if status == 299:
        with RawServer([reply(299, {"status": "ok"})]) as server:
            assert roncho.Client(server.url, "w").probe().status == "ok"
        return
    err = probe_error(reply(400, headers=[("Location", "/elsewhere")]), StatusError)
    assert str(err) == "GET /health answered 400"


@pytest.mark.parametrize("length", [199, 200, 201, 400])
def test_a_redirects_location_is_kept_up_to_200_characters(length: int) -> None:
    location = "/" + "a" * (length - 1)
    err = probe_error(reply(302, headers=[("Location", location)]), RedirectError)
    assert isinstance(err, RedirectError)
    assert err.location == location[:200]
    assert len(err.location) == min(length, 200)


def test_a_redirect_without_a_location_says_so() -> None:
    err = probe_error(reply(307), RedirectError)
    assert isinstance(err, RedirectError)
    assert err.location is None
    assert (
        str(err) == "GET /health answered 307, a redirect without a Location; redirects are refused"
    )


# -- an empty answer where a document is needed -------------------------------------------
def test_server_version_of_an_empty_200_is_a_decode_error_not_none() -> None:
    with RawServer([reply(200, raw_body=b"")]) as server, pytest.raises(DecodeError) as info:
        roncho.Client(server.url, "w", read_timeout=PATIENT).server_version()
    err = info.value
    assert type(err) is DecodeError
    assert err.request_sent is True
    assert str(err) == (
        "server_version: the answer is not JSON (Expecting value: line 1 column 1 (char 0))"
    )


def test_an_empty_200_where_a_document_is_needed_is_a_decode_error() -> None:
    err = probe_error(reply(200, raw_body=b""), DecodeError)
    assert str(err) == "probe: the answer is not JSON (Expecting value: line 1 column 1 (char 0))"


def test_server_version_of_a_404_is_none_and_of_a_document_its_version() -> None:
    with RawServer([reply(404), reply(200, {"info": {"version": "3.0.12"}})]) as server:
        client = roncho.Client(server.url, "w", read_timeout=PATIENT)
        assert client.server_version() is None
        assert client.server_version() == "3.0.12"


# -- a 422's detail -----------------------------------------------------------------------
def test_a_422_with_a_long_detail_list_is_rendered_as_json_and_cut() -> None:
    detail = [
        {"type": "string_too_long", "loc": ["body", "content", i], "msg": "Chaîne trop longue"}
        for i in range(20)
    ]
    err = probe_error(reply(422, {"detail": detail}), StatusError)
    assert isinstance(err, StatusError)
    assert err.detail == detail
    rendered = json.dumps(detail, ensure_ascii=False)
    assert str(err) == f"GET /health answered 422: {rendered[:297]}..."


def test_a_422_with_a_short_detail_is_rendered_whole() -> None:
    detail = [{"type": "missing", "loc": ["body", "peer_id"], "msg": "Field required"}]
    err = probe_error(reply(422, {"detail": detail}), StatusError)
    assert str(err) == f"GET /health answered 422: {json.dumps(detail, ensure_ascii=False)}"
    text = "é" * 300  # exactly the limit: whole, not cut
    err = probe_error(reply(422, {"detail": text}), StatusError)
    assert str(err) == f"GET /health answered 422: {text}"
    err = probe_error(reply(422, {"detail": text + "x"}), StatusError)
    assert str(err) == f"GET /health answered 422: {text[:297]}..."


# -- a send that the deadline ends --------------------------------------------------------
def test_a_send_the_server_never_reads_ends_at_the_deadline_not_the_read_timeout() -> None:
    """The peer takes the connection and never reads; the request is larger than the socket
    buffers (about 9.6 MB: 100 messages of 24,000 four-byte characters), so sending stalls.
    The deadline (shorter than the idle timeout) ends it."""
    batch = [roncho.MessageCreate("alice", f"{i:04d}" + "\U0001f375" * 24_000) for i in range(100)]

    def never_reads(conn: Conn) -> None:
        conn.server.stopping.wait(SERVER_WAIT)

    with RawServer([never_reads]) as server:
        server._listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client = roncho.Client(server.url, "w", read_timeout=PATIENT)
        with pytest.raises(DeadlineExceeded) as info:
            client.add_messages("s", batch, deadline=0.5)
    err = info.value
    assert type(err) is DeadlineExceeded
    assert err.request_sent is True
    assert str(err) == (
        "POST /v3/workspaces/w/sessions/s/messages: the call's deadline of 0.5 s passed "
        "while sending the request"
    )


# -- what a chat stream refuses -------------------------------------------------------------
def chat_stream_error(body: bytes, kind: type[Exception]) -> roncho.RonchoError:
    answer = stream_head() + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    with RawServer([send_raw(answer)]) as server:
        client = roncho.Client(server.url, "w", read_timeout=PATIENT)
        with pytest.raises(kind) as info, client.chat_stream("alice", "hi") as stream:
            for _ in stream:
                pass
    err = info.value
    assert type(err) is kind
    assert isinstance(err, roncho.RonchoError)
    assert err.request_sent is True
    return err


def test_a_stream_event_that_is_not_json_is_a_decode_error_saying_the_request_was_sent() -> None:
    err = chat_stream_error(b"data: {not json\n\n", DecodeError)
    assert str(err) == "chat_stream: a stream event is not JSON"


@pytest.mark.parametrize("data", [b"[1, 2]", b"5", b'"done"', b"null", b"true"])
def test_a_stream_event_that_is_json_but_not_an_object_is_a_decode_error(data: bytes) -> None:
    """Valid JSON of the wrong kind is the server's answer being wrong, in the error family:
    never a raw AttributeError from reading it as an object."""
    err = chat_stream_error(b"data: %s\n\n" % data, DecodeError)
    assert str(err).startswith("chat_stream: "), str(err)
    assert "object" in str(err), str(err)


def test_a_stream_line_that_is_not_utf8_is_a_decode_error_saying_the_request_was_sent() -> None:
    err = chat_stream_error(b"data: \xff\xfe\n\n", DecodeError)
    assert str(err).endswith("event stream is not valid UTF-8")


def test_a_stream_that_ends_without_its_final_event_is_refused() -> None:
    err = chat_stream_error(sse_events({"delta": {"content": "par"}, "done": False}), ProtocolError)
    assert str(err) == "chat_stream: the stream ended without its final event"


def json_chat_error(body: bytes, kind: type[Exception]) -> roncho.RonchoError:
    """A server that ignored ``stream: true`` and answered one JSON body."""
    with RawServer([reply(200, raw_body=body)]) as server:
        client = roncho.Client(server.url, "w", read_timeout=PATIENT)
        with pytest.raises(kind) as info, client.chat_stream("alice", "hi") as stream:
            for _ in stream:
                pass
    err = info.value
    assert type(err) is kind
    assert isinstance(err, roncho.RonchoError)
    assert err.request_sent is True
    return err


def test_a_json_answer_to_a_stream_that_is_not_json_says_the_request_was_sent() -> None:
    err = json_chat_error(b"{not json", DecodeError)
    assert str(err) == "chat_stream: the answer is not JSON"


def test_a_json_answer_to_a_stream_without_a_relied_on_field_says_the_request_was_sent() -> None:
    err = json_chat_error(b'{"content": 5}', DecodeError)
    assert str(err).startswith("chat_stream: ")
    assert "content" in str(err)


def test_a_json_answer_to_a_stream_is_one_final_chunk() -> None:
    with RawServer([reply(200, {"content": "all at once"})]) as server:
        client = roncho.Client(server.url, "w", read_timeout=PATIENT)
        with client.chat_stream("alice", "hi") as stream:
            chunks = list(stream)
    assert [(c.content, c.done) for c in chunks] == [("all at once", True)]


# -- a connect that the deadline ends -------------------------------------------------------
def test_a_connect_the_deadline_ends_says_so_and_that_nothing_was_sent() -> None:
    """The address never answers the SYN (the connection seam's blackholed socket); the
    call's deadline, shorter than the connect timeout, ends the wait."""
    with Trap() as trap:
        client = client_class(blackholed(trap.port))(trap.url, "w", connect_timeout=PATIENT)
        with pytest.raises(DeadlineExceeded) as info:
            client.probe(deadline=0.3)
        assert trap.connections() == 0
    err = info.value
    assert type(err) is DeadlineExceeded
    assert err.request_sent is False
    assert str(err) == "GET /health: the call's deadline of 0.3 s passed while connecting"
