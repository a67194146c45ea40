"""Sessions: get or create, update, list, clone and delete sessions; their members and the
members' configs; a session's context for a prompt and its summaries."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NoReturn

from .._call import Call, decoded, nothing
from .._checks import check_flag, check_id, check_positive_int
from .._errors import ConfigError, StatusError
from .._models import (
    DeleteAccepted,
    Page,
    Peer,
    Session,
    SessionContext,
    SessionPeerConfig,
    Summaries,
)
from .._request_checks import (
    MAX_PAGE_SIZE,
    check_id_query,
    check_json_object,
    check_optional_metadata,
    check_paging,
)
from ._shared import (
    Pages,
    Paths,
    as_query,
    check_scope_id,
    get_or_create,
    id_list,
    list_page,
    page_of,
    representation_options,
    update,
)


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


def iter_sessions(
    paths: Paths,
    *,
    size: int = MAX_PAGE_SIZE,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
) -> Pages[Session]:
    """Every active session of the workspace, page by page (each page is one call).

    ``deadline`` bounds each page's call, not the whole walk.
    """
    return Pages(
        lambda page: list_sessions(paths, page=page, size=size, reverse=reverse, filters=filters)
    )


def list_session_peers(
    paths: Paths, session_id: str, *, page: int = 1, size: int = 50
) -> Call[Page[Peer]]:
    """``GET .../sessions/{id}/peers``: active members only.

    In no order: the server sorts this list by nothing, so a page of one and a page of a
    hundred may differ in order (docs/api.md, "Walks over every page").
    """
    op = "list_session_peers"
    path = paths.in_workspace("sessions", check_id(session_id, "session_id"), "peers")
    query = tuple(check_paging(page, size, None))
    return Call(op, "GET", path, page_of(op, Peer.from_json), query=query)


def iter_session_peers(paths: Paths, session_id: str, *, size: int = MAX_PAGE_SIZE) -> Pages[Peer]:
    """Every active member of a session, page by page (each page is one call).

    ``deadline`` bounds each page's call, not the whole walk. The server sorts members by
    nothing, so pages may overlap: with the default ``size`` a session of up to 100 members
    comes whole in one call.
    """
    return Pages(lambda page: list_session_peers(paths, session_id, page=page, size=size))


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


def get_session_context(
    paths: Paths,
    session_id: str,
    *,
    tokens: int | None = None,
    summary: bool = True,
    peer_target: str | None = None,
    peer_perspective: str | None = None,
    scope: str | None = None,
    sessions: Sequence[str] | None = None,
    limit_to_session: bool = False,
    search_query: str | None = None,
    search_top_k: int | None = None,
    search_max_distance: float | None = None,
    include_most_frequent: bool | None = None,
    max_conclusions: int | None = None,
) -> Call[SessionContext]:
    """``GET .../sessions/{id}/context``: the session cut to ``tokens`` for a prompt.

    The most recent messages that fit, oldest first, and (``summary``, on by default) the
    summary of what came before them, when the deriver has written one that fits in 40%
    of the budget. Without ``tokens`` the server's maximum applies (100,000 by default).
    With ``peer_target`` the answer also holds that peer's representation and card, paid
    for out of the same budget: as ``peer_perspective`` sees it when given, as the named
    ``scope`` sees it when given (not both), else Honcho's own view. ``sessions`` (which
    must include ``session_id``) or ``limit_to_session`` keep the representation to what
    was stated in those sessions; the card is then left out.
    """
    query: list[tuple[str, str]] = []
    if tokens is not None:
        query.append(("tokens", str(check_positive_int(tokens, "tokens"))))
    query.append(("summary", "true" if check_flag(summary, "summary") else "false"))
    query += check_id_query(peer_target=peer_target, peer_perspective=peer_perspective)
    if scope is not None:
        query.append(("scope", check_scope_id(scope, "scope")))
    if peer_target is None and (peer_perspective, scope, sessions) != (None, None, None):
        raise ConfigError("peer_perspective, scope and sessions need peer_target")
    if peer_perspective is not None and scope is not None:
        raise ConfigError("peer_perspective and scope cannot be given together")
    if check_flag(limit_to_session, "limit_to_session"):
        if sessions is not None or scope is not None:
            raise ConfigError("limit_to_session cannot be given with sessions or scope")
        query.append(("limit_to_session", "true"))
    if sessions is not None:
        if scope is not None:
            raise ConfigError("sessions and scope cannot be given together")
        allowed = id_list(sessions, "sessions")
        if session_id not in allowed:
            raise ConfigError("sessions must include session_id")
        query += [("sessions", name) for name in allowed]
    options = representation_options(
        search_query, search_top_k, search_max_distance, include_most_frequent, max_conclusions
    )
    query += as_query(options)
    op = "get_session_context"
    path = paths.in_workspace("sessions", check_id(session_id, "session_id"), "context")
    return Call(op, "GET", path, decoded(op, SessionContext.from_json), query=tuple(query))


def get_session_summaries(paths: Paths, session_id: str) -> Call[Summaries]:
    """``GET .../sessions/{id}/summaries``: the short and the long summary, each None until
    the deriver has written it (by default at every 20th and every 60th message). A
    session that does not exist answers both None on Honcho 3.0.12, not 404.
    """
    op = "get_session_summaries"
    path = paths.in_workspace("sessions", check_id(session_id, "session_id"), "summaries")
    return Call(op, "GET", path, decoded(op, Summaries.from_json))


def clone_session(paths: Paths, session_id: str, *, message_id: str | None = None) -> Call[Session]:
    """``POST .../sessions/{id}/clone`` (201): a new session, named by the server, with this
    one's metadata, configuration, members and messages (up to and including
    ``message_id`` when given). Nothing in the copy is derived again.

    Honcho 3.0.12 picks the messages to copy by the session's name in every workspace:
    give sessions names no other workspace uses (docs/compatibility.md, Server defects).
    It answers 404 "Session not found" for a session that exists when ``message_id`` is
    not one of its messages; the error says so.
    """
    op = "clone_session"
    path = paths.in_workspace("sessions", check_id(session_id, "session_id"), "clone")
    query = tuple(check_id_query(message_id=message_id))
    on_status = {404: _clone_message_elsewhere} if message_id is not None else {}
    return Call(
        op,
        "POST",
        path,
        decoded(op, Session.from_json),
        query=query,
        write=True,
        on_status=on_status,
    )


def _clone_message_elsewhere(exc: StatusError) -> NoReturn:
    """3.0.12's 404 for a clone up to a message not in the session names the session (a
    missing session is "Original session not found"): say what it more likely means."""
    if exc.detail == "Session not found":
        raise StatusError(
            exc.status,
            exc.method,
            exc.path,
            exc.body,
            message=f"{exc}; the session may exist: Honcho 3.0.12 says this when message_id "
            "is not a message of this session (it may belong to another session)",
        ) from None
    raise exc


def _members(paths: Paths, op: str, session_id: str, method: str, body: object) -> Call[Session]:
    """A change to a session's member set; the server answers with the session."""
    path = paths.in_workspace("sessions", check_id(session_id, "session_id"), "peers")
    return Call(op, method, path, decoded(op, Session.from_json), body=body, write=True)


def add_session_peers(
    paths: Paths,
    session_id: str,
    peers: Mapping[str, SessionPeerConfig | Mapping[str, Any] | None],
) -> Call[Session]:
    """``POST .../sessions/{id}/peers``: add members, each peer id to its SessionPeerConfig
    (None: the defaults). Peers that do not exist yet are made, and so is the session. A
    peer already a member keeps its config: use set_session_peer_config() to change it.
    """
    members = _peer_map(peers)
    if not members:
        raise ConfigError("peers must name at least one peer")
    return _members(paths, "add_session_peers", session_id, "POST", members)


def set_session_peers(
    paths: Paths,
    session_id: str,
    peers: Mapping[str, SessionPeerConfig | Mapping[str, Any] | None],
) -> Call[Session]:
    """``PUT .../sessions/{id}/peers``: make ``peers`` the whole member set, with these
    configs; members not named leave the session (an empty map: every member leaves).
    """
    members = _peer_map(peers)
    if members is None:
        raise ConfigError("peers must map peer ids to SessionPeerConfig (or None)")
    return _members(paths, "set_session_peers", session_id, "PUT", members)


def remove_session_peers(paths: Paths, session_id: str, peer_ids: Iterable[str]) -> Call[Session]:
    """``DELETE .../sessions/{id}/peers``: these peers leave the session (their messages
    stay). Naming a peer that is not a member is no error.
    """
    names = id_list(peer_ids, "peer_ids")
    if not names:
        raise ConfigError("peer_ids must name at least one peer")
    return _members(paths, "remove_session_peers", session_id, "DELETE", names)
