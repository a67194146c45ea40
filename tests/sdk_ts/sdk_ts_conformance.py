"""TypeScript SDK conformance: `@honcho-ai/sdk` against FakeHoncho and a real server, by value.

    python tests/sdk_ts/sdk_ts_conformance.py [--base-url URL [--key-file F] [--record]]
                                              [--tokens auto|exact|estimate]

Runs `flow.mjs` with Node against a FakeHoncho imitating 3.0.12 (deriver flush on, as the kit's
server) and, given `--base-url`, against that real server; without one, against the recorded
real run (`recorded/<version>.jsonl`, written by `--record`). Each step's outcome, SDK result
and HTTP exchanges (method, path, status, content type, body) are compared *by value*, with
workspace names, server-made ids and timestamps masked by the flow. Text an LLM wrote (the
kit's server runs a stub LLM, the emulator its own canned reasoning) is compared by shape
only, in the steps listed in LLM_TEXT; search hits are compared regardless of order (RANKED).
Token counts are compared exactly when the emulator counts as the server (the roncho[tokens]
extra), within TOKEN_TOLERANCE when it estimates. Prints a table and exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import shutil
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

from roncho.testing import FakeHoncho

HERE = Path(__file__).resolve().parent
FLOW = HERE / "flow.mjs"
RECORDED = HERE / "recorded"
FLOW_TIMEOUT = 600.0
VERSION = "3.0.12"

# Steps whose text an LLM (or the deriver's reasoning) wrote: compared by shape, not value.
LLM_TEXT = frozenset({"chat", "chat target", "chat stream", "conclusions list workspace"})
# Steps whose hits the server orders by embeddings after the word matches: the hits are
# compared by value, their order is not (docs/emulator-profiles.md says why).
RANKED = frozenset(
    {
        "search workspace",
        "search workspace no match",
        "search workspace filter",
        "search peer",
        "search session",
        "search session no match",
        "search bad limit",
        "search scope",
    }
)
# Without the roncho[tokens] extra the emulator estimates the tokenizer
# (roncho/testing/_tokens.py): then a count within this share of the server's (at least 1) is
# the same value. With the extra it counts as the server does, and counts are compared exactly.
TOKEN_TOLERANCE = 0.1
TOKEN_KEYS = frozenset({"token_count", "tokenCount"})


def shape(value: Any) -> Any:
    """Keys and JSON types; a list becomes the sorted set of its items' shapes (LLM_TEXT)."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        shapes = {json.dumps(shape(item), sort_keys=True) for item in value}
        return [json.loads(s) for s in sorted(shapes)]
    if isinstance(value, str):
        return "string"
    return value


def comparable(step: dict[str, Any]) -> dict[str, Any]:
    if step["step"] in RANKED:
        wire = [dict(x, body=_unordered(x.get("body"))) for x in step.get("wire", [])]
        return dict(step, result=_unordered(step.get("result")), wire=wire)
    if step["step"] not in LLM_TEXT:
        return step
    wire = [dict(x, body=shape(x.get("body"))) for x in step.get("wire", [])]
    return dict(step, result=shape(step.get("result")), wire=wire)


def _unordered(hits: Any) -> Any:
    if not isinstance(hits, list):
        return hits
    return sorted(hits, key=lambda hit: json.dumps(hit, sort_keys=True))


def tolerate_tokens(want: Any, have: Any) -> Any:
    """`have` with each token count close enough to `want`'s replaced by `want`'s."""
    if isinstance(want, dict) and isinstance(have, dict):
        out = {}
        for key, value in have.items():
            other = want.get(key)
            if (
                key in TOKEN_KEYS
                and isinstance(value, int)
                and isinstance(other, int)
                and abs(value - other) <= max(1, TOKEN_TOLERANCE * other)
            ):
                out[key] = other
            else:
                out[key] = tolerate_tokens(other, value)
        return out
    if isinstance(want, list) and isinstance(have, list):
        return [tolerate_tokens(a, b) for a, b in zip(want, have, strict=False)] + have[len(want) :]
    return have


def run_flow(base_url: str, key_file: str | None, look: float = 0.0) -> list[dict[str, Any]]:
    node = shutil.which("node")
    if node is None:
        raise SystemExit("sdk-ts: no `node` on PATH (Node 20 or newer)")
    workspace = f"roncho-sdk-ts-{uuid.uuid4().hex[:12]}"
    command = [node, str(FLOW), "--base-url", base_url, "--workspace", workspace]
    command += ["--deriver-look", str(look)]
    if key_file:
        command += ["--key-file", key_file]
    # The SDK reads HONCHO_* variables; the flow passes everything explicitly instead.
    env = {k: v for k, v in os.environ.items() if not k.startswith("HONCHO_")}
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=FLOW_TIMEOUT,
        env=env,
        check=False,
        cwd=HERE,
    )
    if done.returncode != 0:
        raise SystemExit(
            f"the TypeScript SDK flow failed against {base_url}:\n{done.stderr[-4000:]}"
        )
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def differences(
    real: dict[str, Any], emu: dict[str, Any], *, exact_tokens: bool = False
) -> list[str]:
    """What differs between a step's two runs (token counts within TOKEN_TOLERANCE unless
    `exact_tokens`)."""
    real, emu = comparable(real), comparable(emu)
    if not exact_tokens:
        emu = dict(
            emu,
            result=tolerate_tokens(real.get("result"), emu.get("result")),
            wire=[
                dict(have, body=tolerate_tokens(want.get("body"), have.get("body")))
                for want, have in zip(real.get("wire", []), emu.get("wire", []), strict=False)
            ]
            + emu.get("wire", [])[len(real.get("wire", [])) :],
        )
    found = []
    if real.get("outcome") != emu.get("outcome"):
        found.append(f"outcome {real.get('outcome')} != {emu.get('outcome')}")
    if real.get("error") != emu.get("error"):
        found.append(f"error {real.get('error')!r} != {emu.get('error')!r}")
    if real.get("result") != emu.get("result"):
        found.append(f"SDK result {first_difference(real.get('result'), emu.get('result'))}")
    real_wire, emu_wire = real.get("wire", []), emu.get("wire", [])
    if len(real_wire) != len(emu_wire):
        found.append(f"{len(real_wire)} != {len(emu_wire)} HTTP exchanges")
    for want, have in zip(real_wire, emu_wire, strict=False):
        for key in ("method", "path", "status", "content_type", "body"):
            if want.get(key) != have.get(key):
                found.append(
                    f"{want['method']} {want['path']}: {key} "
                    f"{first_difference(want.get(key), have.get(key))}"
                )
    return found


def first_difference(want: Any, have: Any, path: str = "") -> str:
    """Where two JSON values first differ, e.g. `[3].token_count: 26 != 23`."""
    if isinstance(want, dict) and isinstance(have, dict):
        for key in sorted(set(want) | set(have)):
            if want.get(key, "<absent>") != have.get(key, "<absent>"):
                return first_difference(
                    want.get(key, "<absent>"), have.get(key, "<absent>"), f"{path}.{key}"
                )
    if isinstance(want, list) and isinstance(have, list):
        for index, (a, b) in enumerate(zip(want, have, strict=False)):
            if a != b:
                return first_difference(a, b, f"{path}[{index}]")
        if len(want) != len(have):
            return f"{path}: {len(want)} != {len(have)} items"
    return f"{path or '.'}: {_cut(want, 120)} != {_cut(have, 120)}"


def _cut(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


def _short(step: dict[str, Any] | None) -> str:
    if step is None:
        return "-"
    codes = ",".join(str(x["status"]) for x in step.get("wire", [])) or "-"
    return f"{step.get('outcome', '?')} [{codes}]"


def compare_and_print(
    real: list[dict[str, Any]], emu: list[dict[str, Any]], label: str, *, exact_tokens: bool
) -> int:
    by_name = {s["step"]: s for s in emu}
    problems = 0
    print(f"{'step':<40} {'emulator':<30} {label:<30} verdict")
    print("-" * 112)
    for want in real:
        have = by_name.get(want["step"])
        found = (
            ["missing on the emulator"]
            if have is None
            else differences(want, have, exact_tokens=exact_tokens)
        )
        problems += bool(found)
        verdict = "DIFFERENT" if found else "same"
        if not found and want["step"] in LLM_TEXT:
            verdict = "same (shape: LLM text)"
        print(f"{want['step'][:40]:<40} {_short(have):<30} {_short(want):<30} {verdict}")
        for line in found:
            print(f"    {line}")
    extra = [s["step"] for s in emu if s["step"] not in {w["step"] for w in real}]
    for name in extra:
        problems += 1
        print(f"{name[:40]:<40} only on the emulator: DIFFERENT")
    print("-" * 112)
    counts = "exactly" if exact_tokens else f"within {TOKEN_TOLERANCE:.0%}"
    print(
        f"{len(real)} steps, {len(real) - problems} the same, {problems} different "
        f"(token counts compared {counts})"
    )
    return problems


def _check_loopback(url: str) -> None:
    host = urlsplit(url).hostname or ""
    try:
        ok = ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = host == "localhost"
    if not ok:
        raise SystemExit(f"--base-url must be a loopback address, got {host!r}")


def server_version(base_url: str) -> str:
    with urlopen(base_url.rstrip("/") + "/openapi.json", timeout=30) as reply:
        return str(json.load(reply)["info"]["version"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", help="a real Honcho on loopback (else: the recording)")
    parser.add_argument("--key-file", help="admin key for a real server with auth on")
    parser.add_argument("--record", action="store_true", help="write recorded/<version>.jsonl")
    parser.add_argument(
        "--tokens",
        choices=("auto", "exact", "estimate"),
        default="auto",
        help="the emulator's token counter (FakeHoncho's `tokens`; default: exact when the "
        "roncho[tokens] extra is installed)",
    )
    args = parser.parse_args()
    deriver = told()  # as scripts/test-real.sh was told (flush on: the kit, every recording)
    if args.base_url:
        _check_loopback(args.base_url)
        # A build suffix (`3.0.12-emulator`, a deployment's own `3.2.0-...`) is held to its
        # release, as the honcho-ai conformance and the differential hold it.
        version = server_version(args.base_url).split("-", 1)[0]
        if version != VERSION:
            raise SystemExit(f"the server reports {version}; this flow is pinned to {VERSION}")
        print(f"real server {args.base_url}: Honcho {version}")
        real = run_flow(args.base_url, args.key_file, 0.0 if deriver.flush else deriver.look)
        if args.record and not args.key_file and deriver.flush:
            RECORDED.mkdir(exist_ok=True)
            lines = [json.dumps(step, sort_keys=True, ensure_ascii=False) for step in real]
            (RECORDED / f"{VERSION}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        label = "real server"
    else:
        recording = RECORDED / f"{VERSION}.jsonl"
        real = [json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines()]
        label = f"recorded real {VERSION}"
    auth = bool(args.key_file)
    with (
        FakeHoncho(
            version=VERSION, auth=auth, tokens=args.tokens, **deriver.emulator_options()
        ) as fake,
        tempfile.TemporaryDirectory() as tmp,
    ):
        key_file = None
        if auth:
            key_file = str(Path(tmp) / "key")
            Path(key_file).write_text(fake.admin_key, encoding="utf-8")
        counting = fake.options.token_counting
        print(
            f"emulator: FakeHoncho(version={VERSION!r}, auth={auth}, "
            f"tokens={args.tokens!r}): token counts {counting}, deriver {deriver.words()}"
        )
        emu = run_flow(fake.url, key_file, 0.0 if deriver.flush else EMULATOR_LOOK)
    exact = counting == "exact"
    return 1 if compare_and_print(real, emu, label, exact_tokens=exact) else 0


if __name__ == "__main__":
    sys.exit(main())
