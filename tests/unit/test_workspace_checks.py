"""scripts/workspace_checks.py: the acceptance run's read-only checks and its leftover removal,
against an in-process emulator (the whole command is held in tests/acceptance)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

import roncho
from roncho._scratch import scratch_id
from roncho.testing import FakeHoncho
from roncho_workbook import wait_until

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
    prefix = "roncho-wb-1a2b3c4d"
    own = [scratch_id(prefix), scratch_id(prefix + "-off")]
    others = [scratch_id("roncho-wb-99999999"), scratch_id("roncho-live"), "roncho-diff-01234567"]
    with FakeHoncho(purge_delay=0.0) as fake:
        _seed(fake, "agent-memory")
        before = tmp_path / "before"
        assert checks.main(["snapshot", fake.url, str(before)]) == 0
        for name in own[:1] + others:
            roncho.Client(fake.url, name).get_or_create_workspace()
        _seed(fake, own[1])  # with a session: removed all the same
        status = checks.main(
            ["leftovers", fake.url, str(before), "--wait", "0", "--remove-prefix", prefix + "-"]
        )
        # A delete is accepted first and purged a moment later (purge_delay=0 still runs the
        # purge on the emulator's deriver thread): wait for it, bounded.
        expected = {"agent-memory", *others}
        lister = roncho.Client(fake.url, "x")
        wait_until(
            lambda: {w.id for w in lister.list_workspaces().items} == expected,
            bound=10.0,
            interval=0.05,
        )
        remaining = {w.id for w in lister.list_workspaces().items}
    out = capsys.readouterr().out
    assert status == 1  # something was left: the stage fails even after removing it
    for name in own:
        assert f"{name}: this run's own scratch workspace, removed" in out
    for name in others:  # another run's, or another stage's: named, never deleted
        assert f"  {name}\n" in out
    assert remaining == expected


def test_only_a_new_scratch_id_under_the_runs_prefix_is_its_own() -> None:
    prefix = "roncho-wb-1a2b3c4d-"
    mine = scratch_id(prefix[:-1])
    assert checks.is_own_scratch(mine, set(), prefix)
    assert checks.is_own_scratch(scratch_id(prefix + "off"), set(), prefix)
    assert not checks.is_own_scratch(mine, {mine}, prefix)  # in the snapshot: not new
    assert not checks.is_own_scratch(prefix + "anything-else", set(), prefix)
    assert not checks.is_own_scratch(scratch_id("roncho-wb-1a2b3c4e"), set(), prefix)
    assert not checks.is_own_scratch(mine, set(), prefix[:-1])  # a prefix must end the word
