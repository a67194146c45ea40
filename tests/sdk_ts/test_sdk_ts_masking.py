"""The TypeScript flow's masking (masking.mjs), held without a server: run by Node."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

MASKING = Path(__file__).resolve().parent / "masking.mjs"
WORKSPACE = "roncho-sdk-ts-abc123"
S1 = "s1-0a1b2c3d"


def _describe(value: object) -> Any:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the TypeScript SDK stage needs Node 20+)")
    script = (
        f"import {{ masking }} from {json.dumps(MASKING.as_uri())};\n"
        f"const {{ describe }} = masking({json.dumps(WORKSPACE)}, {json.dumps(S1)});\n"
        "let input = '';\n"
        "for await (const chunk of process.stdin) input += chunk;\n"
        "process.stdout.write(JSON.stringify(describe(JSON.parse(input))));\n"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps(value),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return json.loads(done.stdout)


def test_a_session_id_starting_with_an_underscore_is_kept_in_queue_status() -> None:
    # nanoid's alphabet has `_`: one id in 64 starts with it, and such a key was once dropped
    # as if it were an SDK object's private field (a false difference in CI).
    # An id sorting before `__proto__` (`_A...`) once lost its entry to the prototype's getter.
    for session_id in ("_" + "a" * 20, "_" + "A" * 20):
        status = {"totalWorkUnits": 5, "sessions": {session_id: {"sessionId": session_id}}}
        assert _describe(status) == {
            "sessions": {"{id}": {"sessionId": "{id}"}},
            "totalWorkUnits": 5,
        }


def test_private_fields_are_left_out_and_run_names_masked() -> None:
    value = {"_client": {"x": 1}, "id": S1, "workspaceId": WORKSPACE, "at": "2026-12-02T05:00:00Z"}
    assert _describe(value) == {"at": "{ts}", "id": "{S1}", "workspaceId": "{W}"}
