"""SDK conformance: the official SDK's flow against FakeHoncho and a real server, step by step.

    python tests/sdk/sdk_conformance.py --sdk-python PATH [--base-url URL [--key-file F]] [--record]

Runs `sdk_flow.py` with the SDK venv's interpreter against a FakeHoncho imitating the server's
version (3.0.12 without a server) and, given `--base-url`, against that real server; then
compares each step's outcome, the shape of what the SDK returned and every HTTP exchange
(status, content type, body shape, error text). Without a server the emulator is compared with
the recorded real run (`recorded/<version>.jsonl`, written by `--record`). Prints a table and
exits 1 on any unexpected difference, or when a recorded fact about the SDK no longer holds.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from urllib.request import urlopen

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: deriver_told
from deriver_told import EMULATOR_LOOK, told

from roncho.testing import PROFILES, FakeHoncho

HERE = Path(__file__).resolve().parent
FLOW = HERE / "sdk_flow.py"
RECORDED = HERE / "recorded"
FLOW_TIMEOUT = 600.0

# What the SDK (honcho-ai 2.7.0) itself does against Honcho 3.0.12, on the real server and on
# the emulator alike: facts about that client, not emulator bugs (docs/sdk-conformance.md).
SDK_FACTS: dict[str, tuple[str, str]] = {
    "conclusions get (SDK: GET route 3.0.12 lacks)": (
        "error",
        "`conclusions.get(id)` sends `GET .../conclusions/{id}`, a route 3.0.12 lacks: 405",
    ),
    "conclusions derived (SDK: always 422)": (
        "error",
        "`derived()` filters `source_ids: {contains: <id>}` (a string): 3.0.12 answers 422",
    ),
    "workspace chat (SDK: 404 on 3.0.12)": (
        "error",
        "`honcho.chat()` posts to `/v3/workspaces/{w}/chat`, absent on 3.0.12: 404",
    ),
    "chat include_evidence (3.0.12: ignored)": (
        "ok",
        "`include_evidence=True` is sent, the server ignores it, the SDK returns no evidence",
    ),
}

# Steps whose hits are a value (the server ranks by full text and embeddings, the emulator by
# keywords): each hit's shape is compared with its `metadata` left out.
RANKED = frozenset({"search workspace", "search peer", "search session", "conclusions query"})


def _without_metadata(shape: Any) -> Any:
    if isinstance(shape, dict):
        return {k: ({} if k == "metadata" else _without_metadata(v)) for k, v in shape.items()}
    if isinstance(shape, list):
        items = {json.dumps(_without_metadata(item), sort_keys=True) for item in shape}
        return [json.loads(item) for item in sorted(items)]
    return shape


def _comparable(step: dict[str, Any]) -> dict[str, Any]:
    if step["step"] not in RANKED:
        return step
    wire = [dict(x, shape=_without_metadata(x["shape"])) for x in step.get("wire", [])]
    return dict(step, result=_without_metadata(step.get("result")), wire=wire)


def run_flow(
    sdk_python: str, base_url: str, key_file: str | None, look: float = 0.0
) -> list[dict[str, Any]]:
    workspace = f"roncho-sdk-{uuid.uuid4().hex[:12]}"
    command = [sdk_python, str(FLOW), "--base-url", base_url, "--workspace", workspace]
    command += ["--deriver-look", str(look)]
    if key_file:
        command += ["--key-file", key_file]
    # The SDK reads HONCHO_* variables; the flow passes everything explicitly instead.
    env = {k: v for k, v in os.environ.items() if not k.startswith("HONCHO_")}
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=FLOW_TIMEOUT, env=env, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"the SDK flow failed against {base_url}:\n{done.stderr[-4000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def server_version(base_url: str) -> str:
    with urlopen(base_url.rstrip("/") + "/openapi.json", timeout=30) as reply:
        reported = str(json.load(reply)["info"]["version"])
    # A build suffix (`3.2.0-emulator`, a deployment's own `3.2.0-...`) is held to its release.
    return reported.split("-", 1)[0]


def differences(real: dict[str, Any], emu: dict[str, Any]) -> list[str]:
    real, emu = _comparable(real), _comparable(emu)
    found = []
    if real.get("outcome") != emu.get("outcome"):
        found.append(f"outcome {real.get('outcome')} != {emu.get('outcome')}")
    if real.get("result") != emu.get("result"):
        found.append(
            f"SDK result {json.dumps(real.get('result'))} != {json.dumps(emu.get('result'))}"
        )
    real_wire, emu_wire = real.get("wire", []), emu.get("wire", [])
    if len(real_wire) != len(emu_wire):
        found.append(f"{len(real_wire)} != {len(emu_wire)} HTTP exchanges")
    for want, have in zip(real_wire, emu_wire, strict=False):
        for key in ("method", "path", "status", "content_type", "shape", "detail"):
            if want.get(key) != have.get(key):
                found.append(
                    f"{want['method']} {want['path']}: {key} "
                    f"{json.dumps(want.get(key))} != {json.dumps(have.get(key))}"
                )
    return found


def check_fact(step: dict[str, Any]) -> str | None:
    fact = SDK_FACTS.get(step["step"])
    if fact is None:
        return None
    if not step.get("outcome", "").startswith(fact[0]):
        return f"SDK fact no longer holds: expected {fact[0]}, got {step.get('outcome')}"
    if step["step"].startswith("chat include_evidence"):
        evidence = (step.get("result") or {}).get("fields", {}).get("evidence")
        if evidence != "null":
            return f"SDK fact no longer holds: evidence is {evidence!r}, not null"
    return None


def _short(step: dict[str, Any] | None) -> str:
    if step is None:
        return "-"
    wire = step.get("wire", [])
    codes = ",".join(str(x["status"]) for x in wire) or "-"
    return f"{step.get('outcome', '?')} [{codes}]"


def compare_and_print(
    real: list[dict[str, Any]], emu: list[dict[str, Any]], real_label: str
) -> int:
    by_name = {s["step"]: s for s in emu}
    problems = 0
    print(f"{'step':<48} {'emulator':<28} {real_label:<28} verdict")
    print("-" * 120)
    for want in real:
        have = by_name.get(want["step"])
        found = ["missing on the emulator"] if have is None else differences(want, have)
        facts = [m for m in (check_fact(want), have and check_fact(have)) if m]
        if found or facts:
            problems += 1
            verdict = "DIFFERENT"
        elif want["step"] in SDK_FACTS:
            verdict = "same (SDK fact)"
        else:
            verdict = "same"
        print(f"{want['step'][:48]:<48} {_short(have):<28} {_short(want):<28} {verdict}")
        for line in [*found, *facts]:
            print(f"    {line}")
    extra = [s["step"] for s in emu if s["step"] not in {w["step"] for w in real}]
    for name in extra:
        problems += 1
        print(f"{name[:48]:<48} only on the emulator: DIFFERENT")
    print("-" * 120)
    print(f"{len(real)} steps, {len(real) - problems} the same, {problems} different")
    return problems


def _check_loopback(url: str) -> None:
    host = urlsplit(url).hostname or ""
    try:
        ok = ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = host == "localhost"
    if not ok:
        raise SystemExit(f"--base-url must be a loopback address, got {host!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sdk-python", required=True, help="the SDK venv's python")
    parser.add_argument("--base-url", help="a real Honcho on loopback (else: the recording)")
    parser.add_argument("--key-file", help="admin key for a real server with auth on")
    parser.add_argument("--record", action="store_true", help="write recorded/<version>.jsonl")
    parser.add_argument(
        "--emulator-version",
        help="imitate this version instead of the server's (shows what a profile changes)",
    )
    args = parser.parse_args()
    version = "3.0.12"
    real: list[dict[str, Any]]
    deriver = told()  # as scripts/test-real.sh was told (flush on: the kit, every recording)
    if args.base_url:
        _check_loopback(args.base_url)
        version = server_version(args.base_url)
        if version not in PROFILES:
            raise SystemExit(
                f"the server reports {version}; FakeHoncho imitates {sorted(PROFILES)}"
            )
        print(f"real server {args.base_url}: Honcho {version}")
        real = run_flow(
            args.sdk_python, args.base_url, args.key_file, 0.0 if deriver.flush else deriver.look
        )
        if args.record and not args.key_file and deriver.flush:
            RECORDED.mkdir(exist_ok=True)
            lines = [json.dumps(step, sort_keys=True) for step in real]
            (RECORDED / f"{version}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        label = "real server"
    else:
        recording = RECORDED / f"{version}.jsonl"
        real = [json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines()]
        label = f"recorded real {version}"
    auth = bool(args.key_file)
    version = args.emulator_version or version
    with (
        FakeHoncho(version=version, auth=auth, **deriver.emulator_options()) as fake,
        tempfile.TemporaryDirectory() as tmp,
    ):
        key_file = None
        if auth:
            key_file = str(Path(tmp) / "key")
            Path(key_file).write_text(fake.admin_key, encoding="utf-8")
        print(f"emulator: FakeHoncho(version={version!r}, auth={auth}), deriver {deriver.words()}")
        emu = run_flow(
            args.sdk_python, fake.url, key_file, 0.0 if deriver.flush else EMULATOR_LOOK
        )
    problems = compare_and_print(real, emu, label)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
