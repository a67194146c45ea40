"""Webhooks on each target: every call, and a verified delivery of both event types.

The receiver listens on 127.0.0.1 and is registered as ``http://localhost:PORT/...`` (3.0.12
refuses loopback IP literals). Deliveries need the secret the server signs with:
``RONCHO_LIVE_WEBHOOK_SECRET`` for a real server (the kit prints it); without it the
delivery tests skip there, the calls still run. The emulator targets sign with their own.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from live_data import Target, past_the_gate
from live_recorder import Recorder

import roncho
from roncho.webhooks import QueueEmptyEvent, TestEvent, WebhookEvent, verify

LIVE_SECRET_ENV = "RONCHO_LIVE_WEBHOOK_SECRET"
# The emulator targets' secret (tests/live/conftest.py EMULATOR_OPTIONS).
EMULATOR_SECRET = "roncho-live-emulator-webhook-secret"
# A test event came about 1-5 s after the request on the kit; a queue.empty about 1-5 s
# after a message with the deriver flushing. But the deriver delivers both in turn with its
# other work, oldest first and with one worker on the kit: behind a backlog (a kit restarted
# with hundreds of deletions queued; CI's 2-core machine after the suite's own writes) the
# test event took over 30 s, and once over 150 s. Bounds with room for that; the test event's
# test tells a backlog from a lost delivery with a probe queued after it.
TEST_EVENT_WAIT = 300.0
QUEUE_EMPTY_WAIT = 300.0
LIMIT = 10  # 3.0.12's WEBHOOK_MAX_WORKSPACE_LIMIT


class Receiver:
    """Records every POST (path, signature header, body); answers 204."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, str | None, bytes]] = []
        self._arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            timeout = 10.0

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver._arrived:
                    receiver.posts.append((self.path, self.headers.get("X-Honcho-Signature"), body))
                    receiver._arrived.notify_all()
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, tag: str) -> str:
        return f"http://localhost:{self.server.server_address[1]}/{tag}"

    def wait(self, path: str, match: Callable[[bytes], bool], timeout: float) -> list[bytes]:
        """The bodies posted to ``path`` once one matches, or all of them after ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while True:
                bodies = [b for p, _, b in self.posts if p == path]
                left = deadline - time.monotonic()
                if any(match(b) for b in bodies) or left <= 0:
                    return bodies
                self._arrived.wait(min(left, 0.5))

    def signature_of(self, body: bytes) -> str | None:
        return next(s for _, s, b in self.posts if b == body)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def secret(target: Target) -> str:
    if target.kind == "emulator":
        return EMULATOR_SECRET
    value = os.environ.get(LIVE_SECRET_ENV, "")
    if not value:
        pytest.skip(f"{LIVE_SECRET_ENV} is not set: deliveries cannot be verified")
    return value


@pytest.fixture
def endpoint(
    scratch: roncho.Client, receiver: Receiver, recorder: Recorder
) -> Iterator[tuple[str, roncho.WebhookEndpoint]]:
    """The receiver registered under a path of its own; deleted afterwards."""
    tag = f"hook-{secrets.token_hex(4)}"
    url = receiver.url(tag)
    recorder.name(url, "{webhook_url}")
    made = scratch.get_or_create_webhook(url)
    recorder.name(made.id, "{webhook_id}")
    yield "/" + tag, made
    scratch.delete_webhook(made.id)


def _events(receiver: Receiver, path: str, bodies: list[bytes], secret: str) -> list[WebhookEvent]:
    return [verify(b, receiver.signature_of(b), secret) for b in bodies]


def test_webhook_get_or_create_list_delete(
    scratch: roncho.Client, receiver: Receiver, recorder: Recorder
) -> None:
    url = receiver.url(f"crud-{secrets.token_hex(4)}")
    recorder.name(url, "{webhook_url}")
    made = scratch.get_or_create_webhook(url)
    recorder.name(made.id, "{webhook_id}")
    assert recorder.last("get_or_create_webhook").status == 201
    assert made.created is True and made.url == url and made.workspace_id == scratch.workspace
    again = scratch.get_or_create_webhook(url)
    assert recorder.last("get_or_create_webhook").status == 200
    assert again.created is False and again.id == made.id
    listed = scratch.list_webhooks(size=LIMIT)
    assert made.id in [e.id for e in listed.items] and listed.page == 1
    assert all(e.created is None for e in listed.items)
    scratch.delete_webhook(made.id)
    assert recorder.last("delete_webhook").status == 204
    with pytest.raises(roncho.StatusError) as info:
        scratch.delete_webhook(made.id)
    assert info.value.status == 404
    assert made.id not in [e.id for e in scratch.list_webhooks(size=LIMIT).items]


def test_webhook_loopback_ip_literal_is_refused_and_explained(
    scratch: roncho.Client, recorder: Recorder
) -> None:
    with pytest.raises(roncho.StatusError) as info:
        scratch.get_or_create_webhook("http://127.0.0.1:9/hook")
    assert info.value.status == 422
    assert "Private/internal IP addresses are not allowed" in str(info.value)
    assert "http://localhost:PORT/" in str(info.value)
    recorder.note("webhook_loopback_literal_refused", info.value.status)


def test_webhook_limit_is_webhook_limit_error(
    scratch: roncho.Client, receiver: Receiver, recorder: Recorder
) -> None:
    made = []
    try:
        have = scratch.list_webhooks(size=LIMIT).total
        for i in range(LIMIT - have):
            made.append(scratch.get_or_create_webhook(receiver.url(f"limit-{i}")).id)
        with pytest.raises(roncho.WebhookLimitError) as info:
            scratch.get_or_create_webhook(receiver.url("limit-over"))
        assert info.value.status == 409 and f"({LIMIT})" in str(info.value.detail)
        recorder.note("webhook_limit", LIMIT)
    finally:
        for endpoint_id in made:
            scratch.delete_webhook(endpoint_id)


@pytest.mark.timeout(TEST_EVENT_WAIT + 60)
def test_webhook_test_event_is_delivered_signed(
    scratch: roncho.Client,
    receiver: Receiver,
    endpoint: tuple[str, roncho.WebhookEndpoint],
    secret: str,
    recorder: Recorder,
) -> None:
    path, _ = endpoint
    started = time.monotonic()
    scratch.trigger_webhook_test()
    assert recorder.last("trigger_webhook_test").status == 200
    # A probe queued after the test event: the deriver takes work oldest first, and delivers a
    # workspace's webhook events one after another in the order they were queued, so the
    # probe's queue.empty cannot come before the test event. Its arrival alone means the test
    # event was lost; neither arriving means the deriver is behind.
    probe = f"webhook-probe-{secrets.token_hex(4)}"
    recorder.name(probe, "{webhook_probe_session}")
    scratch.add_messages(probe, [roncho.MessageCreate("webhook-user", "A probe.")])
    bodies = receiver.wait(
        path, lambda b: b"test.event" in b or probe.encode() in b, TEST_EVENT_WAIT
    )
    events = _events(receiver, path, bodies, secret)
    tests = [e for e in events if isinstance(e, TestEvent)]
    probed = any(isinstance(e, QueueEmptyEvent) and e.session_id == probe for e in events)
    assert tests or not probed, (
        "the test.event was lost: the queue.empty of a message sent after it arrived, it did not"
    )
    assert tests, (
        f"neither the test.event nor a later probe's queue.empty within {TEST_EVENT_WAIT}s: "
        f"the deriver is behind (this workspace: {scratch.queue_status()})"
    )
    assert tests[0].workspace_id == scratch.workspace
    recorder.note("webhook_test_event_seconds", round(time.monotonic() - started, 1))


@pytest.mark.timeout(QUEUE_EMPTY_WAIT + 60)
def test_webhook_queue_empty_after_a_message(
    scratch: roncho.Client,
    receiver: Receiver,
    endpoint: tuple[str, roncho.WebhookEndpoint],
    secret: str,
    recorder: Recorder,
) -> None:
    path, _ = endpoint
    session = f"webhook-{secrets.token_hex(4)}"
    recorder.name(session, "{webhook_session}")
    started = time.monotonic()
    # Past Honcho's default token gate: a batching server releases it at once, as a
    # flushing one does (a shorter message waits up to 30 minutes for the age gate there).
    turn = past_the_gate("I moved to Oslo.")
    scratch.add_messages(session, [roncho.MessageCreate("webhook-user", turn)])
    bodies = receiver.wait(path, lambda b: session.encode() in b, QUEUE_EMPTY_WAIT)
    events = [
        e
        for e in _events(receiver, path, bodies, secret)
        if isinstance(e, QueueEmptyEvent) and e.session_id == session
    ]
    assert events, f"no queue.empty for the session within {QUEUE_EMPTY_WAIT}s"
    event = events[0]
    assert (event.queue_type, event.observer, event.observed) == (
        "representation",
        None,
        "webhook-user",
    )
    assert event.workspace_id == scratch.workspace
    assert b"Oslo" not in b"".join(bodies)  # ids only, never the text
    status = scratch.queue_status(session_id=session)
    assert status.pending_work_units == 0 and status.in_progress_work_units == 0
    recorder.note("webhook_queue_empty_seconds", round(time.monotonic() - started, 1))
