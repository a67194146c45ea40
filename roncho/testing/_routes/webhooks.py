"""Webhook routes: get-or-create (201/200, 409 past the limit, 422 for a URL the server's
validator refuses), list (a page), delete (204/404) and the test event (200 ``null``).

The 422 texts are those of 3.0.12's ``WebhookEndpointCreate.url`` validator: no scheme or
host, a scheme other than http(s), or an IP literal that is private, loopback, link-local,
reserved, multicast or unspecified. A host *name* passes unresolved, ``localhost`` too.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlparse

from .._common import ApiError, JsonDict, validation_error
from .._routing import Route, Services
from .._web import Ctx, Response, W, json_response, page


def check_url(value: object) -> str:
    """The server's ``url`` validator, with its 422 texts."""
    loc: list[str | int] = ["body", "url"]
    if not isinstance(value, str):
        raise validation_error("string_type", loc, "Input should be a valid string", value)

    def refuse(msg: str) -> ApiError:
        return validation_error("value_error", loc, f"Value error, {msg}", value, {"error": {}})

    parsed = urlparse(value)
    if not (parsed.scheme and parsed.netloc):
        raise refuse("Invalid URL format")
    if parsed.scheme not in ("http", "https"):
        raise refuse("Only HTTP and HTTPS URLs are allowed")
    host = parsed.hostname
    if host:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:  # a host name: the server leaves it alone
            return value
        if (
            address.is_private
            or address.is_loopback
            or address.is_link_local
            or address.is_reserved
            or address.is_multicast
            or address.is_unspecified
        ):
            raise refuse("Private/internal IP addresses are not allowed")
    return value


def body_url(body: JsonDict) -> str:
    """The ``url`` of a create body, checked as the server's schema checks it."""
    if "url" not in body:
        raise validation_error("missing", ["body", "url"], "Field required", body)
    return check_url(body["url"])


def create_webhook(services: Services, ctx: Ctx) -> Response:
    url = body_url(ctx.body())
    endpoint, created = services.webhooks.get_or_create(ctx.ws, ctx.w, url)
    return json_response(201 if created else 200, endpoint.json())


def list_webhooks(services: Services, ctx: Ctx) -> Response:
    found = services.webhooks.endpoints(ctx.ws, ctx.w)
    return json_response(200, page(ctx.request.query, [e.json() for e in found]))


def delete_webhook(services: Services, ctx: Ctx) -> Response:
    services.webhooks.delete(ctx.ws, ctx.w, ctx.params["e"])
    return Response(204)


def test_webhook(services: Services, ctx: Ctx) -> Response:
    # The server queues the event even for a workspace it does not know (and answers 200).
    services.webhooks.test_event(ctx.ws, ctx.w)
    return json_response(200, None)


ROUTES = (
    Route("POST", W + "/webhooks", create_webhook, "workspace"),
    Route("GET", W + "/webhooks", list_webhooks, "workspace"),
    Route("GET", W + "/webhooks/test", test_webhook, "workspace"),
    Route("DELETE", W + "/webhooks/{e}", delete_webhook, "workspace"),
)
