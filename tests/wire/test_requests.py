"""Exact request bytes on the wire: a GET and a JSON POST, with and without a key."""

from __future__ import annotations

import json

import pytest
from rawserver import RawServer, reply

import roncho

KEY = "KEY-must-not-leak-1234"
READ_TIMEOUT = 5.0
MESSAGE = {
    "id": "m1",
    "content": "héllo",
    "peer_id": "alice",
    "session_id": "s1",
    "created_at": "2026-01-01T00:00:00Z",
    "metadata": {},
}


@pytest.mark.parametrize("key", [None, KEY], ids=["no-key", "key"])
def test_get_request_bytes(key: str | None) -> None:
    with RawServer([reply(200, {"status": "ok"})]) as server:
        roncho.Client(server.url, "w", api_key=key, read_timeout=READ_TIMEOUT).probe()
    auth = b"" if key is None else b"Authorization: Bearer " + key.encode() + b"\r\n"
    assert server.requests[0].raw == (
        b"GET /health HTTP/1.1\r\n"
        b"Host: 127.0.0.1:%d\r\n" % server.port + auth + b"Accept: application/json\r\n"
        b"User-Agent: roncho/" + roncho.__version__.encode() + b"\r\n"
        b"Connection: close\r\n\r\n"
    )


@pytest.mark.parametrize("key", [None, KEY], ids=["no-key", "key"])
def test_post_json_request_bytes(key: str | None) -> None:
    with RawServer([reply(200, [MESSAGE])]) as server:
        client = roncho.Client(server.url, "w", api_key=key, read_timeout=READ_TIMEOUT)
        sent = client.add_messages(
            "s1",
            [roncho.MessageCreate(peer_id="alice", content="héllo", metadata={"sync_id": "b1"})],
        )
    assert sent[0].content == "héllo"
    body = json.dumps(
        {"messages": [{"peer_id": "alice", "content": "héllo", "metadata": {"sync_id": "b1"}}]},
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()
    request = server.requests[0]
    assert json.loads(request.body) == json.loads(body)
    auth = b"" if key is None else b"Authorization: Bearer " + key.encode() + b"\r\n"
    assert request.raw == (
        b"POST /v3/workspaces/w/sessions/s1/messages HTTP/1.1\r\n"
        b"Host: 127.0.0.1:%d\r\n" % server.port + auth + b"Accept: application/json\r\n"
        b"User-Agent: roncho/" + roncho.__version__.encode() + b"\r\n"
        b"Content-Type: application/json\r\n"
        b"Content-Length: %d\r\n"
        b"Connection: close\r\n\r\n" % len(request.body) + request.body
    )
    assert request.body == body, "compact UTF-8 JSON, not \\u escapes"


def test_no_key_means_no_authorization_header_at_all() -> None:
    with RawServer([reply(200, {"status": "ok"})]) as server:
        roncho.Client(server.url, "w", read_timeout=READ_TIMEOUT).probe()
    assert b"authorization" not in server.requests[0].raw.lower()


def test_empty_key_is_refused_before_anything_is_sent() -> None:
    with pytest.raises(roncho.ConfigError) as caught:
        roncho.Client("http://127.0.0.1:9", "w", api_key="")
    assert caught.value.request_sent is False
