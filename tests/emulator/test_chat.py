"""Dialectic chat (peer and workspace), plain and streamed."""

from __future__ import annotations

import http.client
import json
import time
from typing import Any

import pytest
from emu_http import SOCKET_TIMEOUT, Api

import roncho
from roncho.testing import FakeHoncho

W = "/v3/workspaces"


def stream_events(port: int, path: str, body: dict[str, Any]) -> tuple[dict[str, str], list[Any]]:
    """POST and read an SSE body; returns (headers, decoded `data:` payloads)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=SOCKET_TIMEOUT)
    try:
        conn.request("POST", path, body=json.dumps(body), headers={"Accept": "text/event-stream"})
        response = conn.getresponse()
        assert response.status == 200
        raw = response.read().decode("ascii")
        headers = {k.lower(): v for k, v in response.getheaders()}
    finally:
        conn.close()
    assert raw.endswith("\n\n")
    events = [block for block in raw.split("\n\n") if block]
    assert all(block.startswith("data: ") and "\n" not in block for block in events)
    return headers, [json.loads(block[len("data: ") :]) for block in events]


def seed(api: Api) -> None:
    api.add_messages(
        "w",
        "s",
        ("alice", "I love hiking in the mountains"),
        ("alice", "My cat is called Tom"),
        ("bob", "I prefer the beach"),
    )
    api.post(
        f"{W}/w/conclusions",
        {
            "conclusions": [
                {"content": "Alice owns a cat", "observer_id": "bob", "observed_id": "alice"}
            ]
        },
    )


def test_chat_answers_from_matching_evidence(api: Api) -> None:
    seed(api)
    reply = api.post(f"{W}/w/peers/bob/chat", {"query": "Does she have a cat?", "target": "alice"})
    assert reply.status == 200
    assert set(reply.json) == {"content"}
    content = reply.json["content"]
    assert "Alice owns a cat" in content and "Tom" in content
    assert "beach" not in content
    again = api.post(f"{W}/w/peers/bob/chat", {"query": "Does she have a cat?", "target": "alice"})
    assert again.json == reply.json  # deterministic


def test_chat_get_or_creates_path_peer(api: Api) -> None:
    reply = api.post(f"{W}/w/peers/newbie/chat", {"query": "who am I?"})
    assert reply.status == 200 and "newbie" in reply.json["content"]
    assert api.post(f"{W}/w/peers/list", {"filters": {"id": "newbie"}}).json["total"] == 1


def test_chat_validation(api: Api) -> None:
    seed(api)
    path = f"{W}/w/peers/bob/chat"
    assert api.post(path, {"query": ""}).detail[0]["type"] == "string_too_short"
    assert api.post(path, {"query": "x" * 10001}).detail[0]["type"] == "string_too_long"
    level = api.post(path, {"query": "q", "reasoning_level": "extreme"})
    assert level.detail[0]["type"] == "literal_error"
    target = api.post(path, {"query": "q", "target": "ghost"})
    assert (target.status, target.detail) == (404, "Peer ghost not found in workspace w")
    session = api.post(path, {"query": "q", "session_id": "nope"})
    assert (session.status, session.detail) == (404, "Session nope not found in workspace w")
    bad_filter = api.post(path, {"query": "q", "filters": {"metadata": {"a": 1}}})
    assert bad_filter.status == 422 and isinstance(bad_filter.detail, str)
    ok = api.post(path, {"query": "q", "filters": {"session_id": {"in": ["s"]}}})
    assert ok.status == 200


def test_chat_evidence_and_response_format(api: Api) -> None:
    seed(api)
    body = {"query": "cat", "target": "alice", "include_evidence": True}
    reply = api.post(f"{W}/w/peers/bob/chat", body).json
    evidence = reply["evidence"]
    assert set(evidence) == {"conclusions", "messages", "tool_calls", "reasoning_trace_id"}
    assert set(evidence["messages"][0]) == {"id", "session_id", "peer_id", "created_at"}
    assert evidence["conclusions"][0]["content"] == "Alice owns a cat"
    assert (evidence["tool_calls"], evidence["reasoning_trace_id"]) == ([], None)
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "string"}, "n": {"type": "integer"}},
    }
    formatted = api.post(f"{W}/w/peers/bob/chat", {"query": "cat", "response_format": schema})
    parsed = json.loads(formatted.json["content"])
    assert set(parsed) == {"answer", "n"}


def test_chat_stream_format(fake_honcho: FakeHoncho, api: Api) -> None:
    seed(api)
    body = {"query": "hiking", "target": "alice", "stream": True, "include_evidence": True}
    headers, events = stream_events(fake_honcho.port, f"{W}/w/peers/bob/chat", body)
    assert headers["content-type"] == "text/event-stream; charset=utf-8"
    assert headers["transfer-encoding"] == "chunked"
    *pieces, final = events
    assert len(pieces) > 1
    assert all(e["done"] is False and set(e) == {"delta", "done"} for e in pieces)
    assert final["done"] is True and "evidence" in final
    plain = api.post(f"{W}/w/peers/bob/chat", {"query": "hiking", "target": "alice"}).json
    assert "".join(e["delta"]["content"] for e in pieces) == plain["content"]


def test_chat_stream_without_evidence_ends_with_done_only(fake_honcho: FakeHoncho) -> None:
    _, events = stream_events(
        fake_honcho.port, f"{W}/w/peers/bob/chat", {"query": "q", "stream": True}
    )
    assert events[-1] == {"done": True}


def test_chat_delays() -> None:
    with FakeHoncho(chat_delay=0.1, stream_chunk_delay=0.05) as fake:
        started = time.monotonic()
        Api(fake.port).post(f"{W}/w/peers/p/chat", {"query": "hello"})
        assert time.monotonic() - started >= 0.1
        started = time.monotonic()
        _, events = stream_events(fake.port, f"{W}/w/peers/p/chat", {"query": "q", "stream": True})
        assert time.monotonic() - started >= 0.1 + 0.05 * (len(events) - 1)


def test_workspace_chat_and_switch() -> None:
    with FakeHoncho() as fake:
        api = Api(fake.port)
        seed(api)
        reply = api.post(f"{W}/w/chat", {"query": "beach", "include_evidence": True})
        assert reply.status == 200
        assert "beach" in reply.json["content"]
        assert reply.json["evidence"]["messages"][0]["peer_id"] == "bob"
    with FakeHoncho(workspace_chat=False) as old:
        missing = Api(old.port).post(f"{W}/w/chat", {"query": "beach"})
        assert (missing.status, missing.json) == (404, {"detail": "Not Found"})


def test_chat_stream_with_missing_target_or_session_ends_without_final_event(
    fake_honcho: FakeHoncho, api: Api
) -> None:
    """The 3.0.12 source checks target and session inside the stream's generator, after
    the 200 headers: the stream ends with no event, and the client must not take it as
    a complete (empty) answer."""
    seed(api)
    for extra in ({"target": "ghost"}, {"session_id": "nope"}):
        conn = http.client.HTTPConnection("127.0.0.1", fake_honcho.port, timeout=SOCKET_TIMEOUT)
        try:
            conn.request(
                "POST",
                f"{W}/w/peers/bob/chat",
                body=json.dumps({"query": "q", "stream": True, **extra}),
                headers={"Accept": "text/event-stream"},
            )
            response = conn.getresponse()
            assert response.status == 200
            assert response.getheader("content-type") == "text/event-stream; charset=utf-8"
            assert response.read() == b""
        finally:
            conn.close()
    client = roncho.Client(fake_honcho.url, "w", read_timeout=SOCKET_TIMEOUT)
    with (
        pytest.raises(roncho.ProtocolError, match="without its final event"),
        client.chat_stream("bob", "q", target="ghost") as stream,
    ):
        list(stream)
