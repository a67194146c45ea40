"""Tests of the workbook logic (roncho.workbook, notebooks/_lab.py, scripts/investigate.py).

The notebooks themselves run under nbval (see scripts/test.sh); these pin the pieces whose
failure would not show there: labels, the write guard, bounded waits, gate inference,
cleanup after a failure, result files and the index, and that no key reaches a result.
"""

from __future__ import annotations

import importlib
import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import roncho
from roncho import workbook
from roncho.workbook import _deriver
from roncho.workbook._finding import sample_text

ROOT = Path(__file__).resolve().parents[2]
# Seconds: generous bounds for the loopback calls below.
CALL_TIMEOUT = 5.0
# Seconds: bound on waiting for the emulator's background purge (its default delay is 0.2 s).
PURGE_BOUND = 5.0


@pytest.fixture(scope="module")
def lab() -> Any:
    sys.path.insert(0, str(ROOT / "notebooks"))
    try:
        yield importlib.import_module("_lab")
    finally:
        sys.path.remove(str(ROOT / "notebooks"))


@pytest.fixture
def target() -> Any:
    with workbook.open_target("", connect_timeout=CALL_TIMEOUT, read_timeout=CALL_TIMEOUT) as t:
        yield t


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_server_label_keeps_emulator_and_real_hosts_apart() -> None:
    assert workbook.server_label("") == "emulator"
    assert workbook.server_label("http://honcho.lan:8000") == "honcho.lan"
    assert workbook.server_label("https://Honcho.example/prefix") == "honcho.example"
    # A real host named "emulator" must never land in the emulator's folder.
    assert workbook.server_label("http://emulator:8000") == "host-emulator"
    assert "/" not in workbook.server_label("http://[::1]:8000")


def test_raw_client_refuses_writes_outside_its_workspace_unsent() -> None:
    raw = workbook.RawClient(f"http://127.0.0.1:{_closed_port()}", "mine", timeout=CALL_TIMEOUT)
    for method, path in (
        ("POST", "/v3/workspaces/other/sessions"),
        ("DELETE", "/v3/workspaces/other"),
        ("PUT", "/v3/workspaces/mine-too/peers/p"),
        ("POST", "/v3/workspaces"),
    ):
        with pytest.raises(PermissionError):
            raw.request(method, path, {})
    # Inside its workspace it does send (and the closed port answers with a refusal).
    with pytest.raises(OSError):
        raw.request("DELETE", raw.ws_path("sessions", "s"))


def test_raw_client_reads_and_records_exact_status(target: Any) -> None:
    raw = target.raw("anything")
    trace = workbook.Trace()
    reply = trace.raw("health", raw, "GET", "/health")
    assert reply is not None and reply.status == 200 and reply.json == {"status": "ok"}
    missing = trace.raw("no route", raw, "GET", "/v3/nothing-here")
    assert missing is not None and missing.status == 404
    assert [c.status for c in trace.calls] == [200, 404]
    assert [c.outcome for c in trace.calls] == ["ok", "refused"]


def test_trace_records_connection_failures_and_client_errors() -> None:
    port = _closed_port()
    trace = workbook.Trace()
    raw = workbook.RawClient(f"http://127.0.0.1:{port}", "ws", timeout=CALL_TIMEOUT)
    assert trace.raw("down", raw, "GET", "/health") is None
    client = roncho.Client(f"http://127.0.0.1:{port}", "ws", connect_timeout=CALL_TIMEOUT)
    result = trace.call("probe", "GET", "/health", client.probe)
    assert isinstance(result, roncho.ConnectError)
    assert trace.calls[0].status is None and trace.calls[0].outcome == "ConnectionRefusedError"
    assert trace.calls[1].outcome == "ConnectError"


def test_wait_until_is_bounded_and_reports_elapsed() -> None:
    assert workbook.wait_until(lambda: False, bound=0.05, interval=0.01) is None
    calls = iter([False, False, True])
    took = workbook.wait_until(lambda: next(calls), bound=CALL_TIMEOUT, interval=0.001)
    assert took is not None and took < CALL_TIMEOUT


def test_sample_text_has_the_size_asked_and_starts_with_its_tag() -> None:
    for chars in (120, 4000):
        text = sample_text(chars, "trial-x")
        assert len(text) == chars and text.startswith("trial-x ")
    assert sample_text(120, "a") != sample_text(120, "b")


@pytest.mark.parametrize(
    ("size", "latency", "gate"),
    [
        ("above", 3.0, "tokens"),
        ("above", 1500.0, "age or slow deriver"),
        ("below", 1805.0, "age"),
        ("below", 2.0, "flush (DERIVER_FLUSH_ENABLED)"),
        ("below", None, "not released within the bound"),
    ],
)
def test_gate_is_inferred_on_a_real_server(size: str, latency: float | None, gate: str) -> None:
    real = workbook.Target(
        base_url="http://honcho.lan:8000", api_key=None, label="h", emulator=False
    )
    client = roncho.Client("http://honcho.lan:8000", "ws")
    watch = _deriver._Watch(
        trial=0, size=size, session="s", chars=1, bound=2400.0, client=client, latency=latency
    )
    assert _deriver._gate(real, watch, 1800.0) == (gate, "inferred")


def test_probe_cleans_up_its_scratch_workspace_even_when_it_fails(target: Any) -> None:
    admin = target.reader()
    with pytest.raises(RuntimeError), target.scratch("wb-fail") as client:
        client.get_or_create_session("left-active")
        made = client.workspace
        raise RuntimeError("a cell failed")
    # Accepted (202) at once; the purge runs in the background, as on the real server.
    gone = workbook.wait_until(
        lambda: made not in {w.id for w in admin.list_workspaces(size=100).items},
        bound=PURGE_BOUND,
        interval=0.02,
    )
    assert gone is not None


def test_probes_leave_no_workspace_behind(target: Any) -> None:
    finding = workbook.probe_filters(target, "wb-leftover")
    assert finding.answer.startswith(f"{len(finding.tables['filters'])}/")
    reader = target.reader()
    gone = workbook.wait_until(
        lambda: reader.list_workspaces(size=100).items == (), bound=PURGE_BOUND, interval=0.02
    )
    assert gone is not None


def test_switches_agree_with_the_source_on_the_emulator(target: Any) -> None:
    finding = workbook.measure_switches(target, "wb-sw", poll=0.02, bound=CALL_TIMEOUT, settle=0.2)
    rows = {r["case"]: r for r in finding.tables["switches"]}
    assert rows["control (nothing switched off)"]["verdict"] == "derived"
    stopped = [r for r in rows.values() if r["expected"] == "stopped"]
    assert len(stopped) == len(workbook.SWITCHES) - 1
    assert all(r["work units seen"] == 0 and r["conclusions"] == 0 for r in stopped)


def test_lab_writes_nothing_without_a_results_dir(
    lab: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    run = lab.Lab(
        "q7_health",
        base_url="",
        api_key="",
        connect_timeout=CALL_TIMEOUT,
        read_timeout=CALL_TIMEOUT,
        results_dir="",
    )
    try:
        run.header()
        finding = workbook.probe_health(run.target)
        run.record("answers", finding.tables["answers"])
        text = run.answer(finding).data
    finally:
        run.close()
    assert "not a real server" in text and "3.2.0-emulator" in text
    assert list(tmp_path.iterdir()) == []


def test_lab_records_csv_answer_and_index_row(lab: Any, tmp_path: Path) -> None:
    out = tmp_path / "results" / "2026-01-02" / "emulator"
    readme = tmp_path / "results" / "README.md"
    readme.parent.mkdir(parents=True)
    readme.write_text(f"# Kept intro\n\n{lab.INDEX_START}\nold\n{lab.INDEX_END}\n\nKept outro\n")
    run = lab.Lab(
        "q7_health",
        base_url="",
        api_key="",
        connect_timeout=CALL_TIMEOUT,
        read_timeout=CALL_TIMEOUT,
        results_dir=str(out),
    )
    try:
        run.header()
        finding = workbook.probe_health(run.target)
        run.record("answers", finding.tables["answers"])
        run.answer(finding)
    finally:
        run.close()
    assert (out / "q7_health__answers.csv").read_text().splitlines()[0].startswith("health status")
    row = json.loads((out / "q7_health.answer.json").read_text())
    assert row["server"] == "emulator" and row["version"] == "3.2.0-emulator"
    first = readme.read_text()
    assert "Kept intro" in first and "Kept outro" in first and "\nold\n" not in first
    assert "[q7_health](2026-01-02/emulator/q7_health.ipynb)" in first
    lab.update_index(readme.parent)
    assert readme.read_text() == first  # rebuilt from the files: idempotent


def test_investigate_writes_a_dated_folder_and_never_the_key(tmp_path: Path) -> None:
    secret = "sk-never-in-results-0123456789"
    results = tmp_path / "results"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "investigate.py"),
            "--only",
            "q7_health",
            "--results",
            str(results),
            "--date",
            "2026-01-02",
            "--api-key",
            secret,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    run = results / "2026-01-02" / "emulator"
    names = {p.name for p in run.iterdir()}
    assert {"q7_health.ipynb", "q7_health.md", "summary.md", "q7_health__answers.csv"} <= names
    assert "q7_health" in (results / "README.md").read_text()
    for path in run.iterdir():
        assert secret not in path.read_text(encoding="utf-8", errors="replace")
    assert secret not in done.stdout + done.stderr


def test_import_roncho_does_not_load_the_workbook_or_pandas() -> None:
    code = (
        "import sys, roncho; "
        "print(sorted(m for m in sys.modules if m.startswith(('roncho.workbook', 'pandas', "
        "'matplotlib'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"


def test_workbook_itself_imports_no_third_party_module() -> None:
    code = (
        "import sys, roncho.workbook; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pandas', 'matplotlib', 'numpy', 'IPython')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"
