"""docs/requirements.md: one row per requirement of memoryd, each pointing at what holds it.

The ids are listed here, in the project (CI also runs in a fresh clone, where memoryd's own
requirement list is not beside the checkout). The page fails this test when an id is missing
or appears twice, when a row's status is not one of the three the page defines, or when a row
cites a file, or a test in a file, that does not exist.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "requirements.md"

# memoryd's requirement list: R1-R27 (client), O1-O14 (operations), A1-A14 (review items),
# Q1-Q8 (questions to answer).
REQUIREMENT_IDS = (
    [f"R{i}" for i in range(1, 28)]
    + [f"O{i}" for i in range(1, 15)]
    + [f"A{i}" for i in range(1, 15)]
    + [f"Q{i}" for i in range(1, 9)]
)
STATUSES = ("met", "met; verified on 3.0.12 only", "not done")
ROW = re.compile(r"^\| (?P<id>[ROAQ]\d+) \|(?P<rest>.*)\|\s*$")
# A cited file: a backticked path under one of the project's folders, maybe with ::test_name.
CITED = re.compile(r"`((?:tests|scripts|docs|notebooks|roncho|results|\.ci)/[^`\s]*)`")
FILE_NAMES = ("README.md", "CHANGELOG.md", "pyproject.toml")


def _rows() -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            cells = [c.strip() for c in match["rest"].split(" | ")]
            assert match["id"] not in rows, f"{match['id']} has two rows"
            rows[match["id"]] = cells
    return rows


@functools.cache
def _defined_names(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    )


def _missing(citation: str) -> str | None:
    """Why a citation does not hold, or None when the file (and the test) exist."""
    file_part, _, name = citation.partition("::")
    matches = sorted(ROOT.glob(file_part)) if "*" in file_part else [ROOT / file_part]
    if not matches or not all(m.exists() for m in matches):
        return f"{file_part} does not exist"
    if name and name not in _defined_names(matches[0]):
        return f"{file_part} has no test {name}"
    return None


def test_every_requirement_has_exactly_one_row() -> None:
    rows = _rows()
    assert [i for i in REQUIREMENT_IDS if i not in rows] == []
    assert [i for i in rows if i not in REQUIREMENT_IDS] == []


def test_every_row_has_its_four_cells_and_a_known_status() -> None:
    for requirement, cells in _rows().items():
        assert len(cells) == 4, f"{requirement}: asks | how | held by | status, got {cells}"
        status = cells[3]
        assert status.startswith(STATUSES), f"{requirement}: unknown status {status!r}"
        if status.startswith("not done"):
            assert len(status) > len("not done: "), f"{requirement}: not done says no why"


def test_every_row_is_held_by_something_that_exists() -> None:
    problems = []
    for requirement, cells in _rows().items():
        held_by = cells[2]
        citations = CITED.findall(held_by)
        named_files = [name for name in FILE_NAMES if f"`{name}`" in held_by]
        if not citations and not named_files:
            problems.append(f"{requirement}: cites no test, script or document")
        for citation in citations:
            why = _missing(citation)
            if why:
                problems.append(f"{requirement}: {why}")
        problems += [f"{requirement}: {n} missing" for n in named_files if not (ROOT / n).exists()]
    assert problems == []


def test_every_test_cited_anywhere_on_the_page_exists() -> None:
    """Also the citations in the prose, not only in the held-by cells."""
    text = PAGE.read_text(encoding="utf-8")
    problems = [why for c in CITED.findall(text) if (why := _missing(c))]
    assert problems == []


@pytest.mark.parametrize(
    ("citation", "holds"),
    [
        ("tests/unit/test_release.py::test_top_changelog_entry_is_this_version", True),
        ("tests/unit/test_release.py::test_no_such_test", False),
        ("tests/unit/no_such_file.py", False),
        ("docs/observations/*-real-3-0-12-src.json", True),
    ],
)
def test_the_citation_check_has_teeth(citation: str, holds: bool) -> None:
    assert (_missing(citation) is None) is holds
