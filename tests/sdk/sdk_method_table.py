"""Every public method of honcho-ai 2.7.0 against FakeHoncho 3.2.0 and 3.0.12: the method table.

    python tests/sdk/sdk_method_table.py --sdk-python PATH            # check (exit 1 on a fault)
    python tests/sdk/sdk_method_table.py --sdk-python PATH --write    # also rewrite the docs table
    python tests/sdk/sdk_method_table.py --sdk-python PATH --base-url URL --record
                                          # re-record a real 3.0.12 server's answers (auth off)
    python tests/sdk/sdk_method_table.py --sdk-python PATH --base-url URL
                                          # a real 3.2.x: held as FakeHoncho 3.2.0 is (Q8)

Runs `sdk_methods.py` (in the SDK's venv) against `FakeHoncho(version="3.2.0")` and
`FakeHoncho(version="3.0.12")`, then holds: every public method was called (73); on 3.2.0 each
returns and each answer validates against the SDK's own response model, with no key the model
does not declare; on 3.0.12 each call agrees with the recorded real 3.0.12 server
(`recorded/3.0.12-methods.jsonl`: outcome, routes, statuses and the model's verdict), failing
where it fails. The table between the markers of docs/sdk-conformance.md is rendered from the
runs and must match (`--write` rewrites it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from sdk_conformance import _check_loopback, server_version

from roncho.testing import FakeHoncho

HERE = Path(__file__).resolve().parent
METHODS = HERE / "sdk_methods.py"
RECORDED = HERE / "recorded" / "3.0.12-methods.jsonl"
DOCS = HERE.parents[1] / "docs" / "sdk-conformance.md"
START = "<!-- methods:start -->\n"
END = "<!-- methods:end -->"
PUBLIC_METHODS = 73  # Honcho 19, Peer 16, Session 23, Scope 4, ConclusionsView 8, Workspace... 3
RUN_TIMEOUT = 300.0

Run = list[dict[str, Any]]


def run_methods(sdk_python: str, base_url: str) -> tuple[Run, dict[str, Any]]:
    workspace = f"roncho-sdk-{uuid.uuid4().hex[:12]}"
    done = subprocess.run(
        [sdk_python, str(METHODS), "--base-url", base_url, "--workspace", workspace],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
        # The SDK reads HONCHO_* variables; the run passes everything explicitly instead.
        env={k: v for k, v in os.environ.items() if not k.startswith("HONCHO_")},
    )
    if done.returncode != 0:
        raise SystemExit(f"sdk_methods.py failed against {base_url}:\n{done.stderr[-4000:]}")
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    coverage = next(line["coverage"] for line in lines if "coverage" in line)
    return [line for line in lines if "coverage" not in line], coverage


def on_emulator(sdk_python: str, version: str) -> tuple[Run, dict[str, Any]]:
    with FakeHoncho(version=version, flush=True) as fake:
        return run_methods(sdk_python, fake.url)


def _key(call: dict[str, Any]) -> tuple[object, ...]:
    wire = [
        (x["method"], x["route"], x["status"], x.get("accepted"), tuple(x.get("unknown") or ()))
        for x in call["wire"]
    ]
    return (call["method"], call["outcome"], tuple(wire))


def faults_3_2(run: Run, label: str = "3.2.0") -> list[str]:
    """What upstream 3.2 is known to answer, as the SDK's models say: every method returns,
    every body validates, no key the model does not declare."""
    found = []
    for call in run:
        if call["outcome"] != "ok":
            found.append(f"{label}: {call['method']} -> {call['outcome']}")
        for x in call["wire"]:
            if x["status"] >= 300 or x.get("accepted") is not True or x.get("unknown"):
                found.append(f"{label}: {call['method']}: {x['method']} {x['route']} {x}")
    return found


def faults(
    v320: Run, cov320: dict[str, Any], v3012: Run, cov3012: dict[str, Any], real: Run
) -> list[str]:
    """Every way the runs fall short of what the table promises."""
    found = []
    for name, coverage in (("3.2.0", cov320), ("3.0.12", cov3012)):
        if coverage["missing"] or coverage["called"] != PUBLIC_METHODS:
            found.append(
                f"{name}: {coverage['called']} methods called, missing {coverage['missing']}"
            )
    found += faults_3_2(v320)
    if [_key(c) for c in v3012] != [_key(c) for c in real]:
        for have, want in zip(v3012, real, strict=False):
            if _key(have) != _key(want):
                found.append(
                    f"3.0.12: {have['method']}: emulator {_key(have)} != real {_key(want)}"
                )
        if len(v3012) != len(real):
            found.append(f"3.0.12: {len(v3012)} calls on the emulator, {len(real)} recorded")
    return found


def _status(call: dict[str, Any]) -> str:
    codes = ", ".join(str(x["status"]) for x in call["wire"])
    return codes or "(no request)"


def _routes(call: dict[str, Any]) -> str:
    seen: list[str] = []
    for x in call["wire"]:
        route = x["route"].replace("/v3/workspaces/{W}/", "…/")
        short = f"{x['method']} {route}"
        if short not in seen:
            seen.append(short)
    return "<br>".join(f"`{s}`" for s in seen) or "none (builds an object)"


def _accepted(call: dict[str, Any]) -> str:
    judged = [x for x in call["wire"] if x.get("accepted") is not None]
    if not judged:
        return "n/a" if not call["wire"] else "no (error)"
    models = sorted({str(x["model"]) for x in judged if x.get("model")})
    if not models:
        return "n/a (the SDK reads no body)"
    verdict = "yes" if all(x["accepted"] for x in judged) else "no"
    return f"{verdict} ({', '.join(models)})"


def _old(call: dict[str, Any]) -> str:
    if call["outcome"] == "ok":
        return f"ok {_status(call)}"
    return f"**{call['outcome'].removeprefix('error ')}** ({_status(call)})"


def table(v320: Run, v3012: Run) -> str:
    by_name = {c["method"]: c for c in v3012}
    lines = [
        "| method | route | 3.2.0 status | accepted by the SDK's model "
        "| 3.0.12 (= the real server) |",
        "|---|---|---|---|---|",
    ]
    for call in v320:
        old = by_name.get(call["method"])
        lines.append(
            f"| `{call['method']}` | {_routes(call)} | {_status(call)} | {_accepted(call)} | "
            f"{_old(old) if old else '-'} |"
        )
    return "\n".join(lines) + "\n"


def against_3_2(sdk_python: str, base_url: str, version: str) -> int:
    """Q8 for one server: its answers held, method by method, to what upstream 3.2 is known to
    send (the SDK's models), and set beside FakeHoncho 3.2.0's (the release notes' reading)."""
    served, coverage = run_methods(sdk_python, base_url)
    emulated, _ = on_emulator(sdk_python, "3.2.0")
    found = faults_3_2(served, f"server {version}")
    if coverage["missing"]:
        found.append(f"server {version}: methods left uncalled: {coverage['missing']}")
    by_name = {c["method"]: c for c in emulated}
    for call in served:
        twin = by_name.get(call["method"])
        if twin is not None and _key(call) != _key(twin):
            found.append(f"differs from FakeHoncho 3.2.0: {_key(call)} != {_key(twin)}")
    print(table(served, emulated).replace("3.0.12 (= the real server)", "FakeHoncho 3.2.0"))
    print(f"server {version}: {len(found)} differences from upstream 3.2 as known")
    for fault in found:
        print(f"DIFFERENCE {fault}")
    return 1 if found else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sdk-python", required=True)
    parser.add_argument("--write", action="store_true", help="rewrite the docs table")
    parser.add_argument("--base-url", help="a real Honcho 3.0.12 on loopback, to --record")
    parser.add_argument("--record", action="store_true", help="write the real server's run")
    args = parser.parse_args()
    if args.base_url:
        _check_loopback(args.base_url)
        version = server_version(args.base_url)
        if version.startswith("3.2.") and not args.record:
            return against_3_2(args.sdk_python, args.base_url, version)
        if version != "3.0.12":
            raise SystemExit(f"the server reports {version}; the recording is of 3.0.12")
        real, real_coverage = run_methods(args.sdk_python, args.base_url)
        if real_coverage["missing"]:
            raise SystemExit(f"methods left uncalled on the server: {real_coverage['missing']}")
        if args.record:
            RECORDED.write_text("".join(json.dumps(c, sort_keys=True) + "\n" for c in real))
    else:
        real = [json.loads(line) for line in RECORDED.read_text(encoding="utf-8").splitlines()]
    v320, cov320 = on_emulator(args.sdk_python, "3.2.0")
    v3012, cov3012 = on_emulator(args.sdk_python, "3.0.12")
    found = faults(v320, cov320, v3012, cov3012, real)
    rendered = table(v320, v3012)
    text = DOCS.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    current, tail = rest.split(END, 1)
    if args.write:
        DOCS.write_text(head + START + rendered + END + tail, encoding="utf-8")
    elif current != rendered:
        found.append("docs/sdk-conformance.md's method table is stale: run with --write")
    print(rendered)
    ok320 = sum(c["outcome"] == "ok" for c in v320)
    same = sum(_key(a) == _key(b) for a, b in zip(v3012, real, strict=False))
    print(f"3.2.0: {ok320} of {len(v320)} methods ok; 3.0.12: {same} of {len(real)} as recorded")
    for fault in found:
        print(f"FAULT {fault}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
