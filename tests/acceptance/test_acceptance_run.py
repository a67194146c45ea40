"""The acceptance command, run whole against a server holding someone else's memory.

`fake-honcho` (server mode, request log on through `--control`) stands in for the owner's
server. Before the run it is given two workspaces that are not the run's: `agent-memory`
(handed to `--read-workspace`) and `bystander`. Then `scripts/test-real.sh` runs with only
the URL (and the admin key, for auth on), exactly as the owner runs it. Afterwards the
request log must show:

- no write to any workspace the run did not create itself (each write's workspace was absent
  before the run and created by one of the run's own requests);
- the read-only checks reached `agent-memory`, with reads only;
- every workspace the run created is gone, and the two others hold what they held.

A second test stops the run with SIGINT to its process group (what Ctrl-C in a terminal
does) while a notebook holds a scratch workspace, and checks the same things.

Runs only with `--acceptance-run` (its own .ci/run stage: it takes about a minute a variant).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from request_log import Touch, created_by_run, touches, violations

import roncho

ROOT = Path(__file__).resolve().parents[2]
READ_WORKSPACE = "agent-memory"
BYSTANDER = "bystander"
# The whole command: live suite, notebooks, differential, SDK conformance, read checks.
RUN_TIMEOUT = 900
START_TIMEOUT = 30.0
PURGE_WAIT = 15.0


@dataclass
class Server:
    url: str
    key: str | None
    proc: subprocess.Popen[bytes]

    def client(self, workspace: str) -> roncho.Client:
        return roncho.Client(self.url, workspace, api_key=self.key, read_timeout=10.0)

    def control(self, method: str, path: str) -> Any:
        request = urllib.request.Request(self.url + "/_fake" + path, method=method)
        if self.key:
            request.add_header("Authorization", f"Bearer {self.key}")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(request, timeout=10) as reply:
            return json.load(reply)


@pytest.fixture(params=["auth-off", "auth-on"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    yield from _serve(request, tmp_path, auth=request.param == "auth-on")


@pytest.fixture
def plain_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    yield from _serve(request, tmp_path, auth=False)


def _serve(request: pytest.FixtureRequest, tmp_path: Path, *, auth: bool) -> Iterator[Server]:
    if not request.config.getoption("--acceptance-run", default=False):
        pytest.skip("the whole acceptance command runs in its own .ci/run stage (--acceptance-run)")
    key_file = tmp_path / "admin-key"
    # 3.0.12: the version every stage's expectations were recorded against (the SDK stage's
    # facts are 3.0.12's), so the run is green and the log is the only thing under test.
    flags = ["--port", "0", "--control", "--flush", "--honcho-version", "3.0.12"]
    if auth:
        flags += ["--auth", "--key-file", str(key_file)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "roncho.testing", *flags],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert proc.stdout is not None
        ready = json.loads(proc.stdout.readline() or b"{}")
        assert "url" in ready, "fake-honcho printed no ready line"
        key = key_file.read_text(encoding="ascii").strip() if auth else None
        yield Server(ready["url"], key, proc)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _seed(server: Server) -> None:
    """Someone else's memory: peers, a session with messages, a conclusion."""
    for workspace in (READ_WORKSPACE, BYSTANDER):
        client = server.client(workspace)
        client.get_or_create_workspace(metadata={"owner": "another agent"})
        client.get_or_create_peer("alice")
        client.get_or_create_peer("assistant")
        client.get_or_create_session("s1", peers={"alice": {}, "assistant": {}})
        before = client.queue_status(session_id="s1")
        client.add_messages(
            "s1",
            [
                roncho.MessageCreate("alice", "I water the tomatoes every morning."),
                roncho.MessageCreate("assistant", "Noted: the tomatoes, every morning."),
            ],
        )
        client.create_conclusions(
            [roncho.ConclusionCreate("alice waters tomatoes", "assistant", "alice")]
        )
        # The deriver's conclusions, before the snapshot (the server flushes).
        outcome = client.wait_for_derivation("s1", since=before, grace=0.5, deadline=PURGE_WAIT)
        assert outcome.done, str(outcome)


def _contents(server: Server, workspace: str) -> dict[str, Any]:
    client = server.client(workspace)
    return {
        "workspace": [(w.id, w.metadata) for w in client.list_workspaces(
            filters={"id": workspace}).items],
        "peers": sorted((p.id, json.dumps(p.metadata), json.dumps(p.configuration))
                        for p in client.list_peers().items),
        "sessions": sorted((s.id, s.is_active) for s in client.list_sessions().items),
        "messages": [(m.id, m.peer_id, m.content, json.dumps(m.metadata))
                     for m in client.iter_messages("s1")],
        "conclusions": sorted((c.id, c.content) for c in client.list_conclusions().items),
    }  # fmt: skip


def _workspace_ids(server: Server) -> set[str]:
    client = server.client("lister")
    return {w.id for w in client.list_workspaces(size=100).items}


COMMAND = ["bash", "scripts/test-real.sh", "--read-workspace", READ_WORKSPACE,
           "--deriver-flush", "on"]  # fmt: skip


def _env(server: Server, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RONCHO_", "HONCHO_"))}
    env["RONCHO_LIVE_URL"] = server.url
    if server.key:
        env["RONCHO_LIVE_KEY"] = server.key
    env["TMPDIR"] = str(tmp_path)
    return env


def _run_acceptance(server: Server, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        COMMAND, cwd=ROOT, env=_env(server, tmp_path), capture_output=True, text=True,
        timeout=RUN_TIMEOUT,
    )  # fmt: skip


def _show(items: list[Touch]) -> str:
    return "\n".join(str(t) for t in items[:40])


def _left_as_it_was(server: Server, seen: list[Touch], existing: set[str], before: Any) -> None:
    """No write outside the run's own workspaces; none of them left; the others unchanged."""
    bad = violations(seen, existing)
    assert not bad, "writes to workspaces the run did not create:\n" + _show(bad)
    assert not [t for t in seen if t.workspace in existing and t.write]
    deadline = time.monotonic() + PURGE_WAIT
    while (left := _workspace_ids(server) - existing) and time.monotonic() < deadline:
        time.sleep(0.25)
    assert not left, f"workspaces the run created and left behind: {sorted(left)}"
    assert {w: _contents(server, w) for w in existing} == before


@pytest.mark.timeout(RUN_TIMEOUT + 120)
def test_acceptance_run_writes_only_to_workspaces_it_created(
    server: Server, tmp_path: Path
) -> None:
    _seed(server)
    existing = _workspace_ids(server)
    assert existing == {READ_WORKSPACE, BYSTANDER}
    before = {w: _contents(server, w) for w in existing}
    server.control("DELETE", "/requests")

    run = _run_acceptance(server, tmp_path)
    log = server.control("GET", "/requests")
    seen = touches(log)

    # The run did what it says (its own verdict lines), and left its summary.
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-6000:]
    assert "test-real: read-only checks on workspace agent-memory: PASS" in output
    assert "test-real: no roncho- workspace left behind: PASS" in output
    assert "what this run recorded, and where" in output

    bad = violations(seen, existing)
    assert not bad, "writes to workspaces the run did not create:\n" + _show(bad)

    on_read = [t for t in seen if t.workspace == READ_WORKSPACE]
    assert len(on_read) >= 8, "the read-only checks did not reach agent-memory"
    assert not [t for t in on_read if t.write]
    assert any(t.path.endswith("/chat") for t in on_read), "no dialectic question was asked"
    assert any(t.path.endswith("/queue/status") for t in on_read)
    assert any(t.path.endswith("/search") for t in on_read)
    assert not [t for t in seen if t.workspace == BYSTANDER and t.write]

    created = created_by_run(seen, existing)
    assert len(created) >= 4, f"expected the live suite, notebooks, diff and SDK: {created}"
    _left_as_it_was(server, seen, existing, before)


NOTEBOOK_SCRATCH = "roncho-wb-"
INTERRUPT_WAIT = 300.0


def _notebook_holds_a_scratch_workspace(server: Server) -> bool:
    made = deleted = 0
    for t in touches(server.control("GET", "/requests")):
        if t.workspace and t.workspace.startswith(NOTEBOOK_SCRATCH):
            made += t.creates
            deleted += t.method == "DELETE" and t.path == f"/v3/workspaces/{t.workspace}"
    return made > deleted


@pytest.mark.timeout(RUN_TIMEOUT + 120)
def test_ctrl_c_mid_run_leaves_nothing_and_touches_nothing_else(
    plain_server: Server, tmp_path: Path
) -> None:
    server = plain_server
    _seed(server)
    existing = _workspace_ids(server)
    before = {w: _contents(server, w) for w in existing}
    server.control("DELETE", "/requests")
    output = tmp_path / "output.txt"
    with output.open("w") as sink:
        run = subprocess.Popen(
            COMMAND, cwd=ROOT, env=_env(server, tmp_path), stdout=sink, stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, as a terminal's foreground job
        )  # fmt: skip
        try:
            deadline = time.monotonic() + INTERRUPT_WAIT
            while not _notebook_holds_a_scratch_workspace(server):
                assert run.poll() is None, "the run ended before any notebook made a workspace"
                assert time.monotonic() < deadline, "no notebook made a workspace in time"
                time.sleep(0.2)
            os.killpg(run.pid, signal.SIGINT)  # Ctrl-C: every process of the job gets it
            status = run.wait(timeout=120)
        finally:
            if run.poll() is None:
                os.killpg(run.pid, signal.SIGKILL)
                run.wait(timeout=10)
    text = output.read_text(encoding="utf-8", errors="replace")
    assert status == 130, text[-4000:]
    assert "stopped early: removing what this run made and left" in text, text[-4000:]
    _left_as_it_was(server, touches(server.control("GET", "/requests")), existing, before)
