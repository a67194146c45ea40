"""Lifecycle, routing, error shapes and the request record of the emulator."""

from __future__ import annotations

import http.client
import re
import time

from emu_http import Api

import roncho.testing
from roncho.testing import FakeHoncho

NANOID = re.compile(r"^[A-Za-z0-9_-]{21}$")
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


def test_all_exports_listed() -> None:
    # "@py_builtins"/"@pytest_ar": roncho ships a pytest11 plugin, so pytest rewrites its modules.
    public = {n for n in dir(roncho.testing) if not n.startswith(("_", "@"))} - {"annotations"}
    assert set(roncho.testing.__all__) == public


def test_start_and_stop_are_fast() -> None:
    started = time.monotonic()
    fake = FakeHoncho()
    assert Api(fake.port).get("/health").status == 200
    fake.close()
    fake.close()  # idempotent
    assert time.monotonic() - started < 1.0
    assert fake.url.startswith("http://127.0.0.1:")


def test_closed_emulator_refuses_connections() -> None:
    with FakeHoncho() as fake:
        port = fake.port
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        conn.request("GET", "/health")
        raised = False
    except OSError:
        raised = True
    finally:
        conn.close()
    assert raised


def test_two_emulators_share_no_state() -> None:
    with FakeHoncho() as one, FakeHoncho() as two:
        assert one.port != two.port
        first, second = Api(one.port), Api(two.port)
        assert first.post("/v3/workspaces", {"id": "w"}).status == 201
        assert second.post("/v3/workspaces", {"id": "w"}).status == 201
        first.add_messages("w", "s", ("alice", "only in one"))
        listed = second.post("/v3/workspaces/w/sessions/s/messages/list")
        assert listed.json["total"] == 0
        assert len(one.requests) == 2 and len(two.requests) == 2


def test_health_and_openapi(api: Api) -> None:
    health = api.get("/health")
    assert (health.status, health.json) == (200, {"status": "ok"})
    assert health.headers["content-type"] == "application/json"
    assert health.headers["connection"] == "close"
    assert int(health.headers["content-length"]) == len(health.body)
    spec = api.get("/openapi.json")
    assert spec.status == 200
    assert spec.json["info"]["version"] == "3.2.0-emulator"
    assert spec.json["openapi"] == "3.1.0"


def test_unknown_route_is_404_and_wrong_method_405(api: Api) -> None:
    assert (api.get("/nope").status, api.get("/nope").detail) == (404, "Not Found")
    assert api.get("/v3/workspaces/w/peers/p/chat").status == 405
    reply = api.delete("/v3/workspaces/w/sessions/s/messages/abc")
    assert (reply.status, reply.json) == (405, {"detail": "Method Not Allowed"})


def test_malformed_json_is_fastapi_422(api: Api) -> None:
    reply = api.post("/v3/workspaces", raw=b"{not json")
    assert reply.status == 422
    (item,) = reply.detail
    assert item["type"] == "json_invalid"
    assert item["loc"][0] == "body"


def test_wrong_shapes_are_fastapi_422(api: Api) -> None:
    missing = api.post("/v3/workspaces", {})
    assert missing.status == 422
    assert missing.detail[0]["type"] == "missing"
    assert missing.detail[0]["loc"] == ["body", "id"]
    bad_id = api.post("/v3/workspaces", {"id": "bad.id"})
    assert bad_id.status == 422
    assert bad_id.detail[0]["type"] == "string_pattern_mismatch"
    long_id = api.post("/v3/workspaces/w/peers", {"id": "x" * 513})
    assert long_id.detail[0]["type"] == "string_too_long"
    not_object = api.post("/v3/workspaces", [1, 2])
    assert not_object.status == 422
    assert set(not_object.detail[0]) >= {"type", "loc", "msg", "input"}


def test_percent_encoded_path_is_decoded_before_routing(api: Api) -> None:
    api.add_messages("x", "s", ("alice", "hello world"))
    reply = api.post("/v3/workspaces/x%2Fsearch", {"query": "hello"})
    assert reply.status == 200
    assert [m["content"] for m in reply.json] == ["hello world"]


def test_requests_are_recorded_with_authorization_redacted(
    fake_honcho: FakeHoncho, api: Api
) -> None:
    api.with_key("secret-token").post(
        "/v3/workspaces", {"id": "w"}, query={"page": "2"}, headers={"X-Test": "1"}
    )
    (recorded,) = fake_honcho.requests
    assert recorded.method == "POST"
    assert recorded.path == "/v3/workspaces"
    assert recorded.query == {"page": "2"}
    assert recorded.headers["Authorization"] == "[redacted]"
    assert recorded.headers["X-Test"] == "1"
    assert recorded.json == {"id": "w"}
    assert recorded.body == b'{"id": "w"}'
    fake_honcho.clear_requests()
    assert fake_honcho.requests == []


def test_server_made_ids_and_timestamps(api: Api) -> None:
    (message,) = api.add_messages("w", "s", ("alice", "hi")).json
    assert NANOID.match(message["id"])
    assert TIMESTAMP.match(message["created_at"])


def test_bad_options_are_refused() -> None:
    for kwargs in ({"deriver_delay": -1}, {"batch_tokens": -5}, {"purge_delay": "x"}):
        try:
            FakeHoncho(**kwargs)  # type: ignore[arg-type]
        except ValueError:
            continue
        raise AssertionError(f"accepted {kwargs}")


def test_head_is_served_where_get_is(api: Api) -> None:
    reply = api.call("HEAD", "/health")
    assert (reply.status, reply.body) == (200, b"")
