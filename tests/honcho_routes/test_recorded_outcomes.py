"""The real 3.0.12's outcomes of Honcho's own route tests, as run_routes.py recorded them."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import run_routes

RECORDED = Path(__file__).resolve().parent / "recorded" / "3.0.12.json"


def _outcomes() -> list[dict[str, str]]:
    return list(json.loads(RECORDED.read_text(encoding="utf-8")))


def test_every_route_test_has_an_outcome() -> None:
    outcomes = _outcomes()
    assert len(outcomes) == 430
    assert all(o["test"].startswith("tests/routes/test_") for o in outcomes)
    counts = Counter(o["outcome"] for o in outcomes)
    assert counts["passed"] >= 250


def test_only_the_harness_reasons_are_kept() -> None:
    """Failures keep no text of the AGPL tests; skips keep the harness's own reason."""
    for o in _outcomes():
        if o["outcome"] == "skipped":
            assert o["why"]
        else:
            assert o["why"] == ""


def test_compare_flags_a_test_the_emulator_fails() -> None:
    real = [{"test": "tests/routes/test_peers.py::test_x", "outcome": "passed", "why": ""}]
    emulator = [{"test": "tests/routes/test_peers.py::test_x", "outcome": "failed", "why": ""}]
    assert run_routes.compare(real, emulator) == 1
    assert run_routes.compare(real, real) == 0
