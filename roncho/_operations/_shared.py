"""The pieces several operations share: where paths start (``Paths``), the shapes of a
get-or-create, an update and a list page, and a walk over pages (``Pages``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from .._call import Call, Response, decoded
from .._checks import (
    check_filters_body,
    check_flag,
    check_json_object,
    check_optional_metadata,
    check_paging,
)
from .._decode import decode_list
from .._models import Page, Peer, Session, Workspace

T = TypeVar("T")
M = TypeVar("M", Workspace, Peer, Session)


class Paths:
    """Where a client's paths start: the base URL's path prefix, and its workspace."""

    __slots__ = ("prefix", "workspace")

    def __init__(self, prefix: str, workspace: str) -> None:
        self.prefix = prefix
        self.workspace = workspace

    def root(self, *rest: str) -> str:
        """A path from the server's root: ``root("health")`` is ``{prefix}/health``."""
        return "/".join((self.prefix, *rest))

    def workspaces(self, *rest: str) -> str:
        """A path under ``/v3/workspaces``, for the calls about workspaces themselves."""
        return self.root("v3", "workspaces", *rest)

    def in_workspace(self, *rest: str) -> str:
        """A path inside the client's workspace: ``/v3/workspaces/{workspace}/...``."""
        return self.workspaces(self.workspace, *rest)


def get_or_create(
    op: str,
    path: str,
    resource_id: str,
    model: Callable[[object, str, bool | None], M],
    fields: dict[str, Any],
) -> Call[M]:
    """POST a get-or-create; ``created`` on the result says 201 (made) or 200 (existed)."""
    body = {"id": resource_id, **{k: v for k, v in fields.items() if v is not None}}

    def created(response: Response) -> M:
        made = response.status == 201
        return decoded(op, lambda data, what: model(data, what, made))(response)

    return Call(op, "POST", path, created, body=body, write=True)


def update(
    op: str,
    path: str,
    metadata: Mapping[str, Any] | None,
    configuration: Mapping[str, Any] | None,
    model: Callable[[object, str], T],
) -> Call[T]:
    """PUT metadata and configuration; None in either means "leave it as it is"."""
    body = {
        "metadata": check_optional_metadata(metadata),
        "configuration": check_json_object(configuration, "configuration"),
    }
    return Call(op, "PUT", path, decoded(op, model), body=body, write=True)


def list_page(
    op: str,
    path: str,
    model: Callable[[object, str], T],
    page: int,
    size: int,
    reverse: bool,
    filters: Mapping[str, Any] | None,
) -> Call[Page[T]]:
    """The shape every ``POST .../list`` shares: paging in the query, filters in the body."""
    return Call(
        op,
        "POST",
        path,
        page_of(op, model),
        # A flag here: None would silently leave the server's own order.
        query=tuple(check_paging(page, size, check_flag(reverse, "reverse"))),
        body=check_filters_body(filters),
    )


class Pages(Generic[T]):
    """A walk over every page of a list: the first page's call, then after each answer
    the next page's, or None once an answer was the last page."""

    __slots__ = ("_call_for", "_page")

    def __init__(self, call_for: Callable[[int], Call[Page[T]]]) -> None:
        self._call_for = call_for
        self._page = 1

    def first(self) -> Call[Page[T]]:
        return self._call_for(1)

    def after(self, answer: Page[T]) -> Call[Page[T]] | None:
        if self._page >= answer.pages or not answer.items:
            return None
        self._page += 1
        return self._call_for(self._page)


def page_of(op: str, item: Callable[[object, str], T]) -> Callable[[Response], Page[T]]:
    return decoded(op, lambda data, o: Page.decode(data, o, item))


def items_of(op: str, item: Callable[[object, str], T]) -> Callable[[Response], tuple[T, ...]]:
    return decoded(op, lambda data, o: decode_list(data, o, item))
