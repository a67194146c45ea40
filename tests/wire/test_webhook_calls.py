"""The webhook operations on the wire: what each refusal of the server becomes (the 3.0.12
texts, recorded on the kit), and the URL checks that send nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rawserver import RawServer, reply

import roncho

WS = "w1"
READ_TIMEOUT = 5.0  # seconds; every answer here is immediate
LIMIT = "Maximum number of webhook endpoints (10) reached for this workspace."
PRIVATE = {
    "detail": [
        {
            "type": "value_error",
            "loc": ["body", "url"],
            "msg": "Value error, Private/internal IP addresses are not allowed",
            "input": "http://127.0.0.1:9/h",
            "ctx": {"error": {}},
        }
    ]
}
SCHEME = {
    "detail": [
        {
            "type": "value_error",
            "loc": ["body", "url"],
            "msg": "Value error, Only HTTP and HTTPS URLs are allowed",
            "input": "gopher://x/",
            "ctx": {"error": {}},
        }
    ]
}


def client_of(server: RawServer) -> roncho.Client:
    return roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)


def refusal(status: int, body: object, call: Callable[[roncho.Client], object]) -> Any:
    """The error ``call`` raises when the server answers ``status`` with ``body``."""
    with RawServer([reply(status, body)]) as server:
        client = client_of(server)
        with pytest.raises(roncho.StatusError) as info:
            call(client)
    assert server.connections == 1
    return info.value


def test_webhook_limit_409_is_its_own_error() -> None:
    error = refusal(409, {"detail": LIMIT}, lambda c: c.get_or_create_webhook("http://x/h"))
    assert isinstance(error, roncho.WebhookLimitError)
    assert error.status == 409 and error.detail == LIMIT and error.request_sent
    assert not isinstance(error, roncho.WorkspaceBusyError)
    assert "(10)" in str(error)


def test_workspace_delete_409_stays_workspace_busy_not_webhook_limit() -> None:
    error = refusal(409, {"detail": "active session(s) remain"}, lambda c: c.delete_workspace())
    assert isinstance(error, roncho.WorkspaceBusyError)
    assert not isinstance(error, roncho.WebhookLimitError)


def test_private_ip_422_explains_what_to_give_instead() -> None:
    with RawServer([reply(422, PRIVATE)]) as server, pytest.raises(roncho.StatusError) as info:
        # Another server might accept a private address: the client leaves it to it.
        client_of(server).get_or_create_webhook("http://127.0.0.1:9/h")
    error = info.value
    assert error.status == 422 and error.detail == PRIVATE["detail"]
    assert "Private/internal IP addresses are not allowed" in str(error)
    assert "host name" in str(error) and "http://localhost:PORT/" in str(error)
    assert server.connections == 1


def test_other_422_is_left_as_the_server_said_it() -> None:
    with RawServer([reply(422, SCHEME)]) as server, pytest.raises(roncho.StatusError) as info:
        client_of(server).get_or_create_webhook("https://example.invalid/h")
    assert "host name" not in str(info.value)
    assert "Only HTTP and HTTPS URLs are allowed" in str(info.value)


def test_webhook_401_stays_unauthorized() -> None:
    body = {"detail": "JWT not permissioned for this resource"}
    error = refusal(401, body, lambda c: c.get_or_create_webhook("http://localhost:9/h"))
    assert isinstance(error, roncho.UnauthorizedError)


def test_delete_unknown_webhook_404_is_status_error() -> None:
    detail = f"Webhook endpoint nope not found for workspace {WS}"
    error = refusal(404, {"detail": detail}, lambda c: c.delete_webhook("nope"))
    assert error.status == 404 and error.detail == detail


def test_get_or_create_webhook_200_is_not_created() -> None:
    body = {"id": "e1", "workspace_id": WS, "url": "http://localhost:9/h", "created_at": "x"}
    with RawServer([reply(200, body)]) as server:
        endpoint = client_of(server).get_or_create_webhook("http://localhost:9/h")
    assert endpoint.created is False and endpoint.id == "e1"


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("localhost:9/h", "must start with http:// or https://"),
        ("ftp://example.com/h", "must start with http:// or https://"),
        ("http:///h", "has no host"),
        ("https://", "has no host"),
        ("http://user:pw@/h", "has no host"),
        ("http://[::1/h", "is not a valid URL"),
    ],
)
def test_webhook_url_refused_before_sending(url: str, why: str) -> None:
    with RawServer([]) as server, pytest.raises(roncho.ConfigError) as info:
        client_of(server).get_or_create_webhook(url)
    assert str(info.value) == f"the webhook url {why}"
    assert "pw" not in str(info.value)  # a URL is never echoed: it may hold credentials
    assert info.value.request_sent is False
    assert server.connections == 0


def test_webhook_url_must_be_a_string() -> None:
    with pytest.raises(roncho.ConfigError, match=r"^the webhook url must be a string, not bytes$"):
        roncho.Client("http://127.0.0.1:9", WS).get_or_create_webhook(b"http://x/")  # type: ignore[arg-type]
