"""Webhooks as Honcho 3.0.12 has them: endpoints per workspace, and signed deliveries.

The backend (``Webhooks``) holds the endpoints and sends events; the HTTP glue
(``register``) parses requests and renders answers the way the server's router does:

- ``POST /v3/workspaces/{w}/webhooks`` get-or-create by URL: 201 made, 200 existed, 404 for
  a missing workspace, 409 past ``MAX_WORKSPACE_ENDPOINTS``, 422 for a URL the server's
  validator refuses (no scheme or host, not http(s), a private, loopback, link-local,
  reserved, multicast or unspecified IP literal; a host *name* such as ``localhost`` passes).
- ``GET .../webhooks`` one page of them; ``DELETE .../webhooks/{id}`` 204 or 404;
  ``GET .../webhooks/test`` 200 ``null``, then a ``test.event`` goes out.

A delivery is what the server's ``deliver_webhook`` sends: one POST per endpoint of the
workspace, body ``{"data":...,"timestamp":"...Z","type":...}`` as compact JSON with sorted
keys, ``X-Honcho-Signature`` the hex HMAC-SHA256 of the body with the secret. Like the
server: no secret, nothing is sent; no retry, whatever the receiver answers. Unlike it:
deliveries go only to loopback addresses unless ``allow_remote`` (an emulator must not post
to the world), and each outcome is kept in a journal tests can read (``deliveries()``).

The sending thread starts with the first event and stops on ``close()``.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import json
import queue
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlparse, urlsplit

from ._common import ApiError, JsonDict, iso, nanoid, utcnow, validation_error
from ._state import Workspace

# settings.WEBHOOK.MAX_WORKSPACE_LIMIT in 3.0.12.
MAX_WORKSPACE_ENDPOINTS = 10
# The server's httpx client waits 30 s; an emulator in a test suite should not.
DELIVERY_TIMEOUT = 5.0
SIGNATURE_HEADER = "X-Honcho-Signature"
USER_AGENT = "roncho-fake-honcho"
LIMIT_DETAIL = (
    f"Maximum number of webhook endpoints ({MAX_WORKSPACE_ENDPOINTS}) reached for this workspace."
)
PRIVATE_IP_MSG = "Value error, Private/internal IP addresses are not allowed"


@dataclass(frozen=True, slots=True)
class Endpoint:
    id: str
    workspace_id: str
    url: str
    created_at: datetime

    def json(self) -> JsonDict:
        return {
            "id": self.id,
            "workspace_id": self.workspace_id,
            "url": self.url,
            "created_at": iso(self.created_at),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Delivery:
    """One POST the emulator made, or refused to make (``sent`` False, ``error`` says why).

    ``status`` is the receiver's answer, None when there was none; ``at`` is
    ``time.monotonic()`` when the attempt ended."""

    url: str
    event_type: str
    body: bytes
    signature: str
    sent: bool
    status: int | None
    error: str | None
    at: float


def check_url(value: object) -> str:
    """The server's ``WebhookEndpointCreate.url`` validator, with its 422 texts."""
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


def event_body(event_type: str, data: JsonDict, now: datetime | None = None) -> bytes:
    """The delivered body: compact JSON, keys sorted, the time to the second with ``Z``."""
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    payload = {"type": event_type, "data": data, "timestamp": stamp}
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8")


def signature(body: bytes, secret: str) -> str:
    return hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def _loopback_only(url: str) -> str | None:
    """Why ``url`` may not be posted to without ``allow_remote``, or None when it may."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        infos = socket.getaddrinfo(host, parts.port or 80, type=socket.SOCK_STREAM)
    except OSError as exc:
        return f"cannot resolve {host!r}: {exc}"
    addresses = {str(info[4][0]) for info in infos}
    remote = sorted(a for a in addresses if not ipaddress.ip_address(a.split("%")[0]).is_loopback)
    if remote:
        return f"{host!r} resolves to non-loopback {', '.join(remote)}; allow_remote is off"
    return None


class Webhooks:
    """The endpoints of every workspace and the thread that delivers events."""

    def __init__(self, secret: str | None, *, allow_remote: bool = False) -> None:
        self.secret = secret
        self.allow_remote = allow_remote
        self._lock = threading.Lock()
        # Keyed by workspace id, with the Workspace object they were made in: a workspace
        # deleted and made again starts with none, as the server's cascade leaves it.
        self._endpoints: dict[str, tuple[Workspace, list[Endpoint]]] = {}
        self._journal: list[Delivery] = []
        self._outbox: queue.Queue[tuple[str, str, JsonDict] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._closed = False

    # ---- state (the caller holds the store lock where it passes a Workspace) ----

    def _of(self, ws: Workspace | None, workspace_id: str) -> list[Endpoint]:
        held = self._endpoints.get(workspace_id)
        if held is None or ws is None or held[0] is not ws:
            return []
        return held[1]

    def get_or_create(self, ws: Workspace, url: str) -> tuple[Endpoint, bool]:
        with self._lock:
            held = self._endpoints.get(ws.id)
            if held is None or held[0] is not ws:
                held = self._endpoints[ws.id] = (ws, [])
            endpoints = held[1]
            for endpoint in endpoints:
                if endpoint.url == url:
                    return endpoint, False
            if len(endpoints) >= MAX_WORKSPACE_ENDPOINTS:
                raise ApiError(409, LIMIT_DETAIL)
            endpoint = Endpoint(nanoid(), ws.id, url, utcnow())
            endpoints.append(endpoint)
            return endpoint, True

    def endpoints(self, ws: Workspace | None, workspace_id: str) -> list[Endpoint]:
        with self._lock:
            return list(self._of(ws, workspace_id))

    def delete(self, ws: Workspace | None, workspace_id: str, endpoint_id: str) -> None:
        with self._lock:
            endpoints = self._of(ws, workspace_id)
            for index, endpoint in enumerate(endpoints):
                if endpoint.id == endpoint_id:
                    del endpoints[index]
                    return
        raise ApiError(
            404, f"Webhook endpoint {endpoint_id} not found for workspace {workspace_id}"
        )

    # ---- events ----

    def publish(
        self, ws: Workspace | None, workspace_id: str, event_type: str, data: JsonDict
    ) -> None:
        """Queue an event for every endpoint the workspace has when it is sent."""
        with self._lock:
            if self._closed:
                return
            urls = [e.url for e in self._of(ws, workspace_id)]
            if not urls:
                return
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="roncho-fake-webhooks", daemon=True
                )
                self._thread.start()
        for url in urls:
            self._outbox.put((url, event_type, data))

    def test_event(self, ws: Workspace | None, workspace_id: str) -> None:
        self.publish(ws, workspace_id, "test.event", {"workspace_id": workspace_id})

    def queue_empty(
        self,
        ws: Workspace | None,
        workspace_id: str,
        queue_type: str,
        session_id: str | None,
        observed: str | None,
    ) -> None:
        """A work unit drained: ``observer`` is null for both queue types, as on 3.0.12."""
        data = {
            "workspace_id": workspace_id,
            "queue_type": queue_type,
            "session_id": session_id,
            "observer": None,
            "observed": observed,
        }
        self.publish(ws, workspace_id, "queue.empty", data)

    def deliveries(self) -> list[Delivery]:
        """Every delivery attempt so far, oldest first (a copy)."""
        with self._lock:
            return list(self._journal)

    def wait_for(
        self, count: int, *, timeout: float, sleep: Callable[[float], object] = time.sleep
    ) -> list[Delivery]:
        """The journal once it holds ``count`` attempts, or as it is when ``timeout`` passes."""
        deadline = time.monotonic() + timeout
        while True:
            journal = self.deliveries()
            if len(journal) >= count or time.monotonic() >= deadline:
                return journal
            sleep(0.01)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            thread = self._thread
        if thread is not None:
            self._outbox.put(None)
            thread.join(timeout=DELIVERY_TIMEOUT + 1.0)

    # ---- the sending thread ----

    def _run(self) -> None:
        while True:
            item = self._outbox.get()
            if item is None:
                return
            url, event_type, data = item
            record = self._deliver(url, event_type, data)
            with self._lock:
                self._journal.append(record)

    def _deliver(self, url: str, event_type: str, data: JsonDict) -> Delivery:
        body = event_body(event_type, data)

        def outcome(sent: bool, status: int | None, error: str | None, sig: str = "") -> Delivery:
            return Delivery(
                url=url,
                event_type=event_type,
                body=body,
                signature=sig,
                sent=sent,
                status=status,
                error=error,
                at=time.monotonic(),
            )

        if not self.secret:  # the server logs "WEBHOOK_SECRET not found" and sends nothing
            return outcome(False, None, "no webhook secret: nothing is signed or sent")
        sig = signature(body, self.secret)
        if not self.allow_remote:
            why = _loopback_only(url)
            if why is not None:
                return outcome(False, None, why, sig)
        parts = urlsplit(url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host = parts.hostname or ""
        connection: http.client.HTTPConnection
        if parts.scheme == "https":
            connection = http.client.HTTPSConnection(host, parts.port, timeout=DELIVERY_TIMEOUT)
        else:
            connection = http.client.HTTPConnection(host, parts.port, timeout=DELIVERY_TIMEOUT)
        headers = {
            "Content-Type": "application/json",
            SIGNATURE_HEADER: sig,
            "User-Agent": USER_AGENT,
        }
        try:
            connection.request("POST", target, body=body, headers=headers)
            response = connection.getresponse()
            response.read(64 * 1024)
            return outcome(True, response.status, None, sig)
        except (OSError, http.client.HTTPException) as exc:
            return outcome(True, None, f"{type(exc).__name__}: {exc}", sig)
        finally:
            connection.close()


def endpoint_page(items: list[JsonDict], page: int, size: int) -> JsonDict:
    start = (page - 1) * size
    total = len(items)
    return {
        "items": items[start : start + size],
        "total": total,
        "page": page,
        "size": size,
        "pages": -(-total // size) if total else 0,
    }


def body_url(body: Any) -> str:
    """The ``url`` of a create body, checked as the server's schema checks it."""
    if not isinstance(body, dict):
        raise validation_error(
            "model_attributes_type",
            ["body"],
            "Input should be a valid dictionary or object to extract fields from",
            body,
        )
    if "url" not in body:
        raise validation_error("missing", ["body", "url"], "Field required", body)
    return check_url(body["url"])
