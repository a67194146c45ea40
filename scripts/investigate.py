"""Run every investigation notebook with papermill and write a results folder per run.

    python scripts/investigate.py                       # the embedded emulator (a demo)
    python scripts/investigate.py --base-url http://honcho.lan:8000 [--api-key-file FILE]
    python scripts/investigate.py --base-url URL --deriver-flush off --age-gate 20

A real server's run lands in results/<YYYY-MM-DD>/<server>/, where <server> is the server's
identity: host and port, auth on or off (seen, not assumed), the version it reports, then
--label and the deriver settings given, e.g. 127.0.0.1-8001-auth-on-v3.0.12-flush-on. A
different server's run is never overwritten; a second run of the same server on the same
day goes beside the first (<server>-2) unless --replace replaces it, and the run says which
in one line. Every run folder holds manifest.json (the server's identity, roncho's version
and commit, the Python, papermill and pandas versions, the runner's arguments without the
key, start and end times), the executed notebooks, their tables as CSV, the figures, one
Markdown answer per notebook and summary.md. The record is indexed in results/README.md,
lined up in results/ACROSS.md and drawn across runs by the `across` notebook
(results/across.ipynb). An emulator run only demonstrates the workbook, so it lands in
results/demo/ (ignored by git) with its own index, and a fresh clone stays clean after it.

A real server is checked first (its URL, then one GET /health): if it is unusable the run
says why in one line and writes nothing. Kernels talk over IPC sockets in a private folder,
not TCP. The API key reaches the notebooks through the environment of their kernels, so no
executed notebook (and no manifest) contains it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# Only the standard library above this line: `--help` must answer before anything (papermill,
# roncho itself) is installed. The rest is imported by main().

NOTEBOOKS = (
    "q1_auth",
    "q2_deletion",
    "q3_deriver_latency",
    "q3_derivation_switches",
    "q4_filters",
    "q5_provenance",
    "q6_workspace_delete",
    "q7_health",
    "q8_differences",
    "q9_webhooks",
    "q10_context",
)
# Executed after every run, over the whole results root: what changed across runs.
ACROSS_NOTEBOOK = "across"
KEY_VARIABLE = "RONCHO_WORKBOOK_API_KEY"
RECORD_ROOT = "results"
DEMO_ROOT = "results/demo"
# Waits that suit a real server (its deriver polls every 1-30 s). The below-gate latency
# bound follows the age gate (see below_bound); ten trials give a median and a p90.
REAL_WAIT_BOUND = 180.0
REAL_SERVER_DEFAULTS: dict[str, object] = {
    "poll_interval": 0.25,
    "wait_bound": REAL_WAIT_BOUND,
    "settle": 30.0,
    "read_timeout": 120.0,
    "trials": 10,
}
# Honcho's own deriver defaults, assumed for a real server the run is told nothing about.
HONCHO_AGE_GATE = 1800.0
HONCHO_TOKEN_GATE = 512
PROMPT_WINDOW = 10.0
# What the manifest records in place of an API key given on the command line.
KEY_NOT_RECORDED = "<not recorded>"


def below_bound(age_gate: float, flush: bool, wait_bound: float, long: bool = False) -> float:
    """Seconds to watch Q3's below-gate messages: past the age gate with room for the
    deriver; 0 (not sent, not waited for) where that is longer than every other wait of the
    run and the run is not ``--long``, or where no age gate will ever release them."""
    if flush:
        return wait_bound
    if age_gate <= 0:
        return 0.0
    bound = age_gate * 1.25 + 60.0
    return bound if long or bound <= wait_bound else 0.0


# What each notebook took on the kit's warm 3.0.12 with flush on (seconds, rounded up from
# the runs in results/), for the estimate a run prints before it starts. The waits that the
# deriver's settings add are reckoned from the settings the run was told (estimate_seconds).
TYPICAL_SECONDS = {
    "q1_auth": 10,
    "q2_deletion": 15,
    "q3_deriver_latency": 45,
    "q3_derivation_switches": 50,
    "q4_filters": 10,
    "q5_provenance": 10,
    "q6_workspace_delete": 10,
    "q7_health": 10,
    "q8_differences": 10,
    "q9_webhooks": 90,
    "q10_context": 70,
}
# Waits for the deriver, per notebook, that an open gate's batch adds when batching is on
# (each takes up to the prompt window: the deriver's poll plus the work).
BATCHED_WAITS = {"q3_deriver_latency": 11, "q3_derivation_switches": 1, "q9_webhooks": 14}


def estimate_seconds(
    notebooks: Iterable[str], flush: bool, prompt: float, below_wait: float
) -> float:
    """The run's length as the told settings make it: each notebook's typical time, plus a
    prompt window per batched wait, plus Q3's below-gate wait when it is waited for."""
    total = 0.0
    for name in notebooks:
        total += TYPICAL_SECONDS.get(name, 30)
        if not flush:
            total += BATCHED_WAITS.get(name, 0) * prompt
        if name == "q3_deriver_latency" and not flush and below_wait > 0:
            total += below_wait
    return total


def estimate_line(args: argparse.Namespace, given: dict[str, object]) -> str:
    """What the run says before it starts: how long it should take, from what it was told."""
    deriver = deriver_settings(args)
    flush = bool(deriver["flush"])
    prompt = float(args.prompt_window or PROMPT_WINDOW)
    below = float(given.get("below_wait_bound") or 0)  # type: ignore[arg-type]
    names = args.only or NOTEBOOKS
    seconds = estimate_seconds(names, flush, prompt, below)
    line = f"estimate: about {math.ceil(seconds / 60)} min for {len(names)} notebook(s)"
    if "q3_deriver_latency" in names and not flush:
        age = float(deriver["age_gate_seconds"])
        if below > 0:
            line += f", of which {below:g}s wait past the age gate for Q3's below-gate messages"
        elif age > 0:
            longer = age * 1.25 + 60.0
            line += (
                f"; Q3's below-gate messages are not waited for (the age gate is {age:g}s; "
                f"--long waits for them, about {math.ceil(longer / 60)} min more)"
            )
    return line


def deriver_label(flush: bool, age_gate: float, token_gate: int | None = None) -> str:
    """The folder suffix naming the deriver settings: ``flush-on`` or ``flush-off-age20s``."""
    label = "flush-on" if flush else f"flush-off-age{age_gate:g}s"
    if token_gate is not None and token_gate != HONCHO_TOKEN_GATE:
        label += f"-tokens{token_gate}"
    return label


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Every flag is optional. The deriver flags describe the server; they change "
        "nothing on it. See notebooks/README.md.",
    )
    add = parser.add_argument
    add("--base-url", default="", help="the Honcho server (default: empty, the embedded emulator)")
    add("--api-key", default="", help="admin key if the server requires keys (default: none)")
    add(
        "--api-key-file",
        type=Path,
        help="read the admin key from this file, keeping it out of the process list "
        "(default: none)",
    )
    add(
        "--results",
        help=f"results root (default: {RECORD_ROOT}/ for a server, {DEMO_ROOT}/ for the emulator)",
    )
    add(
        "--date",
        default=datetime.now(UTC).strftime("%Y-%m-%d"),
        help="the run's date folder, YYYY-MM-DD (default: today in UTC)",
    )
    add(
        "--only",
        nargs="*",
        choices=NOTEBOOKS,
        metavar="NOTEBOOK",
        help=f"run just these notebooks (default: all of {', '.join(NOTEBOOKS)})",
    )
    add(
        "--replace",
        action="store_true",
        help="replace today's earlier run of the same server (default: the new run goes beside "
        "it; a different server's run is never touched)",
    )
    add(
        "--label",
        help="a word added to the run's folder name after the server's identity (default: none)",
    )
    add(
        "--llm",
        metavar="TEXT",
        help="the server's LLM as you know it (the API does not say), stated on the answer "
        "pages that depend on it (q10_context's summaries and cards) (default: not told)",
    )
    add(
        "--deriver-flush",
        choices=("on", "off"),
        help="the server's DERIVER_FLUSH_ENABLED, on meaning batching off; Q3 checks every "
        "release against it (default: not told, Honcho's default off is assumed and said)",
    )
    add(
        "--age-gate",
        type=float,
        metavar="SECONDS",
        help="the server's DERIVER_REPRESENTATION_BATCH_MAX_AGE_SECONDS "
        f"(default: not told, Honcho's {HONCHO_AGE_GATE:g} is assumed)",
    )
    add(
        "--token-gate",
        type=int,
        metavar="TOKENS",
        help="the server's DERIVER_REPRESENTATION_BATCH_WORK_UNIT_TARGET_TOKENS "
        f"(default: not told, Honcho's {HONCHO_TOKEN_GATE} is assumed)",
    )
    add(
        "--prompt-window",
        type=float,
        metavar="SECONDS",
        help="seconds within which an open gate's batch is done; raise it for a deriver "
        f"polling every 30 s (default: {PROMPT_WINDOW:g})",
    )
    add(
        "--trials",
        type=int,
        help=f"Q3 latency trials per size class (default: {REAL_SERVER_DEFAULTS['trials']} on "
        "a server, the notebook's own on the emulator)",
    )
    add(
        "--wait-bound",
        type=float,
        metavar="SECONDS",
        help=f"bound on each wait (default: {REAL_WAIT_BOUND:g} on a server, the notebook's "
        "own on the emulator)",
    )
    add(
        "--below-wait-bound",
        type=float,
        metavar="SECONDS",
        help="bound on Q3's below-gate trials, 0 to send none (default: 1.25 x the age gate + "
        "60 with batching on where that is within --wait-bound or with --long, else none; "
        "with flush on --wait-bound)",
    )
    add(
        "--long",
        action="store_true",
        help="also wait past the age gate for Q3's below-gate messages, however long the "
        f"gate (Honcho's default {HONCHO_AGE_GATE:g}s makes the run about 40 min longer) "
        "(default: they are waited for only where that is no longer than --wait-bound)",
    )
    add(
        "--poll-interval",
        type=float,
        metavar="SECONDS",
        help=f"seconds between polls (default: {REAL_SERVER_DEFAULTS['poll_interval']} on a "
        "server, the notebook's own on the emulator)",
    )
    add(
        "--prefix",
        default="roncho-wb",
        help="scratch workspace id prefix (default: roncho-wb)",
    )
    args = parser.parse_args(argv)
    if args.api_key_file is not None:
        if args.api_key:
            parser.error("give --api-key or --api-key-file, not both")
        try:
            args.api_key = args.api_key_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            parser.error(f"cannot read --api-key-file: {exc.strerror}")
        if not args.api_key:
            parser.error("--api-key-file is empty")
    if args.trials is not None and args.trials < 1:
        parser.error("--trials must be at least 1")
    if args.age_gate is not None and args.age_gate < 0:
        parser.error("--age-gate must be 0 (disabled) or more seconds")
    return args


def deriver_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The deriver settings Q3 checks against, and where they come from.

    ``source`` is ``told`` (any deriver flag given), ``assumed`` (a real server, nothing
    told: Honcho's defaults) or ``emulator`` (the embedded emulator, started with them).
    """
    told = any(v is not None for v in (args.deriver_flush, args.age_gate, args.token_gate))
    source = "told" if told else ("assumed" if args.base_url else "emulator")
    return {
        "source": source,
        "flush": args.deriver_flush == "on",
        "age_gate_seconds": HONCHO_AGE_GATE if args.age_gate is None else args.age_gate,
        "token_gate": HONCHO_TOKEN_GATE if args.token_gate is None else args.token_gate,
    }


def plan(args: argparse.Namespace, server: Any = None) -> tuple[str, dict[str, object]]:
    """The run's folder name and the parameters every notebook may take.

    ``server`` is the `ServerIdentity` read from a real server (None: the emulator).
    """
    given: dict[str, object] = {
        "base_url": args.base_url,
        "workspace_prefix": args.prefix,
    }
    deriver = deriver_settings(args)
    if args.base_url:
        given.update(REAL_SERVER_DEFAULTS)
        given.update(
            deriver_flush=deriver["flush"],
            age_gate_seconds=deriver["age_gate_seconds"],
            token_gate=deriver["token_gate"],
            deriver_source=deriver["source"],
        )
        given["below_wait_bound"] = below_bound(
            float(deriver["age_gate_seconds"]),
            bool(deriver["flush"]),
            args.wait_bound or REAL_WAIT_BOUND,
            long=args.long,
        )
    else:
        # The emulator is started with whatever the run asks for (else the notebook's own).
        if args.deriver_flush is not None:
            given["deriver_flush"] = args.deriver_flush == "on"
        if args.age_gate is not None:
            given["age_gate_seconds"] = args.age_gate
        if args.token_gate is not None:
            given["token_gate"] = args.token_gate
    if args.prompt_window is not None:
        given["prompt_seconds"] = args.prompt_window
    if args.llm:
        given["llm"] = args.llm
    for name in ("trials", "wait_bound", "below_wait_bound", "poll_interval"):
        value = getattr(args, name)
        if value is not None:
            given[name] = value
    extra = [args.label or ""]
    if deriver["source"] == "told":
        extra.append(
            deriver_label(
                bool(deriver["flush"]), float(deriver["age_gate_seconds"]), args.token_gate
            )
        )
    if server is None:
        from roncho_workbook import EMULATOR_IDENTITY

        server = EMULATOR_IDENTITY
    return server.folder(*extra), given


def deriver_line(deriver: dict[str, Any]) -> str:
    """What the run says, before it starts, about the deriver settings Q3 checks against."""
    flush = "on" if deriver["flush"] else "off"
    settings = (
        f"flush {flush}, age gate {deriver['age_gate_seconds']:g}s, "
        f"token gate {deriver['token_gate']}"
    )
    if deriver["source"] == "assumed":
        return (
            f"deriver: not told, so Honcho's defaults are assumed ({settings}); tell the runner "
            "the server's settings with --deriver-flush on|off --age-gate SECONDS "
            "--token-gate TOKENS (Q3 reports any release the settings cannot explain as "
            "INCONSISTENT)"
        )
    return (
        f"deriver as told: {settings} (Q3 reports any release these cannot explain as INCONSISTENT)"
    )


def redacted(argv: list[str]) -> list[str]:
    """The runner's arguments as the manifest records them: never the API key."""
    shown: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            shown.append(KEY_NOT_RECORDED)
            hide_next = False
        elif arg == "--api-key":
            shown.append(arg)
            hide_next = True
        elif arg.startswith("--api-key="):
            shown.append(f"--api-key={KEY_NOT_RECORDED}")
        else:
            shown.append(arg)
    return shown


def _version_of(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _commit() -> dict[str, Any]:
    """roncho's commit, and whether the checkout had changes outside results/ (None outside
    a git checkout)."""

    def git(*words: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", *words], capture_output=True, text=True, cwd=ROOT, timeout=10
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    # The record itself changes with every run: only changes to the code count.
    status = git("status", "--porcelain", "--untracked-files=no", "--", ".", f":!{RECORD_ROOT}")
    return {
        "commit": git("rev-parse", "HEAD"),
        "dirty": bool(status) if status is not None else None,
    }


def manifest(
    args: argparse.Namespace,
    argv: list[str],
    server: dict[str, Any],
    started: datetime,
) -> dict[str, Any]:
    """What the run records about itself, beside its answers (see the module docstring)."""
    import roncho

    return {
        "server": server,
        "deriver": deriver_settings(args),
        "label": args.label,
        "roncho": {"version": roncho.__version__, **_commit()},
        "python": platform.python_version(),
        "papermill": _version_of("papermill"),
        "pandas": _version_of("pandas"),
        "arguments": redacted(argv),
        "notebooks": list(args.only or NOTEBOOKS),
        "failed": {},
        "started_at": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "ended_at": None,
    }


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT / "notebooks"))
    import _kernels
    import _lab

    from roncho_workbook import check_server, choose_run_folder, identify
    from roncho_workbook._across import write_across

    started = datetime.now(UTC)
    server_identity = None
    if args.base_url:
        problem = check_server(args.base_url, api_key=args.api_key)
        if problem:
            print(f"investigate: {problem}; nothing was run or written.", file=sys.stderr)
            return 2
        server_identity = identify(args.base_url, api_key=args.api_key)
    name, given = plan(args, server_identity)
    default_root = RECORD_ROOT if args.base_url else DEMO_ROOT
    results_root = (ROOT / (args.results or default_root)).resolve()
    server = {"base_url": args.base_url, **(server_identity.row() if server_identity else {})}
    if not args.base_url:
        server["emulator"] = True
    record = manifest(args, argv, server, started)
    same = {"server": record["server"], "deriver": record["deriver"], "label": args.label}
    out, where = choose_run_folder(results_root / args.date, name, same, replace=args.replace)
    out.mkdir(parents=True)
    relative_out = os.path.relpath(out, ROOT) if out.is_relative_to(ROOT) else str(out)
    given["results_dir"] = relative_out
    print(f"run folder: {relative_out} ({where})", flush=True)
    if args.base_url:
        print(deriver_line(record["deriver"]), flush=True)
        print(estimate_line(args, given), flush=True)
    _write_manifest(out, record)

    env_key = os.environ.pop(KEY_VARIABLE, None)
    if args.api_key:
        os.environ[KEY_VARIABLE] = args.api_key  # read by the kernels; never written
    failures: dict[str, str] = {}
    across_failure = ""
    try:
        with _kernels.private_socket_folder() as sockets:
            _, manager = _kernels.ipc_kernel_managers(sockets)
            for notebook in args.only or NOTEBOOKS:
                failure = run_notebook(notebook, out, relative_out, given, manager)
                if failure:
                    failures[notebook] = failure
            record["failed"] = failures
            record["ended_at"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            _write_manifest(out, record)
            write_summary(out, name, args.date, list(failures))
            _lab.update_index(results_root)
            write_across(results_root)
            across_failure = run_across(results_root, manager)
    finally:
        os.environ.pop(KEY_VARIABLE, None)
        if env_key is not None:
            os.environ[KEY_VARIABLE] = env_key

    index = os.path.relpath(results_root / "README.md", ROOT)
    print(f"results: {relative_out}/summary.md; index: {index}")
    if failures:
        print(f"{len(failures)} of {len(args.only or NOTEBOOKS)} notebooks failed:")
        for notebook, why in failures.items():
            print(f"  {notebook}: {why}")
    if across_failure:
        print(f"  the across notebook failed: {across_failure}")
    inconsistent = inconsistent_answers(out, args.only or NOTEBOOKS)
    for notebook, fits in inconsistent.items():
        print(
            f"  {notebook}: answered, but INCONSISTENT with the deriver settings "
            f"{record['deriver']['source']} (see its answer)"
            + (f"; what it saw fits {fits}" if fits else "")
        )
    return 1 if failures or inconsistent or across_failure else 0


def _write_manifest(out: Path, record: dict[str, Any]) -> None:
    from roncho_workbook import MANIFEST

    (out / MANIFEST).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def inconsistent_answers(out: Path, names: Iterable[str]) -> dict[str, str]:
    """Those of ``names`` whose answer says the server did not behave as the run was told,
    each with the settings its observations fit ("" when the answer names none).

    Such an answer is kept (it is what the server did), but the run exits non-zero, so a CI
    stage that states the server's settings fails when the server does not follow them.
    """
    from roncho_workbook._across import ANSWER_SUFFIX

    found: dict[str, str] = {}
    for name in names:
        path = out / f"{name}{ANSWER_SUFFIX}"
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            if "INCONSISTENT" in str(data.get("answer", "")):
                found[name] = str(data.get("fits") or "")
    return found


def run_notebook(
    name: str, out: Path, relative_out: str, given: dict[str, object], manager: type
) -> str:
    """Run one notebook; "" when it answered, else one line saying where and why it failed.

    A failed notebook's answer is removed, so the index never shows an answer this run did
    not give.
    """
    import _lab
    import papermill

    # Relative paths: papermill records them in the executed notebook's metadata.
    source = Path("notebooks") / f"{name}.ipynb"
    declared = papermill.inspect_notebook(str(source))
    parameters = {k: v for k, v in given.items() if k in declared}
    started = time.monotonic()
    print(f"== {name} -> {relative_out}/{name}.ipynb", flush=True)
    failure = _execute(source, os.path.join(relative_out, f"{name}.ipynb"), parameters, manager)
    if failure:
        (out / f"{name}{_lab.ANSWER_SUFFIX}").unlink(missing_ok=True)
        print(f"   FAILED ({failure})", flush=True)
    print(f"   {time.monotonic() - started:.1f}s", flush=True)
    if not failure:
        print(f"   {answer_line(out, name)}", flush=True)
    return failure


def answer_line(out: Path, name: str) -> str:
    """The notebook's answer, cut to one line, as the run goes (the whole is in its page)."""
    import _lab

    try:
        record = json.loads((out / f"{name}{_lab.ANSWER_SUFFIX}").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "answer: none written (results_dir empty?)"
    return f"answer: {_one_line(str(record.get('answer', '')))}"


def _execute(source: Path, output: str, parameters: dict[str, object], manager: type) -> str:
    """papermill one notebook; "" when it ran, else one line saying why it did not."""
    import papermill

    try:
        papermill.execute_notebook(
            str(source),
            output,
            parameters=parameters,
            kernel_name="python3",
            cwd=str(ROOT),
            progress_bar=False,
            kernel_manager_class=manager,
        )
    except papermill.PapermillExecutionError as exc:
        return f"cell {exc.exec_count}: {exc.ename}: {_one_line(exc.evalue)}"
    except Exception as exc:  # a failed notebook is reported; the others still run
        return f"{type(exc).__name__}: {_one_line(str(exc))}"
    return ""


def run_across(results_root: Path, manager: type) -> str:
    """Execute the across notebook over every run under ``results_root``, beside ACROSS.md."""
    relative_root = (
        os.path.relpath(results_root, ROOT)
        if results_root.is_relative_to(ROOT)
        else str(results_root)
    )
    print(f"== {ACROSS_NOTEBOOK} -> {relative_root}/{ACROSS_NOTEBOOK}.ipynb", flush=True)
    return _execute(
        Path("notebooks") / f"{ACROSS_NOTEBOOK}.ipynb",
        os.path.join(relative_root, f"{ACROSS_NOTEBOOK}.ipynb"),
        {"results_root": relative_root, "write_figures": True},
        manager,
    )


def _one_line(text: str, limit: int = 240) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def write_summary(out: Path, name: str, date: str, failures: list[str]) -> None:
    """summary.md: the run's identity, each question with its answer, then the figures."""
    import _lab

    from roncho_workbook import notebook_key, question, read_manifest

    rows = []
    answers = []
    paths = sorted(
        out.glob(f"*{_lab.ANSWER_SUFFIX}"),
        key=lambda path: notebook_key(path.name.removesuffix(_lab.ANSWER_SUFFIX)),
    )
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        answers.append(data)
        rows.append(
            {
                "question": f"{question(data['notebook'])} ([{data['notebook']}]"
                f"({data['notebook']}.md))",
                "answer": data["answer"],
            }
        )
    record = read_manifest(out) or {}
    server = record.get("server") or {}
    if server.get("emulator"):
        source = (
            "the embedded emulator (roncho.testing.FakeHoncho): these answers only show the "
            "workbook runs; a real server settles the questions"
        )
    else:
        source = f"the server at {server.get('base_url', name)}"
    lines = [f"# Workbook run {date}: {name}", "", f"Answers from {source}.", ""]
    lines += [f"- {line}" for line in identity_lines(record)]
    lines += ["", _lab.markdown_table(rows, ("question", "answer"), limit=None)]
    if failures:
        lines += ["", f"Notebooks that failed: {', '.join(failures)} (see their .ipynb)."]
    # Each notebook's figure under its question, so a git web view shows them all.
    figures = [
        (data["notebook"], figure)
        for data in answers
        for figure in data.get("figures", [])
        if (out / figure).exists()
    ]
    if figures:
        lines += ["", "## Figures"]
    for notebook, figure in figures:
        lines += ["", f"### [{question(notebook)}]({notebook}.md)", "", f"![{notebook}]({figure})"]
    (out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def identity_lines(record: dict[str, Any]) -> list[str]:
    """The manifest in words: server, authentication, version, deriver, roncho, tools."""
    if not record:
        return ["no manifest: this run was recorded before runs kept one"]
    server = record.get("server") or {}
    lines = []
    if not server.get("emulator"):
        auth = {True: "on", False: "off", None: "not seen"}[server.get("auth")]
        version = server.get("version")
        shown = "not revealed" if version is None else version
        lines += [f"authentication: {auth}", f"version the server reports: {shown}"]
    deriver = record.get("deriver") or {}
    if deriver and not server.get("emulator"):
        flush = "on" if deriver.get("flush") else "off"
        how = {"told": "as told", "assumed": "assumed (Honcho's defaults; not told)"}.get(
            str(deriver.get("source")), str(deriver.get("source"))
        )
        lines.append(
            f"deriver {how}: flush {flush}, age gate {deriver.get('age_gate_seconds'):g}s, "
            f"token gate {deriver.get('token_gate')}"
        )
    roncho = record.get("roncho") or {}
    commit = roncho.get("commit") or "no git checkout"
    dirty = " (with uncommitted changes)" if roncho.get("dirty") else ""
    lines.append(f"roncho {roncho.get('version')} at {commit}{dirty}")
    lines.append(
        f"Python {record.get('python')}, papermill {record.get('papermill')}, "
        f"pandas {record.get('pandas')}"
    )
    lines.append(f"started {record.get('started_at')}, ended {record.get('ended_at')}")
    lines.append("arguments: " + (" ".join(record.get("arguments") or []) or "(none)"))
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
