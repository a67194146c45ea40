"""``upload_file`` refuses empty content before sending: Honcho 3.0.12 stores an empty
file as one empty message (observed on the kit, 2026-12-07), which is almost surely a
read gone wrong. Both clients (tests/wire/conftest.py); a ``Trap`` counts connections."""

from __future__ import annotations

import pytest
from rawserver import RawServer, Trap, reply

import roncho
from roncho import ConfigError

MESSAGE = {
    "id": "m1",
    "content": "x",
    "peer_id": "a",
    "session_id": "s",
    "workspace_id": "w",
    "created_at": "2026-01-01T00:00:00Z",
    "metadata": {},
    "token_count": 1,
}


@pytest.mark.parametrize("empty", [b"", bytearray(), memoryview(b"")], ids=type)
def test_upload_empty_content_is_refused_before_sending(empty: bytes) -> None:
    with Trap() as trap:
        client = roncho.Client(trap.url, "w", connect_timeout=1.0, read_timeout=1.0)
        with pytest.raises(ConfigError) as info:
            client.upload_file("s", "a", empty, "a.txt", "text/plain")
        assert trap.connections() == 0
    assert type(info.value) is ConfigError and info.value.request_sent is False
    assert str(info.value) == (
        "content is empty (0 bytes): the server would store an empty message"
    )


def test_upload_one_byte_goes_out() -> None:
    with RawServer([reply(201, [MESSAGE])]) as server:
        client = roncho.Client(server.url, "w", read_timeout=10.0)
        (message,) = client.upload_file("s", "a", b"x", "a.txt", "text/plain")
    assert message.content == "x"
    (request,) = server.requests
    assert request.request_line.startswith("POST /v3/workspaces/w/sessions/s/messages/upload ")
