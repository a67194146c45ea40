"""Peers: get or create, update and list the workspace's peers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._call import Call
from .._checks import check_id, check_json_object, check_optional_metadata
from .._models import Page, Peer
from ._shared import Paths, get_or_create, list_page, update


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
