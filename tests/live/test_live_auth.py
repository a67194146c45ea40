"""Keys: refused when missing or wrong, ignored when authentication is off, and what a
workspace key and a peer key may reach.

The reach checks run only when the suite's key is an admin key (it can mint keys), and
only ever inside workspaces this run created: the main scratch workspace and, for the
"another workspace" question, a second scratch workspace made and removed here.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from live_data import ASSISTANT, CONNECT_TIMEOUT, READ_TIMEOUT, USER, Target, World
from live_recorder import Recorder, scrub

import roncho


def _forged_admin_key() -> str:
    """A well-formed HS256 JWT claiming admin, signed with a secret no server has."""

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")

    header = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64(json.dumps({"t": "2026-01-01T00:00:00Z", "ad": True}).encode())
    signature = hmac.new(
        secrets.token_bytes(32), f"{header}.{payload}".encode(), hashlib.sha256
    ).digest()
    return f"{header}.{payload}.{b64(signature)}"


def _outcome(call: Callable[[], Any]) -> str:
    """'allowed', 'refused' (401/403) or 'status <n>' for another refusal."""
    try:
        call()
    except roncho.UnauthorizedError:
        return "refused"
    except roncho.StatusError as exc:
        return f"status {exc.status}"
    return "allowed"


# -- authentication off ------------------------------------------------------------------------


def test_auth_off_ignores_keys_and_disables_the_keys_api(
    target: Target, scratch: roncho.Client, auth_on: bool, recorder: Recorder
) -> None:
    if auth_on:
        pytest.skip("authentication is on")
    wrong = target.client(scratch.workspace, api_key=_forged_admin_key())
    try:
        seen = [s.id for s in wrong.list_sessions().items]
        assert recorder.last("list_sessions").status == 200
        assert seen == [s.id for s in scratch.list_sessions().items]
    finally:
        wrong.close()
    with pytest.raises(roncho.StatusError) as caught:
        scratch.create_key(workspace_id=scratch.workspace)
    assert caught.value.status == 405
    recorder.note("keys_api_with_auth_off", {"status": 405, "detail": caught.value.detail})


# -- authentication on -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [None, "not-a-jwt", "forged"],
    ids=["no-key", "garbage-key", "forged-admin-key"],
)
def test_auth_on_refuses_missing_or_wrong_key(
    target: Target, scratch: roncho.Client, auth_on: bool, recorder: Recorder, key: str | None
) -> None:
    if not auth_on:
        pytest.skip("authentication is off on this server")
    api_key = _forged_admin_key() if key == "forged" else key
    client = target.client(scratch.workspace, api_key=api_key)
    try:
        with pytest.raises(roncho.UnauthorizedError) as caught:
            client.list_sessions(size=1)
        # Not even an admin-only route answers a forged admin claim.
        with pytest.raises(roncho.UnauthorizedError):
            client.list_workspaces(filters={"id": scratch.workspace}, size=1)
    finally:
        client.close()
    assert caught.value.status in (401, 403)
    # The key never shows in what the error says.
    if api_key:
        assert api_key not in str(caught.value) and api_key not in repr(caught.value)
    recorder.note(f"refusal_{key or 'none'}", {"status": caught.value.status})


@pytest.fixture(scope="session")
def workspace_key(scratch: roncho.Client, auth_on: bool, recorder: Recorder) -> str:
    """A key for the scratch workspace, minted by the suite's key if it is an admin key."""
    if not auth_on:
        pytest.skip("authentication is off on this server")
    try:
        key = scratch.create_key(workspace_id=scratch.workspace)
    except roncho.UnauthorizedError:
        recorder.note("key_kind", "not admin")
        pytest.skip("the key is not an admin key: its reach cannot be probed safely")
    recorder.note("key_kind", "admin")
    return key


@pytest.fixture
def other_workspace(target: Target, workspace_key: str, recorder: Recorder) -> Iterator[str]:
    """A second scratch workspace (admin-made); removed afterwards."""
    with roncho.scratch_workspace(
        target.url,
        "roncho-live-other",
        api_key=target.key,
        connect_timeout=CONNECT_TIMEOUT,
        read_timeout=READ_TIMEOUT,
    ) as other:
        recorder.name(other.workspace, "{other_workspace}")
        recorder.name("other-session", "{other_session}")
        recorder.name("other-peer", "{other_peer}")
        other.get_or_create_session("other-session", peers={"other-peer": None})
        yield other.workspace


def test_workspace_key_stays_in_its_workspace(
    target: Target,
    scratch: roncho.Client,
    world: World,
    workspace_key: str,
    other_workspace: str,
    recorder: Recorder,
) -> None:
    mine = target.client(scratch.workspace, api_key=workspace_key)
    theirs = mine.with_workspace(other_workspace)
    try:
        reach = {
            "own_read": _outcome(lambda: mine.list_sessions(size=1)),
            "own_write": _outcome(lambda: mine.get_or_create_peer(USER)),
            "other_read": _outcome(lambda: theirs.list_sessions(size=1)),
            "other_write": _outcome(lambda: theirs.get_or_create_peer("intruder")),
            "other_get_or_create_workspace": _outcome(theirs.get_or_create_workspace),
            "list_workspaces": _outcome(lambda: mine.list_workspaces(size=1)),
            "mint_key": _outcome(lambda: mine.create_key(workspace_id=scratch.workspace)),
        }
    finally:
        mine.close()
        theirs.close()
    recorder.note("workspace_key_reach", reach)
    # Which refusal a key gets outside its workspace (3.0.12: 401, never 403, reference §7).
    other = target.client(other_workspace, api_key=workspace_key)
    try:
        with pytest.raises(roncho.UnauthorizedError) as refused:
            other.list_sessions(size=1)
    finally:
        other.close()
    assert refused.value.status in (401, 403)
    assert workspace_key not in str(refused.value) and workspace_key not in repr(refused.value)
    recorder.note(
        "workspace_key_other_workspace",
        {"status": refused.value.status, "detail": scrub(str(refused.value.detail), recorder.ids)},
    )
    assert reach["own_read"] == reach["own_write"] == "allowed"
    assert reach["other_read"] == reach["other_write"] == "refused"
    assert reach["other_get_or_create_workspace"] == "refused"
    assert reach["list_workspaces"] == reach["mint_key"] == "refused"
    # Nothing reached the other workspace.
    admin = scratch.with_workspace(other_workspace)
    try:
        assert "intruder" not in {p.id for p in admin.list_peers().items}
    finally:
        admin.close()


def test_peer_key_reads_its_sessions_and_cannot_write_messages(
    target: Target, scratch: roncho.Client, world: World, workspace_key: str, recorder: Recorder
) -> None:
    """SRC (reference §2): a peer key reads sessions it is an active member of, may change
    its own peer and get-or-create sessions, and may not write messages or conclusions."""
    shared = f"memoryd-probe-{secrets.token_hex(4)}"
    private = f"memoryd-private-{secrets.token_hex(4)}"
    recorder.name(shared, "{probe_session}")
    recorder.name(private, "{private_session}")
    scratch.get_or_create_session(shared, peers={USER: None, ASSISTANT: None})
    scratch.add_messages(shared, [roncho.MessageCreate(peer_id=ASSISTANT, content="Hello!")])
    scratch.get_or_create_session(private, peers={ASSISTANT: None})
    peer_key = scratch.create_key(workspace_id=scratch.workspace, peer_id=USER)
    as_user = target.client(scratch.workspace, api_key=peer_key)
    note = roncho.MessageCreate(peer_id=USER, content="A note the user tries to add.")
    try:
        reach = {
            "member_session_messages": _outcome(lambda: as_user.list_messages(shared)),
            "member_session_peers": _outcome(lambda: as_user.list_session_peers(shared)),
            "other_session_messages": _outcome(lambda: as_user.list_messages(private)),
            "add_messages": _outcome(lambda: as_user.add_messages(shared, [note])),
            "create_conclusions": _outcome(
                lambda: as_user.create_conclusions(
                    [roncho.ConclusionCreate(content="x", observer_id=USER, observed_id=USER)]
                )
            ),
            "other_peer_create": _outcome(lambda: as_user.get_or_create_peer("intruder")),
            "workspace_search": _outcome(lambda: as_user.search("Lisbon")),
            "queue_status": _outcome(as_user.queue_status),
            # Same metadata as the world fixture set: allowed or not, nothing changes.
            "own_peer_update": _outcome(
                lambda: as_user.update_peer(USER, metadata={"kind": "human", "source": "memoryd"})
            ),
        }
    finally:
        as_user.close()
    writes = ("add_messages", "create_conclusions", "other_peer_create", "own_peer_update")
    recorder.note("peer_key_reach", reach)
    recorder.note("peer_key_read_only", all(reach[w] != "allowed" for w in writes))
    assert reach["member_session_messages"] == reach["member_session_peers"] == "allowed"
    assert reach["other_session_messages"] == "refused"
    assert reach["add_messages"] == reach["create_conclusions"] == "refused"
    assert reach["other_peer_create"] == "refused"
    assert reach["workspace_search"] == reach["queue_status"] == "refused"
    # The refused write left nothing behind.
    assert [m.content for m in scratch.list_messages(shared).items] == ["Hello!"]
