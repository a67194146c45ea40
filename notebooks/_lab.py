"""Lab helper for the investigation notebooks: tables, figures and result files.

The only place pandas and matplotlib are imported (roncho/ stays standard library only;
the figures themselves are drawn in `_figures`). A notebook opens one `Lab` in its second
cell, calls a probe from `roncho_workbook`, and hands the `Finding` back:
`lab.record(name, rows)` shows a table and writes it as CSV, `lab.figure(finding)` shows
the notebook's figure inline and saves it as PNG and SVG, `lab.answer(finding)` states the
answer as Markdown with its evidence and figure and writes the summary and the
results-index row, `lab.close()` stops the emulator if one was started.

With ``results_dir`` empty (the default, as under nbval) nothing is written anywhere.
"""

from __future__ import annotations

import io
import json
import os
import re
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only; no display needed under papermill or nbval

import _figures  # beside this file: whoever imports _lab has notebooks/ on sys.path
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown

from roncho_workbook import (
    Finding,
    RunInfo,
    Target,
    describe,
    load_record,
    notebook_key,
    open_target,
    question,
    table_across,
)

# The investigate script hands an API key to the kernels this way, so that no executed
# notebook (they are saved with their parameters) ever contains it.
KEY_VARIABLE = "RONCHO_WORKBOOK_API_KEY"
INDEX_START = "<!-- runs:start -->"
INDEX_END = "<!-- runs:end -->"
ANSWER_SUFFIX = ".answer.json"
# Every notebook's figure is saved as <notebook>__figure.png and .svg beside it.
FIGURE_SUFFIX = "__figure"
# Pixels per inch of the PNG: sharp on a git web page, small enough to commit.
FIGURE_DPI = 110


class FigureView:
    """A drawn figure as the notebook shows it: the PNG itself, not a Figure repr.

    The text form names the figure and stays the same from run to run, so nbval (which
    ignores image/png) compares that the cell made a figure, not its pixels.
    """

    def __init__(self, notebook: str, png: bytes, files: tuple[str, ...]) -> None:
        self.notebook = notebook
        self.png = png
        self.files = files

    def _repr_png_(self) -> bytes:
        return self.png

    def __repr__(self) -> str:
        return f"<figure of {self.notebook}>"


class Lab:
    """One notebook's run: the target server, what it said about itself, where results go."""

    def __init__(
        self,
        notebook: str,
        *,
        base_url: str,
        api_key: str,
        connect_timeout: float,
        read_timeout: float,
        results_dir: str,
        emulator_options: dict[str, Any] | None = None,
    ) -> None:
        self.notebook = notebook
        self._stack = ExitStack()
        self.target: Target = self._stack.enter_context(
            open_target(
                base_url,
                api_key or os.environ.get(KEY_VARIABLE, ""),
                connect_timeout=connect_timeout,
                read_timeout=read_timeout,
                emulator_options=emulator_options,
            )
        )
        self.info: RunInfo = describe(self.target)
        self.out = Path(results_dir).resolve() if results_dir else None
        if self.out is not None:
            self.out.mkdir(parents=True, exist_ok=True)
        self.figures: list[str] = []  # file names of the figures saved beside the notebook

    # -- what the run is ---------------------------------------------------------------
    def source(self) -> str:
        if self.target.emulator:
            return (
                "the in-process emulator (`roncho.testing.FakeHoncho`), **not a real server**: "
                "it mimics the behaviour recorded in the reference, so this answer only shows "
                "the workbook works; run it against a real Honcho to settle the question"
            )
        return f"the server at `{self.target.label}`, observed on {self.info.date}"

    def header(self) -> Markdown:
        """Date, server, health answer and version: the first thing the notebook shows.

        Also recorded as ``<notebook>__run.csv``.
        """
        info = self.info
        self.record("run", [{**info.row(), "notebook": self.notebook}])
        return Markdown(
            f"**Run** {info.started_at} · **server** {info.server} · "
            f"**health** `{info.health}` · **version** `{info.version or 'not revealed'}`\n\n"
            f"Answers below come from {self.source()}."
        )

    # -- tables and files -----------------------------------------------------------------
    def record(self, name: str, rows: list[dict[str, Any]] | pd.DataFrame) -> pd.DataFrame:
        """Show ``rows`` as a table and write it as ``<notebook>__<name>.csv``."""
        frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
        if self.out is not None:
            frame.to_csv(self.out / f"{self.notebook}__{name}.csv", index=False)
        return frame

    def evidence(self, finding: Finding) -> pd.DataFrame:
        """Every call the probe made (step, method, path, status, body), recorded as CSV."""
        return self.record("evidence", finding.trace.rows())

    def figure(self, finding: Finding) -> FigureView:
        """Draw this notebook's figure from the finding's tables; show it, save PNG + SVG.

        Saved as ``<notebook>__figure.png`` and ``.svg`` beside the executed notebook
        (when results are written); `answer` then links the PNG from the answer page.
        """
        stamp = _figures.Stamp(self.info.server, self.info.version or "", self.info.date)
        fig = _figures.DRAWERS[self.notebook](finding, stamp)
        try:
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", dpi=FIGURE_DPI)
            files: tuple[str, ...] = ()
            if self.out is not None:
                base = f"{self.notebook}{FIGURE_SUFFIX}"
                (self.out / f"{base}.png").write_bytes(buffer.getvalue())
                fig.savefig(self.out / f"{base}.svg", format="svg", metadata={"Date": None})
                files = (f"{base}.png", f"{base}.svg")
                self.figures = [files[0]]
        finally:
            plt.close(fig)
        return FigureView(self.notebook, buffer.getvalue(), files)

    def answer(
        self, finding: Finding, *, also: list[Finding] | None = None, evidence_rows: int = 12
    ) -> Markdown:
        """The answer as Markdown with its evidence; also the summary and the index row.

        ``also`` adds the answers of companion probes (e.g. a second emulator) to the text.
        """
        calls = finding.trace.rows()[:evidence_rows]
        extra = " ".join(f"{f.question}: {f.answer}" for f in also or [])
        lines = [
            f"## Answer: {finding.question}",
            "",
            finding.answer + (f" {extra}" if extra else ""),
            "",
            f"*Asked:* {question(self.notebook)}",
            "",
            f"*Source:* {self.source()}.",
        ]
        for note in finding.notes:
            lines += ["", note]
        if calls:
            lines += [
                "",
                f"Evidence (first {len(calls)} of {len(finding.trace.calls)} calls):",
                "",
                markdown_table(calls, ("step", "method", "path", "status", "body")),
            ]
        text = "\n".join(lines)
        if self.out is not None:
            # The page shows the figure under the answer; the notebook already shows it inline.
            shown = [f"![{finding.question}: figure]({name})" for name in self.figures]
            page = "\n".join([*lines[:4], *(f"{s}\n" for s in shown), *lines[4:]])
            (self.out / f"{self.notebook}.md").write_text(page + "\n", encoding="utf-8")
            row = {
                "date": self.info.date,
                "server": self.info.server,
                "emulator": self.target.emulator,
                "version": self.info.version or "not revealed",
                "health": self.info.health,
                "notebook": self.notebook,
                "question": finding.question,
                "asks": question(self.notebook),
                "answer": finding.answer + (f" {extra}" if extra else ""),
                "fits": finding.fits,
                "figures": list(self.figures),
            }
            (self.out / f"{self.notebook}{ANSWER_SUFFIX}").write_text(
                json.dumps(row, indent=1) + "\n", encoding="utf-8"
            )
            root = self.out.parent.parent
            if root.name == "results":
                update_index(root)
        return Markdown(text)

    def close(self) -> None:
        """Stop the emulator (if one was started); the scratch workspaces are already gone."""
        self._stack.close()


def across_figure(fig: Any, name: str, root: Path | str, *, write: bool) -> FigureView:
    """Show an across-runs figure; with ``write``, save it as ``across__<name>.png`` and
    ``.svg`` in the results root, beside ACROSS.md."""
    try:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=FIGURE_DPI)
        files: tuple[str, ...] = ()
        if write:
            base = Path(root) / f"across__{name}"
            base.with_suffix(".png").write_bytes(buffer.getvalue())
            fig.savefig(base.with_suffix(".svg"), format="svg", metadata={"Date": None})
            files = (base.with_suffix(".png").name, base.with_suffix(".svg").name)
    finally:
        plt.close(fig)
    return FigureView(f"across {name}", buffer.getvalue(), files)


def record_frames(root: Path | str) -> dict[str, pd.DataFrame]:
    """The record as pandas: one frame per table (``<notebook>__<table>``) across every run
    under ``root``, each row led by its run's identity columns (run, date, server, version,
    auth, deriver settings, roncho's version and commit). ``"runs"`` is one row per run.

    The pandas view of `roncho_workbook.load_record`, which reads the same with the
    standard library.
    """
    runs = load_record(root)
    frames = {"runs": pd.DataFrame([run.identity() for run in runs])}
    for name in sorted({name for run in runs for name in run.tables}):
        frames[name] = pd.DataFrame(table_across(runs, name))
    return frames


def markdown_table(
    rows: list[dict[str, Any]], columns: tuple[str, ...], *, limit: int | None = 90
) -> str:
    """A GitHub Markdown table of ``columns`` (cells cut to ``limit`` characters)."""

    def cell(value: Any) -> str:
        text = "" if value is None else str(value)
        text = text.replace("|", "\\|").replace("\n", " ")
        return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"

    head = "| " + " | ".join(columns) + " |"
    rule = "|" + "---|" * len(columns)
    body = ["| " + " | ".join(cell(r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join([head, rule, *body])


def update_index(root: Path) -> Path:
    """Rewrite the run table in ``root/README.md`` from every ``*.answer.json`` under it.

    Idempotent: the table between the markers is rebuilt from the files; text outside
    the markers is kept.
    """
    rows = []
    for path in sorted(root.glob(f"*/*/*{ANSWER_SUFFIX}")):
        data = json.loads(path.read_text(encoding="utf-8"))
        folder = path.parent.relative_to(root).as_posix()
        notebook = data["notebook"]
        data["run"] = f"[{path.parent.name}]({folder}/summary.md)"
        data["question"] = f"[{question(notebook)}]({folder}/{notebook}.md)"
        data["order"] = (data["date"], folder, notebook_key(notebook))
        rows.append(data)
    rows.sort(key=lambda r: r["order"])
    table = markdown_table(rows, ("date", "run", "version", "question", "answer"), limit=None)
    readme = root / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.exists() else _INDEX_TEMPLATE
    pattern = re.compile(re.escape(INDEX_START) + ".*?" + re.escape(INDEX_END), re.S)
    block = f"{INDEX_START}\n{table}\n{INDEX_END}"
    text = pattern.sub(lambda _m: block, text) if pattern.search(text) else text + "\n" + block
    readme.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    return readme


def today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


_INDEX_TEMPLATE = f"""# Investigation results

Each run of the workbook writes `<YYYY-MM-DD>/<server>/` here: `manifest.json` (the server's
identity, roncho's version and commit, the tools' versions, the runner's arguments, start and
end times), the executed notebooks, their tables as CSV (`<notebook>__<table>.csv`), one
figure per notebook (`<notebook>__figure.png` and `.svg`), one Markdown answer per notebook
and `summary.md`. `<server>` is `emulator` for the embedded emulator, else the server's host
and port, authentication on or off, the version it reports and the deriver settings given,
so two servers never share a folder. [ACROSS.md](ACROSS.md) lines up every answer across
runs; `across.ipynb` draws what changed.

Answers of an `emulator` run only show the workbook runs; the questions are settled by a run
against a real Honcho.

{INDEX_START}
{INDEX_END}
"""
