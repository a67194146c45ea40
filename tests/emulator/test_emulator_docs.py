"""The emulator's user docs stay true: the README section's examples run, and docs/emulator.md
names every server-mode flag and every control route.

The README's Python example is a pytest module, so it is run by pytest in a subprocess (the
plugin's fixtures come from the installed entry point); the shell example is run by bash with
the virtual environment's `fake-honcho` on PATH. Both have a time limit.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from roncho.testing import _cli
from roncho.testing._routes import control

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Testing your code against Honcho without a Honcho"
RUN_TIMEOUT = 120.0


def _section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index(SECTION)
    end = text.index("\n## ", start + len(SECTION))
    return text[start:end]


def _block(language: str) -> str:
    blocks = re.findall(rf"```{language}\n(.*?)```", _section(), flags=re.S)
    assert len(blocks) == 1, f"expected one {language} block in the README section"
    return str(blocks[0])


@pytest.mark.timeout(RUN_TIMEOUT + 30)  # the inner run's own bound, not the suite's 60 s
def test_readme_python_example_passes_under_pytest(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_readme_example.py").write_text(_block("python"))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout


def test_readme_shell_example_runs(tmp_path: Path) -> None:
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "fake-honcho").exists():
        pytest.skip("fake-honcho is not installed next to this interpreter (pip install -e .)")
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + _block("sh")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout  # curl adds no newline after a JSON body
    assert out.startswith('{"id":"ci",')
    assert '{"armed":"fail_next","status":503}503\n200\n[' in out
    log = out[out.index("\n200\n[") + 5 : out.rindex("]") + 1]
    assert [entry["path"] for entry in json.loads(log)] == ["/v3/workspaces"] + ["/health"] * 2
    assert out.endswith('{"reset":true}')
    assert result.stderr == ""
    assert [p.name for p in tmp_path.iterdir()] == ["ready.json"]


def test_docs_name_every_flag_and_control_route() -> None:
    docs = (ROOT / "docs" / "emulator.md").read_text()
    flags = {
        option
        for action in _cli.build_parser()._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    }
    missing = sorted(flag for flag in flags if f"`{flag}" not in docs)
    assert missing == []
    routes = [f"`{route.method} {route.template}`" for route in control.ROUTES]
    assert [route for route in routes if route not in docs] == []
    assert "docs/emulator.md" in _section()
