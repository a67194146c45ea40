"""Make the release tags from the record in CHANGELOG.md, in any clone.

Usage::

    python3 scripts/tag_releases.py            # make every recorded tag this clone lacks
    python3 scripts/tag_releases.py --list     # print the record, make nothing

The repository keeps the branch ``main`` only, and a tag made in one clone does not travel
with it, so the release is recorded in main itself: each released CHANGELOG entry carries a
line ``Release commit: `<40 hex digits>` `` naming the commit that is the release (written in
the commit after it, since a commit cannot name itself). This script reads those lines and
makes the annotated tag ``v<version>`` on each commit.

Every clone makes the same tag object: the tagger is the record itself (a fixed name, not the
person running the script, so a clone with no git identity configured works too), the date is
the release commit's own, and the message is made from the record. A tag that already names
the recorded commit is left alone; a tag of that name on any other commit is an error, never
moved.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRY = re.compile(r"^## \[(?P<version>[^\]]+)\] - (?P<date>\d{4}-\d{2}-\d{2})$", re.M)
RECORD = re.compile(r"^Release commit: `(?P<commit>[0-9a-f]{40})`", re.M)
TAGGER_NAME = "roncho release record"
TAGGER_EMAIL = "release-record@roncho.invalid"
COMPATIBILITY = "docs/compatibility.md"


@dataclass(frozen=True)
class Release:
    """One released CHANGELOG entry and the commit its record names (None: not recorded)."""

    version: str
    date: str
    commit: str | None

    @property
    def tag(self) -> str:
        return f"v{self.version}"


def read_record(changelog: str) -> list[Release]:
    """Every dated entry of CHANGELOG.md, newest first, with its recorded commit if any."""
    found = list(ENTRY.finditer(changelog))
    ends = [m.start() for m in found[1:]] + [len(changelog)]
    releases = []
    for match, end in zip(found, ends, strict=True):
        records = RECORD.findall(changelog, match.end(), end)
        if len(records) > 1:
            raise ValueError(f"[{match['version']}] records more than one release commit")
        commit = records[0] if records else None
        releases.append(Release(match["version"], match["date"], commit))
    return releases


def tag_message(release: Release) -> str:
    """The annotated tag's message: what the release is, and where its record lives."""
    return (
        f"roncho {release.version}\n"
        "\n"
        f"The release recorded in CHANGELOG.md, entry [{release.version}] of {release.date}:\n"
        f"commit {release.commit}.\n"
        f"Compatibility document at this commit: {COMPATIBILITY}.\n"
        "Requirements: docs/requirements.md. Handover: docs/handover.md.\n"
        "Made by scripts/tag_releases.py from that record.\n"
    )


def _git(
    *args: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args],
        input=stdin, capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip


def _make_tag(release: Release) -> str:
    """Make one tag, or say why not; returns the line to print."""
    assert release.commit is not None
    existing = _git("rev-parse", "--verify", "--quiet", f"refs/tags/{release.tag}^{{commit}}")
    if existing.returncode == 0:
        if existing.stdout.strip() == release.commit:
            return f"{release.tag}: already names {release.commit}"
        raise SystemExit(
            f"tag_releases: {release.tag} names {existing.stdout.strip()}, but the record says "
            f"{release.commit}; not moved (delete the tag yourself if the record is right)"
        )
    if _git("cat-file", "-e", f"{release.commit}^{{commit}}").returncode != 0:
        raise SystemExit(f"tag_releases: {release.tag}: commit {release.commit} is not here")
    date = _git("show", "-s", "--format=%cI", release.commit).stdout.strip()
    env = {
        **os.environ,
        "GIT_COMMITTER_NAME": TAGGER_NAME,
        "GIT_COMMITTER_EMAIL": TAGGER_EMAIL,
        "GIT_COMMITTER_DATE": date,
    }
    made = _git(
        "-c", "tag.gpgSign=false",
        "tag", "--annotate", "--cleanup=verbatim", "--file=-", release.tag, release.commit,
        env=env, stdin=tag_message(release),
    )  # fmt: skip
    if made.returncode != 0:
        raise SystemExit(f"tag_releases: git tag {release.tag} failed: {made.stderr.strip()}")
    return f"{release.tag}: made on {release.commit}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print the record, make nothing")
    args = parser.parse_args(argv)
    releases = read_record((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
    recorded = [r for r in releases if r.commit is not None]
    if args.list:
        for release in releases:
            print(f"{release.tag}  {release.commit or '(no release commit recorded)'}")
        return 0
    if not recorded:
        print("tag_releases: CHANGELOG.md records no release commit", file=sys.stderr)
        return 1
    for release in recorded:
        print(_make_tag(release))
    return 0


if __name__ == "__main__":
    sys.exit(main())
