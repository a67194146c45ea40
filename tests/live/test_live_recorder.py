"""The recorder itself: what it writes is shapes and placeholders, never values.

These run once (no target): they feed the recorder known data and read what it writes.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from live_recorder import Call, Recorder, check_label, path_template, scrub, shape

import roncho
from roncho._call import Call as WireCall
from roncho._call import nothing
from roncho._chat import ChatDecoder
from roncho._exchange import Exchange
from roncho.testing import FakeHoncho

SECRET_TEXT = "my sister's peanut allergy"


def test_recorder_shape_keeps_keys_and_types_only() -> None:
    value = {
        "content": SECRET_TEXT,
        "n": 3,
        "x": 1.5,
        "ok": True,
        "none": None,
        "at": "2026-11-30T12:00:00Z",
        "tags": ["a", "b", 1],
        "nested": {"deep": [{"k": "v"}, {"k": "w"}]},
    }
    assert shape(value) == {
        "content": "string",
        "n": "integer",
        "x": "number",
        "ok": "boolean",
        "none": "null",
        "at": "string(datetime)",
        "tags": ["string", "integer"],
        "nested": {"deep": [{"k": "string"}]},
    }


def test_recorder_shape_replaces_id_keys() -> None:
    ids = {"memoryd-user": "{user_peer}"}
    value = {"memoryd-user": {"observe_me": True}, "V1StGXR8_Z5jdHi6B-myT": {"total": 1}}
    assert shape(value, ids) == {
        "{user_peer}": {"observe_me": "boolean"},
        "{id}": {"total": "integer"},
    }


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/v3/workspaces/ws-1/peers/u/chat", "/v3/workspaces/{workspace}/peers/{peer}/chat"),
        ("/v3/workspaces/list", "/v3/workspaces/list"),
        ("/prefix/v3/workspaces/ws-1/sessions/s/messages/list",
         "/v3/workspaces/{workspace}/sessions/{session}/messages/list"),
        ("/v3/workspaces/ws-1/sessions/s/peers/p/config",
         "/v3/workspaces/{workspace}/sessions/{session}/peers/{peer}/config"),
        ("/v3/workspaces/ws-1/conclusions/query", "/v3/workspaces/{workspace}/conclusions/query"),
        ("/v3/workspaces/ws-1/conclusions/abc",
         "/v3/workspaces/{workspace}/conclusions/{conclusion}"),
        ("/v3/workspaces/ws-1/queue/status?session_id=s",
         "/v3/workspaces/{workspace}/queue/status"),
        ("/api/health", "/health"),
        ("/v3/workspaces/ws-1/schedule_dream", "/v3/workspaces/{workspace}/schedule_dream"),
        ("/v3/workspaces/ws-1/scopes/list", "/v3/workspaces/{workspace}/scopes/list"),
        ("/v3/workspaces/ws-1/scopes/trips-1/status",
         "/v3/workspaces/{workspace}/scopes/{scope}/status"),
        ("/v3/workspaces/ws-1/scopes/trips-1/sessions/list",
         "/v3/workspaces/{workspace}/scopes/{scope}/sessions/list"),
        ("/v3/workspaces/ws-1/scopes/trips-1/sessions/s",
         "/v3/workspaces/{workspace}/scopes/{scope}/sessions/{session}"),
        ("/v3/workspaces/ws-1/sessions/s/messages/upload",
         "/v3/workspaces/{workspace}/sessions/{session}/messages/upload"),
        ("/v3/workspaces/ws-1/peers/u/representation",
         "/v3/workspaces/{workspace}/peers/{peer}/representation"),
    ],
)  # fmt: skip
def test_recorder_path_template(path: str, expected: str) -> None:
    assert path_template(path) == expected


def test_recorder_path_template_uses_registered_names_of_the_same_kind() -> None:
    ids = {"ws-2": "{other_workspace}", "u": "{user_peer}", "s": "{session}", "m": "{message}"}
    assert path_template("/v3/workspaces/ws-2/peers/u/chat", ids) == (
        "/v3/workspaces/{other_workspace}/peers/{user_peer}/chat"
    )
    # A name of another kind never leaks into the wrong slot.
    assert path_template("/v3/workspaces/u/sessions/m", ids) == (
        "/v3/workspaces/{workspace}/sessions/{session}"
    )


def test_recorder_scrub_replaces_ids_and_bounds_length() -> None:
    ids = {"ws-1": "{workspace}", "ws-10": "{other_workspace}"}
    assert scrub("Workspace ws-10 and ws-1", ids) == "Workspace {other_workspace} and {workspace}"
    assert len(scrub("x" * 5000, ids)) == 300


def test_recorder_label_must_be_plain() -> None:
    assert check_label("live") == "live"
    for bad in ("", "Live", "host.example", "a/b", "x" * 41):
        with pytest.raises(ValueError):
            check_label(bad)


def test_recorder_file_has_no_values_host_or_key(tmp_path: Path) -> None:
    """A whole recorded exchange with an emulator: the file names no value of it."""
    rec = Recorder()
    with FakeHoncho(auth=True) as fake, rec.install():
        client = roncho.Client(fake.url, "ws-secret-name", api_key=fake.admin_key)
        rec.name("ws-secret-name", "{workspace}")
        client.get_or_create_session("s-1", peers={"p-1": None})
        client.add_messages("s-1", [roncho.MessageCreate(peer_id="p-1", content=SECRET_TEXT)])
        # A 422 list echoes the input (FastAPI's "input"): only its shape may be written.
        with pytest.raises(roncho.StatusError) as caught:
            client._run(
                WireCall(
                    "add_messages_invalid",
                    "POST",
                    client._paths.in_workspace("sessions", "s-1", "messages"),
                    nothing,
                    body={"messages": [{"content": SECRET_TEXT}]},
                ),
                None,
            )
        assert SECRET_TEXT in caught.value.body.decode()
        client.close()
        document = rec.observation(
            label="live",
            base_url=fake.url + "/prefix",
            kind="live",
            health={"status": "ok"},
            version=None,
            now=datetime(2026, 11, 30, tzinfo=UTC),
        )
        written = rec.write(tmp_path, document)
        key = fake.admin_key
    assert written.name == "2026-11-30-live.json"
    text = written.read_text(encoding="utf-8")
    for value in (SECRET_TEXT, "ws-secret-name", "127.0.0.1", str(fake.port), key):
        assert value not in text
    data = json.loads(text)
    assert data["base_url"] == "http://live/prefix"
    ops = [(c["op"], c["status"]) for c in data["calls"]]
    assert ops[:2] == [("get_or_create_session", 201), ("add_messages", 201)]
    assert data["calls"][1]["request"] == {"messages": [{"peer_id": "string", "content": "string"}]}
    invalid = data["calls"][2]
    assert (invalid["status"], invalid["error"]) == (422, "StatusError")
    assert "detail" not in invalid  # a list detail is kept as a shape only


def test_recorder_install_is_undone() -> None:
    before = (roncho.Client._exchange, Exchange.result, ChatDecoder._take_event)
    rec = Recorder()
    with rec.install():
        assert roncho.Client._exchange is not before[0]
    assert (roncho.Client._exchange, Exchange.result, ChatDecoder._take_event) == before


def test_recorder_last_names_a_missing_op() -> None:
    rec = Recorder()
    rec.calls.append(Call(op="probe", method="GET", path="/health", query=[], request=None))
    assert rec.last("probe").path == "/health"
    with pytest.raises(AssertionError, match="no chat call"):
        rec.last("chat")


def _render_module() -> object:
    import importlib.util

    script = Path(__file__).resolve().parents[2] / "scripts" / "render_compat.py"
    spec = importlib.util.spec_from_file_location("render_compat", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_render_compat_rebuilds_only_the_marked_part(tmp_path: Path) -> None:
    """A recorded file renders into O1-O22 sections between the markers; the rest stays."""
    render: Any = _render_module()
    rec = Recorder()
    with FakeHoncho() as fake, rec.install():
        client = roncho.Client(fake.url, "ws-r")
        rec.name("ws-r", "{workspace}")
        client.get_or_create_session("s-r", peers={"p-r": None})
        client.queue_status()
        client.close()
        document = rec.observation(
            label="emulator", base_url=fake.url, kind="emulator", health={"status": "ok"},
            version="x", now=datetime(2026, 11, 30, tzinfo=UTC),
        )  # fmt: skip
    observation = rec.write(tmp_path / "obs", document)
    doc = tmp_path / "compat.md"
    doc.write_text(f"# Title\n\nbefore\n\n{render.BEGIN}\nSTALE-TEXT\n{render.END}\n\nafter\n")
    assert render.main([str(observation), "--doc", str(doc), "--check"]) == 1
    assert render.main([str(observation), "--doc", str(doc)]) == 0
    text = doc.read_text()
    assert text.startswith("# Title\n\nbefore\n\n") and text.endswith("\n\nafter\n")
    assert "STALE-TEXT" not in text
    assert render.BEGIN == "<!-- BEGIN GENERATED: O1-O22 -->"
    assert render.END == "<!-- END GENERATED: O1-O22 -->"
    assert list(render.FACTS) == [f"O{i}" for i in range(1, 23)]
    for op_id in (f"O{i}." for i in range(1, 23)):
        assert f"### {op_id} " in text
    assert "`POST /v3/workspaces/{workspace}/sessions` | `{id: str, peers: {…}}` | 201" in text
    assert "`GET /v3/workspaces/{workspace}/queue/status`" in text
    assert render.main([str(observation), "--doc", str(doc), "--check"]) == 0


def _observation(kind: str, label: str, version: str, conclusion: dict[str, str]) -> dict[str, Any]:
    calls = [
        {"op": "probe", "method": "GET", "path": "/health", "query": [], "request": None,
         "status": 200, "content_type": "application/json", "response": {"status": "string"},
         "head_seconds": 0.001, "total_seconds": 0.001},
        {"op": "create_conclusions", "method": "POST",
         "path": "/v3/workspaces/{workspace}/conclusions", "query": [],
         "request": {"conclusions": [{"content": "string"}]}, "status": 201,
         "content_type": "application/json", "response": [conclusion],
         "head_seconds": 0.002, "total_seconds": 0.002},
    ]  # fmt: skip
    return {"schema": 1, "date": "2026-12-01", "server_label": label, "kind": kind,
            "version": version, "findings": {}, "calls": calls}  # fmt: skip


def test_render_compat_sets_the_real_server_beside_the_emulator(tmp_path: Path) -> None:
    """Each call's row shows the real server's answer and the emulator's: ``same`` when the
    shapes agree, the emulator's shape marked ``(differs)`` when not; an operation says
    whether a recorded real run backs it."""
    render: Any = _render_module()
    real = tmp_path / "2026-12-01-real-3-0-12-src.json"
    emulated = tmp_path / "2026-12-01-emulator.json"
    real.write_text(json.dumps(_observation("live", "real-3-0-12-src", "3.0.12", {"id": "string"})))
    emulated.write_text(
        json.dumps(
            _observation("emulator", "emulator", "3.2.0-emulator", {"id": "string", "x": "null"})
        )
    )
    doc = tmp_path / "compat.md"
    doc.write_text(f"{render.BEGIN}\n{render.END}\n")
    assert render.main([str(emulated), str(real), "--doc", str(doc)]) == 0
    text = doc.read_text()
    assert "| real server (3.0.12): response | emulator (3.2.0-emulator): response |" in text
    o8 = text.split("### O8.")[1].split("### O9.")[0]
    assert "Recorded on a real server: `2026-12-01-real-3-0-12-src.json` (statuses 201)" in o8
    assert "| 201 | `[{id: str}]` | `[{id: str, x: null}]` (differs) |" in o8
    assert "3.2.0 and 3.0.12 differ:" in o8
    o13 = text.split("### O13.")[1].split("### O14.")[0]
    assert "| 200 | `{status: str}` | same |" in o13
    o10 = text.split("### O10.")[1].split("### O11.")[0]
    assert "Not recorded on a real server" in o10
    # Real runs come first in the list of runs, whatever order the files were given in.
    runs = text.split("### Recorded runs")[1].split("### O1.")[0]
    assert runs.index("real-3-0-12-src.json") < runs.index("emulator.json")


# The client calls of the operations beyond memoryd's first list, each with its operation.
BEYOND_OPS = {
    "list_peer_sessions": "O16", "get_peer_representation": "O16", "get_peer_card": "O16",
    "set_peer_card": "O16", "get_peer_context": "O16",
    "get_session_context": "O17", "get_session_summaries": "O17",
    "clone_session": "O18",
    "add_session_peers": "O19", "set_session_peers": "O19", "remove_session_peers": "O19",
    "upload_file": "O20",
    "get_or_create_scope": "O21", "list_scopes": "O21", "get_scope": "O21",
    "add_scope_sessions": "O21", "remove_scope_session": "O21", "list_scope_sessions": "O21",
    "get_scope_status": "O21",
    "schedule_dream": "O22",
}  # fmt: skip


def test_render_compat_maps_every_call_beyond_o15_to_its_operation() -> None:
    render: Any = _render_module()
    assert {op: render.OPS.get(op) for op in BEYOND_OPS} == BEYOND_OPS
    for op_id in sorted(set(BEYOND_OPS.values())):
        facts = render.FACTS[op_id]
        assert facts.endpoints and facts.request and facts.response and facts.statuses
        assert any(f.source == render.SRC and not f.real_server for f in facts.facts)


def _key_kinds_observation(kind: str, label: str, peer_card: str) -> dict[str, Any]:
    refused = {
        "op": "get_scope",
        "method": "GET",
        "path": "/v3/workspaces/{workspace}/scopes/{scope}",
        "query": [],
        "request": None,
        "status": 401,
        "content_type": "application/json",
        "response": {"detail": "string"},
        "error": "UnauthorizedError",
        "detail": "JWT not permissioned for this resource",
        "total_seconds": 0.001,
    }
    table = {
        "workspace": {"GET peers/{p}/card": "allowed", "GET scopes/{id}": "allowed"},
        "peer": {"GET peers/{p}/card": peer_card, "GET scopes/{id}": "refused"},
        "session": {"GET peers/{p}/card": "refused", "GET scopes/{id}": "refused"},
    }  # fmt: skip
    return {"schema": 1, "date": "2026-12-04", "server_label": label, "kind": kind,
            "version": "3.0.12", "findings": {"auth": "on", "key_kinds_beyond": table},
            "calls": [refused]}  # fmt: skip


def test_render_compat_sets_out_the_key_kinds_of_the_new_routes(tmp_path: Path) -> None:
    """The key-kind finding of test_live_beyond.py becomes one table per real run (route by key
    kind, refusals with the statuses the run's refused calls got) with the emulator beside
    it; it is not repeated as a cell of the findings table."""
    render: Any = _render_module()
    real = tmp_path / "2026-12-04-real-3-0-12-src-auth.json"
    emulated = tmp_path / "2026-12-04-emulator-auth.json"
    real.write_text(json.dumps(_key_kinds_observation("live", "real-3-0-12-src-auth", "allowed")))
    emulated.write_text(json.dumps(_key_kinds_observation("emulator", "emulator-auth", "refused")))
    doc = tmp_path / "compat.md"
    doc.write_text(f"{render.BEGIN}\n{render.END}\n")
    assert render.main([str(emulated), str(real), "--doc", str(doc)]) == 0
    text = doc.read_text()
    section = text.split("### What each kind of key may do on the O16 to O22 routes")[1]
    section = section.split("### Findings per run")[0]
    assert "Run `2026-12-04-real-3-0-12-src-auth.json` (3.0.12; rests on a real server's" in section
    assert (
        "| route | workspace key | peer key, its peer a member | session key (this session) "
        "| emulator `emulator-auth` 2026-12-04 |"
    ) in section
    assert (
        "| `GET peers/{p}/card` | allowed | allowed | refused (401) "
        "| allowed / refused / refused (differs) |"
    ) in section
    assert "| `GET scopes/{id}` | allowed | refused (401) | refused (401) | same |" in section
    assert (
        "- This run: every refused call of these routes answered 401 “JWT not permissioned "
        "for this resource” (1 call)."
    ) in section
    findings = text.split("### Findings per run")[1]
    assert "`auth`" in findings and "key_kinds_beyond" not in findings
