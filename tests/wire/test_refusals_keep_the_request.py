"""A refusal that an operation explains in its own words (a 413 upload, a 409 webhook
limit, a 404 from a server without a route, ...) stays the server's answer: the error
keeps its class, status, method, path, the body as the server sent it and ``request_sent``,
and its text is the server's answer followed by what it means, word for word.

One case per status each operation rewrites (``on_status`` in ``roncho/_operations/``),
each answered once by a raw-socket server on loopback.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from rawserver import RawServer, reply
from test_webhook_calls import PRIVATE as PRIVATE_IP

import roncho
from roncho import StatusError, WebhookLimitError, WorkspaceBusyError

WS = "w1"
W = f"/v3/workspaces/{WS}"
READ_TIMEOUT = 5.0  # seconds; every answer here is immediate

PRIVATE_IP_SHORT = json.dumps(PRIVATE_IP["detail"])[:200]


def _upload(c: roncho.Client) -> Any:
    return c.upload_file("s1", "alice", b"hello", "a.txt", "text/plain")


@dataclass(frozen=True)
class Refusal:
    name: str
    call: Callable[[roncho.Client], Any]
    status: int
    answer: dict[str, Any]
    error: type[StatusError]
    method: str
    path: str
    text: str  # the whole str() of the error


UPLOAD = f"{W}/sessions/s1/messages/upload"
REFUSALS = [
    Refusal(
        "upload too large",
        _upload,
        413,
        {"detail": "File too large"},
        StatusError,
        "POST",
        UPLOAD,
        f"POST {UPLOAD} answered 413: File too large; the file is over the server's size cap "
        "(lower max_bytes to match it)",
    ),
    Refusal(
        "upload of a type the server cannot read",
        _upload,
        415,
        {"detail": "Unsupported file type: image/png"},
        StatusError,
        "POST",
        UPLOAD,
        f"POST {UPLOAD} answered 415: Unsupported file type: image/png; the server cannot "
        "read this content type (3.0.12 reads text/*, application/json and application/pdf)",
    ),
    Refusal(
        "webhook limit",
        lambda c: c.get_or_create_webhook("http://example.com/h"),
        409,
        {"detail": "Maximum number of webhook endpoints (10) reached for this workspace."},
        WebhookLimitError,
        "POST",
        f"{W}/webhooks",
        f"POST {W}/webhooks answered 409: Maximum number of webhook endpoints (10) reached "
        "for this workspace.",
    ),
    Refusal(
        "webhook URL on a private address",
        lambda c: c.get_or_create_webhook("http://127.0.0.1:9/h"),
        422,
        PRIVATE_IP,
        StatusError,
        "POST",
        f"{W}/webhooks",
        f"POST {W}/webhooks answered 422: {PRIVATE_IP_SHORT}. The server refuses a webhook "
        "URL whose host is an IP literal of a private, loopback, link-local, reserved, "
        "multicast or unspecified address; give a host name instead (for a receiver on the "
        "server's own machine, http://localhost:PORT/...)",
    ),
    Refusal(
        "workspace chat on a server without it (404)",
        lambda c: c.chat_workspace("q"),
        404,
        {"detail": "Not Found"},
        StatusError,
        "POST",
        f"{W}/chat",
        f"POST {W}/chat answered 404: this server has no workspace chat (added after "
        "Honcho 3.0.12)",
    ),
    Refusal(
        "workspace chat stream on a server without it (405)",
        lambda c: c.chat_workspace_stream("q"),
        405,
        {"detail": "Method Not Allowed"},
        StatusError,
        "POST",
        f"{W}/chat",
        f"POST {W}/chat answered 405: this server has no workspace chat (added after "
        "Honcho 3.0.12)",
    ),
    Refusal(
        "get_conclusion on a server without it",
        lambda c: c.get_conclusion("c1"),
        405,
        {"detail": "Method Not Allowed"},
        StatusError,
        "GET",
        f"{W}/conclusions/c1",
        f"GET {W}/conclusions/c1 answered 405: GET conclusions/{{id}} was added in Honcho "
        "3.2.0; this server does not have it (Honcho 3.0.12 answers 405 there)",
    ),
    Refusal(
        "clone up to a message of another session",
        lambda c: c.clone_session("s1", message_id="m1"),
        404,
        {"detail": "Session not found"},
        StatusError,
        "POST",
        f"{W}/sessions/s1/clone",
        f"POST {W}/sessions/s1/clone answered 404: Session not found; the session may "
        "exist: Honcho 3.0.12 says this when message_id is not a message of this session "
        "(it may belong to another session)",
    ),
    Refusal(
        "workspace delete with active sessions",
        lambda c: c.delete_workspace(),
        409,
        {"detail": "Cannot delete workspace with active sessions"},
        WorkspaceBusyError,
        "DELETE",
        W,
        f"DELETE {W} answered 409: Cannot delete workspace with active sessions",
    ),
]


@pytest.mark.parametrize("case", REFUSALS, ids=[r.name for r in REFUSALS])
def test_an_explained_refusal_keeps_the_servers_answer(case: Refusal) -> None:
    body = json.dumps(case.answer).encode()
    with RawServer([reply(case.status, raw_body=body)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(StatusError) as info:
            case.call(client)
    error = info.value
    assert type(error) is case.error
    assert (error.status, error.method, error.path) == (case.status, case.method, case.path)
    assert error.body == body
    assert error.detail == case.answer["detail"]
    assert error.request_sent is True
    assert str(error) == case.text
    assert server.connections == 1
