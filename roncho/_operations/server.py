"""The server itself: is it up, which version it says it is, its deriver queue, and keys."""

from __future__ import annotations

from .._call import Call, Response, decoded, read_json
from .._errors import ConfigError, DecodeError, StatusError
from .._models import Health, QueueStatus
from .._request_checks import check_id_query, check_timestamp
from ._shared import Paths


def probe(paths: Paths) -> Call[Health]:
    """``GET /health``: the cheapest call that shows the server is up.

    Honcho 3.2 exposes no version here or in any header; see server_version().
    """
    path = paths.root("health")
    return Call("probe", "GET", path, decoded("probe", Health.from_json))


# What a server that does not know its own version puts in info.version: Honcho's Docker
# images before 3.1.1 were built without it and report this. It is not a version.
UNKNOWN_VERSION = "unknown"


def _version(response: Response) -> str | None:
    data = read_json(response, "server_version")
    info = data.get("info") if isinstance(data, dict) else None
    version = info.get("version") if isinstance(info, dict) else None
    if not isinstance(version, str) or version.strip().lower() == UNKNOWN_VERSION:
        return None
    return version


def _not_served(exc: StatusError) -> None:
    """A 404: the server does not serve the document, so it states no version."""
    return None


def server_version(paths: Paths) -> Call[str | None]:
    """``info.version`` from ``GET /openapi.json``, the only place Honcho states it.

    None when the server does not serve the document (404), it has no version, or it says
    ``"unknown"`` (Honcho's Docker images before 3.1.1 do: they were built without their
    version, so it is unknown, not a version called "unknown").
    """
    path = paths.root("openapi.json")
    return Call("server_version", "GET", path, _version, on_status={404: _not_served})


def queue_status(
    paths: Paths,
    *,
    observer_id: str | None = None,
    sender_id: str | None = None,
    session_id: str | None = None,
) -> Call[QueueStatus]:
    """``GET .../queue/status``: the deriver's queue rows for this workspace. Its
    ``sessions`` map is keyed by the server's internal session ids, which no other answer
    carries: for one session's rows pass its name as ``session_id`` and read the totals.

    With ``session_id`` the answer's ``sessions`` is empty (Honcho 3.0.12 fills it only for
    the whole workspace). ``observer_id`` and ``sender_id`` are OR-ed.
    On Honcho 3.0.12 ``observer_id`` never counts message work (its filter reads
    ``payload->>'observer'``, which message items lack: they carry ``observers``), so it
    reports zeros for the deriver's main queue; use ``sender_id`` or ``session_id``.
    """
    op = "queue_status"
    query = check_id_query(observer_id=observer_id, sender_id=sender_id, session_id=session_id)
    path = paths.in_workspace("queue", "status")
    return Call(op, "GET", path, decoded(op, QueueStatus.from_json), query=tuple(query))


def _minted_key(response: Response) -> str:
    data = read_json(response, "create_key")
    key = data.get("key") if isinstance(data, dict) else None
    if not isinstance(key, str) or not key:
        raise DecodeError("create_key: the answer has no key", request_sent=True)
    return key


def create_key(
    paths: Paths,
    *,
    workspace_id: str | None = None,
    peer_id: str | None = None,
    session_id: str | None = None,
    expires_at: str | None = None,
) -> Call[str]:
    """``POST /v3/keys`` (admin key only): mint a scoped key. Treat the result as secret.

    A server with authentication off answers 405 "Feature is disabled".
    """
    query = check_id_query(workspace_id=workspace_id, peer_id=peer_id, session_id=session_id)
    if expires_at is not None:
        query.append(("expires_at", check_timestamp(expires_at, "expires_at")))
    if not query or all(n == "expires_at" for n, _ in query):
        raise ConfigError("create_key needs workspace_id, peer_id or session_id")
    return Call(
        "create_key",
        "POST",
        paths.root("v3", "keys"),
        _minted_key,
        query=tuple(query),
        write=True,
    )
