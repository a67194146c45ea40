"""Run every investigation notebook with papermill and write a dated results folder.

    python scripts/investigate.py                       # the embedded emulator (a demo)
    python scripts/investigate.py --base-url http://honcho.lan:8000 [--api-key KEY]
    python scripts/investigate.py --base-url URL --deriver-flush off --age-gate 20

A real server's results land in results/<YYYY-MM-DD>/<server>/ (the server's host name,
plus "-<label>" and the deriver settings when the run is told them): the record, meant to
be committed, indexed in results/README.md and lined up in results/ACROSS.md. An emulator
run only demonstrates the workbook, so it lands in results/demo/ (ignored by git) with its
own index, and a fresh clone stays clean after it. Each folder holds the executed
notebooks, their tables as CSV, the figures, one Markdown answer per notebook and summary.md.

A real server is checked first (its URL, then one GET /health): if it is unusable the run
says why in one line and writes nothing. Kernels talk over IPC sockets in a private folder,
not TCP. The API key reaches the notebooks through the environment of their kernels, so no
executed notebook contains it.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import papermill

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "notebooks"))

import _kernels  # noqa: E402
import _lab  # noqa: E402

from roncho.workbook import check_server, server_label  # noqa: E402
from roncho.workbook._across import write_across  # noqa: E402

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
)
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
_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def below_bound(age_gate: float, flush: bool, wait_bound: float) -> float:
    """Seconds to watch below-gate messages: past the age gate with room for the deriver."""
    if flush or age_gate <= 0:
        return wait_bound
    return age_gate * 1.25 + 60.0


def deriver_label(flush: bool, age_gate: float) -> str:
    """The folder suffix naming the deriver settings: ``flush-on`` or ``flush-off-age20s``."""
    return "flush-on" if flush else f"flush-off-age{age_gate:g}s"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default="", help="the Honcho server; empty: emulator")
    parser.add_argument("--api-key", default="", help="admin key if the server requires keys")
    parser.add_argument(
        "--api-key-file",
        type=Path,
        help="read the admin key from this file (keeps it out of the process list)",
    )
    parser.add_argument(
        "--results",
        help=f"results root (default {RECORD_ROOT}/ for a server, {DEMO_ROOT}/ for the emulator)",
    )
    parser.add_argument("--date", default=datetime.now(UTC).strftime("%Y-%m-%d"))
    parser.add_argument("--only", nargs="*", choices=NOTEBOOKS, help="run just these notebooks")
    parser.add_argument(
        "--label",
        help="names the server in the run's folder: <host>-<label>[-<deriver settings>]",
    )
    parser.add_argument(
        "--deriver-flush",
        choices=("on", "off"),
        help="the server's DERIVER_FLUSH_ENABLED (on: batching off); Q3 checks against it",
    )
    parser.add_argument(
        "--age-gate",
        type=float,
        help="seconds: the server's DERIVER_REPRESENTATION_BATCH_MAX_AGE_SECONDS",
    )
    parser.add_argument(
        "--token-gate",
        type=int,
        help="the server's DERIVER_REPRESENTATION_BATCH_WORK_UNIT_TARGET_TOKENS",
    )
    parser.add_argument(
        "--prompt-window",
        type=float,
        help="seconds within which an open gate's batch is done (default 10; raise it for a "
        "deriver polling every 30 s)",
    )
    parser.add_argument("--trials", type=int, help="latency trials per size class")
    parser.add_argument("--wait-bound", type=float, help="seconds: bound on each wait")
    parser.add_argument("--below-wait-bound", type=float, help="seconds: below-gate trials")
    parser.add_argument("--poll-interval", type=float, help="seconds between polls")
    parser.add_argument("--prefix", default="roncho-wb", help="scratch workspace id prefix")
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


def plan(args: argparse.Namespace) -> tuple[str, dict[str, object]]:
    """The run's folder label and the parameters every notebook may take."""
    label = server_label(args.base_url)
    given: dict[str, object] = {
        "base_url": args.base_url,
        "workspace_prefix": args.prefix,
    }
    told = args.deriver_flush is not None or args.age_gate is not None
    if args.base_url:
        given.update(REAL_SERVER_DEFAULTS)
        flush = args.deriver_flush == "on"
        age = HONCHO_AGE_GATE if args.age_gate is None else args.age_gate
        given.update(
            deriver_flush=flush,
            age_gate_seconds=age,
            token_gate=args.token_gate or HONCHO_TOKEN_GATE,
        )
        given["below_wait_bound"] = below_bound(age, flush, args.wait_bound or REAL_WAIT_BOUND)
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
    for name in ("trials", "wait_bound", "below_wait_bound", "poll_interval"):
        value = getattr(args, name)
        if value is not None:
            given[name] = value
    # <host>[-<label>][-<deriver settings>]: runs of one server with other settings never
    # share a folder.
    parts = [args.label] if args.label else []
    if told:
        age_told = args.age_gate if args.age_gate is not None else HONCHO_AGE_GATE
        parts.append(deriver_label(args.deriver_flush == "on", age_told))
    for part in parts:
        label += "-" + (_LABEL_UNSAFE.sub("-", part).strip("-.") or "run")
    return label, given


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.chdir(ROOT)
    if args.base_url:
        problem = check_server(args.base_url, api_key=args.api_key)
        if problem:
            print(f"investigate: {problem}; nothing was run or written.", file=sys.stderr)
            return 2
    label, given = plan(args)
    default_root = RECORD_ROOT if args.base_url else DEMO_ROOT
    results_root = (ROOT / (args.results or default_root)).resolve()
    out = results_root / args.date / label
    out.mkdir(parents=True, exist_ok=True)
    relative_out = os.path.relpath(out, ROOT)
    given["results_dir"] = relative_out
    if args.base_url:
        flush = "on" if given["deriver_flush"] else "off"
        print(
            f"deriver as told: flush {flush}, age gate {given['age_gate_seconds']:g}s, "
            f"token gate {given['token_gate']} (--deriver-flush/--age-gate/--token-gate; "
            "Q3 reports any release these cannot explain as INCONSISTENT)",
            flush=True,
        )

    env_key = os.environ.pop(KEY_VARIABLE, None)
    if args.api_key:
        os.environ[KEY_VARIABLE] = args.api_key  # read by the kernels; never written
    failures: dict[str, str] = {}
    try:
        with _kernels.private_socket_folder() as sockets:
            _, manager = _kernels.ipc_kernel_managers(sockets)
            for name in args.only or NOTEBOOKS:
                failure = run_notebook(name, out, relative_out, given, manager)
                if failure:
                    failures[name] = failure
    finally:
        os.environ.pop(KEY_VARIABLE, None)
        if env_key is not None:
            os.environ[KEY_VARIABLE] = env_key

    write_summary(out, label, args.date, list(failures))
    _lab.update_index(results_root)
    write_across(results_root)
    index = os.path.relpath(results_root / "README.md", ROOT)
    print(f"results: {relative_out}/summary.md; index: {index}")
    if failures:
        print(f"{len(failures)} of {len(args.only or NOTEBOOKS)} notebooks failed:")
        for name, why in failures.items():
            print(f"  {name}: {why}")
    inconsistent = inconsistent_answers(out, args.only or NOTEBOOKS)
    for name in inconsistent:
        print(
            f"  {name}: answered, but INCONSISTENT with the deriver settings given (see its answer)"
        )
    return 1 if failures or inconsistent else 0


def inconsistent_answers(out: Path, names: Iterable[str]) -> list[str]:
    """Those of ``names`` whose answer says the server did not behave as the run was told.

    Such an answer is kept (it is what the server did), but the run exits non-zero, so a CI
    stage that states the server's settings fails when the server does not follow them.
    """
    import json

    found = []
    for name in names:
        path = out / f"{name}{_lab.ANSWER_SUFFIX}"
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            if "INCONSISTENT" in str(data.get("answer", "")):
                found.append(name)
    return found


def run_notebook(
    name: str, out: Path, relative_out: str, given: dict[str, object], manager: type
) -> str:
    """Run one notebook; "" when it answered, else one line saying where and why it failed.

    Its files from an earlier run of the day go first, and a failed notebook's answer is
    removed, so the index never shows an answer this run did not give.
    """
    for old in [*out.glob(f"{name}.*"), *out.glob(f"{name}__*")]:
        old.unlink()
    # Relative paths: papermill records them in the executed notebook's metadata.
    source = Path("notebooks") / f"{name}.ipynb"
    declared = papermill.inspect_notebook(str(source))
    parameters = {k: v for k, v in given.items() if k in declared}
    started = time.monotonic()
    print(f"== {name} -> {relative_out}/{name}.ipynb", flush=True)
    failure = ""
    try:
        papermill.execute_notebook(
            str(source),
            os.path.join(relative_out, f"{name}.ipynb"),
            parameters=parameters,
            kernel_name="python3",
            cwd=str(ROOT),
            progress_bar=False,
            kernel_manager_class=manager,
        )
    except papermill.PapermillExecutionError as exc:
        failure = f"cell {exc.exec_count}: {exc.ename}: {_one_line(exc.evalue)}"
    except Exception as exc:  # a failed notebook is reported; the others still run
        failure = f"{type(exc).__name__}: {_one_line(str(exc))}"
    if failure:
        (out / f"{name}{_lab.ANSWER_SUFFIX}").unlink(missing_ok=True)
        print(f"   FAILED ({failure})", flush=True)
    print(f"   {time.monotonic() - started:.1f}s", flush=True)
    return failure


def _one_line(text: str, limit: int = 240) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def write_summary(out: Path, label: str, date: str, failures: list[str]) -> None:
    """summary.md: one line per notebook, from the answer each one wrote, then the figures."""
    import json

    rows = []
    answers = []
    for path in sorted(out.glob(f"*{_lab.ANSWER_SUFFIX}")):
        data = json.loads(path.read_text(encoding="utf-8"))
        answers.append(data)
        rows.append(
            {
                "notebook": f"[{data['notebook']}]({data['notebook']}.md)",
                "answer": data["answer"],
                "version": data["version"],
            }
        )
    source = (
        "the embedded emulator (roncho.testing.FakeHoncho) - these answers only show the "
        "workbook runs; a real server settles the questions"
        if label == "emulator"
        else f"the server {label}"
    )
    lines = [
        f"# Workbook run {date} on {label}",
        "",
        f"Answers from {source}.",
        "",
        _lab.markdown_table(rows, ("notebook", "version", "answer"), limit=None),
    ]
    if failures:
        lines += ["", f"Notebooks that failed: {', '.join(failures)} (see their .ipynb)."]
    # Each notebook's figure under its answer line, so a git web view shows them all.
    figures = [
        (data["notebook"], name)
        for data in answers
        for name in data.get("figures", [])
        if (out / name).exists()
    ]
    if figures:
        lines += ["", "## Figures"]
    for notebook, name in figures:
        lines += ["", f"### [{notebook}]({notebook}.md)", "", f"![{notebook}]({name})"]
    (out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
