"""Peers: get or create, update and list the workspace's peers; a peer's sessions, and
what the server knows of it (its representation, its card, both as its context)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._call import Call, decoded
from .._checks import check_id
from .._decode import Fields
from .._errors import ConfigError
from .._models import Page, Peer, PeerContext, Session
from .._request_checks import (
    MAX_PAGE_SIZE,
    check_id_query,
    check_json_object,
    check_optional_metadata,
    check_string,
)
from ._shared import (
    Pages,
    Paths,
    as_query,
    check_scope_id,
    get_or_create,
    id_list,
    list_page,
    representation_options,
    update,
)


def get_or_create_peer(
    paths: Paths,
    peer_id: str,
    metadata: Mapping[str, Any] | None = None,
    configuration: Mapping[str, Any] | None = None,
) -> Call[Peer]:
    """``POST .../peers``. Given metadata or configuration replace the stored ones.

    The only configuration key the server reads is ``observe_me`` (default true).
    """
    fields = {
        "metadata": check_optional_metadata(metadata),
        "configuration": check_json_object(configuration, "configuration"),
    }
    return get_or_create(
        "get_or_create_peer",
        paths.in_workspace("peers"),
        check_id(peer_id, "peer_id"),
        Peer.from_json,
        fields,
    )


def update_peer(
    paths: Paths,
    peer_id: str,
    metadata: Mapping[str, Any] | None = None,
    configuration: Mapping[str, Any] | None = None,
) -> Call[Peer]:
    """``PUT .../peers/{peer}``: both fields replace wholesale when given."""
    path = paths.in_workspace("peers", check_id(peer_id, "peer_id"))
    return update("update_peer", path, metadata, configuration, Peer.from_json)


def list_peers(
    paths: Paths,
    *,
    page: int = 1,
    size: int = 50,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
) -> Call[Page[Peer]]:
    """``POST .../peers/list`` (a POST, as the server has it; there is no GET)."""
    return list_page(
        "list_peers",
        paths.in_workspace("peers", "list"),
        Peer.from_json,
        page,
        size,
        reverse,
        filters,
    )


def iter_peers(
    paths: Paths,
    *,
    size: int = MAX_PAGE_SIZE,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
) -> Pages[Peer]:
    """Every peer of the workspace, page by page (each page is one call).

    ``deadline`` bounds each page's call, not the whole walk.
    """
    return Pages(
        lambda page: list_peers(paths, page=page, size=size, reverse=reverse, filters=filters)
    )


def list_peer_sessions(
    paths: Paths,
    peer_id: str,
    *,
    page: int = 1,
    size: int = 50,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
) -> Call[Page[Session]]:
    """``POST .../peers/{peer}/sessions``: the sessions ``peer_id`` is a member of.

    A read, though it is a POST; ``filters`` as list_sessions() takes them.
    """
    path = paths.in_workspace("peers", check_id(peer_id, "peer_id"), "sessions")
    return list_page("list_peer_sessions", path, Session.from_json, page, size, reverse, filters)


def iter_peer_sessions(
    paths: Paths,
    peer_id: str,
    *,
    size: int = MAX_PAGE_SIZE,
    reverse: bool = False,
    filters: Mapping[str, Any] | None = None,
) -> Pages[Session]:
    """Every session ``peer_id`` is a member of, page by page (each page is one call).

    ``deadline`` bounds each page's call, not the whole walk.
    """
    return Pages(
        lambda page: list_peer_sessions(
            paths, peer_id, page=page, size=size, reverse=reverse, filters=filters
        )
    )


def _representation(data: object, op: str) -> str:
    return Fields(data, op, "representation answer").text("representation")


def get_peer_representation(
    paths: Paths,
    peer_id: str,
    *,
    target: str | None = None,
    session_id: str | None = None,
    sessions: Sequence[str] | None = None,
    scope: str | None = None,
    search_query: str | None = None,
    search_top_k: int | None = None,
    search_max_distance: float | None = None,
    include_most_frequent: bool | None = None,
    max_conclusions: int | None = None,
) -> Call[str]:
    """``POST .../peers/{peer}/representation``: what ``peer_id`` knows of ``target`` (of
    itself when None), as Markdown text; empty when nothing is known.

    ``session_id`` keeps to what was concluded in that session, ``sessions`` to those
    sessions (with ``session_id`` among them, if both are given), ``scope`` to a named
    scope's view (not with either; needs a workspace or admin key). The server reads at
    most ``max_conclusions`` conclusions (its default 25); ``search_query`` puts the
    nearest first. A read, though it is a POST.
    """
    body = representation_options(
        search_query, search_top_k, search_max_distance, include_most_frequent, max_conclusions
    )
    if target is not None:
        body["target"] = check_id(target, "target")
    if session_id is not None:
        body["session_id"] = check_id(session_id, "session_id")
    if sessions is not None:
        allowed = id_list(sessions, "sessions")
        if session_id is not None and session_id not in allowed:
            raise ConfigError("sessions must include session_id when both are given")
        body["filters"] = {"session_id": {"in": allowed}}
    if scope is not None:
        if session_id is not None or sessions is not None:
            raise ConfigError("scope cannot be given with session_id or sessions")
        body["scope"] = check_scope_id(scope, "scope")
    op = "get_peer_representation"
    path = paths.in_workspace("peers", check_id(peer_id, "peer_id"), "representation")
    return Call(op, "POST", path, decoded(op, _representation), body=body)


def _card(data: object, op: str) -> tuple[str, ...] | None:
    return Fields(data, op, "peer card answer").opt_text_list("peer_card")


def get_peer_card(
    paths: Paths, peer_id: str, *, target: str | None = None
) -> Call[tuple[str, ...] | None]:
    """``GET .../peers/{peer}/card``: ``peer_id``'s card about ``target`` (about itself
    when None), its lines in order; None when there is no card.
    """
    op = "get_peer_card"
    path = paths.in_workspace("peers", check_id(peer_id, "peer_id"), "card")
    query = tuple(check_id_query(target=target))
    return Call(op, "GET", path, decoded(op, _card), query=query)


def set_peer_card(
    paths: Paths, peer_id: str, card: Sequence[str], *, target: str | None = None
) -> Call[tuple[str, ...] | None]:
    """``PUT .../peers/{peer}/card``: make ``card`` (its lines, in order) ``peer_id``'s
    card about ``target`` (about itself when None); answers the card as stored.

    The deriver and dreams rewrite cards too, so a card set here may not last.
    """
    if isinstance(card, str | bytes) or not isinstance(card, Sequence):
        raise ConfigError("card must be a list of strings (one a line), not a str")
    lines = [
        check_string(line, f"card[{i}]", None, allow_empty=True) for i, line in enumerate(card)
    ]
    op = "set_peer_card"
    path = paths.in_workspace("peers", check_id(peer_id, "peer_id"), "card")
    query = tuple(check_id_query(target=target))
    body = {"peer_card": lines}
    return Call(op, "PUT", path, decoded(op, _card), query=query, body=body, write=True)


def get_peer_context(
    paths: Paths,
    peer_id: str,
    *,
    target: str | None = None,
    search_query: str | None = None,
    search_top_k: int | None = None,
    search_max_distance: float | None = None,
    include_most_frequent: bool | None = None,
    max_conclusions: int | None = None,
) -> Call[PeerContext]:
    """``GET .../peers/{peer}/context``: the representation and the card in one call.

    Of ``target`` as ``peer_id`` sees it (of ``peer_id`` itself when None). The server
    reads at most ``max_conclusions`` conclusions (its default 100) and adds the most
    frequent ones unless ``include_most_frequent`` is False.
    """
    options = representation_options(
        search_query, search_top_k, search_max_distance, include_most_frequent, max_conclusions
    )
    op = "get_peer_context"
    path = paths.in_workspace("peers", check_id(peer_id, "peer_id"), "context")
    query = tuple(check_id_query(target=target) + as_query(options))
    return Call(op, "GET", path, decoded(op, PeerContext.from_json), query=query)
