"""The one-shot fault switches: slow, fail, stalled stream, body cut short."""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator

import pytest
from emu_http import Api

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
