"""Fault rules: matching by method, route and n-th call, seeded probability, latency
distributions, faults inside a stream, and the same rules over `/_fake/faults`."""

from __future__ import annotations

import json
import random
import socket
import statistics
import time
from collections.abc import Iterator

import pytest
from emu_http import Api

import roncho
from roncho.testing import FakeHoncho, FaultRule, Latency

W = "/v3/workspaces"
CHAT = f"{W}/w/peers/alice/chat"
# The longest a stream read in these tests may take.
READ_TIMEOUT = 5.0


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho() as emulator:
        emulator.control_enabled = True
        yield emulator


def _stream_chunks(port: int, query: str = "tell me about alice") -> tuple[list[bytes], bool]:
    """The chunk payloads of a streamed chat as sent, and whether the 0-chunk ended the body."""
    body = json.dumps({"query": query, "stream": True}).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT) as sock:
        sock.sendall(
            b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (CHAT.encode(), len(body), body)
        )
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    head, _, rest = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    chunks: list[bytes] = []
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            return chunks, True
        chunks.append(rest[:size])
        rest = rest[size + 2 :]
    return chunks, False


def _events(chunks: list[bytes]) -> list[dict[str, object]]:
    text = b"".join(chunks).decode("utf-8")
    return [json.loads(part[len("data: ") :]) for part in text.split("\n\n") if part]


def _tell(api: Api, content: str) -> None:
    reply = api.post(
        f"{W}/w/sessions/s/messages", {"messages": [{"peer_id": "alice", "content": content}]}
    )
    assert reply.status == 201


def test_rule_matches_method_route_and_nth_call(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    rule = fake.faults.add(method="POST", route=f"{W}/{{w}}/peers", nth=2, status=503)
    assert api.post(f"{W}/w/peers", {"id": "a"}).status == 201
    assert api.get("/health").status == 200  # another route: not counted
    assert api.put(f"{W}/w/peers/a", {}).status == 200  # another method: not counted
    failed = api.post(f"{W}/w/peers", {"id": "b"})
    assert (failed.status, failed.json) == (503, {"detail": "Injected 503"})
    assert api.post(f"{W}/w/peers", {"id": "b"}).status == 201  # only the 2nd call
    [state] = fake.faults.rules()
    assert (state.rule, state.matched, state.applied) == (rule, 3, 1)


def test_route_templates_are_literal_but_for_their_segments(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    fake.faults.add(route="/openapi.json", status=503)
    fake.faults.add(route="/v3/workspaces/(x)+", status=504)
    assert api.get("/openapiXjson").status == 404  # "." is a dot, not any character
    assert api.get("/openapi.json").status == 503
    assert api.post(f"{W}/(x)+", {}).status == 504


def test_times_limits_a_rule_and_remove_drops_it(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    rule = fake.faults.add(FaultRule(route="/health", times=2, status=500, detail="down"))
    assert api.get("/health").detail == "down"
    assert [api.get("/health").status for _ in range(2)] == [500, 200]
    again = fake.faults.add(route="/health", status=502)
    assert api.get("/health").status == 502
    assert fake.faults.remove(again.id) and not fake.faults.remove(again.id)
    assert api.get("/health").status == 200
    assert [state.rule.id for state in fake.faults.rules()] == [rule.id]


def test_probability_is_seeded(fake: FakeHoncho) -> None:
    api = Api(fake.port)

    def run(seed: int) -> list[int]:
        fake.faults.clear()
        fake.faults.add(route="/health", probability=0.5, seed=seed, status=503)
        return [api.get("/health").status for _ in range(16)]

    first = run(11)
    assert run(11) == first  # the same seed hits the same calls
    assert set(first) == {200, 503}
    expected = random.Random(11)
    assert first == [503 if expected.random() < 0.5 else 200 for _ in range(16)]


def test_latency_distributions_draw_as_declared() -> None:
    rng = random.Random(3)
    assert Latency.fixed(0.25).draw(rng) == 0.25
    uniform = [Latency.uniform(0.1, 0.2).draw(rng) for _ in range(200)]
    assert all(0.1 <= value <= 0.2 for value in uniform)
    lognormal = [Latency.lognormal(0.05, 0.5).draw(rng) for _ in range(2000)]
    assert all(value > 0 for value in lognormal)
    assert 0.045 < statistics.median(lognormal) < 0.055  # the median is the median asked
    assert Latency.lognormal(0.3, 0).draw(rng) == 0.3  # no spread: always the median
    wide = Latency.lognormal(500, 10)
    assert max(wide.draw(rng) for _ in range(100)) == 600.0  # draws are capped


def test_latency_rule_delays_matching_answers(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    fake.faults.add(route="/health", latency=Latency.fixed(0.2))
    started = time.monotonic()
    assert api.get("/health").status == 200
    assert time.monotonic() - started >= 0.2
    assert fake.faults.rules()[0].applied == 1


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({}, "needs an effect"),
        ({"status": 200}, "'status'"),
        ({"status": 500, "nth": 0}, "'nth'"),
        ({"status": 500, "probability": 1.5}, "'probability'"),
        ({"stream": "error", "status": 500}, "a stream fault takes no"),
        ({"stream": "explode"}, "'stream'"),
        ({"latency": Latency.fixed(1), "stall": -1}, "'stall'"),
        ({"latency": {"kind": "fixed", "seconds": 1}}, "'latency' must be a Latency"),
        ({"close_mid_body": 1}, "'close_mid_body'"),
        ({"failure": "meteor"}, "'failure' must be one of"),
        ({"failure": "llm_error", "status": 503}, "a failure says what it sends"),
        ({"failure": "llm_error", "detail": "x"}, "a failure says what it sends"),
        ({"failure": "llm_error", "stream": "abort"}, "a failure says what it sends"),
        ({"failure": "deriver_fails", "route": "/health"}, "takes no method or route"),
        ({"failure": "deriver_stopped", "times": 1}, "lasts while the rule is in place"),
        ({"failure": "deriver_stopped", "probability": 0.5}, "lasts while the rule is in"),
    ],
)
def test_bad_rules_are_refused(fields: dict[str, object], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        FaultRule(**fields)  # type: ignore[arg-type]


def test_bad_latencies_are_refused() -> None:
    with pytest.raises(ValueError, match="'high'"):
        Latency.uniform(0.3, 0.1)
    with pytest.raises(ValueError, match="'median'"):
        Latency.lognormal(0, 1)
    with pytest.raises(ValueError, match="'seconds'"):
        Latency.fixed(601)


def test_stream_error_replaces_the_final_event(fake: FakeHoncho) -> None:
    _tell(Api(fake.port), "alice likes tea")
    fake.faults.add(stream="error", detail="the model went away")
    chunks, ended = _stream_chunks(fake.port)
    events = _events(chunks)
    assert ended
    assert events[-1] == {"done": True, "error": "the model went away"}
    assert all(event["done"] is False for event in events[:-1]) and len(events) > 1


def test_stream_end_early_drops_the_final_event(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    _tell(api, "alice likes tea")
    normal, _ = _stream_chunks(fake.port)
    fake.faults.add(method="POST", route=f"{W}/{{w}}/peers/{{p}}/chat", stream="end_early")
    chunks, ended = _stream_chunks(fake.port)
    assert ended  # a well-formed body ...
    assert chunks == normal[:-1]  # ... without its final event
    assert _events(normal)[-1] == {"done": True}


def test_stream_end_early_is_a_protocol_error_for_the_client(fake: FakeHoncho) -> None:
    fake.faults.add(stream="end_early")
    with (
        roncho.Client(fake.url, "w") as client,
        pytest.raises(roncho.ProtocolError),
        client.chat_stream("alice", "hi") as stream,
    ):
        list(stream)


def test_stream_abort_closes_the_connection_mid_body(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    _tell(api, "alice likes tea")
    normal, _ = _stream_chunks(fake.port)
    fake.faults.add(stream="abort", after_events=2)
    chunks, ended = _stream_chunks(fake.port)
    assert not ended  # no 0-chunk: the body never ends properly
    assert chunks == normal[:2] and len(normal) > 2
    fake.faults.add(stream="abort", after_events=0)
    with (
        roncho.Client(fake.url, "w") as client,
        pytest.raises(roncho.ProtocolError),
        client.chat_stream("alice", "hi") as stream,
    ):
        list(stream)


def test_stream_split_utf8_cuts_a_character_across_chunks(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    _tell(api, "alice drinks café au lait ☕")
    fake.faults.add(stream="split_utf8")
    chunks, ended = _stream_chunks(fake.port, "café")
    assert ended
    cut = [chunk for chunk in chunks if _splits_a_character(chunk)]
    assert cut, "no chunk ends inside a character"
    deltas = [event["delta"] for event in _events(chunks) if "delta" in event]
    text = "".join(str(delta["content"]) for delta in deltas if isinstance(delta, dict))
    assert "café" in text and "☕" in text
    with roncho.Client(fake.url, "w") as client:
        fake.faults.add(stream="split_utf8")
        with client.chat_stream("alice", "café") as stream:
            assert "café" in "".join(chunk.content for chunk in stream)


def _splits_a_character(chunk: bytes) -> bool:
    try:
        chunk.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def test_stream_stall_pauses_after_the_given_events(fake: FakeHoncho) -> None:
    _tell(Api(fake.port), "alice likes tea and long walks by the sea")
    fake.faults.add(stream="stall", stall=0.3, after_events=2)
    body = json.dumps({"query": "alice tea walks", "stream": True}).encode()
    with socket.create_connection(("127.0.0.1", fake.port), timeout=READ_TIMEOUT) as sock:
        sock.sendall(
            b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s"
            % (CHAT.encode(), len(body), body)
        )
        received = b""
        while received.count(b"data: ") < 2:
            received += sock.recv(65536)
        second_at = time.monotonic()
        while not received.endswith(b"0\r\n\r\n"):
            chunk = sock.recv(65536)
            assert chunk
            received += chunk
        assert time.monotonic() - second_at >= 0.3 - 0.05
    assert b'"done": true' in received


def test_stream_rules_count_streams_only(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    fake.faults.add(stream="end_early", nth=2)
    assert api.get("/health").status == 200
    assert api.post(CHAT, {"query": "q"}).status == 200  # not a stream: not counted
    assert _stream_chunks(fake.port)[0][-1].endswith(b'"done": true}\n\n')
    assert b'"done": true' not in b"".join(_stream_chunks(fake.port)[0])
    assert fake.faults.rules()[0].matched == 2


def test_one_shot_switches_are_rules(fake: FakeHoncho) -> None:
    fake.faults.fail_next(503)
    fake.faults.slow_next(0.01)
    [fail, slow] = fake.faults.rules()
    assert (fail.rule.status, fail.rule.times) == (503, 1)
    assert (slow.rule.latency, slow.rule.times) == (Latency.fixed(0.01), 1)
    assert Api(fake.port).get("/health").status == 503
    assert Api(fake.port).get("/health").status == 200
    assert [state.applied for state in fake.faults.rules()] == [1, 1]


def test_rules_over_http(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    added = api.post(
        "/_fake/faults",
        {
            "method": "GET",
            "route": "/health",
            "nth": 1,
            "status": 429,
            "latency": {"kind": "uniform", "low": 0.0, "high": 0.01},
            "seed": 5,
        },
    )
    assert added.status == 200
    rule = added.json["added"]
    assert (rule["status"], rule["latency"], rule["id"]) == (
        429,
        {"kind": "uniform", "low": 0.0, "high": 0.01},
        1,
    )
    assert api.get("/health").status == 429
    assert api.get("/health").status == 200
    [listed] = api.get("/_fake/faults").json
    assert (listed["matched"], listed["applied"], listed["nth"]) == (2, 1, 1)
    assert api.delete("/_fake/faults/1").json == {"removed": 1}
    assert api.delete("/_fake/faults/1").status == 404
    assert api.delete("/_fake/faults/x").status == 404
    assert api.get("/_fake/faults").json == []
    named = api.post("/_fake/faults", {"failure": "llm_unavailable"}).json["added"]
    assert (named["failure"], named["status"], named["route"]) == ("llm_unavailable", None, None)
    assert api.post(f"{W}/w/peers/alice/chat", {"query": "hi"}).status == 503


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"status": 200},
        {"status": 500, "nope": 1},
        {"latency": {"kind": "gamma"}},
        {"latency": {"kind": "fixed", "seconds": 1, "low": 0}},
        {"latency": {"kind": "lognormal", "median": 0.1}},
        {"close_mid_body": "yes"},
        {"stream": "error", "latency": {"kind": "fixed", "seconds": 1}},
        {"failure": "llm_provider_down"},
        {"failure": "deriver_stopped", "nth": 2},
    ],
)
def test_bad_rules_over_http_are_422(fake: FakeHoncho, body: dict[str, object]) -> None:
    api = Api(fake.port)
    refused = api.post("/_fake/faults", body)
    assert refused.status == 422 and isinstance(refused.detail, str)
    assert api.get("/_fake/faults").json == []
