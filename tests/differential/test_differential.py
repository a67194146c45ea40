"""The emulator held against a real Honcho: the same scripted calls, outcome by outcome.

- `test_emulator_matches_real_server`: with `RONCHO_LIVE_URL` (and `RONCHO_LIVE_KEY` when the
  server has auth on), runs `steps.STEPS` against that server and against a FakeHoncho that
  imitates the version the server reports (`/openapi.json` info.version), and compares status,
  content type, body shape and string error details. With `RONCHO_DIFF_RECORD=1` it also writes
  the real server's outcomes to `recorded/<version>.json`.
- `test_emulator_matches_recording`: without a server, holds the emulator against every
  recorded real run (cheap: part of the README test command).

Values the emulator cannot have (an LLM's text, ids, timestamps, token counts, the order of
ranked hits) are masked or compared by shape, as docs/emulator-profiles.md lists; every other
difference fails the test. There is no list of steps excused from the comparison.
"""

from __future__ import annotations

import ipaddress
import json
import os
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from deriver_told import EMULATOR_LOOK, Deriver, told
from diff_script import Outcome, Run, Step, Wait, cleanup
from diff_steps import STEPS

from roncho.testing import PROFILES, FakeHoncho

RECORDED = Path(__file__).resolve().parent / "recorded"


def run_script(run: Run) -> list[Outcome]:
    """Every step against one server, then its workspace deleted (also on failure)."""
    outcomes: list[Outcome] = []
    try:
        for step in STEPS:
            outcomes.append(step.run(run))
    finally:
        cleanup(run)
    return outcomes


def compare(expected: list[Outcome], got: list[Outcome]) -> list[str]:
    """Every unexpected difference, one line per step (known ones left out)."""
    problems = []
    assert [o.step for o in expected] == [o.step for o in got], "the scripts differ"
    for want, have in zip(expected, got, strict=True):
        found = want.differences(have)
        if found:
            problems.append(f"{want.step}: " + "; ".join(found) + " (real != emulator)")
    return problems


def _loopback_url() -> str | None:
    url = os.environ.get("RONCHO_LIVE_URL")
    if not url:
        return None
    host = urlsplit(url).hostname or ""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        pytest.fail(f"RONCHO_LIVE_URL must point at loopback for tests, got {host!r}")
    return url


def server_version(run: Run) -> str:
    status, _, body = run.request("GET", "/openapi.json")
    assert status == 200, f"GET /openapi.json answered {status}"
    reported = str(json.loads(body)["info"]["version"])
    # A build suffix (`3.2.0-emulator`, a deployment's own `3.2.0-...`) is held to its release.
    version = reported.split("-", 1)[0]
    if version not in PROFILES:
        pytest.fail(f"the server reports {reported!r}; FakeHoncho imitates only {sorted(PROFILES)}")
    return version


def emulator_outcomes(version: str, *, auth: bool, deriver: Deriver | None = None) -> list[Outcome]:
    """The script against a FakeHoncho of `version` whose deriver is set as `deriver` (flush
    on: the kit's, and every recording's)."""
    deriver = deriver or Deriver()
    options = deriver.emulator_options()
    look = 0.0 if deriver.flush else EMULATOR_LOOK
    with FakeHoncho(version=version, auth=auth, **options) as fake:
        return run_script(Run(fake.url, fake.admin_key if auth else None, look=look))


@pytest.mark.timeout(600)
def test_emulator_matches_real_server() -> None:
    url = _loopback_url()
    if url is None:
        pytest.skip(
            "RONCHO_LIVE_URL is not set: no real server to compare with (the emulator is "
            "still held against the recorded real runs in test_emulator_matches_recording)"
        )
    key = os.environ.get("RONCHO_LIVE_KEY") or None
    deriver = told()  # as scripts/test-real.sh was told (flush on: the kit)
    real_run = Run(url, key, look=0.0 if deriver.flush else deriver.look)
    version = server_version(real_run)
    real = run_script(real_run)
    if os.environ.get("RONCHO_DIFF_RECORD") == "1" and key is None and deriver.flush:
        RECORDED.mkdir(exist_ok=True)
        (RECORDED / f"{version}.json").write_text(
            json.dumps([o.to_json() for o in real], indent=1, sort_keys=True) + "\n",
            encoding="utf-8",
        )
    problems = compare(real, emulator_outcomes(version, auth=key is not None, deriver=deriver))
    assert not problems, "emulator differs from the real server:\n" + "\n".join(problems)


def _recordings() -> list[Path]:
    """The happy-path recordings (the edges' are test_edges.py's)."""
    return sorted(p for p in RECORDED.glob("*.json") if "-edges" not in p.stem)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("recording", _recordings(), ids=lambda p: p.stem)
def test_emulator_matches_recording(recording: Path) -> None:
    expected = [Outcome.from_json(o) for o in json.loads(recording.read_text(encoding="utf-8"))]
    if [o.step for o in expected] != [s.name for s in STEPS]:
        pytest.fail(
            f"{recording.name} was recorded from another script; re-record it with "
            "RONCHO_DIFF_RECORD=1 against a real server of that version"
        )
    problems = compare(expected, emulator_outcomes(recording.stem, auth=False))
    assert not problems, "emulator differs from the recorded real run:\n" + "\n".join(problems)


def test_there_is_a_recording_per_real_profile() -> None:
    assert "3.0.12" in {p.stem for p in _recordings()}


def test_step_names_are_unique() -> None:
    names = [s.name for s in STEPS]
    assert len(names) == len(set(names))
    assert all(isinstance(s, Step | Wait) for s in STEPS)


@pytest.mark.timeout(120)
def test_the_comparison_has_teeth() -> None:
    """The 3.2.0 profile held against the 3.0.12 record must be flagged where they differ."""
    expected = [
        Outcome.from_json(o)
        for o in json.loads((RECORDED / "3.0.12.json").read_text(encoding="utf-8"))
    ]
    flagged = {
        line.split(":")[0] for line in compare(expected, emulator_outcomes("3.2.0", auth=False))
    }
    assert {"conclusions create", "conclusions list", "workspace chat"} <= flagged
