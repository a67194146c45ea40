"""scripts/workspace_checks.py: the acceptance run's read-only checks and its leftover removal,
against an in-process emulator (the whole command is held in tests/acceptance)."""

from __future__ import annotations

import importlib.util
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import roncho
from roncho._scratch import scratch_id
from roncho.testing import FakeHoncho

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "workspace_checks.py"
WRITES = ("PUT", "DELETE", "PATCH")


def _load() -> Any:
    spec = importlib.util.spec_from_file_location("workspace_checks", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


checks = _load()


def _seed(fake: FakeHoncho, workspace: str) -> None:
    client = roncho.Client(fake.url, workspace)
    client.get_or_create_workspace()
    client.get_or_create_peer("alice")
    client.get_or_create_session("s1", peers={"alice": {}})
    client.add_messages("s1", [roncho.MessageCreate("alice", "private text, never printed")])


def test_read_checks_pass_and_send_no_write(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeHoncho(flush=True) as fake:
        _seed(fake, "agent-memory")
        fake.clear_requests()
        assert checks.main(["read", fake.url, "agent-memory"]) == 0
        sent = [(r.method, r.path) for r in fake.requests]
    out = capsys.readouterr().out
    assert "private text" not in out
    assert "a write was refused before sending" in out
    assert ("POST", "/v3/workspaces/agent-memory/peers/alice/chat") in sent
    assert [s for s in sent if s[0] in WRITES] == []
    posts = [path for method, path in sent if method == "POST"]
    assert all(p.endswith(("/list", "/search", "/chat")) for p in posts), posts


def test_leftovers_remove_only_this_runs_own_scratch_workspaces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = datetime.now(UTC)
    own = scratch_id("roncho-wb", now=start)
    with FakeHoncho(purge_delay=0.0) as fake:
        _seed(fake, "agent-memory")
        before = tmp_path / "before"
        assert checks.main(["snapshot", fake.url, str(before)]) == 0
        for name in (own, "roncho-but-not-a-scratch-name"):
            roncho.Client(fake.url, name).get_or_create_workspace()
        _seed(fake, "roncho-diff-0123456789ab")
        status = checks.main(
            ["leftovers", fake.url, str(before), "--wait", "0",
             "--remove-since", str(start.timestamp())]
        )  # fmt: skip
        remaining = {w.id for w in roncho.Client(fake.url, "x").list_workspaces().items}
    out = capsys.readouterr().out
    assert status == 1  # something was left: the stage fails even after removing it
    assert f"{own}: this run's own scratch workspace, removed" in out
    assert "roncho-diff-0123456789ab: this run's own scratch workspace, removed" in out
    assert remaining == {"agent-memory", "roncho-but-not-a-scratch-name"}


def test_a_scratch_name_made_before_the_run_is_not_its_own() -> None:
    start = datetime.now(UTC)
    made = (start - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    old = roncho.Workspace(id=scratch_id("roncho-live"), metadata={}, configuration={},
                           created_at=made)  # fmt: skip
    assert not checks.is_own_scratch(old, set(), start)
    fresh = roncho.Workspace(id=old.id, metadata={}, configuration={},
                             created_at=start.strftime("%Y-%m-%dT%H:%M:%SZ"))  # fmt: skip
    assert checks.is_own_scratch(fresh, set(), start)
    assert not checks.is_own_scratch(fresh, {old.id}, start)  # in the snapshot: not new
