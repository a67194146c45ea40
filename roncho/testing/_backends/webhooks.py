"""Webhooks as Honcho 3.0.12 has them: endpoints per workspace, and the events they get.

The state rules: get-or-create by URL (the same URL again finds the endpoint; past
``MAX_WORKSPACE_ENDPOINTS`` a 409), list, delete (404 for an unknown id); a workspace
deleted and made again starts with none, as the server's cascade leaves it. The HTTP glue
(URL validation, statuses) is in ``_routes/webhooks.py``.

An event becomes what the server's ``deliver_webhook`` sends: body
``{"data":...,"timestamp":"...Z","type":...}`` as compact JSON with sorted keys, signed
with the secret (``X-Honcho-Signature``, hex HMAC-SHA256 of the body), one post per
endpoint the workspace has. The posting itself is ``roncho.testing._deliveries.Deliverer``'s
(a thread of its own); without a secret nothing is signed, and the deliverer only journals
that nothing was sent, as the server logs it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from .._common import ApiError, JsonDict, iso, nanoid, utcnow
from .._state import Workspace

# settings.WEBHOOK.MAX_WORKSPACE_LIMIT in 3.0.12.
MAX_WORKSPACE_ENDPOINTS = 10
LIMIT_DETAIL = (
    f"Maximum number of webhook endpoints ({MAX_WORKSPACE_ENDPOINTS}) reached for this workspace."
)
TEST_EVENT = "test.event"
QUEUE_EMPTY = "queue.empty"


class Poster(Protocol):
    """Who posts a signed body (``signature`` None: there is no secret, nothing is sent)."""

    def post(self, url: str, event_type: str, body: bytes, signature: str | None) -> None: ...


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


def event_body(event_type: str, data: JsonDict, now: datetime | None = None) -> bytes:
    """The delivered body: compact JSON, keys sorted, the time to the second with ``Z``."""
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    payload = {"type": event_type, "data": data, "timestamp": stamp}
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8")


def signature(body: bytes, secret: str) -> str:
    return hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


class Webhooks:
    """The endpoints of every workspace, and the events handed to the poster."""

    def __init__(self, secret: str | None, poster: Poster) -> None:
        self.secret = secret
        self.poster = poster
        self._lock = threading.Lock()
        # Keyed by workspace id, with the Workspace object they were made in.
        self._endpoints: dict[str, tuple[Workspace, list[Endpoint]]] = {}

    def _of(self, ws: Workspace | None, workspace_id: str) -> list[Endpoint]:
        held = self._endpoints.get(workspace_id)
        if held is None or ws is None or held[0] is not ws:
            return []
        return held[1]

    def get_or_create(self, ws: Workspace | None, w: str, url: str) -> tuple[Endpoint, bool]:
        """The workspace's endpoint for `url`, made if new (404 for a missing workspace, 409
        past the limit); and whether it was made."""
        if ws is None:
            raise ApiError(404, f"Workspace {w} not found")
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

    def publish(
        self, ws: Workspace | None, workspace_id: str, event_type: str, data: JsonDict
    ) -> None:
        """One signed post per endpoint the workspace has now."""
        urls = [endpoint.url for endpoint in self.endpoints(ws, workspace_id)]
        if not urls:
            return
        body = event_body(event_type, data)
        signed = None if not self.secret else signature(body, self.secret)
        for url in urls:
            self.poster.post(url, event_type, body, signed)

    def test_event(self, ws: Workspace | None, workspace_id: str) -> None:
        self.publish(ws, workspace_id, TEST_EVENT, {"workspace_id": workspace_id})

    def queue_empty(
        self, ws: Workspace, queue_type: str, session_id: str, sender: str | None
    ) -> None:
        """A deriver work unit drained (the deriver calls this under the store lock).

        As 3.0.12 sends it: ``observer`` null and ``observed`` the sender for a
        representation unit; for a summary unit both are the *string* ``"None"`` (the
        server rebuilds them from its work-unit key, where they were written as text).
        """
        observer, observed = (None, sender) if queue_type == "representation" else ("None", "None")
        data = {
            "workspace_id": ws.id,
            "queue_type": queue_type,
            "session_id": session_id,
            "observer": observer,
            "observed": observed,
        }
        self.publish(ws, ws.id, QUEUE_EMPTY, data)
