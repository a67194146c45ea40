"""The emulator's webhooks against what Honcho 3.0.12 did on the kit: the routes' statuses and
texts, and deliveries (body layout, signature, once per work unit, never a retry, loopback
only). A receiver here is an http.server on 127.0.0.1, registered as ``localhost``."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from emu_http import WAIT, Api, wait_for
from rawserver import RefusingPort

import roncho
from roncho.testing import FakeHoncho, _cli, _deliveries
from roncho.webhooks import QueueEmptyEvent, verify

SECRET = "emulator-webhook-secret"
W = "/v3/workspaces/w1"
PRIVATE = "Value error, Private/internal IP addresses are not allowed"


class Receiver:
    """Records each POST; answers ``status``."""

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.posts: list[tuple[str, dict[str, str], bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.posts.append((self.path, dict(self.headers.items()), body))
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "/hook") -> str:
        return f"http://localhost:{self.server.server_address[1]}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho(webhook_secret=SECRET, flush=True) as f:
        yield f


@pytest.fixture
def web(fake: FakeHoncho) -> Api:
    api = Api(fake.port)
    assert api.post("/v3/workspaces", {"id": "w1"}).status == 201
    return api


# -- routes -------------------------------------------------------------------------------
def test_get_or_create_201_then_200_same_endpoint(web: Api) -> None:
    made = web.post(W + "/webhooks", {"url": "http://localhost:9/a"})
    again = web.post(W + "/webhooks", {"url": "http://localhost:9/a"})
    assert (made.status, again.status) == (201, 200)
    assert made.json == again.json
    assert set(made.json) == {"id", "workspace_id", "url", "created_at"}
    assert made.json["workspace_id"] == "w1" and len(made.json["id"]) == 21


def test_missing_workspace_is_404(web: Api) -> None:
    reply = web.post("/v3/workspaces/nope/webhooks", {"url": "http://localhost:9/a"})
    assert (reply.status, reply.detail) == (404, "Workspace nope not found")


@pytest.mark.parametrize(
    ("url", "msg"),
    [
        ("http://127.0.0.1:9/h", PRIVATE),
        ("http://[::1]:9/h", PRIVATE),
        ("http://10.0.0.1/h", PRIVATE),
        ("http://169.254.1.1/h", PRIVATE),
        ("http://0.0.0.0/h", PRIVATE),
        ("http://224.0.0.1/h", PRIVATE),
        ("ftp://example.com/h", "Value error, Only HTTP and HTTPS URLs are allowed"),
        ("localhost:9", "Value error, Invalid URL format"),
        ("https://", "Value error, Invalid URL format"),
    ],
)
def test_url_refused_with_the_servers_422(web: Api, url: str, msg: str) -> None:
    reply = web.post(W + "/webhooks", {"url": url})
    assert reply.status == 422
    assert reply.detail == [
        {
            "type": "value_error",
            "loc": ["body", "url"],
            "msg": msg,
            "input": url,
            "ctx": {"error": {}},
        }
    ]


@pytest.mark.parametrize(
    "url", ["http://localhost:9/h", "https://example.com/h", "http://8.8.8.8/"]
)
def test_host_names_and_public_literals_pass(web: Api, url: str) -> None:
    assert web.post(W + "/webhooks", {"url": url}).status == 201


def test_body_without_url_is_422_field_required(web: Api) -> None:
    reply = web.post(W + "/webhooks", {})
    assert reply.status == 422 and reply.detail[0]["type"] == "missing"
    assert reply.detail[0]["loc"] == ["body", "url"]


def test_limit_of_ten_then_409_but_a_known_url_still_200(web: Api) -> None:
    for i in range(10):
        assert web.post(W + "/webhooks", {"url": f"http://localhost:9/{i}"}).status == 201
    over = web.post(W + "/webhooks", {"url": "http://localhost:9/x"})
    assert (over.status, over.detail) == (
        409,
        "Maximum number of webhook endpoints (10) reached for this workspace.",
    )
    assert web.post(W + "/webhooks", {"url": "http://localhost:9/3"}).status == 200


def test_list_is_a_page_and_delete_is_204_then_404(web: Api) -> None:
    ids = [
        web.post(W + "/webhooks", {"url": f"http://localhost:9/{i}"}).json["id"] for i in range(3)
    ]
    page = web.get(W + "/webhooks", query={"page": 2, "size": 2})
    assert page.status == 200
    assert {k: page.json[k] for k in ("total", "page", "size", "pages")} == {
        "total": 3,
        "page": 2,
        "size": 2,
        "pages": 2,
    }
    assert [e["id"] for e in page.json["items"]] == ids[2:]
    gone = web.delete(W + f"/webhooks/{ids[0]}")
    assert (gone.status, gone.body) == (204, b"")
    again = web.delete(W + f"/webhooks/{ids[0]}")
    assert (again.status, again.detail) == (
        404,
        f"Webhook endpoint {ids[0]} not found for workspace w1",
    )
    assert web.get("/v3/workspaces/nope/webhooks").json["total"] == 0


def test_test_route_answers_200_null_even_without_endpoints(web: Api) -> None:
    reply = web.get(W + "/webhooks/test")
    assert (reply.status, reply.body) == (200, b"null")
    assert web.get("/v3/workspaces/nope/webhooks/test").status == 200


def test_a_workspace_made_again_has_no_endpoints(fake: FakeHoncho, web: Api) -> None:
    web.post(W + "/webhooks", {"url": "http://localhost:9/a"})
    assert web.delete(W).status == 202
    wait_for(lambda: web.post("/v3/workspaces", {"id": "w1"}).status == 201, what="purge")
    assert web.get(W + "/webhooks").json["total"] == 0


def test_auth_a_key_for_another_workspace_is_401() -> None:
    with FakeHoncho(auth=True, webhook_secret=SECRET) as fake:
        admin = Api(fake.port, fake.admin_key)
        admin.post("/v3/workspaces", {"id": "w1"})
        other = Api(fake.port, fake.issue_key(workspace="w2"))
        own = Api(fake.port, fake.issue_key(workspace="w1"))
        peer = Api(fake.port, fake.issue_key(workspace="w1", peer="p"))
        body = {"url": "http://localhost:9/a"}
        assert other.post(W + "/webhooks", body).status == 401
        assert other.get(W + "/webhooks/test").status == 401
        assert peer.get(W + "/webhooks").status == 401
        assert own.post(W + "/webhooks", body).status == 201
        assert Api(fake.port).get(W + "/webhooks").status == 401


# -- deliveries ---------------------------------------------------------------------------
def _events(receiver: Receiver, count: int) -> list[Any]:
    wait_for(lambda: len(receiver.posts) >= count, what=f"{count} deliveries")
    return [
        verify(body, headers.get("X-Honcho-Signature"), SECRET)
        for _, headers, body in receiver.posts
    ]


def test_test_event_is_delivered_signed_in_the_servers_layout(
    fake: FakeHoncho, web: Api, receiver: Receiver
) -> None:
    web.post(W + "/webhooks", {"url": receiver.url()})
    web.get(W + "/webhooks/test")
    [event] = _events(receiver, 1)
    path, headers, body = receiver.posts[0]
    assert path == "/hook" and headers["Content-Type"] == "application/json"
    assert event.type == "test.event" and event.workspace_id == "w1"
    parsed = json.loads(body)
    assert body == json.dumps(parsed, separators=(",", ":"), sort_keys=True).encode()
    assert list(parsed) == ["data", "timestamp", "type"] and parsed["timestamp"].endswith("Z")
    assert len(parsed["timestamp"]) == len("2026-12-01T19:39:14Z")
    # The journal entry follows the receiver's answer: wait for it too.
    [delivery] = fake.wait_for_webhooks(1, timeout=WAIT)
    assert fake.webhook_deliveries() == [delivery]
    assert (delivery.sent, delivery.status, delivery.error) == (True, 200, None)


def test_queue_empty_once_per_sender_of_a_session(web: Api, receiver: Receiver) -> None:
    web.post(W + "/webhooks", {"url": receiver.url()})
    web.add_messages("w1", "s1", ("alice", "one."), ("bob", "two."), ("alice", "three."))
    events = _events(receiver, 2)
    assert all(isinstance(e, QueueEmptyEvent) for e in events)
    assert sorted((e.queue_type, e.session_id, e.observer, e.observed) for e in events) == [
        ("representation", "s1", None, "alice"),
        ("representation", "s1", None, "bob"),
    ]
    conclusions = web.post(W + "/conclusions/list", {"filters": {"session_id": "s1"}})
    assert conclusions.json["total"] == 3  # written before the event went out


def test_summary_queue_empty_carries_the_string_none(web: Api, receiver: Receiver) -> None:
    web.post(W + "/webhooks", {"url": receiver.url()})
    web.add_messages("w1", "s1", *[("alice", f"message {i}.") for i in range(20)])
    events = _events(receiver, 2)
    summary = [e for e in events if e.queue_type == "summary"]
    assert [(e.observer, e.observed, e.session_id) for e in summary] == [("None", "None", "s1")]


def test_no_secret_nothing_is_sent(receiver: Receiver) -> None:
    with FakeHoncho(flush=True) as fake:
        api = Api(fake.port)
        api.post("/v3/workspaces", {"id": "w1"})
        api.post(W + "/webhooks", {"url": receiver.url()})
        api.get(W + "/webhooks/test")
        [delivery] = fake.wait_for_webhooks(1, timeout=WAIT)
    assert not delivery.sent and "no webhook secret" in (delivery.error or "")
    assert receiver.posts == []


def test_a_500_is_not_retried_and_a_down_receiver_is_one_failed_attempt(
    fake: FakeHoncho, web: Api
) -> None:
    failing = Receiver(500)
    # Bound but not listening, and held: a port merely closed may be taken by another
    # test's server on a busy machine, which then resets instead of refusing.
    with RefusingPort() as down:
        down_url = f"http://localhost:{down.port}/down"
        try:
            web.post(W + "/webhooks", {"url": failing.url()})
            web.post(W + "/webhooks", {"url": down_url})
            web.get(W + "/webhooks/test")
            journal = fake.wait_for_webhooks(2, timeout=WAIT)
            # A retry would come within this time if there were one.
            assert fake.wait_for_webhooks(3, timeout=0.5) == journal
            by_url = {d.url: d for d in journal}
            assert by_url[failing.url()].status == 500 and len(failing.posts) == 1
            assert by_url[down_url].sent and by_url[down_url].status is None
            assert "ConnectionRefused" in (by_url[down_url].error or "")
        finally:
            failing.close()


def test_only_loopback_unless_allow_remote(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host name that resolves elsewhere is not posted to (resolution faked: no traffic)."""

    real = _deliveries.socket.getaddrinfo

    def resolve(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        if host == "hooks.example":
            return [(2, 1, 6, "", ("203.0.113.7", port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(_deliveries.socket, "getaddrinfo", resolve)
    assert _deliveries._not_loopback("http://hooks.example/h") is not None
    with FakeHoncho(webhook_secret=SECRET) as fake:
        api = Api(fake.port)
        api.post("/v3/workspaces", {"id": "w1"})
        api.post(W + "/webhooks", {"url": "http://hooks.example/h"})
        api.get(W + "/webhooks/test")
        [delivery] = fake.wait_for_webhooks(1, timeout=WAIT)
    assert not delivery.sent and "203.0.113.7" in (delivery.error or "")
    assert "allow_remote is off" in (delivery.error or "")


def test_server_mode_flags() -> None:
    args = _cli.build_parser().parse_args(["--webhook-secret", "s", "--allow-remote"])
    options = _cli._options(args)
    assert options["webhook_secret"] == "s" and options["allow_remote"] is True
    defaults = _cli._options(_cli.build_parser().parse_args([]))
    assert defaults["webhook_secret"] is None and defaults["allow_remote"] is False


def test_empty_secret_option_is_refused() -> None:
    with pytest.raises(ValueError, match="webhook_secret"):
        FakeHoncho(webhook_secret="")


def test_the_client_against_the_emulator(fake: FakeHoncho, receiver: Receiver) -> None:
    client = roncho.Client(fake.url, "w1")
    client.get_or_create_workspace()
    endpoint = client.get_or_create_webhook(receiver.url())
    assert endpoint.created is True
    assert client.get_or_create_webhook(receiver.url()).created is False
    assert [e.id for e in client.list_webhooks().items] == [endpoint.id]
    client.trigger_webhook_test()
    assert _events(receiver, 1)[0].type == "test.event"
    client.delete_webhook(endpoint.id)
    assert client.list_webhooks().total == 0
    with pytest.raises(roncho.StatusError, match="host name"):
        client.get_or_create_webhook("http://127.0.0.1:9/h")


def test_the_secret_is_in_no_repr_and_not_in_the_info_route() -> None:
    with FakeHoncho(webhook_secret=SECRET) as fake:
        fake.control_enabled = True
        info = Api(fake.port).get("/_fake/info")
        assert info.status == 200 and info.json["options"]["webhook_secret"] is True
        assert SECRET not in info.body.decode()
        assert SECRET not in repr(fake) and SECRET not in repr(fake.options)
