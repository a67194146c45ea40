"""Auth mode: key scopes, refusals (always 401) and the keys endpoint."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from emu_http import Api

from roncho.testing import FakeHoncho

W = "/v3/workspaces"
NOT_PERMITTED = "JWT not permissioned for this resource"
UNAUTHORIZED = "Unauthorized access to resource"


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho(auth=True) as emulator:
        admin = Api(emulator.port, emulator.admin_key)
        admin.post(f"{W}/a1/sessions", {"id": "s1", "peers": {"alice": {}, "bob": {}}})
        admin.post(f"{W}/a1/sessions", {"id": "s2", "peers": {"bob": {}}})
        admin.add_messages("a1", "s1", ("alice", "hello from s1"))
        admin.add_messages("a1", "s2", ("bob", "hello from s2"))
        yield emulator


def test_health_needs_no_key(fake: FakeHoncho) -> None:
    assert Api(fake.port).get("/health").status == 200


def test_missing_and_bad_tokens(fake: FakeHoncho) -> None:
    anonymous = Api(fake.port)
    reply = anonymous.post(f"{W}/a1/sessions/list")
    assert (reply.status, reply.detail) == (401, "No access token provided")
    basic = anonymous.post(f"{W}/a1/sessions/list", headers={"Authorization": "Basic abc"})
    assert basic.detail == "No access token provided"
    garbage = anonymous.with_key("not-a-jwt").post(f"{W}/a1/sessions/list")
    assert (garbage.status, garbage.detail) == (401, "Invalid JWT")
    with FakeHoncho(auth=True) as other:
        foreign = anonymous.with_key(other.admin_key).post(f"{W}/a1/sessions/list")
        assert foreign.detail == "Invalid JWT"
    expired = fake.issue_key("a1", expires_at="2000-01-01T00:00:00Z")
    assert anonymous.with_key(expired).post(f"{W}/a1/sessions/list").detail == "JWT expired"
    orphan = fake.issue_key(peer="alice")
    assert anonymous.with_key(orphan).post(f"{W}/a1/sessions/list").detail == (
        "Invalid JWT scope: peer/session token missing workspace"
    )
    assert Api(fake.port).get("/nope").status == 404  # routing happens before auth


def test_admin_key_and_keys_endpoint(fake: FakeHoncho) -> None:
    admin = Api(fake.port, fake.admin_key)
    assert admin.post(f"{W}/list").status == 200
    minted = admin.post("/v3/keys", query={"workspace_id": "a1"})
    assert minted.status == 200 and set(minted.json) == {"key"}
    assert Api(fake.port, minted.json["key"]).post(f"{W}/a1/sessions/list").status == 200
    assert admin.post("/v3/keys").status == 422
    orphan = admin.post("/v3/keys", query={"peer_id": "alice"})
    assert orphan.detail == "workspace_id is required when scoping a key to a peer or session"


def test_workspace_key(fake: FakeHoncho) -> None:
    key = Api(fake.port, fake.admin_key).post("/v3/keys", query={"workspace_id": "a1"}).json["key"]
    api = Api(fake.port, key)
    assert api.post(W, {"id": "a1"}).status == 200
    assert api.add_messages("a1", "s1", ("alice", "more")).status == 201
    assert api.get(f"{W}/a1/queue/status").status == 200
    assert api.post(f"{W}/a1/search", {"query": "hello"}).status == 200
    assert api.post(f"{W}/a1/chat", {"query": "hello"}).status == 200
    # The get-or-create handlers check the key themselves, in 3.0.12's words.
    assert (api.post(W, {"id": "a2"}).detail, api.post(f"{W}/a2/peers", {"id": "p"}).detail) == (
        UNAUTHORIZED,
        UNAUTHORIZED,
    )
    for reply in (
        api.post(f"{W}/a2/sessions/list"),
        api.add_messages("a2", "s", ("alice", "x")),
    ):
        assert (reply.status, reply.detail) == (401, NOT_PERMITTED)
    for reply in (api.post(f"{W}/list"), api.post("/v3/keys", query={"workspace_id": "a1"})):
        assert (reply.status, reply.detail) == (401, "Resource requires admin privileges")
    assert api.delete(f"{W}/a1/sessions/s2").status == 202


def test_peer_key(fake: FakeHoncho) -> None:
    api = Api(fake.port, fake.issue_key("a1", peer="alice"))
    assert api.post(f"{W}/a1/peers/alice/chat", {"query": "hello"}).status == 200
    assert api.post(f"{W}/a1/peers/alice/search", {"query": "hello"}).status == 200
    assert api.put(f"{W}/a1/peers/alice", {"metadata": {"k": 1}}).status == 200
    assert api.post(f"{W}/a1/peers", {"id": "alice"}).status == 200
    listed = api.post(f"{W}/a1/sessions/s1/messages/list")
    assert listed.status == 200 and listed.json["total"] == 1
    message_id = listed.json["items"][0]["id"]
    assert api.get(f"{W}/a1/sessions/s1/messages/{message_id}").status == 200
    assert api.post(f"{W}/a1/sessions/s1/search", {"query": "hello"}).status == 200
    assert api.get(f"{W}/a1/sessions/s1/peers/alice/config").status == 200
    assert api.post(f"{W}/a1/sessions", {"id": "s9"}).status == 201  # self-authorizing
    refused = [
        api.post(f"{W}/a1/peers/bob/chat", {"query": "hello"}),
        api.add_messages("a1", "s1", ("alice", "write")),
        api.post(f"{W}/a1/sessions/s2/messages/list"),  # not a member of s2
        api.get(f"{W}/a1/sessions/s1/peers/bob/config"),  # not its own config
        api.post(f"{W}/a1/search", {"query": "hello"}),
        api.get(f"{W}/a1/queue/status"),
        api.post(f"{W}/a1/conclusions/list"),
        api.post(f"{W}/a1/peers/alice/chat", {"query": "q", "session_id": "s2"}),
        api.delete(f"{W}/a1/sessions/s1"),
    ]
    assert [(r.status, r.detail) for r in refused] == [(401, NOT_PERMITTED)] * len(refused)
    other = api.post(f"{W}/a1/peers", {"id": "bob"})
    assert (other.status, other.detail) == (401, UNAUTHORIZED)


def test_session_key(fake: FakeHoncho) -> None:
    api = Api(fake.port, fake.issue_key("a1", session="s1"))
    assert api.add_messages("a1", "s1", ("alice", "write")).status == 201
    assert api.post(f"{W}/a1/sessions/s1/messages/list").status == 200
    assert api.post(f"{W}/a1/sessions", {"id": "s1"}).status == 200
    refused = [
        api.post(f"{W}/a1/sessions/s2/messages/list"),
        api.post(f"{W}/a1/peers/alice/chat", {"query": "q"}),
        api.post(f"{W}/a1/sessions/list"),
        api.get(f"{W}/a1/queue/status"),
    ]
    assert [(r.status, r.detail) for r in refused] == [(401, NOT_PERMITTED)] * len(refused)
    other = api.post(f"{W}/a1/sessions", {"id": "s2"})  # src/routers/sessions.py:310-315
    assert (other.status, other.detail) == (401, UNAUTHORIZED)


def test_keys_endpoint_disabled_without_auth() -> None:
    with FakeHoncho() as fake:
        reply = Api(fake.port).post("/v3/keys", query={"workspace_id": "w"})
        assert (reply.status, reply.json) == (405, {"detail": "Feature is disabled"})
        # With auth off any header is accepted.
        assert Api(fake.port, "garbage").post(W, {"id": "w"}).status == 201


def test_session_context_peer_key_reads_only_its_own_perspective(fake: FakeHoncho) -> None:
    """Seen on the real 3.0.12 server with a peer key minted for alice (member of s1 only)."""
    alice = Api(fake.port, fake.issue_key("a1", peer="alice"))
    path = f"{W}/a1/sessions/s1/context"
    assert alice.get(path).status == 200
    assert alice.get(path, query={"peer_target": "alice"}).status == 200
    own = {"peer_target": "bob", "peer_perspective": "alice"}
    assert alice.get(path, query=own).status == 200
    other = alice.get(path, query={"peer_target": "bob"})
    assert (other.status, other.detail) == (401, NOT_PERMITTED)
    foreign = alice.get(f"{path}?peer_target=alice&peer_perspective=alice&sessions=s1&sessions=s2")
    assert (foreign.status, foreign.detail) == (401, NOT_PERMITTED)
    member = alice.get(f"{path}?peer_target=alice&peer_perspective=alice&sessions=s1")
    assert member.status == 200


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/scopes", {"id": "sc"}),
        ("POST", "/sessions/s1/clone", None),
        ("POST", "/schedule_dream", {"observer": "alice", "dream_type": "omni"}),
    ],
)
def test_peer_key_refused_on_workspace_routes(
    fake: FakeHoncho, method: str, path: str, body: object
) -> None:
    alice = Api(fake.port, fake.issue_key("a1", peer="alice"))
    reply = (
        alice.call(method, f"{W}/a1{path}", body)
        if body is not None
        else alice.call(method, f"{W}/a1{path}")
    )
    assert (reply.status, reply.detail) == (401, NOT_PERMITTED)


def test_scope_routes_refuse_a_session_key_even_for_its_own_session(fake: FakeHoncho) -> None:
    """Seen on the real 3.0.12 server: scopes want a workspace (or admin) key, so a key for
    s1 may not take s1 out of a scope, though it may edit s1's members."""
    admin = Api(fake.port, fake.admin_key)
    assert admin.post(f"{W}/a1/scopes", {"id": "sc"}).status == 201
    assert admin.post(f"{W}/a1/scopes/sc/sessions", {"session_ids": ["s1"]}).status == 204
    s1 = Api(fake.port, fake.issue_key("a1", session="s1"))
    reply = s1.call("DELETE", f"{W}/a1/scopes/sc/sessions/s1")
    assert (reply.status, reply.detail) == (401, NOT_PERMITTED)
    assert s1.call("POST", f"{W}/a1/sessions/s1/peers", {"carol": {}}).status == 200
    workspace = Api(fake.port, fake.issue_key("a1"))
    assert workspace.call("DELETE", f"{W}/a1/scopes/sc/sessions/s1").status == 204
