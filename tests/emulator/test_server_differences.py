"""Behaviours where the emulator once differed from a real Honcho 3.0.12 server, each held
here: `source_ids` filters, session context's allowlist and card, clones, file uploads,
scopes, dreams, peer configuration, query-parameter 422s, batch timestamps, representations.

Every expectation below was seen on a real 3.0.12 server (2026-12-01); the texts are the
server's own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from emu_http import Api, wait_for

from roncho.testing import FakeHoncho

W = "/v3/workspaces/w"
JSONB_422 = (
    "Invalid filter for column 'source_ids': a JSONB column takes an object, optionally under "
    "'contains'"
)


def _setup(api: Api, *, card: bool = True) -> dict[str, object]:
    api.post(f"{W}/sessions", {"id": "s1", "peers": {"alice": {}, "bob": {}}})
    api.post(f"{W}/sessions", {"id": "s2", "peers": {"alice": {}, "bob": {}}})
    made = api.post(
        f"{W}/conclusions",
        {
            "conclusions": [
                {"content": f"c{i}", "observer_id": "alice", "observed_id": "bob", "session_id": s}
                for i, s in enumerate(["s1", "s2", "s1"])
            ]
        },
    )
    assert made.status == 201
    if card:
        assert (
            api.put(
                f"{W}/peers/alice/card", {"peer_card": ["likes tea"]}, query={"target": "bob"}
            ).status
            == 200
        )
    result: dict[str, object] = made.json[0]
    return result


# ---- 1. source_ids is a JSONB column (on 3.0.12: 3.2.0's reading is in test_v3_2_0.py) ----


@pytest.fixture
def api_3_0_12() -> Iterator[Api]:
    with FakeHoncho(version="3.0.12") as fake:
        yield Api(fake.port)


@pytest.mark.parametrize(
    "value",
    [
        {"contains": "x"},  # what the SDK's conclusions.derived() sends: always 422
        ["x"],
        "x",
        {"in": ["x"]},
        {"gte": ["x"]},
    ],
)
def test_source_ids_filter_rejects_non_containment(api_3_0_12: Api, value: object) -> None:
    api = api_3_0_12
    _setup(api, card=False)
    reply = api.post(f"{W}/conclusions/list", {"filters": {"source_ids": value}})
    assert (reply.status, reply.detail) == (422, JSONB_422)


@pytest.mark.parametrize(
    ("value", "total"),
    [
        ({"contains": ["x"]}, 0),
        ({"contains": {"a": 1}}, 0),
        ({"a": 1}, 0),
        (None, 3),
        ("*", 3),
    ],
)
def test_source_ids_filter_containment_and_null(api_3_0_12: Api, value: object, total: int) -> None:
    api = api_3_0_12
    _setup(api, card=False)
    reply = api.post(f"{W}/conclusions/list", {"filters": {"source_ids": value}})
    assert reply.status == 200, reply
    assert reply.json["total"] == total


# ---- 2. session context: allowlist, limit_to_session, search_* ----


def test_session_context_allowlist_withholds_the_card(api: Api) -> None:
    _setup(api)
    base = {"peer_target": "bob", "peer_perspective": "alice"}
    plain = api.get(f"{W}/sessions/s1/context", query=base).json
    assert plain["peer_card"] == ["likes tea"]
    assert plain["peer_representation"].count("\n[") == 3
    allowed = api.get(f"{W}/sessions/s1/context", query={**base, "sessions": "s1"}).json
    assert allowed["peer_card"] is None
    assert "c1" not in allowed["peer_representation"] and "c0" in allowed["peer_representation"]
    limited = api.get(f"{W}/sessions/s1/context", query={**base, "limit_to_session": "true"})
    assert limited.json["peer_card"] is None
    assert "c1" not in limited.json["peer_representation"]
    both = api.get(
        f"{W}/sessions/s1/context?peer_target=bob&peer_perspective=alice&sessions=s1&sessions=s2"
    ).json
    assert both["peer_card"] is None and "c1" in both["peer_representation"]


@pytest.mark.parametrize(
    ("query", "detail"),
    [
        ("peer_target=bob&sessions=s2", "session_id must be included in sessions"),
        (
            "peer_target=bob&sessions=s1&limit_to_session=true",
            "`sessions` and `limit_to_session` are mutually exclusive",
        ),
        ("sessions=s1", "peer_target must be provided if sessions is provided"),
        ("peer_perspective=alice", "peer_target must be provided if peer_perspective is provided"),
        (
            "peer_target=bob&sessions=a*b",
            "Invalid session id in sessions: 'a*b'. Session ids match ^[a-zA-Z0-9_-]+$",
        ),
    ],
)
def test_session_context_string_422s(api: Api, query: str, detail: str) -> None:
    _setup(api)
    reply = api.get(f"{W}/sessions/s1/context?{query}")
    assert (reply.status, reply.detail) == (422, detail)


@pytest.mark.parametrize(
    ("query", "kind", "echo"),
    [
        ("search_top_k=0", "greater_than_equal", "0"),
        ("search_top_k=101", "less_than_equal", "101"),
        ("search_max_distance=2", "less_than_equal", "2"),
        ("search_max_distance=x", "float_parsing", "x"),
        ("max_conclusions=0", "greater_than_equal", "0"),
    ],
)
def test_session_context_search_params_are_checked(
    api: Api, query: str, kind: str, echo: str
) -> None:
    _setup(api)
    reply = api.get(f"{W}/sessions/s1/context?{query}")
    assert reply.status == 422
    (item,) = reply.detail
    assert (item["type"], item["input"]) == (kind, echo)


# ---- 3. newer-server features belong to the 3.2.0 profile (see test_profiles.py) ----

# ---- 4. routes that were missing ----


def test_session_clone(api: Api) -> None:
    api.post(
        f"{W}/sessions",
        {"id": "s1", "metadata": {"k": 1}, "peers": {"alice": {"observe_me": False}}},
    )
    sent = api.add_messages("w", "s1", ("alice", "one"), ("alice", "two"), ("alice", "three"))
    clone = api.post(f"{W}/sessions/s1/clone")
    assert clone.status == 201
    assert set(clone.json) == {
        "id",
        "is_active",
        "workspace_id",
        "metadata",
        "configuration",
        "created_at",
    }
    assert re.fullmatch(r"[A-Za-z0-9_-]{21}", clone.json["id"]) and clone.json["metadata"] == {
        "k": 1
    }
    new = clone.json["id"]
    listed = api.post(f"{W}/sessions/{new}/messages/list").json["items"]
    assert [m["content"] for m in listed] == ["one", "two", "three"]
    config = api.get(f"{W}/sessions/{new}/peers/alice/config").json
    assert config == {"observe_me": False, "observe_others": None}
    cut = api.post(f"{W}/sessions/s1/clone", query={"message_id": sent.json[1]["id"]})
    cut_items = api.post(f"{W}/sessions/{cut.json['id']}/messages/list").json["items"]
    assert [m["content"] for m in cut_items] == ["one", "two"]
    missing = api.post(f"{W}/sessions/nope/clone")
    assert (missing.status, missing.detail) == (404, "Original session not found")
    bad_cut = api.post(f"{W}/sessions/s1/clone", query={"message_id": "zzz"})
    assert (bad_cut.status, bad_cut.detail) == (404, "Session not found")


def _multipart(fields: dict[str, str], file: tuple[str, str, bytes] | None) -> tuple[bytes, str]:
    boundary = "roncho-test-boundary"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
        for k, v in fields.items()
    ]
    if file is not None:
        name, kind, data = file
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            f"Content-Type: {kind}\r\n\r\n".encode()
            + data
            + b"\r\n"
        )
    return b"".join(
        parts
    ) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def test_file_upload_gives_messages(fake_honcho: FakeHoncho, api: Api) -> None:
    body, kind = _multipart(
        {"peer_id": "alice", "metadata": '{"src": "file"}'}, ("a.txt", "text/plain", b"hello file")
    )
    reply = api.post(f"{W}/sessions/s1/messages/upload", raw=body, headers={"Content-Type": kind})
    assert reply.status == 201, reply
    (message,) = reply.json
    assert (message["content"], message["peer_id"], message["metadata"]) == (
        "hello file",
        "alice",
        {"src": "file"},
    )
    assert api.post(f"{W}/sessions/s1/messages/list").json["total"] == 1
    wait_for(lambda: api.queue("w")["total_work_units"] >= 1, what="the upload to be enqueued")


def test_file_upload_errors_are_the_servers_not_405(api: Api) -> None:
    reply = api.post(f"{W}/sessions/s1/messages/upload", {"peer_id": "alice"})
    assert reply.status == 422
    assert [(e["type"], e["loc"]) for e in reply.detail] == [
        ("missing", ["body", "peer_id"]),
        ("missing", ["body", "file"]),
    ]
    body, kind = _multipart({"peer_id": "alice"}, ("a.bin", "application/octet-stream", b"\x00"))
    binary = api.post(f"{W}/sessions/s1/messages/upload", raw=body, headers={"Content-Type": kind})
    assert binary.status == 415 and binary.detail.startswith("Unsupported file type")


def test_long_upload_is_split_at_word_boundaries(api: Api) -> None:
    text = ("word " * 12000).encode()  # 60000 characters: three messages of 25,000 at most
    body, kind = _multipart({"peer_id": "alice"}, ("a.txt", "text/plain", text))
    reply = api.post(f"{W}/sessions/s1/messages/upload", raw=body, headers={"Content-Type": kind})
    assert reply.status == 201
    assert [len(m["content"]) for m in reply.json] == [25000, 25000, 10000]


def test_scopes(fake_honcho: FakeHoncho, api: Api) -> None:
    api.post(f"{W}/sessions", {"id": "s1"})
    made = api.post(f"{W}/scopes", {"id": "sc1"})
    assert made.status == 201 and set(made.json) == {"id", "metadata", "created_at"}
    assert api.post(f"{W}/scopes", {"id": "sc1"}).status == 200
    assert api.post(f"{W}/scopes/list").json["total"] == 1
    assert api.get(f"{W}/scopes/sc1").json["id"] == "sc1"
    added = api.post(f"{W}/scopes/sc1/sessions", {"session_ids": ["s1"]})
    assert (added.status, added.body, added.headers["content-type"]) == (
        204,
        b"",
        "application/json",
    )
    assert [s["id"] for s in api.post(f"{W}/scopes/sc1/sessions/list").json["items"]] == ["s1"]
    status = wait_for(
        lambda: (
            (j := api.get(f"{W}/scopes/sc1/status").json)["backfill_status"]["s1"]["state"]
            == "completed"
            and j
        ),
        what="the backfill",
    )
    assert set(status["backfill_status"]["s1"]) == {"state", "updated_at", "docs_copied"}
    assert api.delete(f"{W}/scopes/sc1/sessions/s1").status == 204
    missing = api.get(f"{W}/scopes/nope")
    assert (missing.status, missing.detail) == (404, "Scope nope not found in workspace w")


def test_schedule_dream(api: Api) -> None:
    reply = api.post(f"{W}/schedule_dream", {"observer": "alice", "dream_type": "omni"})
    assert (reply.status, reply.body, reply.headers["content-type"]) == (
        204,
        b"",
        "application/json",
    )
    bad = api.post(f"{W}/schedule_dream", {"observer": "alice", "dream_type": "nap"})
    assert bad.status == 422 and bad.detail[0]["type"] == "enum"  # an Enum, seen 2026-12-07
    missing = api.post(f"{W}/schedule_dream", {"observer": "alice"})
    assert missing.status == 422 and missing.detail[0]["loc"] == ["body", "dream_type"]


# ---- 5. wire details ----


def test_peer_config_put_is_204_with_json_content_type(api: Api) -> None:
    api.post(f"{W}/sessions", {"id": "s1", "peers": {"alice": {}}})
    reply = api.put(f"{W}/sessions/s1/peers/alice/config", {"observe_me": True})
    assert (reply.status, reply.body, reply.headers["content-type"]) == (
        204,
        b"",
        "application/json",
    )


def test_query_param_422_echoes_the_string(api: Api) -> None:
    reply = api.post(f"{W}/conclusions/list?size=101", {})
    assert reply.detail == [
        {
            "type": "less_than_equal",
            "loc": ["query", "size"],
            "msg": "Input should be less than or equal to 100",
            "input": "101",
            "ctx": {"le": 100},
        }
    ]


# ---- 6. values a test might rely on ----


def test_one_timestamp_per_batch(api: Api) -> None:
    sent = api.add_messages("w", "s1", *[("alice", f"m{i}") for i in range(6)])
    assert len({m["created_at"] for m in sent.json}) == 1


def test_deriver_batch_shares_one_timestamp() -> None:
    with FakeHoncho(flush=True, deriver_delay=0.0) as fake:
        api = Api(fake.port)
        api.post(
            f"{W}/sessions", {"id": "s1", "peers": {"alice": {}, "bob": {"observe_others": True}}}
        )
        api.add_messages("w", "s1", ("alice", "one"), ("alice", "two"))
        items = wait_for(
            lambda: (r := api.post(f"{W}/conclusions/list").json["items"]) and len(r) >= 4 and r,
            what="the deriver's conclusions",
        )
        stamps: dict[str, set[str]] = {}
        for c in items:
            stamps.setdefault(c["content"], set()).add(c["created_at"])
        assert all(len(v) == 1 for v in stamps.values())


def test_representation_text_is_the_servers_format(api: Api) -> None:
    made = _setup(api, card=False)
    text = api.post(f"{W}/peers/alice/representation", {"target": "bob"}).json["representation"]
    stamp = str(made["created_at"])[:19].replace("T", " ")
    assert text == f"## Explicit Observations\n\n[{stamp}] c0\n[{stamp}] c1\n[{stamp}] c2\n"
    assert api.post(f"{W}/peers/alice/representation", {}).json["representation"] == ""


def test_search_query_brings_matches_into_a_short_representation(api: Api) -> None:
    """With `search_query`, its best matches come first (the server's semantic part), then the
    most recent conclusions, up to `max_conclusions`; lines stay in creation order."""
    api.post(f"{W}/peers", {"id": "alice"})
    api.post(f"{W}/peers", {"id": "bob"})
    for content in ["bob plays chess", "bob likes rain", "bob owns a cat", "bob drinks tea"]:
        body = {"conclusions": [{"content": content, "observer_id": "alice", "observed_id": "bob"}]}
        assert api.post(f"{W}/conclusions", body).status == 201
    plain = api.post(
        f"{W}/peers/alice/representation", {"target": "bob", "max_conclusions": 2}
    ).json["representation"]
    assert "chess" not in plain and "cat" in plain and "tea" in plain
    searched = api.post(
        f"{W}/peers/alice/representation",
        {"target": "bob", "max_conclusions": 2, "search_query": "chess", "search_top_k": 1},
    ).json["representation"]
    lines = searched.splitlines()[2:]
    assert [line.split("] ", 1)[1] for line in lines] == ["bob plays chess", "bob drinks tea"]
    context = api.get(
        f"{W}/peers/alice/context",
        query={"target": "bob", "max_conclusions": "2", "search_query": "chess"},
    ).json["representation"]
    assert "chess" in context
