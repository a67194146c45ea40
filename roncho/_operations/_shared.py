"""The pieces several operations share: where paths start (``Paths``), the shapes of a
get-or-create, an update and a list page, and a walk over pages (``Pages``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

from .._call import Call, Response, decoded
from .._checks import check_flag, check_id, check_positive_int
from .._decode import decode_list
from .._errors import ConfigError
from .._models import Page, Peer, Scope, Session, Workspace
from .._request_checks import (
    MAX_QUERY_CHARS,
    check_filters_body,
    check_finite,
    check_json_object,
    check_optional_metadata,
    check_paging,
    check_string,
)

T = TypeVar("T")
M = TypeVar("M", Workspace, Peer, Session, Scope)


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


def representation_options(
    search_query: str | None,
    search_top_k: int | None,
    search_max_distance: float | None,
    include_most_frequent: bool | None,
    max_conclusions: int | None,
) -> dict[str, Any]:
    """The options every representation read shares (representation, peer and session
    context), checked, with the ones left None left out: the server's defaults apply."""
    options: dict[str, Any] = {}
    if search_query is not None:
        options["search_query"] = check_string(search_query, "search_query", MAX_QUERY_CHARS)
    if search_top_k is not None:
        options["search_top_k"] = check_positive_int(search_top_k, "search_top_k", high=100)
    if search_max_distance is not None:
        options["search_max_distance"] = check_finite(
            search_max_distance, "search_max_distance", 0.0, 1.0
        )
    if include_most_frequent is not None:
        options["include_most_frequent"] = check_flag(
            include_most_frequent, "include_most_frequent"
        )
    if max_conclusions is not None:
        options["max_conclusions"] = check_positive_int(
            max_conclusions, "max_conclusions", high=100
        )
    return options


def as_query(options: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Checked options as query parameters: booleans as ``true``/``false``, numbers as text."""
    return [
        (name, ("true" if value else "false") if isinstance(value, bool) else str(value))
        for name, value in options.items()
    ]


def id_list(values: object, what: str) -> list[str]:
    """A list of ids (any iterable but a str, which would be read letter by letter)."""
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise ConfigError(f"{what} must be a list of ids, not {type(values).__name__}")
    return [check_id(value, f"{what} item") for value in values]


# A scope is backed by a peer named ``scope.<name>``, so its name has 512 - 6 characters.
MAX_SCOPE_ID_CHARS = 506


def check_scope_id(value: object, what: str) -> str:
    """A scope's name: an id (the server refuses the ``scope.`` prefix, outside the id
    pattern anyway) of at most MAX_SCOPE_ID_CHARS characters."""
    name = check_id(value, what)
    if len(name) > MAX_SCOPE_ID_CHARS:
        raise ConfigError(f"{what} has {len(name)} characters; a scope name has at most 506")
    return name
