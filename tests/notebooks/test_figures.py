"""Figures: every notebook shows one inline, saves it, and its answer page and summary link it.

One emulator run of the whole workbook (about a minute) backs the file checks; the drawing
rules (no empty classes, units on axes, server/version/date in the title) are pinned on
small hand-made tables.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from roncho_workbook import Finding

ROOT = Path(__file__).resolve().parents[2]
DATE = "2026-01-02"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
LINK = re.compile(r"!\[[^\]]*\]\(([^)]+)\)")


@pytest.fixture(scope="module")
def figures() -> Iterator[Any]:
    sys.path.insert(0, str(ROOT / "notebooks"))
    try:
        yield importlib.import_module("_figures")
    finally:
        sys.path.remove(str(ROOT / "notebooks"))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The whole workbook once against the emulator; the folder and the notebook names."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        notebooks = list(importlib.import_module("investigate").NOTEBOOKS)
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    results = tmp_path_factory.mktemp("figures") / "results"
    script = str(ROOT / "scripts" / "investigate.py")
    done = subprocess.run(
        [sys.executable, script, "--results", str(results), "--date", DATE],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return results / DATE / "emulator", notebooks


@pytest.mark.timeout(700)
def test_every_executed_notebook_shows_its_figure_as_an_image(run: tuple[Path, list[str]]) -> None:
    out, notebooks = run
    assert len(notebooks) == 11  # q1 to q8 (two q3s), q9_webhooks and q10_context
    for name in notebooks:
        cells = json.loads((out / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]
        images = [
            o["data"]["image/png"]
            for c in cells
            if c["cell_type"] == "code"
            for o in c.get("outputs", [])
            if "image/png" in o.get("data", {})
        ]
        assert images, f"{name}: no image in the executed notebook"
        reprs = [
            "".join(o["data"].get("text/plain", ""))
            for c in cells
            if c["cell_type"] == "code"
            for o in c.get("outputs", [])
            if "data" in o
        ]
        assert not any(r.startswith("<Figure size") for r in reprs), f"{name}: a Figure repr"


@pytest.mark.timeout(700)
def test_every_answer_page_and_the_summary_link_existing_figures(
    run: tuple[Path, list[str]],
) -> None:
    out, notebooks = run
    summary_links = set(LINK.findall((out / "summary.md").read_text(encoding="utf-8")))
    for name in notebooks:
        links = LINK.findall((out / f"{name}.md").read_text(encoding="utf-8"))
        assert links, f"{name}.md links no figure"
        for link in links:
            png = out / link
            assert png.suffix == ".png" and png.read_bytes().startswith(PNG_MAGIC), link
            assert png.with_suffix(".svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
            assert link in summary_links, f"summary.md does not show {link}"


def _latency(timed_out: bool) -> Finding:
    finding = Finding(question="Q3 deriver latency")
    rows = []
    for size, tokens, seconds, gate in (
        ("above", 1000, 3.0, "tokens"),
        ("below", 30, 2.0, "flush"),
    ):
        for trial in range(5):
            missing = timed_out and size == "below" and trial == 4
            rows.append(
                {
                    "trial": trial,
                    "size": size,
                    "tokens": tokens,
                    "sent_at": f"2026-01-02T10:00:{trial + (10 if size == 'below' else 0):02d}Z",
                    "first_conclusion_s": None if missing else seconds + trial / 10,
                    "timed_out": missing,
                    "bound_s": 180.0,
                    "gate": "not released within the bound" if missing else gate,
                }
            )
    finding.tables["latency"] = rows
    finding.tables["queue_series"] = [
        {"trial": r["trial"], "size": r["size"], "t": t, "pending": p, "in_progress": i}
        for r in rows
        for t, p, i in ((0.0, 1, 0), (1.0, 0, 1), (2.0, -1, -1), (3.0, 0, 0))
    ]
    return finding


def _legend_labels(fig: Any) -> list[str]:
    return [
        text.get_text()
        for ax in fig.axes
        if ax.get_legend() is not None
        for text in ax.get_legend().get_texts()
    ]


def test_latency_figure_draws_no_empty_class_and_names_units(figures: Any) -> None:
    stamp = figures.Stamp("honcho.lan", "3.2.0", DATE)
    fig = figures.draw_latency(_latency(timed_out=False), stamp)
    try:
        labels = _legend_labels(fig)
        assert "released by: tokens" in labels and "released by: flush" in labels
        assert not any("bound" in label or "n=0" in label for label in labels), labels
        top, bottom = fig.axes
        assert "(s" in top.get_xlabel() and "(s)" in bottom.get_xlabel()
        assert "count" in bottom.get_ylabel()
        assert all(s in top.get_title() for s in ("honcho.lan", "3.2.0", DATE))
        # Counts never go below zero: a failed poll (-1) keeps the last good value.
        assert min(min(line.get_ydata()) for line in bottom.get_lines()) >= 0
    finally:
        figures.plt.close(fig)
    finding = _latency(timed_out=True)
    finding.tables["latency"][0]["check"] = "INCONSISTENT"
    fig = figures.draw_latency(finding, stamp)
    try:
        labels = _legend_labels(fig)
        assert "no conclusion by the bound (n=1)" in labels
        assert "gate the configured settings cannot explain (n=1)" in labels
    finally:
        figures.plt.close(fig)


@pytest.mark.parametrize(
    "notebook",
    [
        "q1_auth",
        "q2_deletion",
        "q3_derivation_switches",
        "q3_deriver_latency",
        "q4_filters",
        "q5_provenance",
        "q6_workspace_delete",
        "q7_health",
        "q8_differences",
        "q9_webhooks",
        "q10_context",
    ],
)
def test_a_probe_that_recorded_nothing_still_gets_a_titled_figure(
    figures: Any, notebook: str
) -> None:
    fig = figures.DRAWERS[notebook](Finding(question=notebook), figures.Stamp("h", "9.9", DATE))
    try:
        titles = " ".join(ax.get_title() for ax in fig.axes)
        assert "h · version 9.9 · " + DATE in titles
        assert not _legend_labels(fig)
    finally:
        figures.plt.close(fig)


def test_figure_view_shows_the_png_and_a_stable_text(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "notebooks"))
    try:
        lab = importlib.import_module("_lab")
    finally:
        sys.path.remove(str(ROOT / "notebooks"))
    run = lab.Lab(
        "q7_health",
        base_url="",
        api_key="",
        connect_timeout=5.0,
        read_timeout=5.0,
        results_dir=str(tmp_path),
    )
    try:
        import roncho_workbook as workbook

        finding = workbook.probe_health(run.target)
        view = run.figure(finding)
        page = run.answer(finding)
    finally:
        run.close()
    assert view._repr_png_().startswith(PNG_MAGIC)
    assert repr(view) == "<figure of q7_health>"
    assert (tmp_path / "q7_health__figure.png").read_bytes() == view._repr_png_()
    assert (tmp_path / "q7_health__figure.svg").exists()
    assert "](q7_health__figure.png)" in (tmp_path / "q7_health.md").read_text()
    # The notebook already shows the image inline; its Markdown answer does not repeat it.
    assert "](q7_health__figure.png)" not in page.data


def _tables_from_csv(out: Path, notebook: str) -> Finding:
    """A Finding rebuilt from the CSV tables a run wrote (its trace is not recorded)."""
    import pandas as pd

    finding = Finding(question=notebook)
    for csv in out.glob(f"{notebook}__*.csv"):
        frame = pd.read_csv(csv, keep_default_na=False, na_values=[""])
        finding.tables[csv.stem.split("__", 1)[1]] = [
            {k: None if isinstance(v, float) and pd.isna(v) else v for k, v in row.items()}
            for row in frame.to_dict("records")
        ]
    return finding


@pytest.mark.timeout(700)
def test_figures_redrawn_from_the_recorded_tables_name_their_axes(
    run: tuple[Path, list[str]], figures: Any
) -> None:
    out, notebooks = run
    for name in notebooks:
        if name == "q6_workspace_delete":  # drawn from the trace's durations, not a table
            continue
        finding = _tables_from_csv(out, name)
        info = finding.tables["run"][0]
        stamp = figures.Stamp(info["server"], str(info["version"]), str(info["date"]))
        fig = figures.DRAWERS[name](finding, stamp)
        try:
            drawn = [ax for ax in fig.axes if ax.axison]
            assert drawn, name
            for ax in drawn:
                assert ax.get_xlabel() and ax.get_ylabel(), f"{name}: an axis without a label"
            title = fig.axes[0].get_title()
            assert f"emulator · version {info['version']} · {info['date']}" in title, title
        finally:
            figures.plt.close(fig)


def test_q1_figure_explains_only_what_it_shows(figures: Any) -> None:
    """No legend for a mark the figure never draws; the blank cells are explained."""
    finding = Finding(question="Q1 authentication and key scopes")
    finding.tables["scopes"] = [
        {"key": "workspace", "action": "list peers", "workspace": "A", "status": "200",
         "agrees": True},
        {"key": "peer", "action": "list workspaces (admin route)", "workspace": "-",
         "status": "401", "agrees": True},
    ]  # fmt: skip
    fig = figures.draw_auth(finding, figures.Stamp("honcho.lan", "3.0.12", DATE))
    try:
        ax = fig.axes[0]
        label = " ".join(ax.get_xlabel().split())
        columns = [t.get_text().replace("\n", " ") for t in ax.get_xticklabels()]
        assert columns == ["list peers (A)", "list workspaces (admin route)"]
        assert "'-'" not in label
        assert "a blank cell: not tried with that key" in label
    finally:
        figures.plt.close(fig)


def test_q8_figure_says_what_each_source_label_means(figures: Any) -> None:
    from roncho_workbook import SOURCE_LABELS

    finding = Finding(question="Q8 differences")
    finding.tables["differences"] = [
        {
            "topic": "search response",
            "SRC 3.0.12": "bare array",
            "OAS-3.3/docs": "docs show {items}",
            "OBS 3.2.0": "bare array",
            "this server": "bare array",
            "agrees with": "SRC 3.0.12, OBS 3.2.0",
        }
    ]
    fig = figures.draw_differences(finding, figures.Stamp("honcho.lan", "3.0.12", DATE))
    try:
        said = " ".join(" ".join(t.get_text().split()) for t in fig.texts)
        for label, meaning in SOURCE_LABELS.items():
            assert f"{label}: {meaning}" in said
        assert "reference" not in fig.axes[0].get_ylabel()
    finally:
        figures.plt.close(fig)


def test_across_figures_draw_each_run_and_name_their_axes(figures: Any) -> None:
    import pandas as pd

    stats = pd.DataFrame(
        [
            {"run": "d/a", "version": "3.0.12", "size": s, "gate": g, "median_s": m, "p90_s": p}
            for s, g, m, p in (("above", "tokens", 0.5, 0.8), ("below", "flush", 3.4, 5.0))
        ]
        + [
            {
                "run": "d/b",
                "version": "3.0.12",
                "size": "below",
                "gate": "age",
                "median_s": 32.0,
                "p90_s": 34.0,
            }
        ]
    )
    scopes = pd.DataFrame(
        [
            {
                "run": r,
                "version": "3.0.12",
                "key": "peer",
                "action": "list peers",
                "workspace": "A",
                "status": st,
                "agrees": ag,
            }
            for r, st, ag in (("d/a", 401, True), ("d/b", 200, False))
        ]
    )
    for fig in (figures.draw_across_latency(stats), figures.draw_across_statuses(scopes)):
        try:
            ax = fig.axes[0]
            assert ax.get_ylabel() and "across runs" in ax.get_title()
            ticks = " ".join(t.get_text() for t in ax.get_xticklabels())
            assert "d/a" in ticks and "d/b" in ticks
        finally:
            figures.plt.close(fig)


@pytest.mark.timeout(700)
def test_no_answer_page_of_any_notebook_shows_a_python_repr(run: tuple[Path, list[str]]) -> None:
    out, notebooks = run
    repr_like = re.compile(r"\bNone\b|\w='|\[\d{3}(, \d{3})*\]|\b[A-Z]\w+\(\w+=")
    for page in [out / "summary.md", *(out / f"{name}.md" for name in notebooks)]:
        for line in page.read_text(encoding="utf-8").splitlines():
            assert not repr_like.search(line), f"{page.name}: {line}"
