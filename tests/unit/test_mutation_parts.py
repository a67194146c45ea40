"""scripts/mutation.py runs the whole mutation set in parts (whole modules each) and reads
the parts back as one table; and it leaves out the mutants of generated methods. This holds
the reading, the leaving out, and that a part cannot take half a module.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load() -> Any:  # the script, as a module (its names are set in tests)
    spec = importlib.util.spec_from_file_location(
        "mutation_script", ROOT / "scripts" / "mutation.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def head() -> str:
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()


def section(when: str, commit: str, label: str, rows: list[str], took: str = "") -> str:
    return "\n".join(
        [
            f"## {when}, {commit}: {label}\n",
            took,
            "| module | t | k | e | m | b |",
            "|---|",
            *rows,
            "",
        ]
    )


def test_the_newest_whole_module_row_wins_and_a_sample_is_not_one() -> None:
    mutation = load()
    commit = head()
    sections = "\n".join(
        [
            section(
                "2026-12-08 10:00 UTC",
                commit,
                "seeded sample of 800 (seed 1)",
                [
                    "| roncho/webhooks.py | 9 | 9 | 0 | 0 | 0 |",
                ],
            ),
            section(
                "2026-12-07 12:00 UTC",
                commit,
                "part `roncho.webhooks.*`",
                [
                    "| roncho/webhooks.py | 150 | 140 | 6 | 4 | 0 |",
                ],
                "Took 10.0 min wall (4.0 min of it making the mutants), 150 mutants tested now.",
            ),
            section(
                "2026-12-06 12:00 UTC",
                commit,
                "all mutants",
                [
                    "| roncho/webhooks.py | 150 | 100 | 0 | 0 | 50 |",
                    "| roncho/_http.py | 495 | 455 | 26 | 14 | 0 |",
                ],
            ),
        ]
    )
    mutants = Counter({"roncho/webhooks.py": 150, "roncho/_http.py": 495, "roncho/_decode.py": 90})
    table = mutation.latest(sections, mutants)
    assert (
        f"| roncho/webhooks.py | 2026-12-07 12:00 UTC, {commit} | 150 | 140 | 6 | 4 | 0 |" in table
    )
    assert (
        f"| roncho/_http.py | 2026-12-06 12:00 UTC, {commit} | 495 | 455 | 26 | 14 | 0 |" in table
    )
    assert "| roncho/_decode.py |" not in table
    # 10 min for 150 mutants is 4 s a mutant: 90 left take 6 min (0.1 h)
    assert "Not run yet, or stale (90 mutants, about 0.1 h at 4.0 s a mutant)" in table
    assert "- roncho/_decode.py: 90 mutants" in table


def test_a_row_of_a_module_changed_since_is_stale_and_listed_as_left() -> None:
    top = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    if not top or Path(top).resolve() != ROOT:
        pytest.skip(f"{ROOT} is not a checkout of its own (mutmut's copy): no history to diff")
    mutation = load()
    first = subprocess.run(
        ["git", "rev-list", "--max-parents=0", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()[0][:7]
    sections = section(
        "2026-01-01 00:00 UTC",
        first,
        "all mutants",
        [
            "| roncho/_http.py | 10 | 10 | 0 | 0 | 0 |",
        ],
    )
    table = mutation.latest(sections, Counter({"roncho/_http.py": 495}))
    assert f"| roncho/_http.py | 2026-01-01 00:00 UTC, {first} *stale* |" in table
    assert "- roncho/_http.py: 495 mutants" in table


def test_writing_a_part_keeps_every_older_section(tmp_path: Path) -> None:
    mutation = load()
    mutation.RESULTS = tmp_path / "RESULTS.md"
    commit = head()
    old = section(
        "2026-12-06 12:00 UTC",
        commit,
        "all mutants",
        [
            "| roncho/_http.py | 495 | 455 | 26 | 14 | 0 |",
        ],
    )
    new = section(
        "2026-12-07 12:00 UTC",
        commit,
        "part `roncho.webhooks.*`",
        [
            "| roncho/webhooks.py | 150 | 140 | 6 | 4 | 0 |",
        ],
    )
    mutation.write(old, Counter({"roncho/_http.py": 495}))
    mutation.write(new, Counter({"roncho/_http.py": 495, "roncho/webhooks.py": 150}))
    text = mutation.RESULTS.read_text()
    assert text.count(mutation.LATEST_BEGIN) == 1
    assert text.index(mutation.LATEST_END) < text.index(new) < text.index(old)
    table = text.split(mutation.LATEST_END)[0]
    assert "| roncho/_http.py | 2026-12-06 12:00 UTC" in table
    assert "| roncho/webhooks.py | 2026-12-07 12:00 UTC" in table


def test_the_generated_methods_are_left_out_and_the_hand_written_kept() -> None:
    mutation = load()
    assert mutation.is_generated("roncho.aio._client.xǁAsyncClientǁget_peer_card__mutmut_3")
    assert mutation.is_generated("roncho._models.context.xǁSummaryǁ__init____mutmut_1")
    assert mutation.is_generated("roncho._models.messages.x__well_formed_message__mutmut_2")
    assert not mutation.is_generated("roncho.aio._client.xǁAsyncClientǁ__init____mutmut_1")
    assert not mutation.is_generated("roncho._models.context.xǁSummaryǁfrom_json__mutmut_1")
    assert not mutation.is_generated("roncho.webhooks.x_verify__mutmut_1")


def test_a_part_must_take_whole_modules() -> None:
    mutation = load()
    every = ["roncho.webhooks.x_sign__mutmut_1", "roncho.webhooks.x_verify__mutmut_1"]
    assert mutation.split_modules(every[:1], every) == ["roncho/webhooks.py"]
    assert mutation.split_modules(every, every) == []


def test_a_packages_own_mutants_are_of_its_init() -> None:
    mutation = load()
    assert mutation.module_of("roncho.x___getattr____mutmut_1") == "roncho/__init__.py"
    assert mutation.module_of("roncho.aio._client.xǁAsyncClientǁ_run__mutmut_2") == (
        "roncho/aio/_client.py"
    )
