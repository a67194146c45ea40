"""clone_session up to a message of another session: Honcho 3.0.12 answers 404 "Session
not found" for a session that exists (observed on the kit, 2026-12-07; a session that
does not exist is "Original session not found"). The error adds what it may mean.
Both clients (tests/wire/conftest.py)."""

from __future__ import annotations

import pytest
from rawserver import RawServer, reply

import roncho
from roncho.testing import FakeHoncho

WS = "w1"
HINT = "message_id is not a message of this session (it may belong to another session)"
READ_TIMEOUT = 5.0


def _clone_error(detail: str, message_id: str | None) -> roncho.StatusError:
    with RawServer([reply(404, {"detail": detail})]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(roncho.StatusError) as caught:
            client.clone_session("s2", message_id=message_id)
    (request,) = server.requests
    assert request.request_line.split()[1].startswith(f"/v3/workspaces/{WS}/sessions/s2/clone")
    return caught.value


def test_clone_404_session_not_found_with_message_id_says_it_may_be_another_sessions() -> None:
    error = _clone_error("Session not found", "m-of-s1")
    assert type(error) is roncho.StatusError and error.status == 404
    assert str(error) == (
        f"POST /v3/workspaces/{WS}/sessions/s2/clone answered 404: Session not found; the "
        f"session may exist: Honcho 3.0.12 says this when {HINT}"
    )
    assert error.detail == "Session not found" and error.request_sent is True


@pytest.mark.parametrize(
    ("detail", "message_id"),
    [("Original session not found", "m1"), ("Session not found", None), ("Not Found", "m1")],
)
def test_clone_other_404s_are_as_the_server_said(detail: str, message_id: str | None) -> None:
    error = _clone_error(detail, message_id)
    assert str(error) == f"POST /v3/workspaces/{WS}/sessions/s2/clone answered 404: {detail}"


def test_clone_up_to_another_sessions_message_on_the_emulator() -> None:
    """The emulator answers as 3.0.12 did on the kit, so the hint shows end to end."""
    with FakeHoncho() as fake:
        client = roncho.Client(fake.url, WS, read_timeout=READ_TIMEOUT)
        client.get_or_create_workspace()
        for session in ("s1", "s2"):
            client.get_or_create_session(session, peers={"a": None})
        (message,) = client.add_messages("s1", [roncho.MessageCreate("a", "hello")])
        with pytest.raises(roncho.StatusError) as caught:
            client.clone_session("s2", message_id=message.id)
        assert HINT in str(caught.value)
        assert client.clone_session("s1", message_id=message.id).id not in ("s1", "s2")
