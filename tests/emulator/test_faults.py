"""The one-shot fault switches (slow, fail, stalled stream, body cut short), and the real
server's failures by name (`FaultRule(failure=...)`)."""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator

import pytest
from emu_http import Api, wait_for

import roncho
from roncho.testing import FakeHoncho

W = "/v3/workspaces"


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho() as emulator:
        yield emulator


def test_slow_next_delays_one_response(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    fake.faults.slow_next(0.2)
    started = time.monotonic()
    assert api.get("/health").status == 200
    assert time.monotonic() - started >= 0.2
    assert api.get("/health").status == 200
    # The second request met the rule and it did not apply: one response was slowed. (Not
    # a timed bound on the second answer: on a loaded machine that is a flake, and how fast
    # the emulator answers is a benchmark's question.)
    assert [(state.matched, state.applied) for state in fake.faults.rules()] == [(2, 1)]


def test_fail_next_answers_500_without_handling(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    fake.faults.fail_next()
    failed = api.post(W, {"id": "w"})
    assert (failed.status, failed.json) == (500, {"detail": "An unexpected error occurred"})
    assert api.post(W, {"id": "w"}).status == 201  # the first attempt changed nothing
    fake.faults.fail_next(status=503)
    assert api.get("/health").status == 503
    assert api.get("/health").status == 200


def test_close_mid_body_next_cuts_the_body(fake: FakeHoncho) -> None:
    fake.faults.close_mid_body_next()
    conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=5)
    try:
        conn.request("POST", W, body=json.dumps({"id": "w"}))
        response = conn.getresponse()
        with pytest.raises(http.client.IncompleteRead):
            response.read()
    finally:
        conn.close()
    assert Api(fake.port).post(W, {"id": "w"}).status == 200


def test_close_mid_body_on_a_stream_omits_the_last_chunk(fake: FakeHoncho) -> None:
    fake.faults.close_mid_body_next()
    conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=5)
    try:
        conn.request("POST", f"{W}/w/peers/p/chat", body=json.dumps({"query": "q", "stream": True}))
        response = conn.getresponse()
        assert response.status == 200
        with pytest.raises(http.client.IncompleteRead):
            response.read()
    finally:
        conn.close()


def test_stall_stream_next_pauses_after_the_first_chunk(fake: FakeHoncho) -> None:
    fake.faults.stall_stream_next(0.3)
    with socket.create_connection(("127.0.0.1", fake.port), timeout=5) as sock:
        body = json.dumps({"query": "a question with many words", "stream": True}).encode()
        sock.sendall(
            b"POST /v3/workspaces/w/peers/p/chat HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        )
        received = b""
        while b"data: " not in received:
            received += sock.recv(65536)
        first_at = time.monotonic()
        sock.settimeout(0.15)
        with pytest.raises(TimeoutError):
            while True:
                chunk = sock.recv(65536)
                assert chunk, "closed early"
                received += chunk
                assert b'"done": true' not in received
        sock.settimeout(5)
        while not received.endswith(b"0\r\n\r\n"):
            chunk = sock.recv(65536)
            assert chunk
            received += chunk
        assert time.monotonic() - first_at >= 0.3 - 0.05
    assert b'"done": true' in received


def test_stalled_stream_does_not_block_close() -> None:
    fake = FakeHoncho()
    fake.faults.stall_stream_next(30)
    sock = socket.create_connection(("127.0.0.1", fake.port), timeout=5)
    try:
        body = json.dumps({"query": "q", "stream": True}).encode()
        sock.sendall(
            b"POST /v3/workspaces/w/peers/p/chat HTTP/1.1\r\nHost: x\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        )
        received = b""
        while b"data: " not in received:
            chunk = sock.recv(65536)
            assert chunk, "closed early"
            received += chunk
        started = time.monotonic()
        fake.close()
        assert time.monotonic() - started < 1.0
    finally:
        sock.close()


def test_faults_clear(fake: FakeHoncho) -> None:
    fake.faults.fail_next()
    fake.faults.clear()
    assert Api(fake.port).get("/health").status == 200


# ---- failures of the real server, by name (roncho/testing/_failures.py) ----

CHAT = f"{W}/w/peers/alice/chat"
# How long a "nothing happens" assertion watches: many deriver ticks and the purge delay.
QUIET = 0.3


def _chat(api: Api, *, stream: bool = False) -> tuple[int, dict[str, str], bytes]:
    body = json.dumps({"query": "hi", "stream": stream}).encode()
    conn = http.client.HTTPConnection("127.0.0.1", api.port, timeout=5)
    try:
        conn.request("POST", CHAT, body=body, headers={"Content-Type": "application/json"})
        reply = conn.getresponse()
        headers = {k.lower(): v for k, v in reply.getheaders()}
        try:
            data = reply.read()
        except http.client.IncompleteRead as cut:
            data = b"<cut>" + cut.partial
        return reply.status, headers, data
    finally:
        conn.close()


def test_llm_unavailable_is_3_2_0s_503_on_the_chat_routes(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    rule = fake.faults.add(failure="llm_unavailable")
    status, headers, body = _chat(api)
    assert status == 503 and json.loads(body) == {"detail": "LLM provider unavailable"}
    assert headers["content-type"] == "application/json" and "retry-after" not in headers
    assert _chat(api, stream=True)[0] == 503  # a streamed chat too (not known: see the docs)
    workspace_chat = api.post(f"{W}/w/chat", {"query": "hi"})
    assert (workspace_chat.status, workspace_chat.detail) == (503, "LLM provider unavailable")
    assert api.post(f"{W}/w/peers", {"id": "bob"}).status == 201  # not an LLM route
    [state] = fake.faults.rules()
    assert (state.rule, state.matched, state.applied) == (rule, 3, 3)


def test_llm_error_is_3_0_12s_500_and_a_stream_that_breaks_off(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    fake.faults.add(failure="llm_error", times=2)
    status, headers, body = _chat(api)
    assert (status, json.loads(body)) == (500, {"detail": "An unexpected error occurred"})
    status, headers, body = _chat(api, stream=True)
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    assert body == b"<cut>"  # not one event, and the chunked body never ends
    assert _chat(api)[0] == 200  # times=2: the provider is back
    [state] = fake.faults.rules()
    assert (state.matched, state.applied) == (3, 2)


@pytest.fixture
def quick() -> Iterator[FakeHoncho]:
    with FakeHoncho(flush=True, deriver_delay=0.01, purge_delay=0.05) as emulator:
        yield emulator


def _settled(api: Api) -> dict[str, int]:
    def done() -> dict[str, int] | None:
        status = api.queue("w")
        busy = status["pending_work_units"] + status["in_progress_work_units"]
        return status if busy == 0 and status["total_work_units"] else None

    return wait_for(done, what="the deriver to settle")


def test_deriver_stopped_holds_the_queue_and_the_purge_until_it_is_removed(
    quick: FakeHoncho,
) -> None:
    api = Api(quick.port)
    stopped = quick.faults.add(failure="deriver_stopped")
    assert api.add_messages("w", "s", ("alice", "hello")).status == 201
    assert api.add_messages("w", "gone", ("alice", "soon purged")).status == 201
    assert api.delete(f"{W}/w/sessions/gone").status == 202
    time.sleep(QUIET)
    status = api.queue("w")
    assert (status["pending_work_units"], status["completed_work_units"]) == (2, 0)
    assert api.post(f"{W}/w/conclusions/list").json["total"] == 0
    assert quick.deriver.step() == []  # a stopped deriver does nothing, even when asked

    def gone_messages() -> int:
        listed = api.post(f"{W}/w/sessions/gone/messages/list")
        return int(listed.json["total"]) if listed.status == 200 else 0

    assert gone_messages() == 1  # accepted, not purged: its messages are still listed
    [state] = quick.faults.rules()
    assert (state.matched, state.applied) == (0, 0)  # it lasts, it counts nothing
    assert quick.faults.remove(stopped.id)
    wait_for(lambda: gone_messages() == 0, what="the purge")
    wait_for(
        lambda: api.post(f"{W}/w/conclusions/list").json["total"] == 1,
        what="the conclusion of alice's message in the session kept",
    )


def test_deriver_fails_completes_items_without_writing(quick: FakeHoncho) -> None:
    api = Api(quick.port)
    quick.faults.add(failure="deriver_fails", times=1)
    assert api.add_messages("w", "s", ("alice", "lost to the error")).status == 201
    assert _settled(api)["completed_work_units"] == 1  # counted completed, as the server
    assert api.post(f"{W}/w/conclusions/list").json["total"] == 0
    assert api.add_messages("w", "s", ("alice", "derived")).status == 201
    wait_for(
        lambda: api.post(f"{W}/w/conclusions/list").json["total"] == 1,
        what="the next item's conclusion",
    )
    [state] = quick.faults.rules()
    assert (state.matched, state.applied) == (2, 1)


def test_webhook_lost_is_never_sent_nor_retried() -> None:
    with FakeHoncho(webhook_secret="s3cret") as fake, roncho.Client(fake.url, "w") as client:
        fake.faults.add(failure="webhook_lost", nth=1)
        client.get_or_create_workspace()
        client.get_or_create_webhook("http://localhost:9/hook")  # nothing listens there
        client.trigger_webhook_test()
        client.trigger_webhook_test()
        first, second = fake.wait_for_webhooks(2, timeout=5.0)
        assert not first.sent and "webhook_lost" in (first.error or "")
        assert second.sent  # attempted (and refused by the closed port): not a retry
        time.sleep(QUIET)
        assert len(fake.webhook_deliveries()) == 2


def test_deriver_fails_sends_no_queue_empty_for_a_unit_that_only_failed() -> None:
    options = {"webhook_secret": "s3cret", "flush": True, "deriver_delay": 0.01}
    with FakeHoncho(**options) as fake, roncho.Client(fake.url, "w") as client:
        client.get_or_create_workspace()
        client.get_or_create_webhook("http://localhost:9/hook")  # attempts are journalled
        fake.faults.add(failure="deriver_fails", times=1)
        client.add_messages("s", [roncho.MessageCreate("alice", "lost to the error")])
        wait_for(lambda: client.queue_status().completed_work_units == 1, what="the item")
        time.sleep(QUIET)
        assert fake.webhook_deliveries() == []
        client.add_messages("s", [roncho.MessageCreate("alice", "derived")])
        [delivery] = fake.wait_for_webhooks(1, timeout=5.0)
        assert delivery.event_type == "queue.empty"


def test_deriver_stopped_holds_webhook_deliveries_too() -> None:
    # On 3.0.12 a delivery is a deriver queue item (publish_webhook_event), even test.event.
    with FakeHoncho(webhook_secret="s3cret") as fake, roncho.Client(fake.url, "w") as client:
        client.get_or_create_workspace()
        client.get_or_create_webhook("http://localhost:9/hook")
        stopped = fake.faults.add(failure="deriver_stopped")
        client.trigger_webhook_test()
        time.sleep(QUIET)
        assert fake.webhook_deliveries() == []
        fake.faults.remove(stopped.id)
        [delivery] = fake.wait_for_webhooks(1, timeout=5.0)
        assert delivery.event_type == "test.event"
