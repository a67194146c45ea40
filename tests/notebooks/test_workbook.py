"""Tests of the workbook logic (roncho_workbook, notebooks/_lab.py, scripts/investigate.py).

The notebooks themselves run under nbval (see scripts/test.sh); these pin the pieces whose
failure would not show there: labels, the write guard, bounded waits, gate inference,
cleanup after a failure, result files and the index, and that no key reaches a result.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rawserver import RefusingPort

import roncho
import roncho_workbook as workbook
from roncho_workbook import _deriver, _prose
from roncho_workbook._finding import sample_text

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


def test_every_notebook_question_is_asked_in_words() -> None:
    """The results pages and the summary show these beside each answer: never a bare id."""
    root = Path(__file__).resolve().parents[2]
    notebooks = sorted(p.stem for p in (root / "notebooks").glob("q*.ipynb"))
    assert "q9_webhooks" in notebooks and "q10_context" in notebooks
    for notebook in notebooks:
        asked = workbook.question(notebook)
        assert asked != notebook and asked.endswith("?"), notebook
    # Pages list the answers in the questions' order: q9 before q10 (by name it would not be).
    assert sorted(notebooks, key=workbook.notebook_key)[-2:] == ["q9_webhooks", "q10_context"]


def test_server_label_keeps_emulator_and_real_hosts_apart() -> None:
    assert workbook.server_label("") == "emulator"
    assert workbook.server_label("http://honcho.lan:8000") == "honcho.lan"
    assert workbook.server_label("https://Honcho.example/prefix") == "honcho.example"
    # A real host named "emulator" must never land in the emulator's folder.
    assert workbook.server_label("http://emulator:8000") == "host-emulator"
    assert "/" not in workbook.server_label("http://[::1]:8000")


def test_raw_client_refuses_writes_outside_its_workspace_unsent() -> None:
    refusing = RefusingPort()  # held until the test ends: no other process can take it
    raw = workbook.RawClient(refusing.url, "mine", timeout=CALL_TIMEOUT)
    for method, path in (
        ("POST", "/v3/workspaces/other/sessions"),
        ("DELETE", "/v3/workspaces/other"),
        ("PUT", "/v3/workspaces/mine-too/peers/p"),
        ("POST", "/v3/workspaces"),
    ):
        with pytest.raises(PermissionError):
            raw.request(method, path, {})
    # Inside its workspace it does send (and the closed port answers with a refusal).
    with refusing, pytest.raises(OSError):
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
    trace = workbook.Trace()
    with RefusingPort() as refusing:  # held: no other process can take the port meanwhile
        raw = workbook.RawClient(refusing.url, "ws", timeout=CALL_TIMEOUT)
        assert trace.raw("down", raw, "GET", "/health") is None
        client = roncho.Client(refusing.url, "ws", connect_timeout=CALL_TIMEOUT)
        result = trace.call("probe", client.probe)
    assert isinstance(result, roncho.ConnectError)
    assert trace.calls[0].status is None and trace.calls[0].outcome == "ConnectionRefusedError"
    assert trace.calls[1].outcome == "ConnectError"
    assert (trace.calls[1].method, trace.calls[1].path) == ("GET", "/health")


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


REAL = workbook.Target(base_url="http://honcho.lan:8000", api_key=None, label="h", emulator=False)
BATCHING = workbook.DeriverConfig(flush=False, age_gate=20.0, token_gate=512)
FLUSHING = workbook.DeriverConfig(flush=True, age_gate=20.0, token_gate=512)


def _watch(size: str, latency: float | None, *, tokens: int, bound: float = 60.0) -> Any:
    client = roncho.Client("http://honcho.lan:8000", "ws")
    return _deriver._Watch(
        trial=0,
        size=size,
        session="s",
        peer="p",
        chars=1,
        bound=bound,
        client=client,
        latency=latency,
        tokens=tokens,
    )


@pytest.mark.parametrize(
    ("config", "size", "tokens", "latency", "gate", "check"),
    [
        # Batching on: above the token gate at once, below it only at the age gate.
        (BATCHING, "above", 900, 2.5, "tokens", "consistent"),
        (BATCHING, "below", 30, 23.0, "age", "consistent"),
        # Released at once below the token gate while batching is said to be on: flush, and
        # that is loudly inconsistent with what the run was told.
        (BATCHING, "below", 30, 2.0, "flush", "INCONSISTENT"),
        # An above-gate message held until the age gate: the token gate did not act.
        (BATCHING, "above", 900, 25.0, "age", "INCONSISTENT"),
        (BATCHING, "below", 30, None, "not released", "INCONSISTENT"),
        # Batching off: everything at once; waiting for the age gate contradicts it.
        (FLUSHING, "below", 30, 2.0, "flush", "consistent"),
        (FLUSHING, "above", 900, 2.0, "tokens", "consistent"),
        (FLUSHING, "below", 30, 21.0, "age", "INCONSISTENT"),
        # Told flush on and Honcho's 30-minute age gate, a release after 22 s is late: no
        # configured gate explains it (the server was batching with a 20 s age gate).
        (
            workbook.DeriverConfig(flush=True, age_gate=1800.0),
            "below",
            30,
            22.0,
            _prose.LATE,
            "INCONSISTENT",
        ),
        (BATCHING, "below", 30, 14.0, _prose.LATE, "INCONSISTENT"),
    ],
)
def test_gate_is_read_from_timing_and_checked_against_the_configuration(
    config: Any, size: str, tokens: int, latency: float | None, gate: str, check: str
) -> None:
    watch = _watch(size, latency, tokens=tokens)
    seen, how = _deriver.observed_gate(REAL, watch, config)
    assert seen == gate and how.startswith("inferred")
    assert _deriver.check_gate(seen, watch, config) == check


def test_a_bound_shorter_than_the_age_gate_is_unsettled_not_inconsistent() -> None:
    watch = _watch("below", None, tokens=30, bound=10.0)
    assert _deriver.check_gate("not released", watch, BATCHING).startswith("unsettled")


def test_an_inconsistent_release_is_named_in_the_answer() -> None:
    rows = [
        {
            "size": "below",
            "gate": "flush",
            "timed_out": False,
            "first_conclusion_s": 2.0,
            "check": "INCONSISTENT",
            "queue max (observer_id=)": 0,
            "queue max (session_id=)": 1,
        }
    ]
    text = _prose.latency_answer(rows, BATCHING)
    assert "INCONSISTENT" in text and "below released by flush" in text
    assert "batching on (flush off, token gate 512, age gate 20s)" in text


def test_latency_stats_give_n_median_p90_min_max_per_size_and_gate() -> None:
    rows = [
        {
            "size": "above",
            "gate": "tokens",
            "timed_out": False,
            "first_conclusion_s": float(s),
            "check": "consistent",
        }
        for s in range(1, 11)
    ] + [
        {
            "size": "below",
            "gate": "not released",
            "timed_out": True,
            "first_conclusion_s": None,
            "check": "INCONSISTENT",
        }
    ]
    above, below = _deriver.latency_stats(rows)
    assert (above["size"], above["gate"], above["n"], above["released"]) == (
        "above",
        "tokens",
        10,
        10,
    )
    assert (above["median_s"], above["min_s"], above["max_s"]) == (5.5, 1.0, 10.0)
    assert above["p90_s"] == pytest.approx(9.1)
    assert below["n"] == 1 and below["released"] == 0 and below["median_s"] is None
    assert below["inconsistent"] == 1


def test_latency_shows_the_observer_filter_missing_message_work(target: Any) -> None:
    config = workbook.DeriverConfig(flush=False, age_gate=1800.0, token_gate=512)
    finding = workbook.measure_latency(
        target,
        "wb-lat",
        trials=1,
        poll=0.02,
        above_bound=CALL_TIMEOUT,
        below_bound=0.1,
        config=config,
    )
    above = finding.tables["latency"][0]
    assert above["gate"] == "tokens" and above["check"] == "consistent"
    assert above["queue max (session_id=)"] >= 1 and above["queue max (observer_id=)"] == 0
    assert "the observer_id filter misses message work" in finding.answer
    # The emulator's default age gate is 30 minutes: the below-gate trial is unsettled.
    below = finding.tables["latency"][1]
    assert below["gate"] == "not released" and below["check"].startswith("unsettled")


def test_latency_without_the_long_wait_sends_no_below_gate_message_and_says_so(
    target: Any,
) -> None:
    config = workbook.DeriverConfig(flush=False, age_gate=1800.0, token_gate=512)
    finding = workbook.measure_latency(
        target, "wb-lat0", trials=1, poll=0.02, above_bound=CALL_TIMEOUT, below_bound=0,
        config=config,
    )  # fmt: skip
    assert [r["size"] for r in finding.tables["latency"]] == ["above"]
    assert finding.tables["latency"][0]["check"] == "consistent"
    assert "Below the token gate: not measured" in finding.answer
    assert "the age gate (1800s), which this run did not wait for" in finding.answer
    assert "a setting, not a fault" in finding.answer
    assert _deriver.INCONSISTENT not in finding.answer


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
    question = workbook.question("q7_health")
    assert f"[{question}](2026-01-02/emulator/q7_health.md)" in first
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
    # The kernels talk over IPC sockets, so ipykernel has no plain-TCP warning to give.
    assert "without encryption" not in done.stdout + done.stderr
    assert (results / "ACROSS.md").read_text().count("q7_health") >= 2


def test_import_roncho_does_not_load_the_workbook_or_pandas() -> None:
    code = (
        "import sys, roncho; "
        "print(sorted(m for m in sys.modules if m.startswith(('roncho_workbook', 'pandas', "
        "'matplotlib'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"


def test_workbook_itself_imports_no_third_party_module() -> None:
    code = (
        "import sys, roncho_workbook; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pandas', 'matplotlib', 'numpy', 'IPython')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"


class _BigSpecServer:
    """A loopback server whose /openapi.json is larger than the old 64 KiB read cap."""

    def __init__(self) -> None:
        import http.server
        import threading

        spec = {"openapi": "3.1.0", "info": {"title": "Honcho API", "version": "3.0.12"}}
        spec["paths"] = {f"/v3/pad/{i}": {"get": {"summary": "x" * 200}} for i in range(600)}
        body = json.dumps(spec).encode()
        assert len(body) > 65536

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                data = body if self.path == "/openapi.json" else b'{"status":"ok"}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(CALL_TIMEOUT)


def test_q7_reads_the_version_of_a_large_openapi_document() -> None:
    # 3.0.12 serves about 100 KB of OpenAPI: the answer once said "not served" for it.
    server = _BigSpecServer()
    try:
        with workbook.open_target(server.url, connect_timeout=CALL_TIMEOUT) as real:
            finding = workbook.probe_health(real)
    finally:
        server.close()
    (row,) = finding.tables["answers"]
    assert row["openapi status"] == 200
    assert (row["info.title"], row["info.version"]) == ("Honcho API", "3.0.12")
    assert row["server_version()"] == "3.0.12"
    assert "info.version = 3.0.12" in finding.answer and "not served" not in finding.answer


def test_q1_records_the_status_of_every_key_minting_call_and_never_a_key() -> None:
    with workbook.open_target(
        "", connect_timeout=CALL_TIMEOUT, read_timeout=CALL_TIMEOUT, emulator_options={"auth": True}
    ) as t:
        finding = workbook.probe_auth(t, "wb-q1")
    mints = [c for c in finding.trace.calls if "mint" in c.step]
    assert mints and all(c.status is not None for c in mints)
    assert {c.status for c in mints if c.outcome == "ok"} == {200}
    for call in finding.trace.calls:
        assert "eyJ" not in call.body  # no JWT, minted or not, in the evidence
    assert all(r["status"] is not None for r in finding.tables["scopes"])


def test_q8_answer_accounts_for_every_topic() -> None:
    from roncho_workbook._differences import summarise

    rows = [
        {"topic": "a", "agrees with": "SRC 3.0.12, OBS 3.2.0", "this server": "201"},
        {"topic": "b", "agrees with": "OAS-3.3/docs", "this server": "200"},
        {"topic": "scopes routes", "agrees with": "none", "this server": "404 Not Found"},
    ]
    text = summarise(rows)
    assert text.startswith("1/3 topics match")
    assert "1 show newer (3.3) behaviour: b" in text
    assert "1 match no source: scopes routes (404 Not Found)" in text


def _investigate() -> Any:
    spec = importlib.util.spec_from_file_location(
        "investigate", ROOT / "scripts" / "investigate.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("localhost:8000", "has no scheme"),
        ("http://127.0.0.1:{port}", "ConnectError"),
    ],
)
def test_investigate_refuses_an_unusable_server_in_one_line_and_writes_nothing(
    tmp_path: Path, url: str, said: str
) -> None:
    results = tmp_path / "results"
    with RefusingPort() as refusing:  # held while the script runs: nobody else takes it
        done = subprocess.run(
            [
                sys.executable,
                str(ROOT / "scripts" / "investigate.py"),
                "--base-url",
                url.format(port=refusing.port),
                "--results",
                str(results),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert said in line and "for example --base-url http://127.0.0.1:8000" in line
    assert not results.exists()


def test_a_failed_notebook_is_named_with_its_reason_and_adds_no_index_row(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    from datetime import UTC, datetime

    import papermill

    investigate = _investigate()
    results = tmp_path / "results"
    out = results / "2026-01-02" / "emulator"
    out.mkdir(parents=True)
    argv = ["--only", "q7_health", "--results", str(results), "--date", "2026-01-02", "--replace"]
    # That earlier run was of the same server (its manifest says so): --replace replaces it.
    earlier = investigate.manifest(
        investigate.parse_args(argv), argv, {"base_url": "", "emulator": True}, datetime.now(UTC)
    )
    (out / workbook.MANIFEST).write_text(json.dumps(earlier))
    # An answer left by an earlier run of the day must not survive a failed re-run.
    (out / "q7_health.answer.json").write_text(
        json.dumps(
            {
                "date": "2026-01-02",
                "server": "emulator",
                "version": "x",
                "notebook": "q7_health",
                "question": "Q7",
                "answer": "stale",
            }
        )
    )

    def fail(source: str, output: str, **_kw: Any) -> None:
        # As a notebook that wrote its answer and then failed in a later cell.
        (ROOT / output).with_suffix(".answer.json").write_text("{}")
        raise papermill.PapermillExecutionError(
            cell_index=5,
            exec_count=7,
            source="x",
            ename="ConnectError",
            evalue="GET /health: cannot connect\nsecond line",
            traceback=[],
        )

    monkeypatch.setattr(papermill, "execute_notebook", fail)
    code = investigate.main(argv)
    printed = capsys.readouterr().out
    assert code == 1
    assert "1 of 1 notebooks failed:" in printed
    assert "  q7_health: cell 7: ConnectError: GET /health: cannot connect second line" in printed
    assert not (out / "q7_health.answer.json").exists()
    assert "q7_health" not in (results / "README.md").read_text().split("runs:start")[1]
    assert "Notebooks that failed: q7_health" in (out / "summary.md").read_text()


def test_runner_labels_a_run_with_the_deriver_settings_and_passes_them_on() -> None:
    investigate = _investigate()
    args = investigate.parse_args(
        ["--base-url", "http://127.0.0.1:8100", "--deriver-flush", "off", "--age-gate", "20"]
    )
    server = workbook.ServerIdentity(host="127.0.0.1", port=8100, auth=False, version="3.0.12")
    label, given = investigate.plan(args, server)
    assert label == "127.0.0.1-8100-auth-off-v3.0.12-flush-off-age20s"
    assert given["deriver_flush"] is False and given["age_gate_seconds"] == 20.0
    assert given["token_gate"] == 512 and given["below_wait_bound"] == 85.0
    h = workbook.ServerIdentity(host="h", port=8000, auth=True, version="unknown")
    label, given = investigate.plan(
        investigate.parse_args(
            ["--base-url", "http://h:8000", "--deriver-flush", "on", "--label", "3.0.12 source"]
        ),
        h,
    )
    assert label == "h-8000-auth-on-version-unknown-3.0.12-source-flush-on"
    assert given["deriver_flush"] is True and given["deriver_source"] == "told"
    assert "llm" not in given
    # The LLM, when told, reaches the notebooks that say it (q10_context); not the folder.
    label, given = investigate.plan(
        investigate.parse_args(["--base-url", "http://h:8000", "--llm", "a stub"]), h
    )
    assert given["llm"] == "a stub" and label == "h-8000-auth-on-version-unknown"
    # Told nothing, a real server is assumed to run Honcho's defaults (and the notebooks are
    # told that it is an assumption); the folder is the server's identity alone.
    label, given = investigate.plan(investigate.parse_args(["--base-url", "http://h:8000"]), h)
    assert label == "h-8000-auth-on-version-unknown" and given["deriver_flush"] is False
    assert given["age_gate_seconds"] == 1800.0 and given["deriver_source"] == "assumed"


def test_the_age_gate_is_waited_for_only_where_it_is_short_or_the_run_is_long() -> None:
    """Told Honcho's defaults, Q3's below-gate messages would wait 2,310 s: not sent unless
    --long. A short age gate (the kit's 30 s) stays within the run's bound: they are."""
    investigate = _investigate()
    h = workbook.ServerIdentity(host="h", port=8000, auth=False, version="3.0.12")
    told = investigate.parse_args(["--base-url", "http://h:8000"])
    _, given = investigate.plan(told, h)
    assert given["below_wait_bound"] == 0.0
    line = investigate.estimate_line(told, given)
    assert "Q3's below-gate messages are not waited for (the age gate is 1800s" in line
    assert "--long waits for them, about 39 min more" in line
    minutes = int(line.split("about ")[1].split(" min")[0])
    assert minutes <= 20, line  # the acceptance run's budget, from the told settings
    long = investigate.parse_args(["--base-url", "http://h:8000", "--long"])
    _, given = investigate.plan(long, h)
    assert given["below_wait_bound"] == 1800 * 1.25 + 60
    assert "2310s wait past the age gate" in investigate.estimate_line(long, given)
    short = investigate.parse_args(
        ["--base-url", "http://h:8000", "--deriver-flush", "off", "--age-gate", "30"]
    )
    _, given = investigate.plan(short, h)
    assert given["below_wait_bound"] == 30 * 1.25 + 60
    # No age gate: nothing will ever release them, so nothing is waited for.
    never = investigate.parse_args(
        ["--base-url", "http://h:8000", "--deriver-flush", "off", "--age-gate", "0"]
    )
    assert investigate.plan(never, h)[1]["below_wait_bound"] == 0.0
    flush = investigate.parse_args(["--base-url", "http://h:8000", "--deriver-flush", "on"])
    _, given = investigate.plan(flush, h)
    assert given["below_wait_bound"] == investigate.REAL_WAIT_BOUND
    assert "below-gate" not in investigate.estimate_line(flush, given)


def test_a_sync_not_about_the_gates_is_sized_to_pass_the_token_gate() -> None:
    batching = workbook.DeriverConfig(flush=False, age_gate=1800, token_gate=512)
    assert batching.chars_to_pass() == 4096
    # Q9's trial: 4 messages of 120 characters become 4 of 1,024 (4,096 from one sender).
    assert batching.sync_shape(4, 120) == (4, 1024)
    # Two senders in turn: each one's share passes the gate.
    assert batching.sync_shape(20, 120, senders=2) == (20, 410)
    # A large gate needs more messages than one may hold (Honcho refuses over 25,000).
    large = workbook.DeriverConfig(flush=False, age_gate=0, token_gate=8000)
    count, chars = large.sync_shape(1, 120)
    assert count == 4 and chars == 16_000 and count * chars >= 8000 * 8
    # Nothing holds a batch: the sync is as asked.
    assert workbook.DeriverConfig(flush=True, age_gate=1800).sync_shape(4, 120) == (4, 120)
    assert workbook.DeriverConfig(flush=False, age_gate=1800, token_gate=0).sync_shape(4, 1) == (
        4,
        1,
    )


def test_a_default_emulator_run_leaves_a_fresh_clone_clean(tmp_path: Path) -> None:
    # A copy of the tracked tree as committed; the run must add or change no tracked or
    # untracked-but-not-ignored file (an emulator run is a demonstration, kept out of the record).
    clone = tmp_path / "roncho"
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            check=True,
            cwd=ROOT,
            timeout=30,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            (clone / name).write_bytes(source.read_bytes())
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "clone"]):
        subprocess.run([*git, *step], check=True, cwd=clone, timeout=60)
    done = subprocess.run(
        [sys.executable, "scripts/investigate.py", "--only", "q7_health"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=clone,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert list((clone / "results" / "demo").glob("*/emulator/q7_health.md"))
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
        cwd=clone,
        timeout=30,
    )
    assert status.stdout == ""


def test_across_page_sets_each_answer_against_the_run_before(tmp_path: Path) -> None:
    from roncho_workbook._across import render_across, write_across

    def run(folder: str, answer: str, version: str) -> None:
        path = tmp_path / folder
        path.mkdir(parents=True)
        (path / "q6_workspace_delete.answer.json").write_text(
            json.dumps(
                {
                    "notebook": "q6_workspace_delete",
                    "question": "Q6 workspace delete",
                    "version": version,
                    "answer": answer,
                }
            )
        )

    run("2026-01-01/emulator", "409 'roncho-wb-1-aa'; gone within 0.3s.", "3.2.0-emulator")
    run("2026-01-02/honcho", "409 'roncho-wb-2-bb'; gone within 3.51s.", "3.0.12")
    run("2026-01-03/honcho", "409 'roncho-wb-3-cc'; gone within 3.4s.", "3.0.12")
    run("2026-01-04/honcho", "202 at once; gone within 3.4s.", "3.0.12")
    page = render_across(tmp_path)
    row = "| [q6_workspace_delete](#q6_workspace_delete) | first | moved | same | changed |"
    assert row in page
    assert (
        "[2026-01-04/honcho](2026-01-04/honcho/q6_workspace_delete.md) | 3.0.12 | changed: was: "
        "409 'roncho-wb-3-cc'; |"
    ) in page
    assert write_across(tmp_path).read_text() == page  # regenerated, never edited


def test_the_recorded_pages_match_the_recorded_runs(lab: Any, tmp_path: Path) -> None:
    # results/README.md's run table and results/ACROSS.md are generated: a run committed
    # without them (or an edit by hand) shows up here.
    from roncho_workbook._across import render_across

    results = ROOT / "results"
    assert (results / "ACROSS.md").read_text(encoding="utf-8") == render_across(results)
    copy = tmp_path / "README.md"
    copy.write_text((results / "README.md").read_text(encoding="utf-8"), encoding="utf-8")
    for run in results.glob("*/*/"):
        (tmp_path / run.relative_to(results)).mkdir(parents=True, exist_ok=True)
        for answer in run.glob("*.answer.json"):
            (tmp_path / answer.relative_to(results)).write_bytes(answer.read_bytes())
    lab.update_index(tmp_path)
    assert copy.read_text(encoding="utf-8") == (results / "README.md").read_text(encoding="utf-8")


def test_check_server_tries_the_key_before_any_notebook_runs(tmp_path: Path) -> None:
    with workbook.open_target(
        "", connect_timeout=CALL_TIMEOUT, read_timeout=CALL_TIMEOUT, emulator_options={"auth": True}
    ) as t:
        assert workbook.check_server(t.base_url, api_key=t.api_key) == ""
        missing = workbook.check_server(t.base_url)
        wrong = workbook.check_server(t.base_url, api_key="not-a-key")
    assert "authentication on and no API key was given (401" in missing
    assert "the API key given was refused (401" in wrong and "not-a-key" not in wrong
    key_file = tmp_path / "key.txt"
    key_file.write_text("sk-from-a-file\n")
    investigate = _investigate()
    args = investigate.parse_args(["--base-url", "http://h:8000", "--api-key-file", str(key_file)])
    assert args.api_key == "sk-from-a-file"


def test_an_inconsistent_answer_is_kept_but_fails_the_run(tmp_path: Path) -> None:
    investigate = _investigate()
    (tmp_path / "q3_deriver_latency.answer.json").write_text(
        json.dumps({"notebook": "q3_deriver_latency", "answer": "x; INCONSISTENT with ..."})
    )
    (tmp_path / "q7_health.answer.json").write_text(
        json.dumps({"notebook": "q7_health", "answer": "/health -> 200"})
    )
    ran = ["q3_deriver_latency", "q7_health", "q1_auth"]
    assert list(investigate.inconsistent_answers(tmp_path, ran)) == ["q3_deriver_latency"]
    assert list(investigate.inconsistent_answers(tmp_path, ["q7_health"])) == []


def test_investigate_sh_help_answers_before_anything_is_installed(tmp_path: Path) -> None:
    # A bare copy of the two scripts: no .venv, no pyproject.toml. Were --help to install
    # first, it would make .venv here and fail.
    (tmp_path / "scripts").mkdir()
    for name in ("investigate.sh", "investigate.py"):
        (tmp_path / "scripts" / name).write_bytes((ROOT / "scripts" / name).read_bytes())
    done = subprocess.run(
        ["bash", "scripts/investigate.sh", "--only", "q7_health", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: investigate.py") and "--deriver-flush" in done.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scripts"]


class _SpecServer:
    """A loopback server answering /health and an /openapi.json with ``version``."""

    def __init__(self, version: str) -> None:
        import http.server
        import threading

        spec = json.dumps({"openapi": "3.1.0", "info": {"title": "Honcho API", "version": version}})

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                data = (spec if self.path == "/openapi.json" else '{"status":"ok"}').encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(CALL_TIMEOUT)


def test_q7_says_a_version_of_unknown_is_unknown_and_why() -> None:
    # Honcho's Docker images before 3.1.1 report info.version "unknown".
    server = _SpecServer("unknown")
    try:
        with workbook.open_target(server.url, connect_timeout=CALL_TIMEOUT) as real:
            finding = workbook.probe_health(real)
        identity = workbook.identify(server.url, timeout=CALL_TIMEOUT)
    finally:
        server.close()
    (row,) = finding.tables["answers"]
    assert row["server_version()"] is None
    assert 'info.version = "unknown", so the version is unknown' in finding.answer
    assert "Docker images before 3.1.1" in finding.answer
    assert "server_version() = no version" in finding.answer
    assert identity.version is None and "version-not-revealed" in identity.folder()


def test_the_results_readme_names_only_kept_runs_and_across_shows_them() -> None:
    # The page once promised an emulator run that was not there: every run it names must
    # be in the record, with answers, and have its column in ACROSS.md.
    results = ROOT / "results"
    intro = (results / "README.md").read_text(encoding="utf-8").split("## Runs", 1)[0]
    named = re.findall(r"`(\d{4}-\d{2}-\d{2}/[A-Za-z0-9._-]+)`", intro)
    assert any(run.endswith("/emulator") for run in named)
    head = (results / "ACROSS.md").read_text(encoding="utf-8").split("\n| question |", 1)[1]
    for run in named:
        assert list((results / run).glob("*.answer.json")), run
        assert f" {run} (" in head.split("\n", 1)[0], run


def test_the_enqueue_lag_is_said_against_the_waits_default_grace() -> None:
    import inspect

    grace = inspect.signature(roncho.Client.wait_for_derivation).parameters["grace"].default
    assert _prose.DEFAULT_GRACE == grace == 2.0
    rows = [{"first_in_queue_s": s} for s in (0.25, 0.5, 0.25)] + [{"first_in_queue_s": None}]
    text = _prose.enqueue_lag_clause(rows, 0.25)
    assert "median 0.25s, at most 0.50s after add_messages returned (3 trials" in text
    assert "read every 0.25s" in text and "within wait_for_derivation's default grace of 2s" in text
    slow = _prose.enqueue_lag_clause([{"first_in_queue_s": 3.25}], 0.25)
    assert "longer than wait_for_derivation's default grace of 2s" in slow
    assert "pass a grace of at least 3.3s" in slow
    assert "no trial sent alone" in _prose.enqueue_lag_clause([{"first_in_queue_s": None}], 0.25)
