"""The release memoryd pins: one version, and every place that names it agrees.

The version is written once, in ``roncho/_version.py``. pyproject.toml must read it from there
(no second copy to forget), the installed metadata must report it (the wheel's own metadata
is checked the same way by scripts/wheel_smoke.py, on the built wheel outside the checkout),
and the top entry of CHANGELOG.md must be that version. Every CHANGELOG entry starts with
what changed in the blocking API, the part memoryd reads before it moves its pin.

The release itself is recorded in main: from 0.3.0 on, each released entry names its commit
(``Release commit:``), and scripts/tag_releases.py makes the tags from that record. A recorded
commit must be on this history and carry the version its entry names.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

import roncho

ROOT = Path(__file__).resolve().parents[2]
ENTRY = re.compile(r"^## \[(?P<version>[^\]]+)\] - (?P<date>\d{4}-\d{2}-\d{2})$", re.M)
FIRST_SECTION = "### Blocking API"
FIRST_RECORDED = (0, 3, 0)


def _load_tag_script() -> Any:
    path = ROOT / "scripts" / "tag_releases.py"
    spec = importlib.util.spec_from_file_location("tag_releases", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


tag_releases = _load_tag_script()


def _git(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env=env, timeout=60
    )
    return done.stdout.strip()


def _releases() -> list[Any]:
    return list(tag_releases.read_record((ROOT / "CHANGELOG.md").read_text(encoding="utf-8")))


def _own_history_or_skip() -> None:
    """Skip, saying why, where this tree has no git history of its own to check."""
    if shutil.which("git") is None:
        pytest.skip("no git here: the release record cannot be checked against history")
    try:
        top = _git("rev-parse", "--show-toplevel")
    except subprocess.CalledProcessError:
        pytest.skip(f"{ROOT} is not a git checkout (an sdist or a copy): no history to check")
    if Path(top).resolve() != ROOT:
        pytest.skip(f"{ROOT} is a copy inside another checkout (mutmut's): no history of its own")
    if _git("rev-parse", "--is-shallow-repository") == "true":
        pytest.skip("a shallow clone: a recorded commit's ancestry cannot be told")


def _version_at(commit: str) -> str:
    """__version__ as roncho/_version.py says it at that commit."""
    source = _git("show", f"{commit}:roncho/_version.py")
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
            "__version__"
        ]:
            assert isinstance(node.value, ast.Constant)
            return str(node.value.value)
    raise AssertionError(f"{commit}:roncho/_version.py sets no __version__")


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


def test_every_release_since_the_record_began_names_its_commit() -> None:
    """The top entry may be the release in the making (or one whose record the next commit
    adds); every entry below it, from 0.3.0 on, names the commit that was released."""
    releases = _releases()
    assert any(r.commit for r in releases), "CHANGELOG.md records no release commit"
    older = [r for r in releases[1:] if tuple(map(int, r.version.split("."))) >= FIRST_RECORDED]
    assert [r.version for r in older if r.commit is None] == []


def test_recorded_release_commits_are_on_this_history_with_their_version() -> None:
    _own_history_or_skip()
    recorded = [r for r in _releases() if r.commit is not None]
    assert recorded, "CHANGELOG.md records no release commit"
    for release in recorded:
        on_history = subprocess.run(
            ["git", "merge-base", "--is-ancestor", release.commit, "HEAD"],
            cwd=ROOT, capture_output=True, check=False, timeout=60,
        )  # fmt: skip
        assert on_history.returncode == 0, (
            f"[{release.version}]'s release commit {release.commit} is not an ancestor of HEAD"
        )
        at_commit = _version_at(release.commit)
        assert at_commit == release.version, (
            f"[{release.version}]'s release commit {release.commit} says version {at_commit}"
        )


def _bare_env(home: Path) -> dict[str, str]:
    """git with no identity anywhere: no global or system config, no name or email given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    env.pop("EMAIL", None)
    return env


def _clone_without_tags(clone: Path, env: dict[str, str]) -> None:
    """A clone of this checkout as a newcomer's is: with none of the tags this checkout may
    have (after `scripts/tag_releases.py` ran here, a plain clone would copy them, and the
    tests below would find the script's work done, or their own tag already taken)."""
    _git(
        "clone", "--quiet", "--shared", "--no-checkout", "--no-tags", str(ROOT), str(clone),
        env=env,
    )  # fmt: skip
    assert _git("tag", "--list", cwd=clone, env=env) == "", "the clone has tags"


def test_the_tag_script_makes_the_same_tags_in_a_clone_with_no_git_identity(
    tmp_path: Path,
) -> None:
    _own_history_or_skip()
    env = _bare_env(tmp_path)
    objects = []
    for name in ("one", "two"):
        clone = tmp_path / name
        _clone_without_tags(clone, env)
        (clone / "scripts").mkdir()
        shutil.copy(ROOT / "scripts" / "tag_releases.py", clone / "scripts")
        shutil.copy(ROOT / "CHANGELOG.md", clone)
        script = [sys.executable, str(clone / "scripts" / "tag_releases.py")]
        for _ in range(2):  # the second run finds the tags made and leaves them
            subprocess.run(script, cwd=tmp_path, env=env, check=True, timeout=60)
        objects.append(
            {
                r.tag: _git("rev-parse", f"refs/tags/{r.tag}", cwd=clone)
                for r in _releases()
                if r.commit
            }
        )
        for release in _releases():
            if release.commit is None:
                continue
            assert _git("cat-file", "-t", release.tag, cwd=clone, env=env) == "tag"
            assert _git("rev-parse", f"{release.tag}^{{commit}}", cwd=clone) == release.commit
            body = _git("cat-file", "-p", release.tag, cwd=clone)
            assert f"tagger {tag_releases.TAGGER_NAME} <{tag_releases.TAGGER_EMAIL}>" in body
            assert "docs/compatibility.md" in body
            _git("cat-file", "-e", f"{release.commit}:docs/compatibility.md", cwd=clone)
    assert objects[0] == objects[1], "two clones made different tag objects"


def test_the_tag_script_refuses_to_move_a_tag(tmp_path: Path) -> None:
    _own_history_or_skip()
    env = _bare_env(tmp_path)
    clone = tmp_path / "clone"
    _clone_without_tags(clone, env)
    (clone / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "tag_releases.py", clone / "scripts")
    shutil.copy(ROOT / "CHANGELOG.md", clone)
    release = next(r for r in _releases() if r.commit is not None)
    _git("tag", release.tag, f"{release.commit}~1", cwd=clone, env=env)
    done = subprocess.run(
        [sys.executable, str(clone / "scripts" / "tag_releases.py")],
        env=env, capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode != 0
    assert "not moved" in done.stderr
    assert _git("rev-parse", f"{release.tag}^{{commit}}", cwd=clone) == _git(
        "rev-parse", f"{release.commit}~1"
    )
