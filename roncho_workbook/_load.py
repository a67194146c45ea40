"""The record as data: every run's manifest, answers and tables, read with the standard library.

A results root holds one folder per run, ``<date>/<server>/``. `load_record` reads each one
into a `RecordedRun`: its manifest (None for runs recorded before runs kept one), its
answers by notebook, and its CSV tables by name (``<notebook>__<table>``), each cell turned
back into the value it was written from (numbers, booleans, empty as None). ``identity()``
gives the columns that tell runs apart, so tables of many runs can be put side by side
(``notebooks/_lab.py`` makes pandas frames of them).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._across import ANSWER_SUFFIX
from ._identity import MANIFEST, read_manifest

# <notebook>__<table>.csv beside the executed notebook.
TABLE_SEPARATOR = "__"


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedRun:
    """One run folder as read back: its manifest, answers and tables."""

    run: str  # "<date>/<server>", the folder under the results root
    date: str
    folder: str
    manifest: dict[str, Any] | None
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def identity(self) -> dict[str, Any]:
        """Flat columns naming the run and its server (None where the run did not record it)."""
        manifest = self.manifest or {}
        server = manifest.get("server") or {}
        deriver = manifest.get("deriver") or {}
        roncho = manifest.get("roncho") or {}
        versions = {str(a.get("version")) for a in self.answers.values() if a.get("version")}
        version = server.get("version")
        if version is None and len(versions) == 1:
            version = versions.pop()  # a run from before manifests: its answers say it
        return {
            "run": self.run,
            "date": self.date,
            "folder": self.folder,
            "emulator": bool(server.get("emulator")) or self.folder.startswith("emulator"),
            "base_url": server.get("base_url"),
            "host": server.get("host"),
            "port": server.get("port"),
            "auth": server.get("auth"),
            "version": version,
            "deriver_source": deriver.get("source"),
            "deriver_flush": deriver.get("flush"),
            "deriver_age_gate_s": deriver.get("age_gate_seconds"),
            "deriver_token_gate": deriver.get("token_gate"),
            "roncho_version": roncho.get("version"),
            "roncho_commit": roncho.get("commit"),
            "started_at": manifest.get("started_at"),
        }


def cell_value(text: str) -> Any:
    """A CSV cell back as the value written: "" -> None, True/False, int, float, else text."""
    if text == "":
        return None
    if text in ("True", "False"):
        return text == "True"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def read_table(path: Path) -> list[dict[str, Any]]:
    """One CSV table as rows of values (see `cell_value`)."""
    with path.open(encoding="utf-8", newline="") as handle:
        return [{k: cell_value(v or "") for k, v in row.items()} for row in csv.DictReader(handle)]


def load_run(root: Path, folder: Path) -> RecordedRun:
    """The run in ``folder`` (a ``<date>/<server>`` folder under ``root``)."""
    answers = {}
    for path in sorted(folder.glob(f"*{ANSWER_SUFFIX}")):
        data = json.loads(path.read_text(encoding="utf-8"))
        answers[str(data.get("notebook") or path.name.removesuffix(ANSWER_SUFFIX))] = data
    tables = {
        path.stem: read_table(path) for path in sorted(folder.glob(f"*{TABLE_SEPARATOR}*.csv"))
    }
    return RecordedRun(
        run=folder.relative_to(root).as_posix(),
        date=folder.parent.name,
        folder=folder.name,
        manifest=read_manifest(folder),
        answers=answers,
        tables=tables,
    )


def load_record(root: Path | str) -> list[RecordedRun]:
    """Every run under ``root`` (a folder with a manifest or an answer), oldest first."""
    base = Path(root)
    folders = {
        path.parent
        for pattern in (f"*/*/{MANIFEST}", f"*/*/*{ANSWER_SUFFIX}")
        for path in base.glob(pattern)
    }
    return [load_run(base, folder) for folder in sorted(folders)]


def table_across(runs: list[RecordedRun], name: str) -> list[dict[str, Any]]:
    """Table ``name`` (``<notebook>__<table>``) of every run that has it, each row led by the
    run's identity columns: the rows the pandas view turns into one frame."""
    rows = []
    for run in runs:
        identity = run.identity()
        rows += [{**identity, **row} for row in run.tables.get(name, [])]
    return rows
