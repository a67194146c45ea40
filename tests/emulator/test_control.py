"""The /_fake/ control surface, in process: every route, its refusals and its bad inputs.

tests/emulator/test_server_mode.py drives the same routes through server mode from another
process; here they are checked one by one, cheaply.
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator

import pytest
from emu_http import Api, wait_for

from roncho.testing import FakeHoncho

W = "/v3/workspaces"


@pytest.fixture
def fake() -> Iterator[FakeHoncho]:
    with FakeHoncho(deriver_delay=0.0, flush=True) as emulator:
        emulator.control_enabled = True
        yield emulator


def test_off_unless_enabled_and_never_recorded() -> None:
    with FakeHoncho() as plain:
        api = Api(plain.port)
        for method in ("GET", "POST", "DELETE"):
            for path in ("/_fake", "/_fake/", "/_fake/requests", "/_fake/reset", "/_fake/x"):
                reply = api.call(method, path)
                assert reply.status == 404, (method, path)
                assert "--control" in reply.detail
        plain.faults.fail_next(503)
        assert api.post("/_fake/reset").status == 404  # a pending fault is not spent on it
        assert api.get("/health").status == 503
        assert [r.path for r in plain.requests] == ["/health"]
        assert api.get("/_fakeish").status == 404  # only the exact prefix is reserved
        assert plain.requests[-1].path == "/_fakeish"


def test_info_lists_options_and_routes(fake: FakeHoncho) -> None:
    info = Api(fake.port).get("/_fake/info").json
    assert info["url"] == fake.url
    assert info["options"]["flush"] is True
    assert "POST /_fake/faults/fail_next" in info["routes"]
    assert "version" in info


def test_unknown_route_and_wrong_method(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    missing = api.get("/_fake/nothing")
    assert missing.status == 404 and "/_fake/info" in missing.detail
    assert api.get("/_fake/reset").status == 405
    assert api.post("/_fake/requests").status == 405


def test_matched_as_sent(fake: FakeHoncho) -> None:
    """Control paths are matched as sent: a trailing slash is ignored, HEAD is not GET, and a
    percent-encoded prefix is an ordinary (recorded) Honcho path."""
    api = Api(fake.port)
    assert api.get("/_fake/info/").status == 200
    assert api.call("HEAD", "/_fake/info").status == 405
    missing = api.get("/_fake/")
    assert missing.status == 404 and "GET /_fake/;" in missing.detail
    assert api.get("/%5Ffake/info").json == {"detail": "Not Found"}
    assert [r.path for r in fake.requests] == ["/%5Ffake/info"]
    assert api.delete("/_fake/faults/slow_next").detail == "No fault rule slow_next"


def test_fail_next_and_clear(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    armed = api.post("/_fake/faults/fail_next", {"status": 503})
    assert armed.json == {"armed": "fail_next", "status": 503}
    assert api.get("/health").status == 503
    assert api.get("/health").status == 200
    assert api.post("/_fake/faults/fail_next").json["status"] == 500  # default
    assert api.delete("/_fake/faults").status == 200
    assert api.get("/health").status == 200


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/_fake/faults/fail_next", {"status": 200}),
        ("/_fake/faults/fail_next", {"status": "500"}),
        ("/_fake/faults/fail_next", {"status": True}),
        ("/_fake/faults/slow_next", {}),
        ("/_fake/faults/slow_next", {"seconds": -1}),
        ("/_fake/faults/slow_next", {"seconds": 1e9}),
        ("/_fake/faults/stall_stream_next", {"seconds": "1"}),
    ],
)
def test_bad_fault_arguments_are_422_and_arm_nothing(
    fake: FakeHoncho, path: str, body: object
) -> None:
    api = Api(fake.port)
    reply = api.post(path, body)
    assert reply.status == 422
    assert isinstance(reply.detail, str)
    started = time.monotonic()
    assert api.get("/health").status == 200
    assert time.monotonic() - started < 1.0


def test_body_must_be_a_json_object(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    assert api.post("/_fake/faults/fail_next", raw=b"[1]").status == 422
    assert api.post("/_fake/faults/fail_next", raw=b"{nope").status == 422


def test_slow_next(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    assert api.post("/_fake/faults/slow_next", {"seconds": 0.2}).status == 200
    started = time.monotonic()
    assert api.get("/health").status == 200
    assert time.monotonic() - started >= 0.2


def test_close_mid_body_next(fake: FakeHoncho) -> None:
    assert Api(fake.port).post("/_fake/faults/close_mid_body_next").status == 200
    conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=5)
    try:
        conn.request("POST", W, body=json.dumps({"id": "w"}))
        with pytest.raises(http.client.IncompleteRead):
            conn.getresponse().read()
    finally:
        conn.close()


def test_stall_stream_next(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    assert api.post("/_fake/faults/stall_stream_next", {"seconds": 0.3}).status == 200
    started = time.monotonic()
    reply = api.post(f"{W}/w/peers/p/chat", {"query": "what about me", "stream": True})
    assert reply.status == 200
    assert time.monotonic() - started >= 0.3


def test_request_log_redacts_keys_and_can_be_cleared(fake: FakeHoncho) -> None:
    api = Api(fake.port, key=fake.admin_key)
    api.post(W, {"id": "w", "metadata": {"k": "v"}})
    log = api.get("/_fake/requests").json
    assert [(r["method"], r["path"]) for r in log] == [("POST", W)]
    assert log[0]["json"] == {"id": "w", "metadata": {"k": "v"}}
    assert json.loads(log[0]["body"]) == log[0]["json"]
    assert log[0]["headers"]["Authorization"] == "[redacted]"
    assert fake.admin_key not in json.dumps(log)
    assert api.delete("/_fake/requests").status == 200
    assert api.get("/_fake/requests").json == []


def test_deriver_log(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    assert api.add_messages("w", "s", ("alice", "I like tea")).status == 201
    log = wait_for(lambda: api.get("/_fake/deriver").json, what="a deriver record")
    assert log[0]["workspace_id"] == "w"
    assert log[0]["gate"] == "flush"
    assert log[0]["sender_id"] == "alice"


def test_reset_forgets_everything_but_keeps_keys(fake: FakeHoncho) -> None:
    api = Api(fake.port)
    api.add_messages("w", "s", ("alice", "I like tea"))
    wait_for(fake.deriver_log, what="a deriver record")
    fake.faults.slow_next(30)  # a pending fault must not survive (nor stall this test)
    assert api.post("/_fake/reset").json == {"reset": True}
    assert fake.requests == [] and fake.deriver_log() == []
    assert api.post(f"{W}/list", {}).json["items"] == []
    api.add_messages("w", "s", ("bob", "coffee"))
    assert wait_for(fake.deriver_log, what="the deriver after reset")[0].sender_id == "bob"
    with FakeHoncho(auth=True) as authed:
        authed.control_enabled = True
        scoped = authed.issue_key("w")
        authed.reset()
        assert Api(authed.port, scoped).get(f"{W}/w/queue/status").status == 200


def test_with_auth_the_routes_want_an_admin_key() -> None:
    with FakeHoncho(auth=True) as fake:
        fake.control_enabled = True
        api = Api(fake.port)
        assert api.get("/_fake/requests").status == 401
        assert api.with_key(fake.issue_key("w")).get("/_fake/requests").status == 401
        assert api.with_key("not-a-jwt").post("/_fake/reset").status == 401
        assert api.with_key(fake.admin_key).get("/_fake/requests").status == 200
