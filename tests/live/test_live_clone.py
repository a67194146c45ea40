"""Whether a session clone reads only its own workspace (docs/compatibility.md, "Server defects").

Honcho 3.0.12's `clone_session` selects the messages to copy by the session's *name* alone, not
by workspace: a clone in workspace B of session `x` copies what workspace A's session `x` holds
(its messages and its peers), or answers 500 when the copies collide with B's own. roncho's
`clone_session` calls that route; this speaks HTTP itself, so that a 500 is recorded as the
server's answer rather than raised. Two throwaway workspaces of this run, both removed
afterwards; the finding is recorded for each target, so the owner's 3.2.0 run says whether
their version still does it.
"""

from __future__ import annotations

import http.client
import json
import secrets
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from both_clients import BlockingAsync
from live_data import CONNECT_TIMEOUT, READ_TIMEOUT, Target
from live_recorder import Recorder

import roncho

PEER = "clone-probe-peer"
SECRET_TEXT = "written only in workspace A"


def _post(target: Target, path: str, key: str | None) -> tuple[int, Any]:
    """One POST with an empty JSON body, no proxy and no redirect: (status, parsed body)."""
    parts = urlsplit(target.url)
    connection = http.client.HTTPConnection(
        parts.hostname or "", parts.port or 80, timeout=max(CONNECT_TIMEOUT, READ_TIMEOUT)
    )
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    try:
        connection.request("POST", parts.path.rstrip("/") + path, body=b"{}", headers=headers)
        response = connection.getresponse()
        raw = response.read()
    finally:
        connection.close()
    try:
        return response.status, json.loads(raw) if raw else None
    except ValueError:
        return response.status, raw[:200].decode("utf-8", "replace")


def _scratch(target: Target, prefix: str) -> Any:
    return roncho.scratch_workspace(
        target.url,
        prefix,
        api_key=target.key,
        connect_timeout=CONNECT_TIMEOUT,
        read_timeout=READ_TIMEOUT,
    )


@pytest.mark.timeout(300)
def test_a_clone_copies_only_its_own_workspace_s_messages(
    target: Target, recorder: Recorder, client_kind: type[Any]
) -> None:
    # Not `client_kind is not roncho.Client`: the autouse fixture has already made
    # roncho.Client the kind under test, so that guard never fired.
    if issubclass(client_kind, BlockingAsync):
        pytest.skip("a fact about the server, asked through the blocking scratch_workspace")
    session = f"clone-probe-{secrets.token_hex(4)}"
    recorder.name(session, "{session}")
    with _scratch(target, "roncho-live-clone-a") as a, _scratch(target, "roncho-live-clone-b") as b:
        for client in (a, b):
            recorder.name(client.workspace, "{workspace}")
            client.get_or_create_peer(PEER)
        # B's session is empty, peers included: its own rows would collide with A's copies.
        a.get_or_create_session(session, peers={PEER: {}})
        b.get_or_create_session(session)
        a.add_messages(session, [roncho.MessageCreate(peer_id=PEER, content=SECRET_TEXT)])

        # With authentication on, the clone is asked with a key for workspace B alone: what a
        # holder of such a key can read of workspace A is the point.
        key = b.create_key(workspace_id=b.workspace) if target.key else None
        path = f"/v3/workspaces/{quote(b.workspace)}/sessions/{session}/clone"
        status, body = _post(target, path, key)
        copied: bool | None = None
        if status == 201:
            clone = b.list_messages(str(body["id"]))
            copied = any(message.content == SECRET_TEXT for message in clone.items)
        recorder.note(
            "clone_copies_other_workspaces",
            {"status": status, "copied": copied, "key": "workspace B's" if key else "none"},
        )
        # scratch_workspace's exit removes every session of both, the clone included.

    # fake-honcho given as a URL (the acceptance run) is a "live" target that says so in its
    # version.
    version = recorder.version or ""
    if target.kind == "emulator" or version.endswith("-emulator"):
        assert (status, copied) == (201, False), "the emulator keeps workspaces apart"
    elif version.startswith("3.0.12"):
        # The defect docs/compatibility.md describes; if this fails, the page must change.
        assert (status, copied) == (201, True), (status, body)
    else:
        # Another version: recorded as found; only an answer outside the two known is news.
        assert status in (201, 500), (status, body)
