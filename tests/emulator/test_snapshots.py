"""State snapshots: `GET /_fake/state` / `export_state()` out, `POST /_fake/state` /
`restore_state()` in, refusing another emulator version; `fake-honcho --state FILE`."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from emu_http import Api, wait_for

import roncho
from roncho.testing import FakeHoncho, SnapshotError

W = "/v3/workspaces/w"
START_TIMEOUT = 30.0


@pytest.fixture
def source() -> Iterator[FakeHoncho]:
    with FakeHoncho(flush=True, deriver_delay=0.01) as fake:
        fake.control_enabled = True
        yield fake


def _fill(api: Api) -> None:
    """A workspace with a bit of everything: members with config, messages, derived
    conclusions, a card, a scope, a summary, a deleted session."""
    assert api.put(W, {"metadata": {"team": "a"}, "configuration": {"x": 1}}).status == 200
    members = {"alice": {"observe_others": True}, "bob": {"observe_me": False}}
    assert api.post(f"{W}/sessions", {"id": "s1", "peers": members}).status == 201
    assert api.post(f"{W}/peers", {"id": "carol", "metadata": {"k": "v"}}).status == 201
    for i in range(20):  # the 20th message makes a summary item
        api.add_messages("w", "s1", ("alice" if i % 2 else "bob", f"message {i} about tea"))
    body = {
        "conclusions": [
            {
                "content": "bob likes tea",
                "observer_id": "alice",
                "observed_id": "bob",
                "session_id": "s1",
            }
        ]
    }
    assert api.post(f"{W}/conclusions", body).status == 201
    card = {"peer_card": ["likes tea"]}
    assert api.put(f"{W}/peers/alice/card", card, query={"target": "bob"}).status == 200
    assert api.post(f"{W}/scopes", {"id": "sc"}).status == 201
    assert api.post(f"{W}/scopes/sc/sessions", {"session_ids": ["s1"]}).status == 204
    wait_for(
        lambda: (
            api.queue("w")["pending_work_units"] + api.queue("w")["in_progress_work_units"] == 0
            and api.get(f"{W}/scopes/sc/status").json["backfill_status"]["s1"]["state"]
            == "completed"
        ),
        what="deriver and backfill to settle",
    )


def _views(api: Api) -> dict[str, Any]:
    """What a client can read back, ids and timestamps included."""
    return {
        "workspaces": api.post("/v3/workspaces/list", {}).json,
        "peers": api.post(f"{W}/peers/list", {}).json,
        "sessions": api.post(f"{W}/sessions/list", {}).json,
        "members": api.get(f"{W}/sessions/s1/peers").json,
        "config": api.get(f"{W}/sessions/s1/peers/bob/config").json,
        "messages": api.post(f"{W}/sessions/s1/messages/list", {}, query={"size": "100"}).json,
        "conclusions": api.post(f"{W}/conclusions/list", {}, query={"size": "100"}).json,
        "context": api.get(
            f"{W}/sessions/s1/context", query={"peer_target": "bob", "peer_perspective": "alice"}
        ).json,
        "summaries": api.get(f"{W}/sessions/s1/summaries").json,
        "card": api.get(f"{W}/peers/alice/card", query={"target": "bob"}).json,
        "scope": api.get(f"{W}/scopes/sc/status").json,
        "queue": api.queue("w"),
    }


def test_a_restored_emulator_answers_as_the_exported_one(source: FakeHoncho) -> None:
    api = Api(source.port)
    _fill(api)
    before = _views(api)
    snapshot = json.loads(json.dumps(source.export_state()))  # JSON all the way
    assert snapshot["format"] == "roncho-fake-honcho-state"
    assert snapshot["emulator_version"] == roncho.__version__
    with FakeHoncho(version="3.2.0") as target:
        target.restore_state(snapshot)
        assert _views(Api(target.port)) == before
        assert [r.message_id for r in target.deriver_log()] == [
            r.message_id for r in source.deriver_log()
        ]
        # New ids continue after the restored ones: no message id sequence is reused.
        Api(target.port).add_messages("w", "s1", ("alice", "after the restore"))
        seqs = [
            item["seq"] for ws in target.export_state()["workspaces"] for item in ws["messages"]
        ]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


def test_restore_replaces_everything(source: FakeHoncho) -> None:
    api = Api(source.port)
    empty = source.export_state()
    _fill(api)
    source.restore_state(empty)
    assert api.post("/v3/workspaces/list", {}).json["items"] == []
    assert source.deriver_log() == []


def test_pending_work_waits_in_a_snapshot() -> None:
    with FakeHoncho(deriver="manual") as paused:
        Api(paused.port).add_messages("w", "s1", ("alice", "I like tea"))
        snapshot = paused.export_state()
    with FakeHoncho(deriver="manual") as resumed:
        resumed.restore_state(snapshot)
        assert Api(resumed.port).queue("w")["pending_work_units"] == 1
        [record] = resumed.deriver.step()
        assert record.sender_id == "alice"


def test_a_deleted_session_is_purged_after_a_restore(source: FakeHoncho) -> None:
    api = Api(source.port)
    api.add_messages("w", "gone", ("alice", "hello"))
    with FakeHoncho(purge_delay=30.0) as slow:  # its purge would not come in this test
        slow_api = Api(slow.port)
        slow_api.add_messages("w", "gone", ("alice", "hello"))
        assert slow_api.delete(f"{W}/sessions/gone").status == 202
        snapshot = slow.export_state()
    source.restore_state(snapshot)  # purge_delay 0.2 here
    listed = f"{W}/sessions/gone/messages/list"
    wait_for(lambda: not api.post(listed, {}).json["items"], what="the restored purge")


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"emulator_version": "0.0.1"}, "made by roncho 0.0.1's emulator; this is roncho"),
        ({"format": "something else"}, "not an emulator state snapshot"),
        ({"format_version": 99}, "format version 99"),
        ({"workspaces": [{"id": "w"}]}, "a broken snapshot"),
        ({"seq": "many"}, "a broken snapshot"),
    ],
)
def test_other_snapshots_are_refused(
    source: FakeHoncho, change: dict[str, object], says: str
) -> None:
    api = Api(source.port)
    _fill(api)
    before = _views(api)
    snapshot = {**source.export_state(), **change}
    with pytest.raises(SnapshotError, match=says):
        source.restore_state(snapshot)
    assert _views(api) == before  # nothing changed
    refused = api.post("/_fake/state", snapshot)
    assert refused.status == 422 and says in refused.detail
    assert _views(api) == before


def test_snapshots_over_http(source: FakeHoncho) -> None:
    api = Api(source.port)
    _fill(api)
    snapshot = api.get("/_fake/state")
    assert snapshot.status == 200
    with FakeHoncho() as target:
        target.control_enabled = True
        target_api = Api(target.port)
        assert target_api.post("/_fake/state", snapshot.json).json == {"restored": True}
        assert _views(target_api) == _views(api)
        assert target_api.post("/_fake/state", raw=b"[]").status == 422


def test_server_mode_starts_from_a_state_file(source: FakeHoncho, tmp_path: Path) -> None:
    api = Api(source.port)
    _fill(api)
    state = tmp_path / "state.json"
    state.write_text(json.dumps(source.export_state()))
    proc = subprocess.Popen(
        [sys.executable, "-m", "roncho.testing", "--port", "0", "--state", str(state)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        ready = json.loads(proc.stdout.readline())
        served = Api(ready["port"])
        assert served.post(f"{W}/sessions/s1/messages/list", {}, query={"size": "100"}).json == (
            api.post(f"{W}/sessions/s1/messages/list", {}, query={"size": "100"}).json
        )
    finally:
        proc.terminate()
        proc.communicate(timeout=START_TIMEOUT)


@pytest.mark.parametrize("content", ["not json", '{"format": "roncho-fake-honcho-state"}'])
def test_server_mode_refuses_a_bad_state_file(tmp_path: Path, content: str) -> None:
    state = tmp_path / "state.json"
    state.write_text(content)
    result = subprocess.run(
        [sys.executable, "-m", "roncho.testing", "--port", "0", "--state", str(state)],
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"fake-honcho: error: cannot load --state {state}: ")
    assert result.stderr.count("\n") == 1


def test_server_mode_reports_a_missing_state_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    result = subprocess.run(
        [sys.executable, "-m", "roncho.testing", "--port", "0", "--state", str(missing)],
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert (result.returncode, result.stderr.count("\n")) == (1, 1)
    assert "No such file or directory" in result.stderr
