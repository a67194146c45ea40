"""Webhooks: register, list and delete the workspace's endpoints, and ask for a test event."""

from __future__ import annotations

from typing import NoReturn

from .._call import Call, Response, decoded, nothing
from .._checks import check_id
from .._errors import StatusError, WebhookLimitError
from .._models import Page, WebhookEndpoint
from .._request_checks import MAX_PAGE_SIZE, check_paging, check_webhook_url
from ._shared import Pages, Paths, page_of

# What the server says when it refuses an IP literal; explained in the error it becomes.
_PRIVATE_IP_DETAIL = "Private/internal IP addresses are not allowed"


def _webhook_limit(exc: StatusError) -> NoReturn:
    """A 409: the workspace has as many endpoints as the server allows."""
    raise WebhookLimitError(exc.status, exc.method, exc.path, exc.body) from None


def _webhook_url_refused(exc: StatusError) -> NoReturn:
    """The private-address 422 with what to do about it (any other 422, as it is)."""
    if _PRIVATE_IP_DETAIL in str(exc.detail):
        hint = (
            f"{exc}. The server refuses a webhook URL whose host is an IP literal of a "
            "private, loopback, link-local, reserved, multicast or unspecified address; give "
            "a host name instead (for a receiver on the server's own machine, "
            "http://localhost:PORT/...)"
        )
        raise StatusError(exc.status, exc.method, exc.path, exc.body, message=hint) from None
    raise exc


def get_or_create_webhook(paths: Paths, url: str) -> Call[WebhookEndpoint]:
    """``POST .../webhooks``: register ``url`` for this workspace's events.

    ``created`` tells 201 (made now) from 200 (the URL was registered already). The URL must
    be http or https with a host (checked before sending). Each delivery is signed; check
    it with ``roncho.webhooks.verify``.

    Raises:
        WebhookLimitError: 409, the workspace has the most endpoints the server allows.
        StatusError: 422 when the server refuses the URL (a private or loopback IP literal
            among them: the message says what to give instead); 404 for a missing workspace.
    """
    op = "get_or_create_webhook"

    def created(response: Response) -> WebhookEndpoint:
        made = response.status == 201
        return decoded(op, lambda data, what: WebhookEndpoint.from_json(data, what, made))(response)

    body = {"url": check_webhook_url(url)}
    return Call(
        op,
        "POST",
        paths.in_workspace("webhooks"),
        created,
        body=body,
        write=True,
        on_status={409: _webhook_limit, 422: _webhook_url_refused},
    )


def list_webhooks(paths: Paths, *, page: int = 1, size: int = 50) -> Call[Page[WebhookEndpoint]]:
    """``GET .../webhooks``: one page of this workspace's endpoints (``created`` is None).

    In no order: the server sorts this list by nothing (docs/api.md, "Walks over every page").
    """
    op = "list_webhooks"
    return Call(
        op,
        "GET",
        paths.in_workspace("webhooks"),
        page_of(op, WebhookEndpoint.from_json),
        query=tuple(check_paging(page, size, None)),
    )


def iter_webhooks(paths: Paths, *, size: int = MAX_PAGE_SIZE) -> Pages[WebhookEndpoint]:
    """Every webhook endpoint of this workspace, page by page (each page is one call).

    ``deadline`` bounds each page's call, not the whole walk. The server sorts endpoints by
    nothing, so pages may overlap: with the default ``size`` up to 100 come whole in one call.
    """
    return Pages(lambda page: list_webhooks(paths, page=page, size=size))


def delete_webhook(paths: Paths, endpoint_id: str) -> Call[None]:
    """``DELETE .../webhooks/{id}``: 204; an unknown id answers 404 (a StatusError)."""
    path = paths.in_workspace("webhooks", check_id(endpoint_id, "endpoint_id"))
    return Call("delete_webhook", "DELETE", path, nothing, write=True)


def trigger_webhook_test(paths: Paths) -> Call[None]:
    """``GET .../webhooks/test``: the server sends a ``test.event`` to every endpoint.

    A write for ``read_only`` (it makes the server post). It answers 200 at once; the
    delivery follows when the server's deriver gets to it (about a second on 3.0.12), and
    not at all if the server has no webhook secret.
    """
    path = paths.in_workspace("webhooks", "test")
    return Call("trigger_webhook_test", "GET", path, nothing, write=True)
