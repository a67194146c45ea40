"""The README is the user's path, in order, and short; development lives in docs/contributing.md.

A newcomer reads the README top down: install (into their own project too), a quickstart
that is safe to paste, the promises, the errors, asyncio, testing with the emulator, the
workbook. CI plumbing, the real-server stage and the core's design are a contributor's
business and live on their own pages, linked from the top.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import roncho
from roncho.aio import AsyncClient

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
# Near 250 lines and a section with a prompt built from a session's context: room for a few
# more lines, never the 468 it once had.
MAX_LINES = 320
USER_PATH = (
    "## Install",
    "## Quickstart",
    "## What roncho promises",
    "## Errors",
    "## With asyncio",
    "## Beyond memoryd's operations",
    "## Testing your code against Honcho without a Honcho",
    "## The workbook",
    "## How the core is built",
)


def test_the_readme_is_short() -> None:
    assert len(README.splitlines()) <= MAX_LINES


def test_the_readme_follows_the_users_path_in_order() -> None:
    headings = [line for line in README.splitlines() if line.startswith("## ")]
    steps = [next(step for step in USER_PATH if h.startswith(step)) for h in headings]
    assert steps == list(USER_PATH)


def test_the_first_screen_links_the_handover_the_core_and_contributing_in_that_order() -> None:
    top = "\n".join(README.splitlines()[:20])
    places = [top.find(f"(docs/{page}.md)") for page in ("handover", "core", "contributing")]
    assert -1 not in places and places == sorted(places)
    assert (ROOT / "docs" / "contributing.md").exists()


def test_install_says_how_to_pin_roncho_in_ones_own_project() -> None:
    install = README.split("## Install", 1)[1].split("\n## ", 1)[0]
    by_commit = re.search(r'pip install "roncho @ git\+<clone URL>@([0-9a-f]{40})"', install)
    by_tag = re.search(r'pip install "roncho @ git\+<clone URL>@v(\d+\.\d+\.\d+)"', install)
    assert by_commit and by_tag, "the README pins a release by commit and by tag"
    assert install.index(by_commit[0]) < install.index(by_tag[0]), "the commit comes first"
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(
        r"^## \[([^\]]+)\] - [-\d]+\n\nRelease commit: `([0-9a-f]{40})`", changelog, re.M
    )
    assert newest, "CHANGELOG.md records no release commit"
    assert (by_tag[1], by_commit[1]) == (newest[1], newest[2]), "pin the newest recorded release"
    assert "scripts/tag_releases.py" in install, "a clone has no tags until the script makes them"
    assert "file://localhost/" in install, "pip 23 pins a local clone only as file://localhost"
    assert "dist/roncho-*.whl" in install
    assert "`pip install -e <clone>`" in install, "a plain editable install (no compat mode)"
    assert "--config-settings" not in install


def test_the_user_learns_where_fake_honcho_lives_and_how_to_wait_for_the_deriver() -> None:
    assert ".venv/bin/fake-honcho" in README and "python -m roncho.testing" in README
    quickstart = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    assert "before = client.queue_status(session_id=" in quickstart
    assert "client.wait_for_derivation(" in quickstart and "since=before" in quickstart
    assert ".idle" not in quickstart  # an idle queue right after a sync means nothing yet


def test_development_lives_on_the_contributor_page() -> None:
    contributing = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
    for topic in (".ci/run", "scripts/test-real.sh", "benchmarks/run.py", "tests/live"):
        assert topic not in README, topic
        assert topic in contributing, topic


@pytest.mark.parametrize("kind", [roncho.Client, AsyncClient], ids=lambda kind: kind.__name__)
def test_the_default_timeouts_and_cap_stated_are_the_codes(kind: type) -> None:
    """The README's promises and docs/api.md give the defaults; they are the signature's."""
    defaults = {name: p.default for name, p in inspect.signature(kind.__init__).parameters.items()}
    connect, read = defaults["connect_timeout"], defaults["read_timeout"]
    cap_mib = defaults["max_response_bytes"] / (1024 * 1024)
    assert cap_mib == int(cap_mib)
    promises = README.split("## What roncho promises", 1)[1].split("\n## ", 1)[0]
    assert f"`connect_timeout` (default {connect:g} s)" in promises
    assert f"`read_timeout` (default {read:g} s)" in promises
    assert f"`max_response_bytes` (default {cap_mib:g} MiB)" in promises
    api = " ".join((ROOT / "docs" / "api.md").read_text(encoding="utf-8").split())
    assert (
        f"connect_timeout={connect!r}, read_timeout={read!r}, max_response_bytes={cap_mib:g} MiB"
        in api
    )


def test_no_size_or_speed_figure_without_a_measure() -> None:
    """A size stated without a test or script that measures it goes stale (the wheel did)."""
    assert not re.search(r"\d+\s*[KM]B\b", README)
