"""The workbook runner against two servers, as a newcomer runs it: the emulator in server mode
(`python -m roncho.testing`) on two ports, one with authentication on and one with it off.

One module-scoped sequence of runs into one results root, as a user would make them on one
day; each test reads what a run left. What it holds: a run never replaces another server's
answers and keeps a manifest; a second run of the same server goes beside the first unless
told to replace it, and says which in one line; the deriver settings are said to be assumed
when they were not told, and an INCONSISTENT answer names the settings that fit; scratch ids
are masked in ACROSS.md whatever their prefix; answer pages name their questions and explain
their labels in words, never Python reprs; the record reads back as data.

Every wait is bounded: the servers' ready lines, each run (subprocess timeout), the stops.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import roncho
import roncho_workbook as workbook
from roncho_workbook import MANIFEST, QUESTIONS, SOURCE_LABELS

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 20.0  # seconds for an emulator to print its ready line
STOP_TIMEOUT = 10.0
RUN_TIMEOUT = 300  # seconds for one runner invocation (a few notebooks on a loaded machine)
DATE = "2026-01-02"
# Short bounds: the emulators' derivers answer in milliseconds.
# Seconds for a test, the module's runs included (the first test waits for them): four
# runner invocations, each starting a kernel per notebook, on a loaded 2-core machine.
pytestmark = pytest.mark.timeout(900)
QUICK = ["--trials", "1", "--wait-bound", "5", "--below-wait-bound", "5", "--poll-interval", "0.05"]


class Emulator:
    """`python -m roncho.testing` on a free loopback port, stopped by `stop()`."""

    def __init__(self, *flags: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "roncho.testing", "--port", "0", *flags],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            self.ready: dict[str, Any] = json.loads(self._line())
        except BaseException:
            self.stop()
            raise
        self.url = str(self.ready["url"])
        self.port = int(self.ready["port"])

    def _line(self) -> bytes:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + START_TIMEOUT
        data = b""
        with selectors.DefaultSelector() as selector:
            selector.register(self.proc.stdout, selectors.EVENT_READ)
            while not data.endswith(b"\n"):
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise AssertionError(f"no ready line within {START_TIMEOUT}s")
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                if not chunk:
                    raise AssertionError("the emulator exited before its ready line")
                data += chunk
        return data

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(STOP_TIMEOUT)


@dataclass(frozen=True)
class Run:
    """What one runner invocation printed and left."""

    code: int
    out: str
    across: str  # results/ACROSS.md right after this run
    folders: frozenset[str]  # <date>/<server> folders after this run
    pages: dict[str, str]  # "<date>/<server>/<file>" -> text, of every .md and .json then

    def answer(self, folder: str, notebook: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.pages[f"{DATE}/{folder}/{notebook}.answer.json"])
        return data

    def page(self, folder: str, name: str) -> str:
        return self.pages[f"{DATE}/{folder}/{name}"]

    def in_folder(self, folder: str, suffix: str) -> dict[str, str]:
        prefix = f"{DATE}/{folder}/"
        return {
            k[len(prefix) :]: v
            for k, v in self.pages.items()
            if k.startswith(prefix) and k.endswith(suffix)
        }

    def folder_line(self) -> str:
        (line,) = [x for x in self.out.splitlines() if x.startswith("run folder:")]
        return line


@dataclass(frozen=True)
class Record:
    root: Path
    auth_on: Emulator
    auth_off: Emulator
    key: str
    runs: dict[str, Run]


def _run(results: Path, *args: str) -> Run:
    script = str(ROOT / "scripts" / "investigate.py")
    done = subprocess.run(
        [sys.executable, script, "--results", str(results), "--date", DATE, *args],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        cwd=ROOT,
    )
    across = results / "ACROSS.md"
    return Run(
        code=done.returncode,
        out=done.stdout + done.stderr,
        across=across.read_text(encoding="utf-8") if across.exists() else "",
        folders=frozenset(p.relative_to(results).as_posix() for p in results.glob("*/*/")),
        pages={
            p.relative_to(results).as_posix(): p.read_text(encoding="utf-8")
            for suffix in ("md", "json")
            for p in results.glob(f"*/*/*.{suffix}")
        },
    )


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Record]:
    base = tmp_path_factory.mktemp("two-servers")
    key_file = base / "admin.key"
    auth_on = Emulator("--auth", "--key-file", str(key_file), "--flush")
    auth_off = Emulator("--flush")
    try:
        key = key_file.read_text(encoding="utf-8").strip()
        results = base / "results"
        runs = {}
        # Auth on, deriver not told (so Honcho's defaults are assumed: batching on), while
        # the server flushes: Q3 must say INCONSISTENT and name --deriver-flush on.
        runs["on"] = _run(
            results,
            "--base-url",
            auth_on.url,
            "--api-key-file",
            str(key_file),
            "--only",
            "q1_auth",
            "q3_deriver_latency",
            "q6_workspace_delete",
            "q7_health",
            "q8_differences",
            *QUICK,
        )
        # Auth off, told the truth, another scratch prefix: the two runs of one day.
        told = ["--base-url", auth_off.url, "--deriver-flush", "on", "--prefix", "newbie-wb"]
        runs["off"] = _run(
            results, *told, "--only", "q1_auth", "q6_workspace_delete", "q7_health", *QUICK
        )
        runs["off again"] = _run(results, *told, "--only", "q7_health")
        runs["off replaced"] = _run(results, *told, "--only", "q7_health", "--replace")
        yield Record(results, auth_on, auth_off, key, runs)
    finally:
        auth_on.stop()
        auth_off.stop()


def _name(emulator: Emulator, *rest: str) -> str:
    """The folder name a run of ``emulator`` gets (the server's identity, then the rest)."""
    auth = "auth-on" if emulator.ready["auth"] else "auth-off"
    return "-".join([f"127.0.0.1-{emulator.port}", auth, "v3.2.0-emulator", *rest])


# -- the record never loses a run ------------------------------------------------------------


def test_each_server_gets_a_folder_named_by_its_identity(record: Record) -> None:
    on, off = _name(record.auth_on), _name(record.auth_off, "flush-on")
    assert on == f"127.0.0.1-{record.auth_on.port}-auth-on-v3.2.0-emulator"
    assert off == f"127.0.0.1-{record.auth_off.port}-auth-off-v3.2.0-emulator-flush-on"
    after = record.runs["off"]
    assert after.folders == {f"{DATE}/{on}", f"{DATE}/{off}"}
    # Both answers of Q1 survive: the auth-off run did not replace the auth-on one.
    assert after.answer(on, "q1_auth")["answer"].startswith("Authentication is ON")
    assert after.answer(off, "q1_auth")["answer"].startswith("Authentication is OFF")


def test_every_run_folder_carries_a_manifest_without_the_key(record: Record) -> None:
    last = record.runs["off replaced"]
    manifest = json.loads(last.page(_name(record.auth_on), MANIFEST))
    assert manifest["server"] == {
        "base_url": record.auth_on.url,
        "host": "127.0.0.1",
        "port": record.auth_on.port,
        "auth": True,
        "version": "3.2.0-emulator",
        "emulator": False,
    }
    assert manifest["deriver"]["source"] == "assumed"
    assert manifest["roncho"]["version"] == roncho.__version__
    assert re.fullmatch(r"[0-9a-f]{40}", manifest["roncho"]["commit"])
    assert manifest["python"].count(".") == 2
    assert manifest["papermill"] and manifest["pandas"]
    assert "--api-key-file" in manifest["arguments"] and "q8_differences" in manifest["arguments"]
    assert manifest["started_at"] <= manifest["ended_at"]
    for folder in last.folders:
        assert f"{folder}/{MANIFEST}" in last.pages
    for path in record.root.rglob("*"):
        if path.is_file():
            assert record.key not in path.read_text(encoding="utf-8", errors="replace"), path
    assert all(record.key not in run.out for run in record.runs.values())


def test_a_second_run_of_the_same_server_goes_beside_it_or_replaces_it_on_purpose(
    record: Record,
) -> None:
    first = _name(record.auth_off, "flush-on")
    again, replaced = record.runs["off again"], record.runs["off replaced"]
    assert again.code == 0, again.out
    assert again.folder_line().endswith(
        f"{first}-2 (beside {first}: today's earlier run of this server is kept "
        "there; --replace replaces it)"
    )
    # The earlier run is still there, untouched.
    assert again.in_folder(first, ".answer.json") == record.runs["off"].in_folder(
        first, ".answer.json"
    )
    assert replaced.code == 0, replaced.out
    assert replaced.folder_line().endswith(
        f"{first} (replaces today's earlier run of this server: --replace)"
    )
    assert f"{DATE}/{first}-3" not in replaced.folders
    # The replaced folder holds this run only; the auth-on server's run was never touched.
    assert set(replaced.in_folder(first, ".answer.json")) == {"q7_health.answer.json"}
    on = _name(record.auth_on)
    assert replaced.in_folder(on, ".json") == record.runs["on"].in_folder(on, ".json")


# -- the deriver settings are said for what they are ------------------------------------------


def test_assumed_deriver_settings_are_said_before_the_run_and_inconsistency_names_a_fit(
    record: Record,
) -> None:
    on = record.runs["on"]
    lines = on.out.splitlines()
    said = next(i for i, x in enumerate(lines) if x.startswith("deriver: not told, so Honcho's"))
    first_notebook = next(i for i, x in enumerate(lines) if x.startswith("== "))
    assert said < first_notebook
    assert "flush off, age gate 1800s, token gate 512" in lines[said]
    assert on.code == 1  # INCONSISTENT fails the run
    assert (
        "  q3_deriver_latency: answered, but INCONSISTENT with the deriver settings assumed "
        "(see its answer); what it saw fits --deriver-flush on" in lines
    )
    answer = on.answer(_name(record.auth_on), "q3_deriver_latency")
    assert "Deriver as assumed (Honcho's defaults; the run was not told)" in answer["answer"]
    assert "the releases seen fit --deriver-flush on" in answer["answer"]
    assert answer["fits"] == "--deriver-flush on"
    assert "deriver as told: flush on, age gate 1800s, token gate 512" in record.runs["off"].out
    for name, text in record.runs["off"].pages.items():
        assert "as configured" not in text, name


def test_help_gives_every_flag_a_line_and_its_default() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "investigate.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0
    options = done.stdout.split("options:", 1)[1].split("\n\n", 1)[0]
    entries = re.split(r"\n  (?=-)", options)
    flags = [e for e in entries if e.strip().startswith("--")]
    defined = re.findall(
        r'add\(\s*"(--[a-z-]+)"', (ROOT / "scripts" / "investigate.py").read_text()
    )
    assert sorted(e.split()[0] for e in flags) == sorted(defined) and len(defined) >= 17
    for entry in flags:
        assert "(default" in entry, entry


# -- ACROSS.md shows changes of behaviour, not of names ---------------------------------------


def test_scratch_ids_are_masked_whatever_their_prefix(record: Record) -> None:
    after = record.runs["off"]
    (row,) = [x for x in after.across.splitlines() if x.startswith("| [q6_workspace_delete]")]
    assert row == "| [q6_workspace_delete](#q6_workspace_delete) | first | same |"
    # The answers did name their scratch workspaces, each with its own prefix.
    on = after.answer(_name(record.auth_on), "q6_workspace_delete")["answer"]
    off = after.answer(_name(record.auth_off, "flush-on"), "q6_workspace_delete")["answer"]
    assert "'roncho-wb-" in on and "'newbie-wb-" in off


# -- answer pages a newcomer can read ---------------------------------------------------------


def test_summaries_name_each_question_in_words(record: Record) -> None:
    summary = record.runs["on"].page(_name(record.auth_on), "summary.md")
    for notebook in ("q1_auth", "q3_deriver_latency", "q6_workspace_delete", "q7_health"):
        assert f"| {QUESTIONS[notebook]} ([{notebook}]({notebook}.md)) |" in summary
    assert "- authentication: on" in summary
    assert "- version the server reports: 3.2.0-emulator" in summary


def test_q8_explains_its_labels_on_the_page(record: Record) -> None:
    page = record.runs["on"].page(_name(record.auth_on), "q8_differences.md")
    for label, meaning in SOURCE_LABELS.items():
        assert f"{label}: {meaning}" in page
    assert "reference §" not in page


def test_answer_pages_hold_no_python_reprs(record: Record) -> None:
    repr_like = re.compile(r"\bNone\b|\w='|\[\d{3}(, \d{3})*\]|\w+\(\w+='")
    pages = {**record.runs["off"].pages, **record.runs["off replaced"].pages}
    for name, text in pages.items():
        if name.endswith(".md"):
            for line in text.splitlines():
                assert not repr_like.search(line), f"{name}: {line}"


# -- the record as data --------------------------------------------------------------------------


def test_the_record_loads_as_data_and_the_across_notebook_draws_it(record: Record) -> None:
    runs = workbook.load_record(record.root)
    assert {r.run for r in runs} == set(record.runs["off replaced"].folders)
    on = next(r for r in runs if r.folder == _name(record.auth_on))
    assert on.identity()["auth"] is True and on.identity()["port"] == record.auth_on.port
    assert on.answers["q1_auth"]["answer"].startswith("Authentication is ON")
    stats = on.tables["q3_deriver_latency__latency_stats"]
    assert {(r["size"], r["gate"]) for r in stats} == {("above", "tokens"), ("below", "flush")}
    assert all(isinstance(r["n"], int) for r in stats)
    health = workbook.table_across(runs, "q7_health__answers")
    assert {r["auth"] for r in health} == {True, False}
    assert all(r["run"] and r["version"] == "3.2.0-emulator" for r in health)
    assert {"across.ipynb", "across__q3_latency.png", "across__q1_statuses.png"} <= {
        p.name for p in record.root.iterdir()
    }
