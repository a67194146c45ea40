"""One figure per investigation notebook, each answering its question at a glance.

Every figure is drawn from the tables a probe already records (``Finding.tables``, and for
the timelines the durations in its trace), so nothing is measured twice and the notebooks
hold no logic. Categories with no member are never drawn (no empty legend entries); every
axis names its unit; every title ends with the server, its version and the date.

``DRAWERS`` maps a notebook name to its drawing function; `_lab.Lab.figure` calls it.
"""

from __future__ import annotations

import json
import statistics
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import MaxNLocator

from roncho_workbook import Finding, source_legend

# Colours by meaning, the same in every figure (colour-blind-safe Okabe-Ito hues).
GREEN = "#009E73"  # allowed / works / present / agrees
ORANGE = "#E69F00"  # refused as the source says (401, 422)
RED = "#D55E00"  # refused or wrong, unexpectedly
PURPLE = "#CC79A7"  # 403 and other surprises
BLUE = "#0072B2"  # happened (counts), above-threshold
SKY = "#56B4E9"  # below-threshold, pending
GREY = "#BBBBBB"  # absent / gone / nothing happened
DARK = "#555555"  # no answer
YELLOW = "#F0E442"


@dataclass(frozen=True, slots=True)
class Stamp:
    """What every title ends with: the server, its version and the date of the run."""

    server: str
    version: str
    date: str

    def title(self, headline: str) -> str:
        return f"{headline}\n{self.server} · version {self.version or 'not revealed'} · {self.date}"


@dataclass(frozen=True, slots=True)
class Cell:
    """One grid cell: its category (colour and legend entry) and the text written in it."""

    category: str
    text: str = ""
    flagged: bool = False  # drawn with a thick outline: differs from what the source says


def grid(
    ax: Axes,
    rows: list[str],
    cols: list[str],
    cells: dict[tuple[str, str], Cell],
    palette: dict[str, str],
    *,
    xlabel: str,
    ylabel: str,
    flag_label: str = "outlined: differs from the 3.0.12 source",
    fontsize: float = 8.0,
    wrap: int = 18,
) -> None:
    """A categorical grid: rows x columns, each cell coloured by its category.

    Cells not in ``cells`` stay blank (not tried); the legend lists only categories used.
    """
    used: list[str] = []
    for r, row in enumerate(rows):
        for c, col in enumerate(cols):
            cell = cells.get((row, col))
            if cell is None:
                continue
            if cell.category not in used:
                used.append(cell.category)
            colour = palette.get(cell.category, GREY)
            ax.add_patch(
                Rectangle(
                    (c, r),
                    1,
                    1,
                    facecolor=colour,
                    edgecolor="black" if cell.flagged else "white",
                    linewidth=3 if cell.flagged else 1,
                )
            )
            if cell.text:
                ax.text(
                    c + 0.5,
                    r + 0.5,
                    "\n".join(textwrap.wrap(cell.text, wrap)[:3]),
                    ha="center",
                    va="center",
                    fontsize=fontsize,
                    color="white" if colour in (DARK, BLUE, RED) else "black",
                )
    ax.set_xlim(0, len(cols))
    ax.set_ylim(len(rows), 0)
    ax.set_xticks([c + 0.5 for c in range(len(cols))])
    ax.set_xticklabels(["\n".join(textwrap.wrap(c, 16)) for c in cols], fontsize=8)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_yticks([r + 0.5 for r in range(len(rows))])
    ax.set_yticklabels(rows, fontsize=8)
    ax.set_xlabel("\n".join(textwrap.wrap(xlabel, 90)), fontsize=9)
    ax.set_ylabel(ylabel)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    handles: list[Any] = [Patch(facecolor=palette.get(k, GREY), label=k) for k in used]
    if any(cell.flagged for cell in cells.values()):
        handles.append(Patch(facecolor="white", edgecolor="black", linewidth=3, label=flag_label))
    if handles:
        ax.legend(
            handles=handles,
            loc="upper left",
            bbox_to_anchor=(0, -0.02),
            ncol=min(2, len(handles)),
            fontsize=8,
            frameon=False,
        )


def _rows(finding: Finding, name: str) -> list[dict[str, Any]]:
    return list(finding.tables.get(name, []))


def _status_class(status: Any) -> str:
    if status is None or (isinstance(status, float) and pd.isna(status)) or status == "":
        return "no answer"
    text = str(status)
    if text == "2xx" or text.startswith("2"):
        return "allowed (2xx)"
    return f"refused ({text})"


def _status_palette(categories: Iterable[str]) -> dict[str, str]:
    colours = {"allowed (2xx)": GREEN, "refused (401)": ORANGE, "refused (403)": PURPLE}
    colours["no answer"] = DARK
    return {c: colours.get(c, RED) for c in categories}


def _empty(fig: Figure, ax: Axes, stamp: Stamp, headline: str, why: str) -> Figure:
    """A figure that says plainly there was nothing to draw, and why."""
    ax.axis("off")
    ax.text(0.5, 0.5, why, ha="center", va="center", wrap=True, fontsize=10)
    ax.set_title(stamp.title(headline), fontsize=10)
    return fig


# -- Q1 -------------------------------------------------------------------------------------
def draw_auth(finding: Finding, stamp: Stamp) -> Figure:
    """Key kind x action: allowed or refused (with the status), outlined where the source
    says otherwise; no key and a wrong key on the first action; the key minting calls."""
    scopes = _rows(finding, "scopes")
    cells: dict[tuple[str, str], Cell] = {}
    rows: list[str] = []
    cols: list[str] = []

    def put(row: str, col: str, status: Any, flagged: bool = False) -> None:
        if row not in rows:
            rows.append(row)
        if col not in cols:
            cols.append(col)
        text = "2xx" if str(status).startswith("2") else str(status)
        cells[(row, col)] = Cell(_status_class(status), f"{status}" if status else text, flagged)

    first_action = "list peers (A)"
    calls = finding.trace.calls
    minted_by = "admin key" if scopes else "no key"
    for call in calls:
        if call.step.startswith("no key:"):
            put("no key", first_action, call.status)
        elif call.step.startswith("wrong key:"):
            put("wrong key", first_action, call.status)
    for r in scopes:
        where = "" if r["workspace"] == "-" else f" ({r['workspace']})"
        put(f"{r['key']} key", f"{r['action']}{where}", r["status"], not r["agrees"])
    for call in calls:
        if call.step.startswith("mint a "):
            kind = call.step.removeprefix("mint a ").removesuffix(" key")
            # A client call that succeeded has no status of its own: it is a 2xx.
            status = call.status if call.status is not None or call.outcome != "ok" else "2xx"
            put(minted_by, f"mint a {kind} key for A", status)
    order = ["no key", "wrong key", "admin key", "workspace key", "peer key", "session key"]
    rows.sort(key=lambda r: order.index(r) if r in order else len(order))
    fig, ax = plt.subplots(figsize=(max(7.0, 0.95 * len(cols) + 2.5), 0.55 * len(rows) + 2.8))
    if not cells:
        return _empty(fig, ax, stamp, "Q1 keys", "The probe made no call (see its answer).")
    grid(
        ax,
        rows,
        cols,
        cells,
        _status_palette({c.category for c in cells.values()}),
        xlabel="action tried (HTTP request in scratch workspace A or B, or on an admin route, "
        "which names no workspace); a blank cell: not tried with that key",
        ylabel="key sent (Authorization header)",
        wrap=10,
    )
    headline = "Q1 What each kind of key may do (HTTP status per try)"
    if not scopes and cells.get(("no key", first_action), Cell("")).category == "allowed (2xx)":
        headline = "Q1 Authentication is off: a request without a key is allowed"
    ax.set_title(stamp.title(headline), fontsize=10)
    fig.tight_layout()
    return fig


# -- Q2 -------------------------------------------------------------------------------------
def draw_deletion(finding: Finding, stamp: Stamp) -> Figure:
    """What is still listable before a session delete, right after its 202, and after the
    purge, on a time axis in seconds from the delete."""
    rows = _rows(finding, "session_delete")
    timing = (_rows(finding, "timing") or [{}])[0]
    fig, ax = plt.subplots(figsize=(8, 0.6 * max(len(rows), 1) + 2.6))
    headline = "Q2 What a session delete removes, and when"
    if not rows:
        return _empty(fig, ax, stamp, headline, "The probe recorded no session delete.")
    purge = timing.get("purge seen after s")
    purged = purge is not None and not pd.isna(purge)
    end = float(purge) if purged else float(timing.get("wait bound s") or 1.0)
    last_label = "after purge" if purged else "at the bound"
    pad = max(end * 0.35, 0.2)
    spans = [
        (-pad, 0.0, "before delete"),
        (0.0, end, "right after 202"),
        (end, end + pad, last_label),
    ]
    labels = []
    used: set[bool] = set()
    for y, row in enumerate(rows):
        labels.append(str(row["item"]))
        for start, stop, column in spans:
            value = row.get(column, row.get("after purge", row.get("at the bound")))
            present = bool(value) and str(value) not in ("0", "False")
            used.add(present)
            ax.barh(y, stop - start, left=start, color=GREEN if present else GREY, height=0.6)
            if not isinstance(value, bool) and str(value) not in ("True", "False"):
                ax.text(
                    (start + stop) / 2, y, f"{value} listed", ha="center", va="center", fontsize=8
                )
    ax.axvline(0, color="black", linewidth=1)
    status = timing.get("delete status")
    ax.text(0, -0.75, f" DELETE session → {status}", fontsize=8, va="bottom")
    ax.axvline(end, color="black", linewidth=1, linestyle="--")
    ax.text(
        end,
        -0.75,
        f"purge seen at {end:.2f} s " if purged else f"bound {end:.0f} s: not purged ",
        fontsize=8,
        va="bottom",
        ha="right",
    )
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.set_ylim(len(rows) - 0.4, -1.1)
    ax.set_xlim(-pad, end + pad)
    ax.set_xlabel(
        "seconds since the session DELETE answered (s)\n"
        "(left of 0: just before the delete; state checked at 0 and when the purge was seen)",
        fontsize=9,
    )
    ax.set_ylabel("stored item (listed by the API?)")
    handles = [Patch(facecolor=GREEN, label="listed / present")] if True in used else []
    handles += [Patch(facecolor=GREY, label="gone")] if False in used else []
    ax.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(0, -0.22),
        ncol=2,
        fontsize=8,
        frameon=False,
    )
    ax.set_title(stamp.title(headline), fontsize=10)
    fig.tight_layout()
    return fig


# -- Q3 switches ---------------------------------------------------------------------------
def draw_switches(finding: Finding, stamp: Stamp) -> Figure:
    """Switch x outcome: work units queued, conclusions made, and the verdict against what
    the source expects."""
    rows = _rows(finding, "switches")
    fig, ax = plt.subplots(figsize=(8.5, 0.55 * max(len(rows), 1) + 2.6))
    headline = "Q3 Which switches stop derivation (one message per case)"
    if not rows:
        return _empty(fig, ax, stamp, headline, "The probe recorded no case.")
    cols = ["work units queued", "conclusions made", "verdict"]
    cells: dict[tuple[str, str], Cell] = {}
    names = []
    for r in rows:
        name = str(r["case"])
        names.append(name)
        for col, key in zip(cols[:2], ("work units seen", "conclusions"), strict=True):
            count = int(r[key] or 0)
            category = "something happened (count > 0)" if count else "nothing happened (0)"
            cells[(name, col)] = Cell(category, str(count))
        verdict = str(r["verdict"]).split(" (")[0]
        category = "derived" if verdict == "derived" else "stopped"
        cells[(name, cols[2])] = Cell(
            category, f"{verdict} (source: {r['expected']})", flagged=not bool(r["agrees"])
        )
    palette = {
        "something happened (count > 0)": BLUE,
        "nothing happened (0)": GREY,
        "derived": SKY,
        "stopped": ORANGE,
    }
    grid(
        ax,
        names,
        cols,
        cells,
        palette,
        xlabel="outcome (counts: work units in queue_status; conclusions listed)",
        ylabel="switch turned off (case)",
        wrap=22,
    )
    ax.set_title(stamp.title(headline), fontsize=10)
    fig.tight_layout()
    return fig


# -- Q3 latency -----------------------------------------------------------------------------
GATE_COLOURS = (BLUE, ORANGE, GREEN, PURPLE, SKY, YELLOW)
# The latency table's ``check`` for a release the configured gates cannot explain.
INCONSISTENT = "INCONSISTENT"


def draw_latency(finding: Finding, stamp: Stamp) -> Figure:
    """Per size class, every trial's time to first conclusion coloured by the gate that
    released it (median and p90 marked); below, the queue's pending and in-progress work
    units summed over all trials across the run."""
    latency = pd.DataFrame(_rows(finding, "latency"))
    series = pd.DataFrame(_rows(finding, "queue_series"))
    queue = _queue_over_run(latency, series)
    headline = "Q3 Deriver latency: message → first conclusion"
    if queue is None:
        fig, top = plt.subplots(figsize=(8.5, 3.8))
        bottom = None
    else:
        fig, (top, bottom) = plt.subplots(
            2, 1, figsize=(8.5, 6.8), gridspec_kw={"height_ratios": [1.1, 1]}
        )
    if latency.empty:
        return _empty(fig, top, stamp, headline, "The probe recorded no trial.")
    sizes = [s for s in ("below", "above") if s in set(latency["size"])]
    sizes += sorted(set(latency["size"]) - set(sizes))
    gates = list(dict.fromkeys(str(g) for g in latency["gate"]))
    colour = {g: GATE_COLOURS[i % len(GATE_COLOURS)] for i, g in enumerate(gates)}
    values = latency["first_conclusion_s"].where(~latency["timed_out"].astype(bool))
    seen = pd.concat([values.dropna(), latency["bound_s"][latency["timed_out"].astype(bool)]])
    positive = seen[seen > 0]
    log = len(positive) > 0 and positive.max() / max(positive.min(), 1e-3) > 30
    ylabels = []
    for y, size in enumerate(sizes):
        group = latency[latency["size"] == size]
        tokens = pd.to_numeric(group["tokens"], errors="coerce").dropna()
        tok = f"{int(tokens.median())} tokens" if len(tokens) else "tokens unknown"
        ylabels.append(f"{size} 512 tokens\n({tok}, n={len(group)})")
        slots = len(group)
        for i, (_, trial) in enumerate(group.iterrows()):
            dy = (i - (slots - 1) / 2) * (0.5 / max(slots, 1))
            if bool(trial["timed_out"]):
                top.scatter(float(trial["bound_s"]), y + dy, marker="x", color=RED, s=40)
            else:
                odd = str(trial.get("check", "")) == INCONSISTENT
                top.scatter(
                    float(trial["first_conclusion_s"]),
                    y + dy,
                    color=colour[str(trial["gate"])],
                    s=60 if odd else 28,
                    edgecolor=RED if odd else "black",
                    linewidth=2 if odd else 0.4,
                )
        for gate in dict.fromkeys(str(g) for g in group["gate"]):
            done = group[(group["gate"].astype(str) == gate) & ~group["timed_out"].astype(bool)]
            got = pd.to_numeric(done["first_conclusion_s"], errors="coerce").dropna()
            if len(got) == 0:
                continue
            median, p90 = _median_p90(finding, size, gate, got)
            top.plot([median, median], [y - 0.3, y + 0.3], color="black", linewidth=2)
            top.plot([p90, p90], [y - 0.2, y + 0.2], color="black", linewidth=1, linestyle=":")
            ylabels[-1] += f"\n{gate.split(' (')[0]}: median {median:.3g} s, p90 {p90:.3g} s"
    if log:
        top.set_xscale("log")
    top.set_yticks(range(len(sizes)), ylabels, fontsize=8)
    top.set_ylim(len(sizes) - 0.5, -0.6)
    top.set_xlabel(
        "seconds from message creation to first conclusion (s" + (", log)" if log else ")")
    )
    top.set_ylabel("message size class")
    handles: list[Any] = []
    for gate in gates:
        if ((latency["gate"].astype(str) == gate) & ~latency["timed_out"].astype(bool)).any():
            handles.append(
                plt.Line2D(
                    [],
                    [],
                    marker="o",
                    linestyle="",
                    color=colour[gate],
                    label=f"released by: {gate}",
                )
            )
    timed_out = int(latency["timed_out"].astype(bool).sum())
    if timed_out:
        handles.append(
            plt.Line2D(
                [],
                [],
                marker="x",
                linestyle="",
                color=RED,
                label=f"no conclusion by the bound (n={timed_out})",
            )
        )
    odd = int((latency.get("check", pd.Series(dtype=str)).astype(str) == INCONSISTENT).sum())
    if odd:
        handles.append(
            plt.Line2D(
                [],
                [],
                marker="o",
                linestyle="",
                color="white",
                markeredgecolor=RED,
                markeredgewidth=2,
                label=f"gate the configured settings cannot explain (n={odd})",
            )
        )
    handles.append(plt.Line2D([], [], color="black", linewidth=2, label="median"))
    handles.append(plt.Line2D([], [], color="black", linewidth=1, linestyle=":", label="p90"))
    top.legend(handles=handles, loc="best", fontsize=7, framealpha=0.8)
    top.set_title(stamp.title(headline), fontsize=10)
    if bottom is not None and queue is not None:
        for column, colour_, label in (
            ("pending", SKY, "pending (waiting for a gate)"),
            ("in_progress", BLUE, "in progress (being derived)"),
        ):
            if column in queue and queue[column].max() > 0:
                bottom.step(queue["t"], queue[column], where="post", color=colour_, label=label)
        bottom.set_xlabel("seconds since the first trial's message was sent (s)")
        bottom.set_ylabel("work units (count,\nall trials)")
        bottom.yaxis.get_major_locator().set_params(integer=True)
        bottom.set_ylim(bottom=0)
        if bottom.get_legend_handles_labels()[0]:
            bottom.legend(loc="best", fontsize=7, framealpha=0.8)
        bottom.set_title(
            "queue_status over the run: work units of the trials being watched, summed", fontsize=9
        )
    fig.tight_layout()
    return fig


def _median_p90(finding: Finding, size: str, gate: str, got: pd.Series) -> tuple[float, float]:
    """The median and p90 the probe's own stats table gives, else computed here."""
    for row in finding.tables.get("latency_stats", []):
        if row.get("size") == size and str(row.get("gate")) == gate:
            median, p90 = row.get("median_s"), row.get("p90_s")
            if median is not None and p90 is not None:
                return float(median), float(p90)
    return float(got.median()), float(got.quantile(0.9))


def _queue_over_run(latency: pd.DataFrame, series: pd.DataFrame) -> pd.DataFrame | None:
    """Pending and in-progress work units summed over trials, on one clock.

    Each trial's series is relative to its own send time; the send times put them on one
    clock. Between two polls a trial keeps its last counts (a step function).
    """
    needed = {"trial", "size", "t", "pending", "in_progress"}
    if series.empty or not needed <= set(series) or "sent_at" not in latency:
        return None
    sent = {
        (r["size"], r["trial"]): datetime.fromisoformat(str(r["sent_at"]))
        for _, r in latency.iterrows()
    }
    start = min(sent.values())
    frame = series.copy()
    frame["at"] = [
        (sent[(s, t)] - start).total_seconds() + float(x) if (s, t) in sent else float("nan")
        for s, t, x in zip(frame["size"], frame["trial"], frame["t"], strict=True)
    ]
    frame = frame.dropna(subset=["at"])
    if frame.empty:
        return None
    clock = sorted(set(frame["at"]))
    total = pd.DataFrame({"t": clock, "pending": 0, "in_progress": 0})
    for _, one in frame.groupby(["size", "trial"]):
        one = one.sort_values("at").drop_duplicates("at", keep="last").set_index("at")
        counts = one[["pending", "in_progress"]].apply(pd.to_numeric, errors="coerce")
        counts = counts.where(counts >= 0)  # -1: that poll failed; keep the last good one
        aligned = counts.ffill().reindex(clock, method="ffill")
        # A trial counts only while it was watched: after its last poll nobody looked.
        watched = (total["t"] >= one.index.min()) & (total["t"] <= one.index.max())
        aligned = aligned.fillna(0)
        aligned.loc[~watched.to_numpy()] = 0
        total["pending"] += aligned["pending"].to_numpy()
        total["in_progress"] += aligned["in_progress"].to_numpy()
    return total


# -- Q4 -------------------------------------------------------------------------------------
def draw_filters(finding: Finding, stamp: Stamp) -> Figure:
    """Filter x endpoint: works, refused (as the source says or not), or wrong rows."""
    rows = _rows(finding, "filters")
    cells: dict[tuple[str, str], Cell] = {}
    names: list[str] = []
    cols: list[str] = []
    for r in rows:
        name = f"{r['case']}: {_short(r['filters'], 44)}"
        same = next((n for n in names if n.endswith(": " + _short(r["filters"], 44))), None)
        name = same or name
        if name not in names:
            names.append(name)
        col = str(r["where"])
        if col not in cols:
            cols.append(col)
        status = str(r["status"])
        ok = status.startswith("2")
        agrees = bool(r["agrees"])
        if ok and agrees:
            category, text = "works (returns what it should)", f"{status}: {r['seen']}"
        elif ok:
            category, text = "answers, wrong rows", f"{status}: {r['seen']}"
        elif agrees:
            category, text = "refused, as the source says", status
        else:
            category, text = "refused, unexpectedly", status
        cells[(name, col)] = Cell(category, text)
    fig, ax = plt.subplots(figsize=(9.5, 0.5 * max(len(names), 1) + 2.6))
    headline = "Q4 Which metadata filters work where"
    if not cells:
        return _empty(fig, ax, stamp, headline, "The probe recorded no filter.")
    palette = {
        "works (returns what it should)": GREEN,
        "answers, wrong rows": PURPLE,
        "refused, as the source says": ORANGE,
        "refused, unexpectedly": RED,
    }
    grid(
        ax,
        names,
        cols,
        cells,
        palette,
        xlabel="endpoint (HTTP status: messages returned, by label m1-m3; blank = not tried)",
        ylabel="filter sent (JSON)",
        wrap=22,
    )
    ax.set_title(stamp.title(headline), fontsize=10)
    fig.tight_layout()
    return fig


def _short(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- Q5 -------------------------------------------------------------------------------------
def draw_provenance(finding: Finding, stamp: Stamp) -> Figure:
    """Which links lead from a conclusion (or a chat answer) back to its message."""
    fields = _rows(finding, "fields")
    chat = _rows(finding, "chat_evidence")
    cols = ["source_ids", "a message-link field", "names the message id", "chat evidence"]
    cells: dict[tuple[str, str], Cell] = {}
    names: list[str] = []
    for r in fields:
        name = f"{r['conclusion']} conclusion"
        names.append(name)
        if not bool(r["present"]):
            cells[(name, cols[0])] = Cell("not produced within the bound", "none made")
            continue
        ids = str(r["source_ids"])
        has_ids = ids not in ("null", "None", "[]", "", "nan", "absent")
        cells[(name, cols[0])] = Cell(_link(has_ids), ids)
        link = str(r["message link field"])
        cells[(name, cols[1])] = Cell(_link(link not in ("none", "", "nan")), link)
        mentions = bool(r["mentions the message id"])
        cells[(name, cols[2])] = Cell(_link(mentions), "yes" if mentions else "no")
    for r in chat:
        name = "chat answer (include_evidence)"
        names.append(name)
        if str(r["status"]).startswith("2"):
            named = bool(r["evidence names the message"])
            text = f"{r['status']}: " + ("names it" if named else "does not name it")
            cells[(name, cols[3])] = Cell(_link(named), text)
        else:
            cells[(name, cols[3])] = Cell("refused", str(r["status"]))
    fig, ax = plt.subplots(figsize=(8.5, 0.6 * max(len(names), 1) + 2.6))
    headline = "Q5 Can a conclusion be traced back to its message?"
    if not cells:
        return _empty(fig, ax, stamp, headline, "The probe recorded no conclusion.")
    palette = {
        "link to the message": GREEN,
        "no link": GREY,
        "refused": RED,
        "not produced within the bound": DARK,
    }
    grid(
        ax,
        names,
        cols,
        cells,
        palette,
        xlabel="where a link could be (field of the conclusion or of the chat reply)",
        ylabel="what was made",
        wrap=20,
    )
    ax.set_title(stamp.title(headline), fontsize=10)
    fig.tight_layout()
    return fig


def _link(yes: bool) -> str:
    return "link to the message" if yes else "no link"


# -- Q6 -------------------------------------------------------------------------------------
def draw_workspace_delete(finding: Finding, stamp: Stamp) -> Figure:
    """The 409 -> 202 -> gone sequence on a time axis (call durations added up, plus the
    wait until the workspace vanished)."""
    calls = finding.trace.calls
    timing = (_rows(finding, "timing") or [{}])[0]
    fig, ax = plt.subplots(figsize=(8.5, 0.55 * (len(calls) + 1) + 2.4))
    headline = "Q6 Deleting a workspace: 409, then 202 after the session delete, then gone"
    if not calls:
        return _empty(fig, ax, stamp, headline, "The probe made no call.")
    vanished = timing.get("workspace gone after s")
    gone = vanished is not None and not pd.isna(vanished)
    wait = float(vanished) if gone else float(timing.get("wait bound s") or 0.0)
    clock = 0.0
    names = []
    accepted_at = None
    for y, call in enumerate(calls):
        names.append(call.step)
        category = _status_class(call.status)
        colour = _status_palette([category])[category]
        ax.barh(y, max(call.seconds, 1e-3), left=clock, color=colour, height=0.5)
        ax.scatter(clock, y, color=colour, s=30, zorder=3)
        ax.annotate(
            f"{call.method} → {call.status}",
            (clock + call.seconds, y),
            xytext=(4, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
        clock += call.seconds
        if call.step == "delete workspace again":
            accepted_at = clock
            clock += wait
    gone_at = (accepted_at or 0.0) + wait
    names.append("workspace gone" if gone else "still there at the bound")
    ax.scatter(gone_at, len(calls), marker="X" if gone else "x", color="black", s=60)
    ax.annotate(
        f"{wait:.2f} s after the 202" if gone else f"not gone after {wait:.0f} s",
        (gone_at, len(calls)),
        xytext=(6, 0),
        textcoords="offset points",
        va="center",
        fontsize=8,
    )
    if accepted_at is not None:
        ax.axvspan(
            accepted_at, gone_at, color=YELLOW, alpha=0.3, label="deletion accepted, purging"
        )
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.set_ylim(len(names) - 0.4, -0.6)
    ax.set_xlim(-0.02 * max(clock, gone_at), max(clock, gone_at) * 1.25 + 1e-3)
    ax.set_xlabel("seconds since the first workspace DELETE was sent (s; call durations added up)")
    ax.set_ylabel("step (in the order made)")
    categories = list(dict.fromkeys(_status_class(c.status) for c in calls))
    palette = _status_palette(categories)
    handles: list[Any] = [Patch(facecolor=palette[c], label=c) for c in categories]
    if accepted_at is not None:
        handles.append(Patch(facecolor=YELLOW, alpha=0.3, label="accepted, until gone"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    ax.set_title(stamp.title(headline), fontsize=10)
    fig.tight_layout()
    return fig


# -- Q7 -------------------------------------------------------------------------------------
def draw_health(finding: Finding, stamp: Stamp) -> Figure:
    """What the server tells about itself, per place asked, and whether it names a version."""
    answers = (_rows(finding, "answers") or [{}])[0]
    headers = _rows(finding, "headers")
    items: list[tuple[str, str, bool]] = []
    for key, value in answers.items():
        text = "" if value is None else str(value)
        reveals = key in ("info.version", "server_version()") and text not in ("", "None")
        items.append((_HEALTH_LABELS.get(key, key), text, reveals))
    by_path: dict[str, list[dict[str, Any]]] = {}
    for h in headers:
        by_path.setdefault(str(h["path"]), []).append(h)
    for path, rows in by_path.items():
        revealing = [h for h in rows if bool(h["reveals a version"])]
        shown = revealing or rows
        text = "; ".join(f"{h['header']}: {h['value']}" for h in shown if h["header"] != "date")
        items.append((f"GET {path}: response headers", text, bool(revealing)))
    seen = ", ".join(dict.fromkeys(text for _, text, reveals in items if reveals))
    fig, ax = plt.subplots(figsize=(9, 0.5 * max(len(items), 1) + 2.2))
    headline = "Q7 What the server tells about itself"
    if not items:
        return _empty(fig, ax, stamp, headline, "The probe recorded nothing.")
    cells = {
        (label, "answer"): Cell(
            "names a version" if reveals else "no version in it", _short(text, 110) or "(empty)"
        )
        for label, text, reveals in items
    }
    grid(
        ax,
        [label for label, _, _ in items],
        ["answer"],
        cells,
        {"names a version": GREEN, "no version in it": GREY},
        xlabel=f"what came back (version seen: {seen or 'none'})",
        ylabel="where asked (HTTP GET or client call)",
        wrap=110,
    )
    ax.set_xticks([])
    ax.set_title(stamp.title(headline), fontsize=10)
    fig.tight_layout()
    return fig


_HEALTH_LABELS = {
    "health status": "GET /health: status",
    "health body": "GET /health: body",
    "probe()": "client probe()",
    "openapi status": "GET /openapi.json: status",
    "info.title": "GET /openapi.json: info.title",
    "info.version": "GET /openapi.json: info.version",
    "server_version()": "client server_version()",
}


# -- Q8 -------------------------------------------------------------------------------------
def draw_differences(finding: Finding, stamp: Stamp) -> Figure:
    """Topic x source: does this server agree with what each source says?"""
    rows = _rows(finding, "differences")
    sources = [
        c for c in (rows[0] if rows else {}) if c not in ("topic", "this server", "agrees with")
    ]
    cols = [*sources, "this server"]
    cells: dict[tuple[str, str], Cell] = {}
    topics = []
    for r in rows:
        topic = str(r["topic"])
        topics.append(topic)
        agreed = str(r.get("agrees with", ""))
        for source in sources:
            said = str(r[source])
            if said in ("not tried", "-", "", "untyped"):
                category = "source silent / not tried"
            elif source in agreed:
                category = "server agrees with this source"
            else:
                category = "server differs from this source"
            cells[(topic, source)] = Cell(category, _short(said, 40))
        cells[(topic, "this server")] = Cell(
            "what this server did", _short(str(r["this server"]), 40)
        )
    fig, ax = plt.subplots(figsize=(11, 0.55 * max(len(topics), 1) + 2.6))
    headline = "Q8 Where this server agrees with each source"
    if not cells:
        return _empty(fig, ax, stamp, headline, "The probe recorded no topic.")
    palette = {
        "server agrees with this source": GREEN,
        "server differs from this source": RED,
        "source silent / not tried": GREY,
        "what this server did": "#DDEEFF",
    }
    grid(
        ax,
        topics,
        cols,
        cells,
        palette,
        xlabel="source (cell: what it says; last column: what this server answered)",
        ylabel="topic",
        fontsize=6.5,
        wrap=26,
    )
    ax.set_title(stamp.title(headline), fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    # What each column's label means, on the figure itself: it is often seen on its own.
    fig.text(
        0.01,
        0.01,
        "\n".join(textwrap.wrap("Sources: " + source_legend() + ".", 160)),
        fontsize=6.5,
        ha="left",
        va="bottom",
    )
    return fig


# -- across runs ------------------------------------------------------------------------------
def _run_label(row: Any) -> str:
    """The run's folder, wrapped to sit under its own bars, and the version it reported."""
    version = row.get("version")
    wrapped = "\n".join(textwrap.wrap(str(row["run"]).replace("-", "-\u200b"), 22))
    return f"{wrapped.replace(chr(0x200B), '')}\n({version or 'version not revealed'})"


def draw_across_latency(stats: pd.DataFrame) -> Figure:
    """Q3 across runs: the median (bar) and p90 (tick) latency per size class and gate, one
    group of bars per run, so a change of gate or of timing between runs stands out."""
    headline = "Q3 across runs: message → first conclusion, median (bar) and p90 (tick)"
    fig, ax = plt.subplots(figsize=(10, 4.6))
    if stats.empty or "median_s" not in stats:
        ax.set_axis_off()
        ax.set_title(headline, fontsize=10)
        ax.text(0.5, 0.5, "No run in this record has a Q3 latency table.", ha="center")
        return fig
    runs = list(dict.fromkeys(stats["run"]))
    labels = {r["run"]: _run_label(r) for _, r in stats.iterrows()}
    classes = list(dict.fromkeys(f"{r['size']} · {r['gate']}" for _, r in stats.iterrows()))
    colour = {c: GATE_COLOURS[i % len(GATE_COLOURS)] for i, c in enumerate(classes)}
    width = 0.8 / max(len(classes), 1)
    for _, row in stats.iterrows():
        key = f"{row['size']} · {row['gate']}"
        x = runs.index(row["run"]) - 0.4 + width * (classes.index(key) + 0.5)
        median = pd.to_numeric(row["median_s"], errors="coerce")
        p90 = pd.to_numeric(row.get("p90_s"), errors="coerce")
        if pd.isna(median):
            ax.text(x, 0, "none\nreleased", ha="center", va="bottom", fontsize=6, color=RED)
            continue
        ax.bar(x, float(median), width * 0.9, color=colour[key])
        if not pd.isna(p90):
            ax.plot([x - width * 0.35, x + width * 0.35], [float(p90)] * 2, color="black")
    ax.set_xticks(range(len(runs)))
    ax.set_xticklabels([labels[r] for r in runs], fontsize=6.5)
    ax.set_ylabel("seconds")
    positive = pd.to_numeric(stats["median_s"], errors="coerce").dropna()
    positive = positive[positive > 0]
    if len(positive) and positive.max() / max(positive.min(), 1e-3) > 30:
        ax.set_yscale("log")
    ax.legend(
        handles=[Patch(facecolor=colour[c], label=f"size · gate: {c}") for c in classes],
        fontsize=7,
        frameon=False,
        loc="upper left",
    )
    ax.set_title(headline, fontsize=10)
    fig.tight_layout()
    return fig


def draw_across_statuses(scopes: pd.DataFrame) -> Figure:
    """Q1 across runs: the status each key got for each action, one column per run."""
    headline = "Q1 across runs: the status each key got"
    if scopes.empty or "status" not in scopes:
        fig, ax = plt.subplots(figsize=(8, 2.5))
        ax.set_axis_off()
        ax.set_title(headline, fontsize=10)
        ax.text(0.5, 0.5, "No run in this record has a Q1 scopes table.", ha="center")
        return fig
    runs = list(dict.fromkeys(scopes["run"]))
    rows = list(
        dict.fromkeys(
            f"{r['key']} · {r['action']} · {r['workspace']}" for _, r in scopes.iterrows()
        )
    )
    cells = {}
    for _, r in scopes.iterrows():
        status = r["status"]
        missing = not isinstance(status, str) and pd.isna(status)
        text = "no answer" if missing else str(int(status) if isinstance(status, float) else status)
        category = _status_class(None if missing else text)
        flagged = str(r.get("agrees")) == "False"
        cells[(f"{r['key']} · {r['action']} · {r['workspace']}", r["run"])] = Cell(
            category, text, flagged
        )
    labels = {r["run"]: _run_label(r) for _, r in scopes.iterrows()}
    palette = _status_palette(c.category for c in cells.values())
    fig, ax = plt.subplots(figsize=(max(8.0, 4 + 1.6 * len(runs)), 0.22 * len(rows) + 2.4))
    grid(
        ax,
        rows,
        [labels[r] for r in runs],
        {(row, labels[run]): cell for (row, run), cell in cells.items()},
        palette,
        xlabel="run (server version)",
        ylabel="key · action · workspace",
        fontsize=6,
    )
    ax.set_title(headline, fontsize=10)
    fig.tight_layout()
    return fig


# -- Q9 -------------------------------------------------------------------------------------
def draw_webhooks(finding: Finding, stamp: Stamp) -> Figure:
    """Left: per trial, seconds from the sync to the queue.empty event, to polling seeing
    the queue drained, and to polling seeing the last conclusion. Right: deliveries per
    receiver (answering 200, answering 500, down then back) for each event."""
    trials = _rows(finding, "trials")
    failure = _rows(finding, "failure")
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [3, 2]})
    headline = "Q9 Webhooks: queue.empty against polling queue_status"
    if not trials:
        _empty(fig, right, stamp, headline, "")
        return _empty(fig, left, stamp, headline, "No trial ran (no endpoint registered).")
    marks = (
        ("event_after_sync_s", "queue.empty received", BLUE, "o"),
        ("drained_seen_s", "polling saw the queue drained", ORANGE, "x"),
        ("last_conclusion_seen_s", "polling saw the last conclusion", GREEN, "^"),
    )
    for name, label, colour, marker in marks:
        points = [(r["trial"], r[name]) for r in trials if r.get(name) is not None]
        if points:
            xs, ys = zip(*points, strict=True)
            left.scatter(xs, ys, color=colour, marker=marker, label=label, zorder=3)
    events = sorted(r["event_after_sync_s"] for r in trials if r.get("event_after_sync_s"))
    if events:
        left.axhline(
            statistics.median(events), color=BLUE, linestyle="--", linewidth=1, label="event median"
        )
    missed = [r["trial"] for r in trials if not r.get("event")]
    for trial in missed:
        left.axvline(trial, color=RED, linewidth=2, alpha=0.5)
    if missed:
        left.plot([], [], color=RED, linewidth=2, alpha=0.5, label="no event within the bound")
    left.xaxis.set_major_locator(MaxNLocator(integer=True))
    left.set_xlabel("trial (one fresh session each)")
    left.set_ylabel("seconds after the sync returned (s)")
    left.set_ylim(bottom=0)
    left.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    if failure:
        labels = [f"{r['receiver']}\n{r['event']}" for r in failure]
        counts = [int(r["deliveries"]) for r in failure]
        colours = [
            GREEN if "200" in r["receiver"] else RED if "500" in r["receiver"] else GREY
            for r in failure
        ]
        right.barh(range(len(counts)), counts, color=colours)
        for y, count in enumerate(counts):
            right.annotate(str(count), (count, y), xytext=(4, 0), textcoords="offset points",
                           va="center", fontsize=8)  # fmt: skip
        right.set_yticks(range(len(counts)), labels, fontsize=7)
        right.set_ylim(len(counts) - 0.5, -0.5)
        watched = failure[0].get("watched_s")
        right.set_xlabel(f"deliveries (count; watched {watched} s)")
        right.set_xticks(range(max(counts, default=0) + 2))
        right.set_ylabel("receiver and event")
        right.set_title("one delivery per event, never a retry", fontsize=9)
    else:
        right.axis("off")
    left.set_title(stamp.title(headline), fontsize=10)
    fig.tight_layout()
    return fig


# -- Q10 ------------------------------------------------------------------------------------
# The budget modes of Q10's table (roncho_workbook._prose.MODES), each with its colour.
CONTEXT_MODES = {
    "summary on": (BLUE, "o"),
    "summary=false": (SKY, "s"),
    "peer_target=owner": (ORANGE, "D"),
}
# Where a context that returned nothing is drawn on the log axis (tokens).
NOTHING_RETURNED = 5


def _yes(value: Any) -> bool:
    """A flag from a probe's table or from its CSV (where it may be the text True)."""
    return value is True or str(value).strip().lower() == "true"


def draw_context(finding: Finding, stamp: Stamp) -> Figure:
    """Top left: tokens asked (``tokens=N``) against tokens returned (the messages'
    token_count plus the summary's), per mode, beside the line where they are equal. Top
    right: each summary by the message count it was written after, and the seconds from
    that message's sync until it was listed. Below: representation and card in the
    context, per case."""
    budgets = [r for r in _rows(finding, "budgets") if not r.get("error")]
    fig = plt.figure(figsize=(12, 8))
    spec = fig.add_gridspec(2, 2, width_ratios=[3, 2], height_ratios=[3, 1.7])
    left = fig.add_subplot(spec[0, 0])
    right = fig.add_subplot(spec[0, 1])
    below = fig.add_subplot(spec[1, :])
    headline = "Q10 Session context: token budgets, summaries, representation and card"
    if not budgets:
        _empty(fig, right, stamp, headline, "")
        _empty(fig, below, stamp, headline, "")
        return _empty(fig, left, stamp, headline, "No context read answered.")
    _budget_points(left, budgets)
    _summary_points(right, _rows(finding, "summaries"), _rows(finding, "long_summary_trials"))
    cases = _rows(finding, "presence") + [
        dict(r, case=f"observed peer, from the perspective of {r['peer_perspective']}")
        for r in _rows(finding, "perspective")[1:]
    ]
    _presence_grid(below, cases)
    left.set_title(stamp.title(headline), fontsize=10)
    fig.tight_layout()
    return fig


def _budget_points(ax: Axes, rows: list[dict[str, Any]]) -> None:
    asked = sorted({int(r["tokens_asked"]) for r in rows})
    ax.plot(asked, asked, color="black", linestyle="--", linewidth=1,
            label="returned = asked (the budget)")  # fmt: skip
    nothing = False
    for mode, (colour, marker) in CONTEXT_MODES.items():
        mine = sorted((r for r in rows if r["mode"] == mode), key=lambda r: int(r["tokens_asked"]))
        if not mine:
            continue
        xs = [int(r["tokens_asked"]) for r in mine]
        ys = [max(int(r["returned_tokens"]), NOTHING_RETURNED) for r in mine]
        ax.plot(xs, ys, color=colour, marker=marker, label=mode, linewidth=1.2)
        with_summary = [(x, y) for x, y, r in zip(xs, ys, mine, strict=True)
                        if str(r["summary"]) not in ("none", "", "None")]  # fmt: skip
        if with_summary:
            sx, sy = zip(*with_summary, strict=True)
            ax.scatter(sx, sy, s=160, facecolors="none", edgecolors=colour, linewidths=1.5)
        nothing = nothing or any(int(r["returned_tokens"]) == 0 for r in mine)
    ax.scatter([], [], s=160, facecolors="none", edgecolors=DARK, label="a summary is included")
    if nothing:
        ax.axhline(NOTHING_RETURNED, color=GREY, linewidth=0.8)
        ax.text(asked[0], NOTHING_RETURNED * 1.1, "on this line: nothing returned", fontsize=7,
                color=DARK)  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(asked, [str(n) for n in asked])
    ax.minorticks_off()
    ax.set_xlabel("tokens=N asked of get_session_context (tokens)")
    ax.set_ylabel("returned: messages' token_count + summary's (tokens)")
    ax.legend(fontsize=7, loc="upper left")
    ax.text(0.99, 0.02, "peer_target: the representation and card are paid for out of N\n"
            "first; they have no token count, so they are not counted here",
            transform=ax.transAxes, ha="right", va="bottom", fontsize=7)  # fmt: skip


def _summary_points(ax: Axes, rows: list[dict[str, Any]], trials: list[dict[str, Any]]) -> None:
    marks = {"short": (BLUE, "o", 60), "long": (ORANGE, "s", 140)}
    drawn = [r for r in rows if r.get("after_messages") is not None]
    for kind, (colour, marker, size) in marks.items():
        points = [(r["after_messages"], r["listed_after_s"]) for r in drawn if r["kind"] == kind]
        if points:
            xs, ys = zip(*points, strict=True)
            ax.scatter(xs, ys, s=size, marker=marker, facecolors="none", edgecolors=colour,
                       linewidths=1.8, label=f"{kind} summary", zorder=3)  # fmt: skip
    ax.set_xlabel("messages in the session when it was written (count)")
    ax.set_ylabel("from that message's sync to listed (s)")
    ax.set_ylim(bottom=0)
    if drawn:
        ax.set_xticks(sorted({int(r["after_messages"]) for r in drawn}))
        ax.legend(fontsize=8, loc="lower right")
        ax.set_title("when get_session_summaries first listed each summary", fontsize=9)
    else:
        ax.text(0.5, 0.5, "no summary was listed", ha="center", va="center",
                transform=ax.transAxes)  # fmt: skip
    if trials:
        kept = sum(1 for t in trials if _yes(t["long_after_last"]))
        ax.text(0.02, 0.02, f"{len(trials)} more sessions given {trials[0]['messages']} messages "
                f"at once:\nlong summary kept in {kept}/{len(trials)}", transform=ax.transAxes,
                fontsize=8, color=RED if kept < len(trials) else DARK)  # fmt: skip


def _presence_grid(ax: Axes, rows: list[dict[str, Any]]) -> None:
    kinds = ["representation", "card"]
    cells: dict[tuple[str, str], Cell] = {}
    names = []
    for r in rows:
        name = str(r["case"])
        names.append(name)
        if r.get("error"):
            for kind in kinds:
                cells[(kind, name)] = Cell("error", str(r["error"]))
            continue
        rep = _yes(r["representation"])
        text = f"{int(r['representation_chars'])} chars" if rep else "none"
        cells[(kinds[0], name)] = Cell("present" if rep else "absent", text)
        card = _yes(r["card"])
        text = f"{int(r['card_lines'])} line(s)" if card else "none"
        cells[(kinds[1], name)] = Cell("present" if card else "absent", text)
    if not cells:
        ax.axis("off")
        return
    grid(
        ax,
        kinds,
        names,
        cells,
        {"present": GREEN, "absent": GREY, "error": RED},
        xlabel="case: get_session_context(peer_target=...) of the observed peer (q10-owner) or "
        "of the observe_me false one (q10-assistant)",
        ylabel="in the context",
        wrap=20,
    )


DRAWERS: dict[str, Callable[[Finding, Stamp], Figure]] = {
    "q1_auth": draw_auth,
    "q2_deletion": draw_deletion,
    "q3_derivation_switches": draw_switches,
    "q3_deriver_latency": draw_latency,
    "q4_filters": draw_filters,
    "q5_provenance": draw_provenance,
    "q6_workspace_delete": draw_workspace_delete,
    "q7_health": draw_health,
    "q8_differences": draw_differences,
    "q9_webhooks": draw_webhooks,
    "q10_context": draw_context,
}
