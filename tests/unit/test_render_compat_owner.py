"""scripts/render_compat.py: the owner's version (3.2.0) has its own column in every call table,
filled from the recorded runs of that version (a build suffix counts as its release)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "render_compat.py"


def _load() -> Any:
    spec = importlib.util.spec_from_file_location("render_compat", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


render = _load()


def _observation(kind: str, label: str, version: str, conclusion: dict[str, str]) -> str:
    calls = [
        {"op": "probe", "method": "GET", "path": "/health", "query": [], "request": None,
         "status": 200, "content_type": "application/json", "response": {"status": "string"},
         "total_seconds": 0.001},
        {"op": "create_conclusions", "method": "POST",
         "path": "/v3/workspaces/{workspace}/conclusions", "query": [],
         "request": {"conclusions": [{"content": "string"}]}, "status": 201,
         "content_type": "application/json", "response": [conclusion], "total_seconds": 0.002},
    ]  # fmt: skip
    return json.dumps({"schema": 1, "date": "2026-12-05", "server_label": label, "kind": kind,
                       "version": version, "findings": {}, "calls": calls})  # fmt: skip


def _render(tmp_path: Path, files: dict[str, str]) -> str:
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        paths.append(str(tmp_path / name))
    doc = tmp_path / "compat.md"
    doc.write_text(f"{render.BEGIN}\n{render.END}\n", encoding="utf-8")
    assert render.main([*paths, "--doc", str(doc)]) == 0
    return doc.read_text(encoding="utf-8")


def test_the_owner_column_is_filled_from_the_owner_versions_runs(tmp_path: Path) -> None:
    text = _render(
        tmp_path,
        {
            "2026-12-01-real-3-0-12-src.json": _observation(
                "live", "real-3-0-12-src", "3.0.12", {"id": "string"}
            ),
            "2026-12-05-real-3-2-0.json": _observation(
                "live", "real-3-2-0", "3.2.0-pr1092-7e57fe2", {"id": "string", "source_ids": "null"}
            ),
        },
    )
    assert render.OWNER_VERSION == "3.2.0"
    assert (
        "| real server (3.0.12): response | emulator (no run): response "
        "| owner's version (3.2.0): response | runs (median ms) |"
    ) in text
    o13 = text.split("### O13.")[1].split("### O14.")[0]
    assert "| 200 | `{status: str}` | not recorded | same as 3.0.12 |" in o13
    o8 = text.split("### O8.")[1].split("### O9.")[0]
    owner_differs = (
        "| 201 | `[{id: str}]` | not recorded | `[{id: str, source_ids: null}]` (differs) |"
    )
    assert owner_differs in o8
    runs = text.split("### Recorded runs")[1].split("### O1.")[0]
    assert "| `2026-12-05-real-3-2-0.json` | real server (the owner's version) |" in runs
    owner = text.split("### The owner's version (3.2.0)")[1].split("### O1.")[0]
    assert "`2026-12-05-real-3-2-0.json`" in owner
    assert "scripts/emulator_drift.py 3.2.0" in owner


def test_without_an_owner_run_the_column_says_not_recorded(tmp_path: Path) -> None:
    text = _render(
        tmp_path,
        {
            "2026-12-01-real-3-0-12-src.json": _observation(
                "live", "real-3-0-12-src", "3.0.12", {"id": "string"}
            ),
            "2026-12-01-emulator.json": _observation(
                "emulator", "emulator", "3.2.0-emulator", {"id": "string"}
            ),
        },
    )
    o8 = text.split("### O8.")[1].split("### O9.")[0]
    assert "| 201 | `[{id: str}]` | same | not recorded |" in o8
    assert "**No run of it is recorded yet**" in text
    # An emulator run of the 3.2.0 profile is not the owner's server.
    assert "real server (the owner's version)" not in text
