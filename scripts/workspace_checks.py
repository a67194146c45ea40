"""Checks on a server this run does not own, for scripts/test-real.sh. Standard library only.

    python scripts/workspace_checks.py read URL NAME [--key-file FILE]
    python scripts/workspace_checks.py snapshot URL FILE [--key-file FILE]
    python scripts/workspace_checks.py leftovers URL FILE [--key-file FILE] [--wait SECONDS]
                                                  [--remove-prefix PREFIX]

``read`` runs the read-only checks against the existing workspace NAME through a
``read_only=True`` client: the client itself refuses any call that would change the
workspace, before sending it. Lists, the three searches, conclusions, the queue status and
one dialectic question; it prints counts and types, never memory text (the workspace holds
someone's private memory).

``snapshot`` writes the ids of the workspaces the server lists to FILE; ``leftovers`` lists
again and names every ``roncho-`` workspace that appeared since the snapshot and is still
there after a bounded wait (deletes are accepted first and done a little later). With
``--remove-prefix PREFIX`` it also removes those of them that are certainly this run's own:
not in the snapshot, and named PREFIX plus a scratch id's timestamp and random hex, where
PREFIX carries a tag made for this one run (test-real.sh gives it to the notebooks). This
finishes a cleanup that Ctrl-C cut short: a notebook's kernel is stopped before its scratch
workspace is gone. Nothing else is ever deleted, not even another run's scratch workspace.
Listing workspaces needs auth off or an admin key; without it both say so and pass.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import roncho

CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 30.0
CHAT_READ_TIMEOUT = 120.0  # a dialectic answer takes 30-50 s on a real LLM
SCRATCH_PREFIX = "roncho-"
# What roncho.scratch_id puts after the prefix (the notebooks may add a word, e.g. "-off").
SCRATCH_TAIL = re.compile(r"^(?:[a-z]+-)?\d{8}-\d{6}-[0-9a-f]{8}$")
DELETE_WAIT = 30.0
QUESTION = "In one sentence: what kind of things does this peer talk about?"
SEARCH_QUERY = "the"


def _key(path: str | None) -> str | None:
    return Path(path).read_text(encoding="utf-8").strip() if path else None


def _client(url: str, workspace: str, key: str | None, **options: Any) -> roncho.Client:
    options.setdefault("read_timeout", READ_TIMEOUT)
    return roncho.Client(url, workspace, api_key=key, connect_timeout=CONNECT_TIMEOUT, **options)


class Checks:
    """Runs named checks, one line each; a failed check is reported and the rest still run."""

    def __init__(self) -> None:
        self.failed: list[str] = []

    def run(self, name: str, check: Callable[[], str]) -> Any:
        try:
            said = check()
        except roncho.RonchoError as exc:
            self.failed.append(name)
            print(f"  FAIL  {name}: {type(exc).__name__}: {exc}")
            return
        print(f"  ok    {name}: {said}")


def read_checks(url: str, workspace: str, key: str | None) -> int:
    """Every read memoryd relies on, against an existing workspace; nothing is written."""
    client = _client(url, workspace, key, read_only=True)
    checks = Checks()
    found: dict[str, str] = {}

    def peers() -> str:
        page = client.list_peers(size=10)
        if page.items:
            found["peer"] = page.items[0].id
        return f"{page.total} peers"

    def sessions() -> str:
        page = client.list_sessions(size=10)
        if page.items:
            found["session"] = page.items[0].id
        return f"{page.total} sessions"

    def messages() -> str:
        if "session" not in found:
            return "no session to list"
        page = client.list_messages(found["session"], size=10)
        return f"{page.total} messages in the first session, {len(page.items)} read"

    def session_peers() -> str:
        if "session" not in found:
            return "no session"
        return f"{client.list_session_peers(found['session']).total} members in the first session"

    def search() -> str:
        return f"{len(client.search(SEARCH_QUERY, limit=5))} hits (limit 5)"

    def search_peer() -> str:
        if "peer" not in found:
            return "no peer to search"
        return f"{len(client.search_peer(found['peer'], SEARCH_QUERY, limit=5))} hits (limit 5)"

    def search_session() -> str:
        if "session" not in found:
            return "no session to search"
        hits = client.search_session(found["session"], SEARCH_QUERY, limit=5)
        return f"{len(hits)} hits (limit 5)"

    def conclusions() -> str:
        return f"{client.list_conclusions(size=10).total} conclusions"

    def queue() -> str:
        status = client.queue_status()
        return (
            f"{status.total_work_units} work units, {status.pending_work_units} pending, "
            f"{status.in_progress_work_units} in progress"
        )

    def chat() -> str:
        if "peer" not in found:
            return "no peer to ask"
        asker = client.with_options(read_timeout=CHAT_READ_TIMEOUT)
        answer = asker.chat(found["peer"], QUESTION, reasoning_level="minimal")
        return f"answered, {len(answer.content or '')} characters (not shown)"

    def refused_write() -> str:
        try:
            client.get_or_create_workspace()
        except roncho.ReadOnlyError:
            return "a write was refused before sending, as it must be"
        raise roncho.ConfigError("the read_only client sent a write")

    print(f"read-only checks on workspace {workspace!r} (read_only=True client)")
    for name, check in (
        ("health", lambda: f"{client.probe()}"),
        ("server version", lambda: client.server_version() or "not served"),
        ("list peers", peers),
        ("list sessions", sessions),
        ("list messages", messages),
        ("list session peers", session_peers),
        ("workspace search", search),
        ("peer search", search_peer),
        ("session search", search_session),
        ("list conclusions", conclusions),
        ("queue status", queue),
        ("dialectic question", chat),
        ("a write through the read_only client", refused_write),
    ):
        checks.run(name, check)
    client.close()
    if checks.failed:
        print(f"read-only checks: {len(checks.failed)} failed: {', '.join(checks.failed)}")
        return 1
    return 0


def _workspace_ids(url: str, key: str | None) -> set[str] | None:
    """Every workspace the server lists, or None when listing is refused (not an admin)."""
    client = _client(url, "roncho-acceptance-lister", key, read_only=True)
    try:
        return {workspace.id for workspace in _all_workspaces(client)}
    except roncho.UnauthorizedError:
        return None
    finally:
        client.close()


def _all_workspaces(client: roncho.Client) -> list[roncho.Workspace]:
    found: list[roncho.Workspace] = []
    page_number = 1
    while True:
        page = client.list_workspaces(page=page_number, size=100)
        found += page.items
        if page_number >= page.pages:
            return found
        page_number += 1


def snapshot(url: str, path: Path, key: str | None) -> int:
    ids = _workspace_ids(url, key)
    if ids is None:
        print("workspace snapshot: listing workspaces needs an admin key here; no snapshot")
        return 0
    path.write_text("".join(f"{i}\n" for i in sorted(ids)), encoding="utf-8")
    return 0


def is_own_scratch(workspace: str, before: set[str], prefix: str) -> bool:
    """Certainly this run's: new since the snapshot, and a scratch id under the run's prefix."""
    if workspace in before or not prefix.endswith("-") or not workspace.startswith(prefix):
        return False
    return SCRATCH_TAIL.match(workspace[len(prefix) :]) is not None


def _remove(url: str, workspace: str, key: str | None) -> str:
    """Delete a scratch workspace of this run: its sessions, then itself (bounded wait)."""
    client = _client(url, workspace, key)
    try:
        for session in client.list_sessions(size=100).items:
            try:
                client.delete_session(session.id)
            except roncho.StatusError as exc:
                if exc.status != 404:
                    raise
        give_up = time.monotonic() + DELETE_WAIT
        while True:
            try:
                client.delete_workspace()
                return "removed"
            except roncho.WorkspaceBusyError:
                if time.monotonic() >= give_up:
                    return "still busy: delete it by hand"
                time.sleep(0.5)
    except roncho.RonchoError as exc:
        return f"could not remove it ({type(exc).__name__}: {exc})"
    finally:
        client.close()


def leftovers(
    url: str, path: Path, key: str | None, wait: float, remove_prefix: str | None = None
) -> int:
    if not path.exists():
        print("leftover check: no snapshot was taken (listing needs an admin key); not checked")
        return 0
    before = set(path.read_text(encoding="utf-8").split())
    give_up = time.monotonic() + wait
    while True:
        now = _workspace_ids(url, key) or set()
        left = sorted(i for i in now - before if i.startswith(SCRATCH_PREFIX))
        if not left or time.monotonic() >= give_up:
            break
        time.sleep(0.5)
    if not left:
        print("leftover check: every roncho- workspace made during this run is gone")
        return 0
    print(f"leftover check: {len(left)} roncho- workspace(s) made during this run remain:")
    for name in left:
        if remove_prefix and is_own_scratch(name, before, remove_prefix):
            print(f"  {name}: this run's own scratch workspace, {_remove(url, name, key)}")
        else:
            print(f"  {name}")
    return 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--key-file", help="the API key, read from this file (not argv)")
    commands = parser.add_subparsers(dest="command", required=True)
    read = commands.add_parser("read", help="read-only checks on an existing workspace")
    read.add_argument("url")
    read.add_argument("workspace")
    for name in ("snapshot", "leftovers"):
        sub = commands.add_parser(name)
        sub.add_argument("url")
        sub.add_argument("file", type=Path)
    commands.choices["leftovers"].add_argument("--wait", type=float, default=30.0)
    commands.choices["leftovers"].add_argument(
        "--remove-prefix", help="remove what is left under this run's own scratch prefix"
    )
    args = parser.parse_args(argv)
    key = _key(args.key_file)
    if args.command == "read":
        return read_checks(args.url, args.workspace, key)
    try:
        if args.command == "snapshot":
            return snapshot(args.url, args.file, key)
        return leftovers(args.url, args.file, key, args.wait, args.remove_prefix)
    except roncho.RonchoError as exc:  # the server is gone or refuses: one line, not a trace
        print(f"workspace {args.command}: {type(exc).__name__}: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
