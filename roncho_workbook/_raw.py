"""Raw HTTP for the calls roncho.Client deliberately lacks (DELETE of a message, a chat with
refused filters, routes of newer servers), and for seeing exact statuses, headers and bodies.

Built on the standard library's http.client against the same base URL, one connection per
call, bounded by a timeout. It writes only inside the one workspace it is bound to (the
scratch workspace the run created): any other path may only be read with GET.
"""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from roncho import Client

# How much of a body the evidence keeps (the client keeps 4 KiB of error bodies too).
BODY_EXCERPT = 4096
# How much of a body is read at all: enough for a whole /openapi.json (about 100 KB on
# 3.0.12), so a served document is parsed rather than cut short and taken as "not served".
MAX_BODY = 4 * 1024 * 1024
_READ_METHODS = frozenset({"GET", "HEAD"})
# POST routes outside a workspace that only read (Honcho lists with POST).
_READ_POSTS = frozenset({"/v3/workspaces/list"})


@dataclass(frozen=True, slots=True, kw_only=True)
class RawReply:
    """One answer as it came: status, headers (lower-cased names) and body bytes."""

    method: str
    path: str
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    truncated: bool = False

    @property
    def json(self) -> Any:
        """The body parsed as JSON, or None when it is empty or not JSON."""
        try:
            return json.loads(self.body) if self.body.strip() else None
        except ValueError:
            return None

    @property
    def detail(self) -> Any:
        data = self.json
        return data.get("detail") if isinstance(data, dict) else None

    def text(self, limit: int = 300) -> str:
        """The body as text, cut to ``limit`` characters (for evidence tables)."""
        text = self.body[:BODY_EXCERPT].decode("utf-8", "replace")
        return text if len(text) <= limit else text[: limit - 1] + "…"


def said(reply: RawReply | None, *, quoted: bool = False) -> str:
    """A reply in words for tables and answers: ``405 Method Not Allowed``, ``200``, or
    ``no answer``; ``quoted`` puts the server's words in double quotes. Never a Python repr.
    """
    if reply is None:
        return "no answer"
    detail = reply.detail
    if detail is None or detail == "":
        return str(reply.status)
    text = detail if isinstance(detail, str) else json.dumps(detail)
    return f"{reply.status} {json.dumps(text) if quoted else text}"


def status_word(reply: RawReply | None) -> str:
    """The status alone, or ``no answer``."""
    return "no answer" if reply is None else str(reply.status)


class RawClient:
    """Sends one plain HTTP request per call; may write only under ``/v3/workspaces/<ws>``.

    Args:
        base_url: the same base URL the roncho.Client uses.
        workspace: the scratch workspace this client may write to.
        api_key: sent as a Bearer token when given (never recorded).
        timeout: seconds for connect and for each read.
    """

    def __init__(
        self, base_url: str, workspace: str, *, api_key: str | None = None, timeout: float = 30.0
    ) -> None:
        # It takes exactly what roncho.Client takes, checked by roncho.Client (a ConfigError
        # naming the parameter): building one sends nothing and opens no connection.
        with Client(base_url, workspace) as checked:
            endpoint = urlsplit(checked.base_url)
            self.workspace = checked.workspace
        self._scheme = endpoint.scheme
        self._host = endpoint.hostname or ""
        self._port = endpoint.port or (443 if endpoint.scheme == "https" else 80)
        self._prefix = endpoint.path
        self._key = api_key
        self._timeout = timeout

    def __repr__(self) -> str:
        key = "set" if self._key else "none"
        return f"<RawClient {self._host}:{self._port} workspace={self.workspace!r} key={key}>"

    def ws_path(self, *segments: str) -> str:
        """``/v3/workspaces/<ws>/<segments...>`` with each segment percent-encoded."""
        parts = ["v3", "workspaces", self.workspace, *segments]
        return "/" + "/".join(quote(p, safe="") for p in parts)

    def request(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        query: dict[str, str] | None = None,
        api_key: str | bool | None = True,
    ) -> RawReply:
        """Send ``method path`` with an optional JSON body and return the answer.

        ``api_key=True`` uses the client's key, ``None``/``False`` sends none, a string
        sends that key instead (to probe a scoped or a wrong key).

        Raises:
            PermissionError: a write outside this client's workspace (refused unsent).
            OSError: the connection failed or timed out.
        """
        method = method.upper()
        own = self.ws_path()
        inside = path == own or path.startswith(own + "/") or path.startswith(own + "?")
        readonly = method in _READ_METHODS or (method == "POST" and path in _READ_POSTS)
        if not readonly and not inside and path != "/v3/keys":
            raise PermissionError(f"refusing {method} {path}: outside the scratch workspace")
        target = self._prefix + path
        if query:
            target += "?" + "&".join(f"{k}={quote(v, safe='')}" for k, v in query.items())
        headers = {"Accept": "application/json", "Connection": "close"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        key = self._key if api_key is True else (api_key or None)
        if isinstance(key, str):
            headers["Authorization"] = f"Bearer {key}"
        conn: http.client.HTTPConnection
        if self._scheme == "https":
            conn = http.client.HTTPSConnection(self._host, self._port, timeout=self._timeout)
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
        try:
            conn.request(method, target, body=payload, headers=headers)
            response = conn.getresponse()
            data = response.read(MAX_BODY + 1)
            return RawReply(
                method=method,
                path=path,
                status=response.status,
                headers={k.lower(): v for k, v in response.getheaders()},
                body=data[:MAX_BODY],
                truncated=len(data) > MAX_BODY,
            )
        finally:
            conn.close()
