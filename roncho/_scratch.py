"""A throwaway workspace for the live suite and the notebooks: made fresh, always removed.

The rule it keeps: nothing is ever written to a workspace this run did not create. It
picks an id no one has used, refuses to go on if the server says the workspace already
existed, and on the way out (also after an error) deletes the sessions it finds and then
the workspace, waiting a bounded time for the delete to be accepted.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from ._checks import check_id
from ._client import Client
from ._errors import RonchoError, StatusError, UnauthorizedError, WorkspaceBusyError

# How long to keep asking for the workspace delete while sessions become inactive.
DEFAULT_CLEANUP_WAIT = 30.0
_POLL = 0.25


class ScratchCleanupError(RonchoError):
    """The scratch workspace (or some of its sessions) could not be deleted.

    ``leftovers`` names what remains, so the owner can remove it by hand.
    """

    def __init__(self, message: str, leftovers: list[str]) -> None:
        super().__init__(message, request_sent=True)
        self.leftovers = leftovers


def scratch_id(prefix: str = "roncho-test", *, now: datetime | None = None) -> str:
    """``<prefix>-<YYYYMMDD>-<HHMMSS>-<8 hex>``: unique, sortable, and a valid Honcho id."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    return check_id(f"{prefix}-{stamp}-{os.urandom(4).hex()}", "scratch workspace id")


@contextmanager
def scratch_workspace(
    base_url: str,
    prefix: str = "roncho-test",
    *,
    api_key: str | None = None,
    cleanup_wait: float = DEFAULT_CLEANUP_WAIT,
    metadata: dict[str, Any] | None = None,
    configuration: dict[str, Any] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    **client_options: Any,
) -> Iterator[Client]:
    """Create a brand-new workspace, yield a client for it, and delete it afterwards.

    Raises:
        RonchoError: the id was already taken (listed, or get-or-create answered 200);
            nothing is written and nothing is deleted then.
        ScratchCleanupError: cleanup left something behind (when the body succeeded; if
            the body raised, its exception wins and carries a note naming the leftovers).
    """
    client = Client(base_url, scratch_id(prefix), api_key=api_key, **client_options)
    # Cleanup works on its own copy, so a body that closes its client (``with client:``)
    # cannot stop the workspace from being removed.
    cleaner = client.with_options()
    try:
        _refuse_if_listed(client)
        try:
            workspace = client.get_or_create_workspace(
                metadata=metadata, configuration=configuration
            )
        except RonchoError as exc:
            if exc.request_sent:
                exc.add_note(
                    f"workspace {client.workspace!r} may have been created in "
                    f"{client.base_url}; delete it by hand if it exists"
                )
            raise
        if not workspace.created:
            raise RonchoError(
                f"workspace {client.workspace!r} already existed (the server "
                f"answered 200, not 201); refusing to adopt it",
                request_sent=True,
            )
        failed = True
        try:
            yield client
            failed = False
        finally:
            leftovers = _clean(cleaner, cleanup_wait, sleep)
            if leftovers:
                message = (
                    f"scratch cleanup left {', '.join(leftovers)} in "
                    f"{client.base_url}; delete them by hand"
                )
                if failed:
                    import sys

                    current = sys.exc_info()[1]
                    if current is not None:
                        current.add_note(message)
                else:
                    raise ScratchCleanupError(message, leftovers)
    finally:
        client.close()
        cleaner.close()


def _refuse_if_listed(client: Client) -> None:
    """Check the id is unused, where the key may list workspaces (admin only with auth)."""
    try:
        page = client.list_workspaces(filters={"id": client.workspace}, size=1)
    except UnauthorizedError:
        return  # a workspace key cannot list; the 201 check below still guards
    if any(w.id == client.workspace for w in page.items):
        raise RonchoError(f"workspace {client.workspace!r} already exists; refusing to adopt it")


def _clean(client: Client, wait: float, sleep: Callable[[float], None]) -> list[str]:
    """Delete every active session, then the workspace; return what could not be removed."""
    leftovers: list[str] = []
    give_up_at = time.monotonic() + wait
    slept = 0.0
    while True:
        stuck = _delete_sessions(client)
        try:
            client.delete_workspace()
            return leftovers
        except WorkspaceBusyError:
            # Bounded by the clock and by the sleeps asked for, so an injected sleep that
            # does not pass time still gives a bounded number of attempts.
            if time.monotonic() >= give_up_at or slept >= wait:
                return [*stuck, f"workspace {client.workspace!r} (active sessions remain)"]
            sleep(_POLL)
            slept += _POLL
        except StatusError as exc:
            if exc.status == 404:
                return leftovers  # already gone
            return [*stuck, f"workspace {client.workspace!r} ({exc.status})"]
        except RonchoError as exc:
            return [*stuck, f"workspace {client.workspace!r} ({type(exc).__name__})"]


def _delete_sessions(client: Client) -> list[str]:
    stuck: list[str] = []
    try:
        sessions = [s.id for s in client.list_sessions(size=100).items]
    except RonchoError:
        return stuck
    for session_id in sessions:
        try:
            client.delete_session(session_id)
        except StatusError as exc:
            if exc.status != 404:
                stuck.append(f"session {session_id!r} ({exc.status})")
        except RonchoError as exc:
            stuck.append(f"session {session_id!r} ({type(exc).__name__})")
    return stuck
