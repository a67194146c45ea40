"""Run every investigation notebook with papermill and write a dated results folder.

    python scripts/investigate.py                       # the embedded emulator
    python scripts/investigate.py --base-url http://honcho.lan:8000 [--api-key KEY]

Results land in results/<YYYY-MM-DD>/<server>/ (``emulator`` or the server's host name):
the executed notebooks, their tables as CSV, the latency plot, one Markdown answer per
notebook and summary.md; results/README.md indexes every run. The API key reaches the
notebooks through the environment of their kernels, so no executed notebook contains it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import papermill

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "notebooks"))

import _lab  # noqa: E402

from roncho.workbook import server_label  # noqa: E402

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
)
KEY_VARIABLE = "RONCHO_WORKBOOK_API_KEY"
# Waits that suit a real server (its deriver polls every 1-30 s; the age gate is 30 min).
REAL_SERVER_DEFAULTS = {
    "poll_interval": 1.0,
    "wait_bound": 180.0,
    "below_wait_bound": 2400.0,
    "settle": 30.0,
    "read_timeout": 120.0,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default="", help="the Honcho server; empty: emulator")
    parser.add_argument("--api-key", default="", help="admin key if the server requires keys")
    parser.add_argument("--results", default="results", help="results root (default results/)")
    parser.add_argument("--date", default=datetime.now(UTC).strftime("%Y-%m-%d"))
    parser.add_argument("--only", nargs="*", choices=NOTEBOOKS, help="run just these notebooks")
    parser.add_argument("--trials", type=int, help="latency trials per size class")
    parser.add_argument("--wait-bound", type=float, help="seconds: bound on each wait")
    parser.add_argument("--below-wait-bound", type=float, help="seconds: below-gate trials")
    parser.add_argument("--poll-interval", type=float, help="seconds between polls")
    parser.add_argument("--prefix", default="roncho-wb", help="scratch workspace id prefix")
    args = parser.parse_args(argv)
    os.chdir(ROOT)

    label = server_label(args.base_url)
    results_root = (ROOT / args.results).resolve()
    out = results_root / args.date / label
    out.mkdir(parents=True, exist_ok=True)
    relative_out = os.path.relpath(out, ROOT)

    given: dict[str, object] = {
        "base_url": args.base_url,
        "workspace_prefix": args.prefix,
        "results_dir": relative_out,
    }
    if args.base_url:
        given.update(REAL_SERVER_DEFAULTS)
    for name in ("trials", "wait_bound", "below_wait_bound", "poll_interval"):
        value = getattr(args, name)
        if value is not None:
            given[name] = value

    env_key = os.environ.pop(KEY_VARIABLE, None)
    if args.api_key:
        os.environ[KEY_VARIABLE] = args.api_key  # read by the kernels; never written
    failures = []
    try:
        for name in args.only or NOTEBOOKS:
            # Relative paths: papermill records them in the executed notebook's metadata.
            source = Path("notebooks") / f"{name}.ipynb"
            declared = papermill.inspect_notebook(str(source))
            parameters = {k: v for k, v in given.items() if k in declared}
            started = time.monotonic()
            print(f"== {name} -> {relative_out}/{name}.ipynb", flush=True)
            try:
                papermill.execute_notebook(
                    str(source),
                    os.path.join(relative_out, f"{name}.ipynb"),
                    parameters=parameters,
                    kernel_name="python3",
                    cwd=str(ROOT),
                    progress_bar=False,
                )
            except Exception as exc:  # a failed notebook is reported; the others still run
                failures.append(name)
                print(f"   FAILED: {type(exc).__name__}: {str(exc)[:300]}", flush=True)
            print(f"   {time.monotonic() - started:.1f}s", flush=True)
    finally:
        os.environ.pop(KEY_VARIABLE, None)
        if env_key is not None:
            os.environ[KEY_VARIABLE] = env_key

    write_summary(out, label, args.date, failures)
    _lab.update_index(results_root)
    index = os.path.relpath(results_root / "README.md", ROOT)
    print(f"results: {relative_out}/summary.md; index: {index}")
    return 1 if failures else 0


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
