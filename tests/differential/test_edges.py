"""The emulator held against a real Honcho 3.0.12 at every route's edges (edge_steps.py).

- `test_edges_replay[off|on]` (no server; part of the test command): runs `EDGE_STEPS` against
  a FakeHoncho with auth off and on and holds each outcome against the real server's,
  recorded in `recorded/3.0.12-edges.json` (auth off) and `3.0.12-edges-auth.json` (auth
  on). Where they differ, the step must be listed in `edges_known.json` with exactly that
  difference: an unlisted difference fails, and so does a listed step that now agrees or
  differs otherwise (the list cannot go stale). docs/emulator-edges.md explains each kind.
- `test_edges_real_server` (with `RONCHO_LIVE_URL`; for the auth-on API an admin key in
  `RONCHO_LIVE_KEY` or in the file `RONCHO_LIVE_KEY_FILE`): runs the same steps against that
  server and fails on any drift from the committed recording of its mode. With
  `RONCHO_EDGES_OUT=DIR` it also writes this run's recording into DIR (the real-server
  stage keeps it beside its results, ready to commit when the server changed); with
  `RONCHO_DIFF_RECORD=1` it writes the committed recording instead.

`RONCHO_EDGES_WRITE_KNOWN=1` (replay) rewrites edges_known.json from today's differences,
keeping the kinds already written; review its diff before committing.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from diff_script import Outcome, Run, Step
from edge_steps import EDGE_STEPS, ROUTES, Poll, cleanup_edges, edge_run
from test_differential import _loopback_url, server_version

from roncho.testing import FakeHoncho

HERE = Path(__file__).resolve().parent
RECORDED = HERE / "recorded"
KNOWN = HERE / "edges_known.json"
ROUTE_LIST = HERE.parent / "wire" / "data" / "server_routes.txt"
VERSION = "3.0.12"
MODES = {"off": f"{VERSION}-edges.json", "on": f"{VERSION}-edges-auth.json"}
# The emulator purges a deleted session at once or never: a short wait tells which.
EMULATOR_POLL_LIMIT = 2.0
KINDS = ("missing-resource", "size", "selection", "validation", "auth", "other")
# A step's group (the start of its name) and the kind of difference it shows by default.
GROUP_KINDS = {
    "missing": "missing-resource",
    "inactive": "missing-resource",
    "size": "size",
    "page": "size",
    "option": "selection",
    "body": "validation",
    "auth": "auth",
    "setup": "other",
    "after": "other",
}


def run_edges(run: Run) -> list[Outcome]:
    """Every edge step against one server, then its workspaces deleted (also on failure)."""
    outcomes: list[Outcome] = []
    try:
        for step in EDGE_STEPS:
            outcomes.append(step.run(run))
    finally:
        cleanup_edges(run)
    return outcomes


def differences(expected: list[Outcome], got: list[Outcome]) -> dict[str, str]:
    """Step name -> how `got` differs from `expected` (real != other), for differing steps."""
    assert [o.step for o in expected] == [o.step for o in got], "the scripts differ"
    found = {}
    for want, have in zip(expected, got, strict=True):
        lines = want.differences(have)
        if lines:
            found[want.step] = "; ".join(lines)
    return found


def load(mode: str) -> list[Outcome]:
    data = json.loads((RECORDED / MODES[mode]).read_text(encoding="utf-8"))
    return [Outcome.from_json(o) for o in data]


def known(mode: str) -> dict[str, dict[str, Any]]:
    entries = json.loads(KNOWN.read_text(encoding="utf-8"))
    return {e["step"]: e for e in entries if e["auth"] == mode}


def emulator_edges(*, auth: bool, refuse_expiring_keys: bool = False) -> list[Outcome]:
    with FakeHoncho(
        version=VERSION, flush=True, auth=auth, refuse_expiring_keys=refuse_expiring_keys
    ) as fake:
        key = fake.admin_key if auth else None
        return run_edges(edge_run(fake.url, key, poll_limit=EMULATOR_POLL_LIMIT))


def _brief(outcome: Outcome) -> str:
    """An outcome in one line: status, then the error detail or the start of the value."""
    if outcome.detail is not None:
        return f"{outcome.status} {outcome.detail}"
    shown = outcome.value if outcome.value is not None else outcome.shape
    return f"{outcome.status} {json.dumps(shown, sort_keys=True)[:200]}"


def _write_known(mode: str, real: list[Outcome], emulated: list[Outcome]) -> None:
    """edges_known.json with this mode's entries made from today's differences."""
    entries = json.loads(KNOWN.read_text(encoding="utf-8")) if KNOWN.exists() else []
    old = {(e["auth"], e["step"]): e for e in entries}
    kept = [e for e in entries if e["auth"] != mode]
    found = differences(real, emulated)
    by_name = {o.step: o for o in real}
    emulated_by_name = {o.step: o for o in emulated}
    for name, difference in found.items():
        previous = old.get((mode, name), {})
        kept.append(
            {
                "step": name,
                "auth": mode,
                "kind": previous.get("kind", GROUP_KINDS[name.split(":")[0]]),
                "real": _brief(by_name[name]),
                "emulator": _brief(emulated_by_name[name]),
                "difference": difference,
            }
        )
    order = {s.name: i for i, s in enumerate(EDGE_STEPS)}
    kept.sort(key=lambda e: (e["auth"], order.get(e["step"], -1)))
    KNOWN.write_text(json.dumps(kept, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


@pytest.mark.timeout(300)
@pytest.mark.parametrize("mode", sorted(MODES))
def test_edges_replay(mode: str) -> None:
    real = load(mode)
    if [o.step for o in real] != [s.name for s in EDGE_STEPS]:
        pytest.fail(
            f"{MODES[mode]} was recorded from another script; re-record it with "
            "RONCHO_DIFF_RECORD=1 against the kit's real server (docs/emulator-edges.md)"
        )
    emulated = emulator_edges(auth=mode == "on")
    if os.environ.get("RONCHO_EDGES_WRITE_KNOWN") == "1":
        _write_known(mode, real, emulated)
    found = differences(real, emulated)
    listed = known(mode)
    problems = [
        f"{name}: {diff} (real != emulator; not in edges_known.json)"
        for name, diff in found.items()
        if name not in listed
    ]
    problems += [
        f"{name}: listed in edges_known.json but now agrees: remove its entry"
        for name in listed
        if name not in found
    ]
    problems += [
        f"{name}: differs otherwise than edges_known.json says:\n  now:    {found[name]}\n"
        f"  listed: {entry['difference']}"
        for name, entry in listed.items()
        if name in found and found[name] != entry["difference"]
    ]
    assert not problems, f"auth {mode}:\n" + "\n".join(problems)


@pytest.mark.timeout(300)
def test_the_expiring_key_switch_copies_the_server_bug() -> None:
    """The one deliberate difference a test may need to see has a switch that copies it:
    with ``refuse_expiring_keys`` every expiring-key step answers as 3.0.12 does, and the
    rest of the run is unchanged."""
    real = load("on")
    plain = emulator_edges(auth=True)
    copied = emulator_edges(auth=True, refuse_expiring_keys=True)
    expiring = {name for name in known("on") if "(expiring key)" in name}
    assert len(expiring) == 4
    assert set(differences(real, copied)) == set(differences(real, plain)) - expiring
    assert expiring <= set(differences(real, plain))


def test_known_entries_are_well_formed() -> None:
    entries = json.loads(KNOWN.read_text(encoding="utf-8"))
    names = {s.name for s in EDGE_STEPS}
    seen = set()
    for entry in entries:
        assert set(entry) == {"step", "auth", "kind", "real", "emulator", "difference"}, entry
        assert entry["step"] in names, entry["step"]
        assert entry["auth"] in MODES, entry
        assert entry["kind"] in KINDS, entry
        assert (entry["auth"], entry["step"]) not in seen, entry
        seen.add((entry["auth"], entry["step"]))


def test_edge_steps_cover_every_route() -> None:
    """Each of the server's 52 routes (the committed list) has its ordinary call in ROUTES,
    and so gets its missing-resource, malformed-body and key-kind steps."""
    declared = set()
    handlers = set()
    for line in ROUTE_LIST.read_text(encoding="utf-8").splitlines():
        if line.startswith(("GET", "POST", "PUT", "DELETE")):
            method, path = line.split()[:2]
            declared.add((method, _shape(path)))
            handlers.add(line.split()[-1])  # `.../messages` and `.../messages/`: one handler
    called = [(method, path.split("?")[0]) for _, method, path, _ in ROUTES]
    assert len(handlers) == 52
    missing = [
        route
        for route in declared
        if not any(method == route[0] and _matches(route[1], path) for method, path in called)
    ]
    assert not missing, sorted(missing)


def _shape(path: str) -> str:
    """A route's path with every `{parameter}` written the same way."""
    return "/".join("{}" if part.startswith("{") else part for part in path.split("/"))


def _matches(declared: str, called: str) -> bool:
    """Whether a called path is an instance of a declared one (`{}` matches any segment;
    a trailing slash counts)."""
    want, have = declared.split("/"), called.split("/")
    return len(want) == len(have) and all(w in ("{}", h) for w, h in zip(want, have, strict=True))


def test_edge_steps_are_many_and_named_once() -> None:
    names = [s.name for s in EDGE_STEPS]
    assert len(names) >= 600
    assert len(names) == len(set(names))
    assert all(isinstance(s, Step | Poll) for s in EDGE_STEPS)
    assert all(s.name.split(":")[0] in GROUP_KINDS for s in EDGE_STEPS)


@pytest.mark.timeout(600)
def test_edges_real_server() -> None:
    url = _loopback_url()
    if url is None:
        pytest.skip(
            "RONCHO_LIVE_URL is not set: no real server (the emulator is still held against "
            "the recordings in test_edges_replay)"
        )
    key = os.environ.get("RONCHO_LIVE_KEY") or None
    key_file = os.environ.get("RONCHO_LIVE_KEY_FILE")
    if key is None and key_file:
        key = Path(key_file).read_text(encoding="utf-8").strip() or None
    mode = "on" if key else "off"
    run = edge_run(url, key)
    version = server_version(run)
    if version != VERSION:
        pytest.skip(f"the edges are recorded from {VERSION}; this server is {version}")
    _, _, body = run.request("GET", "/openapi.json")
    if str(json.loads(body)["info"]["version"]).endswith("-emulator"):
        # The acceptance run's own test stands fake-honcho in for a server: the emulator's
        # edges are held by test_edges_replay, with its listed differences.
        pytest.skip("this server is roncho's emulator: test_edges_replay holds its edges")
    started = time.monotonic()
    real = run_edges(run)
    print(f"edges, auth {mode}: {len(real)} steps in {time.monotonic() - started:.1f} s")
    recording = json.dumps([o.to_json() for o in real], indent=1, sort_keys=True) + "\n"
    if os.environ.get("RONCHO_EDGES_OUT"):
        out = Path(os.environ["RONCHO_EDGES_OUT"])
        out.mkdir(parents=True, exist_ok=True)
        (out / MODES[mode]).write_text(recording, encoding="utf-8")
    if os.environ.get("RONCHO_DIFF_RECORD") == "1":
        (RECORDED / MODES[mode]).write_text(recording, encoding="utf-8")
        return
    drift = differences(load(mode), real)
    lines = "\n".join(f"{name}: {diff}" for name, diff in drift.items())
    assert not drift, f"the real server drifted from {MODES[mode]} (recorded != now):\n{lines}"
