"""scripts/emulator_drift.py: every place the emulator's profile disagrees with a recording.

The comparison is checked on small observation documents; the script's whole run (the live
suite against the emulator) is what `python scripts/emulator_drift.py 3.0.12` does by hand.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "emulator_drift.py"


def _load() -> Any:
    spec = importlib.util.spec_from_file_location("emulator_drift", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


drift = _load()

PEER = {"id": "string", "workspace_id": "string", "metadata": {"kind": "string"},
        "configuration": {}, "created_at": "string(datetime)"}  # fmt: skip


def _call(op: str, status: int, response: Any, detail: str | None = None) -> dict[str, Any]:
    return {"op": op, "method": "POST", "path": "/v3/workspaces/{workspace}/peers",
            "query": [], "request": {"id": "string"}, "status": status,
            "content_type": "application/json", "response": response, "detail": detail}  # fmt: skip


def _doc(*calls: dict[str, Any], **findings: Any) -> dict[str, Any]:
    return {"kind": "live", "version": "3.2.0", "findings": findings, "calls": list(calls)}


def test_the_same_answers_are_no_disagreement() -> None:
    real = _doc(_call("get_or_create_peer", 201, PEER), auth="off", openapi_version="3.2.0")
    emulated = _doc(_call("get_or_create_peer", 201, PEER), auth="off",
                    openapi_version="3.2.0-emulator")  # fmt: skip
    assert drift.disagreements(real, emulated) == []


def test_caller_data_and_item_variants_are_not_disagreements() -> None:
    bare = dict(PEER, metadata={})
    real = _doc(_call("list_peers", 200, {"items": [PEER, bare]}))
    emulated = _doc(_call("list_peers", 200, {"items": [PEER]}))
    assert drift.disagreements(real, emulated) == []


def test_a_status_a_shape_a_detail_and_a_finding_are_each_listed() -> None:
    real = _doc(
        _call("get_or_create_peer", 201, PEER),
        _call("update_peer", 200, PEER),
        _call("search_peer", 401, {"detail": "string"}, "Unauthorized access to resource"),
        conclusion_has_source_ids=True,
    )
    emulated = copy.deepcopy(real)
    emulated["calls"][0]["status"] = 200
    emulated["calls"][1]["response"] = dict(PEER, token_count="integer")
    emulated["calls"][2]["detail"] = "JWT not permissioned for this resource"
    emulated["findings"]["conclusion_has_source_ids"] = False
    lines = drift.disagreements(real, emulated)
    assert len(lines) == 5, lines  # the status one is listed from both sides
    assert lines[0].startswith("call get_or_create_peer POST") and "server 201" in lines[0]
    assert "emulator 200" in lines[0]
    assert "the emulator also answered 200" in lines[1]
    assert "token_count: int" in lines[2]
    assert "“JWT not permissioned for this resource”" in lines[3]
    assert lines[4] == "finding conclusion_has_source_ids: server true; emulator false"


def test_calls_only_one_run_made_are_named_but_not_counted() -> None:
    real = _doc(_call("get_or_create_peer", 201, PEER))
    emulated = _doc(_call("update_peer", 200, PEER))
    assert drift.disagreements(real, emulated) == []
    assert [line.split(":")[0] for line in drift.not_compared(real, emulated)] == [
        "only in the recording",
        "only in the emulator's run",
    ]


def test_a_build_suffix_is_held_to_its_release() -> None:
    assert drift.release("3.2.0-pr1092-7e57fe2") == "3.2.0"
    assert drift.release("3.0.12") == "3.0.12"


def test_only_real_runs_of_the_version_are_compared(tmp_path: Path) -> None:
    files = {
        "a.json": {"kind": "live", "version": "3.2.0-pr1092-7e57fe2", "calls": []},
        "b.json": {"kind": "live", "version": "3.0.12", "calls": []},
        "c.json": {"kind": "emulator", "version": "3.2.0-emulator", "calls": []},
    }
    for name, document in files.items():
        (tmp_path / name).write_text(json.dumps(document), encoding="utf-8")
    chosen = drift.real_runs(sorted(tmp_path.glob("*.json")), "3.2.0")
    assert [path.name for path, _ in chosen] == ["a.json"]


def test_no_recording_of_the_version_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"kind": "live", "version": "3.0.12", "calls": []}), "utf-8")
    assert drift.main(["3.2.0", str(other)]) == 2
    assert "no real-server observation of version 3.2.0" in capsys.readouterr().out


def test_an_unknown_version_has_no_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert drift.main(["9.9.9"]) == 2
    assert "no profile '9.9.9'" in capsys.readouterr().out
