"""Edge rules taken from the edges differential (tests/differential/edge_steps.py): what a
real Honcho 3.0.12 answered at a route's edges, held here without a recording. Each test
names the 3.0.12 source its rule follows (paths under the kit's `src/`).
"""

from __future__ import annotations

import json

from emu_http import Api, Reply

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


def test_scope_read_option_is_refused_as_a_union(api: Api) -> None:
    # schemas/api.py:129-131: `_ScopeName | list[_ScopeName]` (1 to 100): pydantic reports each
    # member's errors, the member named in `loc` (the errors below are pydantic 2's, as run on
    # 3.0.12's schema).
    one = ["body", "scope", "function-after[_validate_scope_name(), str]"]
    many = ["body", "scope", "list[function-after[_validate_scope_name(), str]]"]
    not_str = {"type": "string_type", "msg": "Input should be a valid string"}
    not_list = {"type": "list_type", "msg": "Input should be a valid list"}
    prefixed = "Value error, Scope name must not start with the reserved prefix 'scope.' "
    prefixed += "(scope names are unprefixed)"
    cases: list[tuple[object, list[dict[str, object]]]] = [
        (
            "scope.x",
            [{"loc": one, "type": "value_error", "msg": prefixed}, {"loc": many, **not_list}],
        ),
        (5, [{"loc": one, **not_str}, {"loc": many, **not_list}]),
        (
            ["a", 1, "scope.x"],
            [
                {"loc": one, **not_str},
                {"loc": [*many, 1], **not_str},
                {"loc": [*many, 2], "type": "value_error", "msg": prefixed},
            ],
        ),
        (
            [],
            [
                {"loc": one, **not_str},
                {
                    "loc": many,
                    "type": "too_short",
                    "ctx": {"field_type": "List", "min_length": 1, "actual_length": 0},
                },
            ],
        ),
        (
            [1] * 101,
            [
                {"loc": one, **not_str},
                {
                    "loc": many,
                    "type": "too_long",
                    "ctx": {"field_type": "List", "max_length": 100, "actual_length": 101},
                },
            ],
        ),
    ]
    api.post(f"{W}/peers", {"id": "bob"})
    for route, body in (
        (f"{W}/peers/bob/chat", {"query": "q"}),
        (f"{W}/peers/bob/representation", {}),
    ):
        for value, want in cases:
            reply = api.post(route, {**body, "scope": value})
            assert reply.status == 422, (route, value)
            got = [
                {key: error[key] for key in expected}
                for error, expected in zip(reply.detail, want, strict=True)
            ]
            assert got == want, (route, value)


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


def _errors(reply: Reply) -> list[tuple[str, list[object], str]]:
    return [(e["type"], e["loc"], e["msg"]) for e in reply.detail]


def test_bool_parsed_in_pydantic_lax_mode(api: Api) -> None:
    assert api.put(W, {"configuration": {"reasoning": {"enabled": "no"}}}).status == 200
    bad = api.put(W, {"configuration": {"reasoning": {"enabled": "maybe"}}})
    assert _errors(bad) == [
        (
            "bool_parsing",
            ["body", "configuration", "reasoning", "enabled"],
            "Input should be a valid boolean, unable to interpret input",
        )
    ]
    wrong = api.put(W, {"configuration": {"reasoning": {"enabled": []}}})
    assert _errors(wrong)[0][0] == "bool_type"


def test_float_bounds_worded_as_pydantic(api: Api) -> None:
    api.post(f"{W}/peers", {"id": "alice"})
    low = api.post(f"{W}/peers/alice/representation", {"search_max_distance": -0.1})
    assert low.detail == [
        {
            "type": "greater_than_equal",
            "loc": ["body", "search_max_distance"],
            "msg": "Input should be greater than or equal to 0",
            "input": -0.1,
            "ctx": {"ge": 0.0},
        }
    ]
    high = api.get(f"{W}/peers/alice/context", query={"search_max_distance": "1.1"})
    assert _errors(high)[0][2] == "Input should be less than or equal to 1"


def test_metadata_limit_error_has_error_ctx(api: Api) -> None:
    reply = api.post(f"{W}/peers", {"id": "p", "metadata": {"a": {"b": {"c": {"d": {"e": {}}}}}}})
    (error,) = reply.detail
    assert (error["type"], error["ctx"]) == ("value_error", {"error": {}})


def test_dream_type_is_an_enum(api: Api) -> None:
    reply = api.post(f"{W}/schedule_dream", {"observer": "alice", "dream_type": "nightmare"})
    (error,) = reply.detail
    assert (error["type"], error["msg"]) == ("enum", "Input should be 'omni' or 'card_refresh'")


def test_required_bodies_missing_or_null(api: Api) -> None:
    api.post(f"{W}/sessions", {"id": "s1"})
    missing = [("missing", ["body"], "Field required")]
    assert _errors(api.post(f"{W}/peers/alice/representation")) == missing
    assert _errors(api.post(f"{W}/sessions/s1/peers", raw=b"null")) == missing
    assert _errors(api.put(f"{W}/sessions/s1/peers")) == missing
    assert _errors(api.delete(f"{W}/sessions/s1/peers", raw=b"null")) == missing


def test_card_body_errors(api: Api) -> None:
    null = api.put(f"{W}/peers/alice/card", {"peer_card": None})
    assert _errors(null) == [("list_type", ["body", "peer_card"], "Input should be a valid list")]
    items = api.put(f"{W}/peers/alice/card", {"peer_card": ["ok", 1, None]})
    assert _errors(items) == [
        ("string_type", ["body", "peer_card", 1], "Input should be a valid string"),
        ("string_type", ["body", "peer_card", 2], "Input should be a valid string"),
    ]


def test_new_peer_names_all_named(api: Api) -> None:
    # crud/peer.py:96-100.
    reply = api.post(f"{W}/sessions", {"id": "s1", "peers": {"b c": {}, "a b": {}, "ok": {}}})
    assert (reply.status, reply.detail) == (
        422,
        "Peer name(s) ['a b', 'b c'] must match pattern ^[a-zA-Z0-9_-]+$",
    )


def test_session_scopes_error_is_the_lists(api: Api) -> None:
    reply = api.post(f"{W}/sessions", {"id": "s1", "scopes": ["ok", "scope.x"]})
    (error,) = reply.detail
    assert (error["loc"], error["input"]) == (["body", "scopes"], ["ok", "scope.x"])


def test_filter_texts(api: Api) -> None:
    api.post(f"{W}/sessions", {"id": "s1"})
    for filters, text in (
        ({"created_at": {"gte": "yesterday"}}, "Invalid datetime value: yesterday"),
        (
            {"peer_id": {"like": "a"}},
            "Invalid filter for column 'peer_id': unsupported operator(s) ['like']. Expected "
            "one of ['contains', 'gt', 'gte', 'icontains', 'in', 'lt', 'lte', 'ne'] or a "
            "scalar value.",
        ),
    ):
        reply = api.post(f"{W}/sessions/s1/messages/list", {"filters": filters})
        assert (reply.status, reply.detail) == (422, text)
    peers = api.post(f"{W}/peers/list", {"filters": {"is_active": True}})
    assert peers.detail == "Column 'is_active' does not exist on Peer"
    conclusions = api.post(f"{W}/conclusions/list", {"filters": {"nope": 1}})
    assert conclusions.detail == "Column 'nope' does not exist on Document"


def test_unparsable_datetimes_carry_the_parsers_reason(api: Api) -> None:
    reply = api.post(
        f"{W}/sessions/s1/messages",
        {"messages": [{"peer_id": "a", "content": "x", "created_at": "yesterday"}]},
    )
    (error,) = reply.detail
    assert (error["msg"], error["ctx"]) == (
        "Input should be a valid datetime or date, input is too short",
        {"error": "input is too short"},
    )
    # routers/keys.py:29-38: the query is parsed before "Feature is disabled" (auth off).
    key = api.post("/v3/keys", query={"expires_at": "soon"})
    assert key.status == 422 and key.detail[0]["loc"] == ["query", "expires_at"]
    assert api.post("/v3/keys").status == 405


def test_representation_reads_filters_before_scope(api: Api) -> None:
    # routers/peers.py:498-507: the filters' allowlist is parsed before the scope rules.
    api.post(f"{W}/peers", {"id": "alice"})
    api.post(f"{W}/scopes", {"id": "sc"})
    path = f"{W}/peers/alice/representation"
    empty = api.post(path, {"scope": "sc", "filters": {}})
    assert (empty.status, empty.detail) == (422, "filters must contain 'session_id'")
    both = api.post(path, {"scope": "sc", "filters": {"session_id": "s1"}})
    assert (both.status, both.detail) == (422, "`scope` and `filters` are mutually exclusive")


def test_workspace_search_scope_keeps_removed_sessions(api: Api) -> None:
    # routers/workspaces.py:157-170: get_peer_session_names counts left memberships too.
    for session in ("s1", "s2"):
        api.post(
            f"{W}/sessions/{session}/messages", {"messages": [{"peer_id": "a", "content": "tea"}]}
        )
    api.post(f"{W}/scopes", {"id": "sc"})
    api.post(f"{W}/scopes/sc/sessions", {"session_ids": ["s1", "s2"]})
    assert api.delete(f"{W}/scopes/sc/sessions/s2").status == 204
    assert api.post(f"{W}/scopes/sc/sessions/list").json["total"] == 1
    hits = api.post(f"{W}/search", {"query": "tea", "scope": "sc"}).json
    assert sorted(m["session_id"] for m in hits) == ["s1", "s2"]


def test_a_clone_copies_rows_without_token_counts_or_embeddings(api: Api) -> None:
    # crud/session.py:746-836 inserts content, metadata, peer and position only: the token
    # count is the column's default (0) and no embedding is made, so a search finds the copy
    # by its words only, never by meaning.
    api.post(f"{W}/sessions", {"id": "s1"})
    api.post(f"{W}/sessions/s1/messages", {"messages": [{"peer_id": "alice", "content": "late"}]})
    clone = api.post(f"{W}/sessions/s1/clone").json["id"]
    (copy,) = api.post(f"{W}/sessions/{clone}/messages/list").json["items"]
    assert (copy["content"], copy["token_count"]) == ("late", 0)
    context = api.get(f"{W}/sessions/{clone}/context", query={"tokens": "1"}).json
    assert [m["content"] for m in context["messages"]] == ["late"]
    # No word of the query is in either message: only the original is near it by meaning.
    hits = api.post(f"{W}/search", {"query": "tea", "limit": 10}).json
    assert [hit["session_id"] for hit in hits] == ["s1"]
    # By its word the copy is found.
    hits = api.post(f"{W}/search", {"query": "late", "limit": 10}).json
    assert sorted(hit["session_id"] for hit in hits) == sorted(["s1", clone])


def test_scope_option_of_search_and_session_context_is_a_plain_string(api: Api) -> None:
    # schemas/api.py:740 and routers/sessions.py:715: `str`, looked up as sent
    # (crud/scope.py:259-318), never checked as a name; a list is not a string.
    api.post(f"{W}/sessions", {"id": "s1"})
    for name in ("scope.sc1", ""):
        reply = api.get(f"{W}/sessions/s1/context", query={"peer_target": "alice", "scope": name})
        assert (reply.status, reply.detail) == (404, f"Scope {name} not found in workspace w")
    reply = api.post(f"{W}/search", {"query": "tea", "scope": "scope.sc1"})
    assert (reply.status, reply.detail) == (404, "Scope scope.sc1 not found in workspace w")
    reply = api.post(f"{W}/search", {"query": "tea", "scope": ["sc1"]})
    assert reply.status == 422
    assert reply.detail == [
        {
            "type": "string_type",
            "loc": ["body", "scope"],
            "msg": "Input should be a valid string",
            "input": ["sc1"],
        }
    ]
