"""Edge rules taken from the edges differential (tests/differential/edge_steps.py): what a
real Honcho 3.0.12 answered at a route's edges, held here without a recording. Each test
names the 3.0.12 source its rule follows (paths under the kit's `src/`).
"""

from __future__ import annotations

import json

from emu_http import Api

W = "/v3/workspaces/w"


def _upload(api: Api, kind: str, data: bytes) -> tuple[int, object]:
    boundary = "edgeboundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="peer_id"\r\n\r\nalice\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n'
            f"Content-Type: {kind}\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    reply = api.post(
        f"{W}/sessions/s1/messages/upload",
        raw=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    return reply.status, reply.json if reply.body else None


def test_missing_sessions_context_is_empty_not_404(api: Api) -> None:
    # routers/sessions.py:866-874: without peer_target the session is never looked up.
    for path in (f"{W}/sessions/nx/context", "/v3/workspaces/nx-w/sessions/nx/context"):
        reply = api.get(path)
        assert (reply.status, reply.json) == (
            200,
            {
                "id": "nx",
                "messages": [],
                "summary": None,
                "peer_representation": None,
                "peer_card": None,
            },
        )
    assert api.post("/v3/workspaces/list").json["total"] == 0


def test_context_tokens_zero_and_below_give_no_messages(api: Api) -> None:
    api.post(f"{W}/sessions", {"id": "s1"})
    api.post(f"{W}/sessions/s1/messages", {"messages": [{"peer_id": "a", "content": "hi"}]})
    for tokens in ("0", "-1"):
        reply = api.get(f"{W}/sessions/s1/context", query={"tokens": tokens})
        assert (reply.status, reply.json["messages"]) == (200, [])
    assert api.get(f"{W}/sessions/s1/context", query={"tokens": "100001"}).status == 422


def test_card_write_makes_its_observer_and_workspace_not_its_target(api: Api) -> None:
    # crud/peer_card.py:91-94: the observer is got or created; the target never looked up.
    reply = api.put("/v3/workspaces/nx-w/peers/alice/card", {"peer_card": ["x"]})
    assert (reply.status, reply.json) == (200, {"peer_card": ["x"]})
    assert api.post("/v3/workspaces/nx-w/peers/list").json["items"][0]["id"] == "alice"
    put = api.put(
        "/v3/workspaces/nx-w/peers/bob/card", {"peer_card": ["t"]}, query={"target": "nx-t"}
    )
    assert put.status == 200
    peers = api.post("/v3/workspaces/nx-w/peers/list").json["items"]
    assert sorted(p["id"] for p in peers) == ["alice", "bob"]
    got = api.get("/v3/workspaces/nx-w/peers/bob/card", query={"target": "nx-t"})
    assert got.json == {"peer_card": ["t"]}
    context = api.get("/v3/workspaces/nx-w/peers/bob/context", query={"target": "nx-t"})
    assert context.json["peer_card"] == ["t"]


def test_card_lines_lose_nul_characters(api: Api) -> None:
    # schemas/api.py:320-333.
    reply = api.put(f"{W}/peers/alice/card", {"peer_card": ["a\x00b"]})
    assert reply.json == {"peer_card": ["ab"]}
    assert api.get(f"{W}/peers/alice/card").json == {"peer_card": ["ab"]}


def test_refused_card_write_makes_nothing(api: Api) -> None:
    reply = api.put("/v3/workspaces/nx-w/peers/alice/card", {"peer_card": "x"})
    assert reply.status == 422
    put = api.put(
        "/v3/workspaces/nx-w/peers/alice/card", {"peer_card": ["x"]}, query={"target": "scope.z"}
    )
    assert put.status == 422
    assert api.post("/v3/workspaces/list").json["total"] == 0


def test_scope_session_rules(api: Api) -> None:
    api.post(f"{W}/sessions", {"id": "s1"})
    assert api.post(f"{W}/scopes", {"id": "sc"}).status == 201
    # crud/scope.py:396-409: every missing session named, sorted.
    added = api.post(f"{W}/scopes/sc/sessions", {"session_ids": ["s1", "nx2", "nx1"]})
    assert (added.status, added.detail) == (
        404,
        "Session(s) ['nx1', 'nx2'] not found in workspace w",
    )
    assert api.post(f"{W}/scopes/sc/sessions/list").json["total"] == 0
    # crud/scope.py:467-475 looks the session up through remove_peers_from_session.
    removed = api.delete(f"{W}/scopes/sc/sessions/nx")
    assert (removed.status, removed.detail) == (404, "Session nx not found in workspace w")


def test_scope_id_length_and_prefix(api: Api) -> None:
    # schemas/api.py:96-117: 512 minus "scope.", and the prefix named before the pattern.
    assert api.post(f"{W}/scopes", {"id": "a" * 506}).status == 201
    for name, message in (
        ("a" * 507, "Scope name must be between 1 and 506 characters"),
        ("scope.x", "Scope name must not start with the reserved prefix 'scope.'"),
        ("a b", "Scope name must match pattern ^[a-zA-Z0-9_-]+$"),
    ):
        reply = api.post(f"{W}/scopes", {"id": name})
        assert reply.status == 422
        (error,) = reply.detail
        assert (error["type"], error["loc"]) == ("value_error", ["body", "id"])
        assert error["msg"].startswith(f"Value error, {message}")
    assert api.post(f"{W}/scopes/list").json["total"] == 1


def test_clone_with_empty_message_id_is_404(api: Api) -> None:
    # crud/session.py:785 looks the empty id up; routers/sessions.py:449-452.
    api.post(f"{W}/sessions", {"id": "s1"})
    reply = api.post(f"{W}/sessions/s1/clone", query={"message_id": ""})
    assert (reply.status, reply.detail) == (404, "Session not found")
    assert api.post(f"{W}/sessions/list").json["total"] == 1


def test_upload_splits_at_25000_characters(api: Api) -> None:
    # utils/files.py:179, settings.MAX_MESSAGE_SIZE.
    status, made = _upload(api, "text/plain", b"abcd " * 5001)  # 25,005 characters
    assert status == 201 and isinstance(made, list)
    assert [len(m["content"]) for m in made] == [25000, 5]


def test_uploaded_json_is_reserialised_or_refused(api: Api) -> None:
    # utils/files.py:62-79.
    status, made = _upload(api, "application/json", b'{"b": 1,   "a": [1,2]}')
    assert status == 201 and isinstance(made, list)
    assert [m["content"] for m in made] == [json.dumps({"b": 1, "a": [1, 2]})]
    status, refused = _upload(api, "application/json", b'{"b": 1,')
    assert (status, refused) == (422, {"detail": "Uploaded JSON is invalid"})
    status, refused = _upload(api, "application/json", b"\xff")
    assert (status, refused) == (422, {"detail": "JSON uploads must be UTF-8 encoded"})
    assert api.post(f"{W}/sessions/s1/messages/list").json["total"] == 1


def test_text_upload_falls_back_to_utf16_then_latin1(api: Api) -> None:
    # utils/files.py:44-55.
    status, made = _upload(api, "text/plain", b"\xff\xfeo\x00k\x00")
    assert status == 201 and isinstance(made, list)
    assert made[0]["content"] == "ok"  # UTF-16 with its byte-order mark
    status, made = _upload(api, "text/plain", b"\xff\xfe ok")  # odd length: not UTF-16
    assert status == 201 and isinstance(made, list)
    assert made[0]["content"] == "\xff\xfe ok"


def test_upload_over_5_mib_is_413_and_stores_nothing(api: Api) -> None:
    # routers/messages.py:199-202, settings.MAX_FILE_SIZE.
    status, refused = _upload(api, "text/plain", b"x" * (5 * 1024 * 1024 + 1))
    assert (status, refused) == (
        413,
        {"detail": "File size (5242881 bytes) exceeds maximum allowed size (5242880 bytes)"},
    )
    assert api.post(f"{W}/sessions/list").json["total"] == 0
