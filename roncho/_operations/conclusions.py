"""Conclusions: write them, list them, query them by meaning, get one, delete one."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

from .._call import Call, decoded, nothing
from .._checks import check_id, check_positive_int
from .._errors import StatusError
from .._models import Conclusion, ConclusionCreate, Page, render_batch
from .._request_checks import (
    MAX_PAGE_SIZE,
    MAX_QUERY_CHARS,
    check_finite,
    check_json_object,
    check_string,
)
from ._shared import Pages, Paths, items_of, list_page


def create_conclusions(
    paths: Paths, conclusions: Iterable[ConclusionCreate]
) -> Call[tuple[Conclusion, ...]]:
    """``POST .../conclusions``: 1 to 100, each stored as ``level: explicit``.

    The server does not deduplicate: after an error with ``request_sent`` true, list
    the conclusions before sending again.
    """
    op = "create_conclusions"
    items = render_batch(conclusions, ConclusionCreate, "conclusions", op)
    return Call(
        op,
        "POST",
        paths.in_workspace("conclusions"),
        items_of(op, Conclusion.from_json),
        body={"conclusions": items},
        write=True,
    )


def list_conclusions(
    paths: Paths,
    filters: Mapping[str, Any] | None = None,
    *,
    page: int = 1,
    size: int = 50,
    reverse: bool = False,
) -> Call[Page[Conclusion]]:
    """``POST .../conclusions/list``: newest first unless ``reverse`` (unlike other lists)."""
    return list_page(
        "list_conclusions",
        paths.in_workspace("conclusions", "list"),
        Conclusion.from_json,
        page,
        size,
        reverse,
        filters,
    )


def iter_conclusions(
    paths: Paths,
    filters: Mapping[str, Any] | None = None,
    *,
    size: int = MAX_PAGE_SIZE,
    reverse: bool = False,
) -> Pages[Conclusion]:
    """Every conclusion ``filters`` selects, page by page (each page is one call): newest
    first unless ``reverse``, as list_conclusions() has them.

    ``deadline`` bounds each page's call, not the whole walk.
    """
    return Pages(
        lambda page: list_conclusions(paths, filters, page=page, size=size, reverse=reverse)
    )


def query_conclusions(
    paths: Paths,
    query: str,
    observer_id: str,
    observed_id: str,
    *,
    top_k: int | None = None,
    distance: float | None = None,
    filters: Mapping[str, Any] | None = None,
) -> Call[tuple[Conclusion, ...]]:
    """``POST .../conclusions/query``: semantic search, most similar first.

    The server refuses a query without observer and observed, so both are required;
    they travel inside ``filters``, as the server wants them.
    """
    op = "query_conclusions"
    merged = dict(check_json_object(filters, "filters") or {})
    merged["observer_id"] = check_id(observer_id, "observer_id")
    merged["observed_id"] = check_id(observed_id, "observed_id")
    body: dict[str, Any] = {
        "query": check_string(query, "query", MAX_QUERY_CHARS * 100),
        "filters": merged,
    }
    if top_k is not None:
        body["top_k"] = check_positive_int(top_k, "top_k", high=100)
    if distance is not None:
        body["distance"] = check_finite(distance, "distance", 0.0, 1.0)
    path = paths.in_workspace("conclusions", "query")
    return Call(op, "POST", path, items_of(op, Conclusion.from_json), body=body)


def _no_get_conclusion(exc: StatusError) -> NoReturn:
    """A server without the route: 405 (Honcho 3.0.12 has only DELETE on this path) or a
    404 that is the router's own ``Not Found``. A 404 ``Conclusion not found`` is as it is."""
    if exc.status == 405 or exc.detail in ("Not Found", None):
        raise StatusError(
            exc.status,
            exc.method,
            exc.path,
            exc.body,
            message=f"{exc.method} {exc.path} answered {exc.status}: GET conclusions/{{id}} "
            "was added in Honcho 3.2.0; this server does not have it (Honcho 3.0.12 answers "
            "405 there)",
        ) from None
    raise exc


def get_conclusion(paths: Paths, conclusion_id: str) -> Call[Conclusion]:
    """``GET .../conclusions/{id}`` (Honcho 3.2.0 on): one live conclusion of the workspace.

    Raises StatusError 404 (``Conclusion not found``) for an unknown or deleted id, and a
    StatusError that says which version added the route on a server without it (405 on
    Honcho 3.0.12); there, ``list_conclusions({"id": conclusion_id})`` finds it instead.
    """
    op = "get_conclusion"
    path = paths.in_workspace("conclusions", check_id(conclusion_id, "conclusion_id"))
    return Call(
        op,
        "GET",
        path,
        decoded(op, Conclusion.from_json),
        on_status={404: _no_get_conclusion, 405: _no_get_conclusion},
    )


def delete_conclusion(paths: Paths, conclusion_id: str) -> Call[None]:
    """``DELETE .../conclusions/{id}``: 204 with an empty body."""
    path = paths.in_workspace("conclusions", check_id(conclusion_id, "conclusion_id"))
    return Call("delete_conclusion", "DELETE", path, nothing, write=True)
