"""The release memoryd pins: one version, and every place that names it agrees.

The version is written once, in ``roncho/_version.py``. pyproject.toml must read it from there
(no second copy to forget), the installed metadata must report it (the wheel's own metadata
is checked the same way by scripts/wheel_smoke.py, on the built wheel outside the checkout),
and the top entry of CHANGELOG.md must be that version. Every CHANGELOG entry starts with
what changed in the blocking API, the part memoryd reads before it moves its pin.
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import roncho

ROOT = Path(__file__).resolve().parents[2]
ENTRY = re.compile(r"^## \[(?P<version>[^\]]+)\] - (?P<date>\d{4}-\d{2}-\d{2})$", re.M)
FIRST_SECTION = "### Blocking API"


def _entries() -> list[tuple[str, str]]:
    """(version, body) of every released entry, newest first."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    found = list(ENTRY.finditer(text))
    ends = [m.start() for m in found[1:]] + [len(text)]
    return [(m["version"], text[m.end() : end]) for m, end in zip(found, ends, strict=True)]


def test_version_is_a_plain_release_number() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", roncho.__version__), roncho.__version__


def test_pyproject_reads_the_version_from_the_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"], "the version must be written only once"
    assert project["project"]["dynamic"] == ["version"]
    dynamic = project["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "roncho._version.__version__"}


def test_installed_metadata_reports_the_package_version() -> None:
    assert metadata.version("roncho") == roncho.__version__


def test_top_changelog_entry_is_this_version() -> None:
    entries = _entries()
    assert entries, "CHANGELOG.md has no '## [x.y.z] - YYYY-MM-DD' entry"
    assert entries[0][0] == roncho.__version__


def test_every_changelog_entry_starts_with_the_blocking_api() -> None:
    for version, body in _entries():
        first = next(line for line in body.splitlines() if line.startswith("### "))
        assert first == FIRST_SECTION, f"[{version}] starts with {first!r}"


def test_no_dependency_is_pinned_exactly() -> None:
    """Nothing at run time, and the optional extras are ranges, so memoryd's own pins win."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["dependencies"] == []
    extras = [spec for specs in project["optional-dependencies"].values() for spec in specs]
    assert extras, "no optional dependencies found"
    assert [spec for spec in extras if "==" in spec or "===" in spec] == []
