"""The check in tests/wire/conftest.py can fail: an "asyncio" run that never makes an
AsyncClient (here, a client class bound when the module is imported, before the fixture swaps
in the async facade) fails, and one that takes ``roncho.Client`` at call time passes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]

PROBE = """
import roncho
from roncho.testing import FakeHoncho

BOUND_AT_IMPORT = roncho.Client


def probe(kind):
    with FakeHoncho() as fake:
        assert kind(fake.url, "w").probe().ok


def test_bound_at_import():
    probe(BOUND_AT_IMPORT)


def test_taken_at_call_time():
    probe(roncho.Client)
"""


@pytest.mark.blocking_only("runs pytest on a probe file in a subprocess")
@pytest.mark.timeout(120)
def test_an_asyncio_run_that_makes_no_async_client_fails(tmp_path: Path) -> None:
    shutil.copy(TESTS / "wire" / "conftest.py", tmp_path / "conftest.py")
    shutil.copy(TESTS / "both_clients.py", tmp_path)
    (tmp_path / "test_probe.py").write_text(PROBE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=100, check=False,
    )  # fmt: skip
    out = done.stdout
    assert "FAILED test_probe.py::test_bound_at_import[asyncio]" in out, out
    assert "made no AsyncClient" in out, out
    assert "1 failed, 3 passed" in out, out
