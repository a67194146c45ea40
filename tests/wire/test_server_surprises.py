"""Errors that say what to do, and two things a server may send that must not be taken wrong.

Through the public API only, against scripted raw servers; like every wire test, each runs
with the blocking client and with the asyncio one (tests/wire/conftest.py).
"""

from __future__ import annotations

import json

import pytest
from rawserver import RawServer, reply, send_raw

import roncho

WS = "w1"
READ_TIMEOUT = 5.0  # seconds, for answers that come at once
STREAM_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
    b"cache-control: no-cache\r\n\r\n"
)


def _event(payload: object) -> bytes:
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


# (key sent, the server's 401 detail, the hint that must follow it): the details are
# 3.0.12's (src/security.py), as the kit's auth-on server answered them on 2026-12-07.
AUTH_CASES = [
    (None, "No access token provided", "this client has no api_key, so it sent no key"),
    (None, "Invalid JWT", "this client has no api_key, so it sent no key"),
    ("sk-x", "Invalid JWT", "the server cannot read this client's key"),
    ("sk-x", "JWT expired", "this client's key has expired"),
    (
        "sk-x",
        "Invalid JWT scope: peer/session token missing workspace",
        "names a peer or session but no workspace",
    ),
    ("sk-x", "JWT not permissioned for this resource", "its scope does not reach this resource"),
    ("sk-x", "Unauthorized access to resource", "its scope does not reach this resource"),
    ("sk-x", "Resource requires admin privileges", "this route needs an admin key"),
    ("sk-x", "No access token provided", "this client sent a key but the server saw none"),
    ("sk-x", "something else", "check this client's api_key"),
]


@pytest.mark.parametrize(("key", "detail", "hint"), AUTH_CASES)
def test_a_401_hint_fits_what_was_sent_and_what_the_server_said(
    key: str | None, detail: str, hint: str
) -> None:
    with RawServer([reply(401, {"detail": detail})]) as server:
        client = roncho.Client(server.url, WS, api_key=key, read_timeout=READ_TIMEOUT)
        with pytest.raises(roncho.UnauthorizedError) as caught:
            client.list_peers()
    error = caught.value
    text = str(error)
    assert text.startswith(f"POST /v3/workspaces/{WS}/peers/list answered 401: {detail} (")
    assert hint in text
    others = {h for _, _, h in AUTH_CASES if h != hint}
    assert not any(other in text for other in others)  # one hint, the one that fits
    assert error.key_sent is (key is not None)
    assert "sk-x" not in text and "sk-x" not in repr(error.args)


def test_a_403_gets_the_same_hints() -> None:
    with RawServer([reply(403, {"detail": "JWT not permissioned for this resource"})]) as server:
        client = roncho.Client(server.url, WS, api_key="sk-x", read_timeout=READ_TIMEOUT)
        with pytest.raises(roncho.UnauthorizedError, match="does not reach this resource"):
            client.list_peers()


def test_a_stream_that_ends_with_an_error_event_is_an_error_with_its_text() -> None:
    body = _event({"delta": {"content": "Lis"}, "done": False}) + _event(
        {"error": "the LLM call failed", "done": True}
    )
    with RawServer([send_raw(STREAM_HEAD + body)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        stream = client.chat_stream("alice", "where?")
        with stream, pytest.raises(roncho.ProtocolError, match="the LLM call failed") as caught:
            for _chunk in stream:
                pass
    assert "ended the stream with an error" in str(caught.value)
    assert caught.value.request_sent is True


def test_a_stream_error_event_is_never_a_clean_end_for_read_all() -> None:
    body = _event({"error": {"type": "timeout"}, "done": True})
    with RawServer([send_raw(STREAM_HEAD + body)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        stream = client.chat_stream("alice", "where?")
        with stream, pytest.raises(roncho.ProtocolError, match='"type": "timeout"'):
            stream.read_all()


@pytest.mark.parametrize("said", ["unknown", "Unknown"])
def test_a_server_that_reports_version_unknown_has_no_version(said: str) -> None:
    spec = {"openapi": "3.1.0", "info": {"title": "Honcho API", "version": said}}
    with RawServer([reply(200, spec)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        assert client.server_version() is None


def test_a_real_version_is_still_read() -> None:
    spec = {"openapi": "3.1.0", "info": {"title": "Honcho API", "version": "3.0.12"}}
    with RawServer([reply(200, spec)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        assert client.server_version() == "3.0.12"


@pytest.mark.blocking_only("drives roncho.aio.AsyncClient itself, for its stream's own class")
def test_with_on_an_async_stream_says_async_with() -> None:
    import asyncio

    from roncho.aio import AsyncClient

    body = _event({"delta": {"content": "Lisbon"}, "done": False}) + _event({"done": True})

    async def main(url: str) -> None:
        async with AsyncClient(url, WS, read_timeout=READ_TIMEOUT) as client:
            stream = await client.chat_stream("alice", "where?")
            refused = pytest.raises(TypeError, match=r"AsyncChatStream .*write `async with`")
            with refused, stream:  # type: ignore[attr-defined]
                pass
            async with stream:
                assert (await stream.read_all()).content == "Lisbon"

    with RawServer([send_raw(STREAM_HEAD + body)]) as server:
        asyncio.run(main(server.url))
