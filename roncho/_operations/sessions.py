"""Sessions: get or create, update, list and delete sessions, and their peers' configs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._call import Call, decoded, nothing
from .._checks import check_id, check_json_object, check_optional_metadata, check_paging
from .._errors import ConfigError
from .._models import DeleteAccepted, Page, Peer, Session, SessionPeerConfig
from ._shared import Paths, get_or_create, list_page, page_of, update


def _peer_map(peers: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """get_or_create_session's ``peers``: peer ids to SessionPeerConfig, a dict or None."""
    if peers is None:
        return None
    if not isinstance(peers, Mapping):
        raise ConfigError("peers must map peer ids to SessionPeerConfig (or None)")
    result: dict[str, Any] = {}
    for peer_id, config in peers.items():
        check_id(peer_id, "peers key")
        if config is None:
            config = SessionPeerConfig()
        elif isinstance(config, Mapping):
            unknown = set(config) - {"observe_me", "observe_others"}
            if unknown:
                raise ConfigError(f"peers[{peer_id!r}] has unknown keys {sorted(unknown)}")
            config = SessionPeerConfig(**dict(config))
        elif not isinstance(config, SessionPeerConfig):
            raise ConfigError(f"peers[{peer_id!r}] must be a SessionPeerConfig or a dict")
        result[peer_id] = config.to_json()
    return result


def get_or_create_session(
    paths: Paths,
    session_id: str,
    peers: Mapping[str, SessionPeerConfig | Mapping[str, Any] | None] | None = None,
    metadata: Mapping[str, Any] | None = None,
    configuration: Mapping[str, Any] | None = None,
) -> Call[Session]:
    """``POST .../sessions``. ``peers`` maps a peer id to its session config.

    A peer that is already an active member keeps its config: the server ignores the
    map for it. Use set_session_peer_config() to change it. A deleted session answers
    404 until the server has purged it.
    """
    fields = {
        "metadata": check_optional_metadata(metadata),
        "peers": _peer_map(peers),
        "configuration": check_json_object(configuration, "configuration"),
    }
    return get_or_create(
        "get_or_create_session",
        paths.in_workspace("sessions"),
        check_id(session_id, "session_id"),
        Session.from_json,
        fields,
    )


def update_session(
    paths: Paths,
    session_id: str,
    metadata: Mapping[str, Any] | None = None,
    configuration: Mapping[str, Any] | None = None,
) -> Call[Session]:
    """``PUT .../sessions/{id}``: metadata replaces; configuration merges top-level keys."""
    path = paths.in_workspace("sessions", check_id(session_id, "session_id"))
    return update("update_session", path, metadata, configuration, Session.from_json)


def list_sessions(
    paths: Paths,
    *,
    page: int = 1,
    size: int = 50,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
) -> Call[Page[Session]]:
    """``POST .../sessions/list``: active sessions only."""
    return list_page(
        "list_sessions",
        paths.in_workspace("sessions", "list"),
        Session.from_json,
        page,
        size,
        reverse,
        filters,
    )


def list_session_peers(
    paths: Paths, session_id: str, *, page: int = 1, size: int = 50
) -> Call[Page[Peer]]:
    """``GET .../sessions/{id}/peers``: active members only."""
    op = "list_session_peers"
    path = paths.in_workspace("sessions", check_id(session_id, "session_id"), "peers")
    query = tuple(check_paging(page, size, None))
    return Call(op, "GET", path, page_of(op, Peer.from_json), query=query)


def _peer_config_path(paths: Paths, session_id: str, peer_id: str) -> str:
    session = check_id(session_id, "session_id")
    return paths.in_workspace("sessions", session, "peers", check_id(peer_id, "peer_id"), "config")


def get_session_peer_config(paths: Paths, session_id: str, peer_id: str) -> Call[SessionPeerConfig]:
    """``GET .../sessions/{s}/peers/{p}/config``."""
    op = "get_session_peer_config"
    path = _peer_config_path(paths, session_id, peer_id)
    return Call(op, "GET", path, decoded(op, SessionPeerConfig.from_json))


def set_session_peer_config(
    paths: Paths,
    session_id: str,
    peer_id: str,
    *,
    observe_me: bool | None = None,
    observe_others: bool | None = None,
) -> Call[None]:
    """``PUT .../sessions/{s}/peers/{p}/config`` (204). Merges the non-None fields.

    A field cannot be reset to None this way; the server keeps the old value. At least
    one flag must be given (ConfigError otherwise): an empty update would still add
    the peer to the session.
    """
    config = SessionPeerConfig(observe_me=observe_me, observe_others=observe_others)
    if observe_me is None and observe_others is None:
        # The server would change no flag, yet still add the peer to the session.
        raise ConfigError("set_session_peer_config needs observe_me or observe_others")
    path = _peer_config_path(paths, session_id, peer_id)
    return Call(
        "set_session_peer_config",
        "PUT",
        path,
        nothing,
        body=config.to_json(),
        write=True,
    )


def delete_session(paths: Paths, session_id: str) -> Call[DeleteAccepted]:
    """``DELETE .../sessions/{id}``: 202; the session is inactive at once.

    Its messages stay listable and its id answers 404 until the background purge,
    which also removes conclusions made in that session.
    """
    op = "delete_session"
    path = paths.in_workspace("sessions", check_id(session_id, "session_id"))
    decode = decoded(op, DeleteAccepted.from_json, allow_empty=True)
    return Call(op, "DELETE", path, decode, write=True)
