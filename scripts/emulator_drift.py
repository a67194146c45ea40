"""Where the emulator's profile for a Honcho version disagrees with a recorded real server.

Usage::

    python scripts/emulator_drift.py 3.2.0                           # docs/observations/*.json
    python scripts/emulator_drift.py 3.2.0 docs/observations/2026-12-05-real-3-2-0*.json

For every real-server observation file of that version (the live suite's ``--record``, as
``scripts/test-real.sh --record`` writes them), the live suite is run once more, the same way,
against ``FakeHoncho(version=VERSION)`` (auth on or off as the recorded run had it), and the
two recordings are compared call by call: the statuses a call got, the shape of each answer
(keys and JSON types), every error ``detail`` word for word, the content type, and the
suite's findings. Every disagreement is listed, one line each, so the emulator can be
corrected from the owner's own run. Exit 0: none; 1: some; 2: nothing to compare.

A server version with a build suffix (``3.2.0-...``) is compared with its release's profile.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # render_compat, also when loaded by path

from render_compat import brief

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OBSERVATIONS = ROOT / "docs" / "observations"
LIVE_SUITE_TIMEOUT = 600
# Caller data: its shape is the caller's, not the server's (``{}`` or not is no disagreement).
USER_DATA = frozenset({"metadata", "configuration", "peers"})
# Calls whose body the emulator does not imitate on purpose: only their status is compared.
STATUS_ONLY = frozenset({"server_version"})  # /openapi.json: the emulator serves a stub


def release(version: str | None) -> str:
    """``3.2.0-pr1092-7e57fe2`` -> ``3.2.0``; the profile that stands for that server."""
    return (version or "").split("-", 1)[0]


@dataclass(frozen=True)
class Answer:
    """What one call got, as the comparison sees it (no timings, no values)."""

    status: Any
    content_type: str | None
    shape: str
    detail: str | None

    def __str__(self) -> str:
        text = f"{self.status} {self.shape}"
        if self.detail:
            text += f" detail “{self.detail}”"
        if self.content_type and not self.content_type.startswith("application/json"):
            text += f" ({self.content_type})"
        return text


def normal(shape: Any) -> Any:
    """A shape with caller data folded and a list's item variants merged, so that two runs
    differ only where the server's answer has another form."""
    if isinstance(shape, dict):
        return {k: "{…}" if k in USER_DATA else normal(v) for k, v in shape.items()}
    if isinstance(shape, list):
        items = {json.dumps(normal(item), sort_keys=True): normal(item) for item in shape}
        return [items[k] for k in sorted(items)]
    return shape


def _answer(call: Mapping[str, Any]) -> Answer:
    if call["op"] in STATUS_ONLY:
        shape = "(body not compared)"
    elif call.get("events"):
        shape = "SSE " + " then ".join(brief(normal(e)) for e in call["events"])
    elif call.get("response") is not None:
        shape = brief(normal(call["response"]))
    else:
        shape = "empty"
    content_type = call.get("content_type")
    if isinstance(content_type, str):
        content_type = content_type.split(";")[0].strip()
    return Answer(call.get("status"), content_type, shape, call.get("detail"))


def _calls(document: Mapping[str, Any]) -> dict[str, list[Answer]]:
    """Each call (op, method, path template, request shape) and the answers it got, in order."""
    found: dict[str, list[Answer]] = {}
    for call in document.get("calls", []):
        request = brief(call["request"]) if call.get("request") is not None else "no body"
        key = f"{call['op']} {call['method']} {call['path']} {request}"
        answers = found.setdefault(key, [])
        answer = _answer(call)
        if answer not in answers:
            answers.append(answer)
    return found


def not_compared(real: Mapping[str, Any], emulated: Mapping[str, Any]) -> list[str]:
    """Calls only one of the two runs made (a live suite of another roncho version made the
    recording, or a call's request differed): no answer to compare, so no disagreement."""
    real_calls, emulated_calls = _calls(real), _calls(emulated)
    return [f"only in the recording: {key}" for key in real_calls if key not in emulated_calls] + [
        f"only in the emulator's run: {key}" for key in emulated_calls if key not in real_calls
    ]


def disagreements(real: Mapping[str, Any], emulated: Mapping[str, Any]) -> list[str]:
    """One line per place where the emulator's recording differs from the real one."""
    lines: list[str] = []
    real_calls, emulated_calls = _calls(real), _calls(emulated)
    for key, answers in real_calls.items():
        theirs = emulated_calls.get(key)
        if theirs is None:
            continue
        for answer in answers:
            if answer in theirs:
                continue
            same_status = [a for a in theirs if a.status == answer.status]
            got = " / ".join(map(str, same_status or theirs))
            lines.append(f"call {key}: server {answer}; emulator {got}")
        for answer in theirs:
            if not any(a.status == answer.status for a in answers):
                lines.append(f"call {key}: the emulator also answered {answer}, the server never")
    real_findings = real.get("findings", {})
    emulated_findings = emulated.get("findings", {})
    for name in real_findings:
        mine, theirs = real_findings[name], emulated_findings.get(name)
        if name == "openapi_version":
            continue  # the emulator says <version>-emulator by design
        if mine != theirs:
            lines.append(
                f"finding {name}: server {json.dumps(mine, ensure_ascii=False)}; emulator "
                f"{json.dumps(theirs, ensure_ascii=False)}"
            )
    return lines


def record_emulator(version: str, auth: bool, out: Path) -> dict[str, Any]:
    """Run the live suite against FakeHoncho(version) as if it were the server; its recording."""
    from roncho.testing import FakeHoncho

    with FakeHoncho(version=version, auth=auth, flush=True, purge_delay=0.2) as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RONCHO_", "HONCHO_"))}
        env["RONCHO_LIVE_URL"] = fake.url
        if auth:
            env["RONCHO_LIVE_KEY"] = fake.admin_key
        label = f"emulator-{version.replace('.', '-')}{'-auth' if auth else ''}"
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "tests/live", "--live-target", "live",
             "-p", "no:cacheprovider", "-q", "--record", str(out), "--server-label", label],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=LIVE_SUITE_TIMEOUT,
        )  # fmt: skip
    files = sorted(out.glob(f"*-{label}.json"))
    if not files:
        raise SystemExit(
            f"the live suite against the emulator recorded nothing (exit {done.returncode}):\n"
            + done.stdout[-3000:]
        )
    result: dict[str, Any] = json.loads(files[-1].read_text(encoding="utf-8"))
    return result


def real_runs(paths: Iterable[Path], version: str) -> list[tuple[Path, dict[str, Any]]]:
    chosen = []
    for path in paths:
        document = json.loads(path.read_text(encoding="utf-8"))
        if document.get("kind") == "live" and release(document.get("version")) == version:
            chosen.append((path, document))
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("version", help="the Honcho version, e.g. 3.2.0 (a build suffix is cut)")
    parser.add_argument("observations", nargs="*", type=Path, help="observation files")
    args = parser.parse_args(argv)
    version = release(args.version)
    from roncho.testing import PROFILES

    if version not in PROFILES:
        print(f"emulator_drift: FakeHoncho has no profile {version!r} (it has {sorted(PROFILES)})")
        return 2
    paths = args.observations or sorted(DEFAULT_OBSERVATIONS.glob("*.json"))
    runs = real_runs(paths, version)
    if not runs:
        print(
            f"emulator_drift: no real-server observation of version {version} among "
            f"{len(paths)} file(s); record one with scripts/test-real.sh --record DIR"
        )
        return 2
    total = 0
    with tempfile.TemporaryDirectory(prefix="roncho-drift-") as tmp:
        for path, real in runs:
            auth = real.get("findings", {}).get("auth") == "on"
            emulated = record_emulator(version, auth, Path(tmp))
            found = disagreements(real, emulated)
            total += len(found)
            print(
                f"== {path.name} (server {real.get('version')}, auth {'on' if auth else 'off'}) "
                f"against FakeHoncho(version={version!r}): {len(found)} disagreement(s)"
            )
            for line in found:
                print(f"  {line}")
            skipped = not_compared(real, emulated)
            if skipped:
                print(f"  not compared ({len(skipped)}: the two runs did not make these calls):")
                for line in skipped:
                    print(f"    {line}")
    print(
        f"emulator_drift: {total} disagreement(s) between the {version} profile and the "
        "recorded run(s)"
    )
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
