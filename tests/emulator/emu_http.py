"""Raw HTTP helpers for the emulator tests (plain http.client, every wait bounded)."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlencode

T = TypeVar("T")

# Socket timeout for every test request; the emulator answers in milliseconds.
SOCKET_TIMEOUT = 5.0
# Upper bound for waiting on background work (deriver, purge) in a test.
WAIT = 5.0
_NOTHING: Any = object()


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def detail(self) -> Any:
        return self.json["detail"]


class Api:
    """Sends one request per connection to the emulator on `port`."""

    def __init__(self, port: int, key: str | None = None) -> None:
        self.port = port
        self.key = key

    def with_key(self, key: str | None) -> Api:
        return Api(self.port, key)

    def call(
        self,
        method: str,
        path: str,
        body: Any = _NOTHING,
        *,
        query: dict[str, Any] | None = None,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        sent_headers = {"Accept": "application/json"}
        data: bytes | None = raw
        if body is not _NOTHING:
            data = json.dumps(body).encode()
        if data is not None:
            sent_headers["Content-Type"] = "application/json"
        if self.key is not None:
            sent_headers["Authorization"] = f"Bearer {self.key}"
        sent_headers.update(headers or {})
        if query:
            path = f"{path}?{urlencode(query)}"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=SOCKET_TIMEOUT)
        try:
            conn.request(method, path, body=data, headers=sent_headers)
            response = conn.getresponse()
            payload = response.read()
            return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, payload)
        finally:
            conn.close()

    def get(self, path: str, **kwargs: Any) -> Reply:
        return self.call("GET", path, **kwargs)

    def post(self, path: str, body: Any = _NOTHING, **kwargs: Any) -> Reply:
        return self.call("POST", path, body, **kwargs)

    def put(self, path: str, body: Any = _NOTHING, **kwargs: Any) -> Reply:
        return self.call("PUT", path, body, **kwargs)

    def delete(self, path: str, body: Any = _NOTHING, **kwargs: Any) -> Reply:
        return self.call("DELETE", path, body, **kwargs)

    def add_messages(self, w: str, s: str, *messages: tuple[str, str], **extra: Any) -> Reply:
        items = [{"peer_id": peer, "content": content, **extra} for peer, content in messages]
        return self.post(f"/v3/workspaces/{w}/sessions/{s}/messages", {"messages": items})

    def queue(self, w: str, **query: str) -> dict[str, Any]:
        reply = self.get(f"/v3/workspaces/{w}/queue/status", query=query or None)
        assert reply.status == 200, reply
        result: dict[str, Any] = reply.json
        return result


def wait_for(predicate: Callable[[], T], timeout: float = WAIT, what: str = "condition") -> T:
    """Poll `predicate` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.01)
