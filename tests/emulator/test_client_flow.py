"""End-to-end flows through `roncho.Client` against the emulator."""

from __future__ import annotations

import time

import pytest
from emu_http import WAIT

import roncho
from roncho.testing import FakeHoncho

# Short timeouts: the emulator answers in milliseconds.
CONNECT_TIMEOUT = 2.0
READ_TIMEOUT = 5.0


def client_for(fake: FakeHoncho, workspace: str = "w", key: str | None = None) -> roncho.Client:
    return roncho.Client(
        fake.url,
        workspace,
        api_key=key,
        connect_timeout=CONNECT_TIMEOUT,
        read_timeout=READ_TIMEOUT,
    )


def test_client_full_flow() -> None:
    with FakeHoncho(flush=True, deriver_delay=0.01) as fake:
        client = client_for(fake)
        assert client.probe().status == "ok"
        assert client.server_version() == "3.2.0-emulator"
        assert client.get_or_create_workspace().created is True
        assert client.get_or_create_workspace().created is False
        client.get_or_create_peer("alice")
        session = client.get_or_create_session("s", peers={"alice": None, "bob": None})
        assert session.id == "s"
        sent = client.add_messages(
            "s",
            [
                roncho.MessageCreate(peer_id="alice", content="I love hiking"),
                roncho.MessageCreate(peer_id="bob", content="I love the sea"),
            ],
        )
        assert [m.content for m in sent] == ["I love hiking", "I love the sea"]
        assert client.list_messages("s").total == 2
        # The best hit (the server's search fills up to the limit with the rest).
        assert [m.peer_id for m in client.search("hiking", limit=1)] == ["alice"]
        deadline = time.monotonic() + WAIT
        while client.queue_status().completed_work_units < 2:
            assert time.monotonic() < deadline, "deriver did not finish"
            time.sleep(0.01)
        assert client.list_conclusions().total == 2
        made = client.create_conclusions(
            [
                roncho.ConclusionCreate(
                    content="Bob likes sea", observer_id="alice", observed_id="bob"
                )
            ]
        )
        found = client.query_conclusions("sea", "alice", "bob")
        assert found[0].id == made[0].id
        client.delete_conclusion(made[0].id)
        answer = client.chat("alice", "what does bob like?", target="bob", include_evidence=True)
        assert answer.content is not None and "sea" in answer.content
        with client.chat_stream("alice", "what does bob like?", target="bob") as stream:
            streamed = stream.read_all()
        assert streamed.content == client.chat("alice", "what does bob like?", target="bob").content
        with pytest.raises(roncho.WorkspaceBusyError):
            client.delete_workspace()
        client.delete_session("s")
        client.delete_workspace()


def test_client_sees_faults_and_auth_errors() -> None:
    with FakeHoncho(auth=True) as fake:
        with pytest.raises(roncho.UnauthorizedError):
            client_for(fake).list_sessions()
        client = client_for(fake, key=fake.admin_key)
        fake.faults.fail_next()
        with pytest.raises(roncho.StatusError) as failed:
            client.get_or_create_workspace()
        assert failed.value.status == 500
        fake.faults.close_mid_body_next()
        with pytest.raises(roncho.ProtocolError):
            client.get_or_create_workspace()
        peer_client = client_for(fake, key=fake.issue_key("w", peer="alice"))
        with pytest.raises(roncho.UnauthorizedError):
            peer_client.queue_status()
