"""The shapes several operations of the catalogue share: where paths start (``Scope``), a
get-or-create, an update, one page of a list and a walk over every page, a bare array.
Pure, like the catalogue: each returns a ``Call`` or a decoder, and nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from . import _checks as check
from ._decode import decode_list
from ._exchange import Call, Response, decoded
from ._models import Page, Peer, Session, Workspace

T = TypeVar("T")
M = TypeVar("M", Workspace, Peer, Session)


class Scope:
    """Where a client's paths start: the base URL's prefix and its workspace."""

    __slots__ = ("prefix", "workspace")

    def __init__(self, prefix: str, workspace: str) -> None:
        self.prefix = prefix
        self.workspace = workspace

    def root(self, *rest: str) -> str:
        return "/".join((self.prefix + "/v3/workspaces", *rest))

    def ws(self, *rest: str) -> str:
        return self.root(self.workspace, *rest)


def path_id(value: str, what: str) -> str:
    return check.check_id(value, what)


def get_or_create(
    op: str,
    path: str,
    resource_id: str,
    model: Callable[[object, str, bool | None], M],
    fields: dict[str, Any],
    deadline: float | None,
) -> Call[M]:
    """POST a get-or-create; ``created`` on the result says 201 (made) or 200 (existed)."""
    body = {"id": resource_id, **{k: v for k, v in fields.items() if v is not None}}

    def created(response: Response) -> M:
        made = response.status == 201
        return decoded(op, lambda data, what: model(data, what, made))(response)

    return Call(op, "POST", path, created, body=body, write=True, deadline=deadline)


def update(
    op: str,
    path: str,
    metadata: Mapping[str, Any] | None,
    configuration: Mapping[str, Any] | None,
    model: Callable[[object, str], T],
    deadline: float | None,
) -> Call[T]:
    """PUT metadata and configuration; None in either means "leave it as it is"."""
    body = {
        "metadata": check.meta(metadata),
        "configuration": check.json_object(configuration, "configuration"),
    }
    return Call(op, "PUT", path, decoded(op, model), body=body, write=True, deadline=deadline)


def list_page(
    op: str,
    path: str,
    model: Callable[[object, str], T],
    page: int,
    size: int,
    reverse: bool,
    filters: Mapping[str, Any] | None,
    deadline: float | None,
) -> Call[Page[T]]:
    """The shape every ``POST .../list`` shares: paging in the query, filters in the body."""
    return Call(
        op,
        "POST",
        path,
        page_of(op, model),
        query=tuple(check.paging(page, size, reverse)),
        body=check.filters_body(filters),
        deadline=deadline,
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
