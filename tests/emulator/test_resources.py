"""Workspaces, peers, sessions, messages and conclusions: statuses and body shapes."""

from __future__ import annotations

from emu_http import Api, wait_for

from roncho.testing import FakeHoncho

W = "/v3/workspaces"
PAGE_KEYS = {"items", "total", "page", "size", "pages"}
MESSAGE_KEYS = {
    "id",
    "content",
    "peer_id",
    "session_id",
    "metadata",
    "created_at",
    "workspace_id",
    "token_count",
}


def test_workspace_get_or_create_201_then_200_ignoring_body(api: Api) -> None:
    created = api.post(W, {"id": "w", "metadata": {"a": 1}, "configuration": {"x": 1}})
    assert created.status == 201
    assert set(created.json) == {"id", "metadata", "configuration", "created_at"}
    again = api.post(W, {"name": "w", "metadata": {"b": 2}})
    assert again.status == 200
    assert again.json["metadata"] == {"a": 1}


def test_workspace_update_replaces_metadata_merges_configuration(api: Api) -> None:
    api.post(W, {"id": "w", "metadata": {"a": 1}, "configuration": {"x": 1, "y": 2}})
    updated = api.put(f"{W}/w", {"metadata": {"b": 2}, "configuration": {"y": 3}})
    assert updated.status == 200
    assert updated.json["metadata"] == {"b": 2}
    assert updated.json["configuration"] == {"x": 1, "y": 3}
    assert api.put(f"{W}/fresh", {}).status == 200  # get-or-create


def test_workspace_list_is_a_page(api: Api) -> None:
    for name in ("a", "b", "c"):
        api.post(W, {"id": name, "metadata": {"n": name}})
    page = api.post(f"{W}/list", query={"size": 2}).json
    assert set(page) == PAGE_KEYS
    assert (page["total"], page["pages"], len(page["items"])) == (3, 2, 2)
    filtered = api.post(f"{W}/list", {"filters": {"metadata": {"n": "b"}}}).json
    assert [w["id"] for w in filtered["items"]] == ["b"]


def test_workspace_delete_409_then_202_then_404(fake_honcho: FakeHoncho, api: Api) -> None:
    api.add_messages("w", "s", ("alice", "hi"))
    busy = api.delete(f"{W}/w")
    assert busy.status == 409
    assert busy.detail == (
        "Cannot delete workspace 'w': active session(s) remain. Delete all sessions first."
    )
    deleted = api.delete(f"{W}/w/sessions/s")
    assert (deleted.status, deleted.json) == (202, {"message": "Session deleted successfully"})
    accepted = api.delete(f"{W}/w")
    assert (accepted.status, accepted.json) == (202, {"message": "Workspace deletion accepted"})
    assert api.delete(f"{W}/w").status == 202  # again, until purged
    gone = wait_for(lambda: api.delete(f"{W}/w").status == 404, what="workspace purge")
    assert gone
    assert api.delete(f"{W}/w").detail == "Workspace w not found"
    assert api.post(f"{W}/w/sessions/s/messages/list").json["total"] == 0


def test_peer_get_or_create_and_replace(api: Api) -> None:
    created = api.post(f"{W}/w/peers", {"id": "alice", "configuration": {"observe_me": False}})
    assert created.status == 201
    assert set(created.json) == {"id", "workspace_id", "created_at", "metadata", "configuration"}
    again = api.post(f"{W}/w/peers", {"id": "alice", "metadata": {"k": 1}})
    assert again.status == 200
    assert again.json["metadata"] == {"k": 1}
    assert again.json["configuration"] == {"observe_me": False}
    put = api.put(f"{W}/w/peers/alice", {"configuration": {"x": 1}})
    assert (put.status, put.json["configuration"]) == (200, {"x": 1})
    listed = api.post(f"{W}/w/peers/list", {"filters": {"id": "alice"}}).json
    assert [p["id"] for p in listed["items"]] == ["alice"]


def test_unknown_filter_key_is_string_422(api: Api) -> None:
    api.post(f"{W}/w/peers", {"id": "alice"})
    reply = api.post(f"{W}/w/peers/list", {"filters": {"nope": 1}})
    assert reply.status == 422
    assert reply.detail == (
        "Column 'nope' is not allowed to be filtered on or does not exist on Peer"
    )
    msg = api.post(f"{W}/w/sessions/s/messages/list", {"filters": {"id": "x"}})
    assert msg.detail.endswith("does not exist on Message")


def test_session_get_or_create_with_peers(api: Api) -> None:
    body = {"id": "s", "peers": {"alice": {"observe_me": False}, "bob": {}}}
    created = api.post(f"{W}/w/sessions", body)
    assert created.status == 201
    assert set(created.json) == {
        "id",
        "is_active",
        "workspace_id",
        "metadata",
        "configuration",
        "created_at",
    }
    again = api.post(f"{W}/w/sessions", {"id": "s", "peers": {"alice": {"observe_me": True}}})
    assert again.status == 200
    config = api.get(f"{W}/w/sessions/s/peers/alice/config")
    assert (config.status, config.json) == (200, {"observe_me": False, "observe_others": None})
    members = api.get(f"{W}/w/sessions/s/peers").json
    assert sorted(p["id"] for p in members["items"]) == ["alice", "bob"]
    assert api.post(f"{W}/w/peers/alice/sessions").json["total"] == 1


def test_session_peer_config_put_merges_and_answers_204(api: Api) -> None:
    api.post(f"{W}/w/sessions", {"id": "s", "peers": {"alice": {"observe_me": False}}})
    reply = api.put(f"{W}/w/sessions/s/peers/alice/config", {"observe_others": True})
    assert (reply.status, reply.body) == (204, b"")
    config = api.get(f"{W}/w/sessions/s/peers/alice/config").json
    assert config == {"observe_me": False, "observe_others": True}
    missing = api.get(f"{W}/w/sessions/s/peers/zed/config")
    assert (missing.status, missing.detail) == (404, "Peer zed not found in workspace w")


def test_session_peer_set_and_remove(api: Api) -> None:
    api.post(f"{W}/w/sessions/s/peers", {"alice": {}, "bob": {}})
    replaced = api.put(f"{W}/w/sessions/s/peers", {"carol": {"observe_others": True}})
    assert replaced.status == 200
    names = [p["id"] for p in api.get(f"{W}/w/sessions/s/peers").json["items"]]
    assert names == ["carol"]
    assert api.delete(f"{W}/w/sessions/s/peers", ["carol"]).status == 200
    assert api.get(f"{W}/w/sessions/s/peers").json["total"] == 0


def test_observer_limit_is_400(api: Api) -> None:
    peers = {f"p{i}": {"observe_others": True} for i in range(11)}
    reply = api.post(f"{W}/w/sessions", {"id": "s", "peers": peers})
    assert reply.status == 400
    assert "Maximum allowed is 10 observers" in reply.detail


def test_session_list_update_and_delete(fake_honcho: FakeHoncho, api: Api) -> None:
    api.post(f"{W}/w/sessions", {"id": "s1", "metadata": {"k": "v"}})
    api.post(f"{W}/w/sessions", {"id": "s2"})
    updated = api.put(f"{W}/w/sessions/s2", {"configuration": {"a": 1}})
    assert (updated.status, updated.json["configuration"]) == (200, {"a": 1})
    assert api.post(f"{W}/w/sessions/list").json["total"] == 2
    api.add_messages("w", "s1", ("alice", "keep me for a moment"))
    assert api.delete(f"{W}/w/sessions/s1").status == 202
    assert api.post(f"{W}/w/sessions/list").json["total"] == 1
    # Inactive: 404 on get-or-create and on a second delete, messages listable until purge.
    gone = api.post(f"{W}/w/sessions", {"id": "s1"})
    assert (gone.status, gone.detail) == (404, "Session s1 not found in workspace w")
    assert api.delete(f"{W}/w/sessions/s1").status == 404
    assert api.add_messages("w", "s1", ("alice", "late")).status == 404
    assert api.post(f"{W}/w/sessions/s1/messages/list").json["total"] == 1
    wait_for(
        lambda: api.post(f"{W}/w/sessions/s1/messages/list").json["total"] == 0,
        what="session purge",
    )
    assert api.post(f"{W}/w/sessions", {"id": "s1"}).status == 201  # reusable after purge


def test_add_messages_shape_and_side_effects(api: Api) -> None:
    reply = api.add_messages("w", "s", ("alice", "one"), ("bob", "two"))
    assert reply.status == 201
    assert [set(m) for m in reply.json] == [MESSAGE_KEYS, MESSAGE_KEYS]
    assert [m["content"] for m in reply.json] == ["one", "two"]
    assert reply.json[0]["token_count"] == 1
    members = api.get(f"{W}/w/sessions/s/peers").json["items"]
    assert [p["id"] for p in members] == ["alice", "bob"]
    config = api.get(f"{W}/w/sessions/s/peers/bob/config").json
    assert config == {"observe_me": None, "observe_others": None}


def test_add_messages_limits(api: Api) -> None:
    path = f"{W}/w/sessions/s/messages"
    assert api.post(path, {"messages": []}).detail[0]["type"] == "too_short"
    many = [{"peer_id": "a", "content": "x"}] * 101
    assert api.post(path, {"messages": many}).detail[0]["type"] == "too_long"
    big = api.post(path, {"messages": [{"peer_id": "a", "content": "x" * 25001}]})
    assert big.detail[0]["type"] == "string_too_long"
    assert big.detail[0]["loc"] == ["body", "messages", 0, "content"]
    bad_peer = api.post(path, {"messages": [{"peer_id": "no spaces", "content": "x"}]})
    assert bad_peer.status == 422 and isinstance(bad_peer.detail, str)


def test_list_messages_paging_reverse_filters(api: Api) -> None:
    api.add_messages("w", "s", *[("alice", f"m{i}") for i in range(5)])
    path = f"{W}/w/sessions/s/messages/list"
    page = api.post(path, query={"page": 2, "size": 2}).json
    assert [m["content"] for m in page["items"]] == ["m2", "m3"]
    assert (page["total"], page["page"], page["size"], page["pages"]) == (5, 2, 2, 3)
    backwards = api.post(path, query={"reverse": "true", "size": 2}).json
    assert [m["content"] for m in backwards["items"]] == ["m4", "m3"]
    assert api.post(path, query={"size": 101}).status == 422
    assert api.post(f"{W}/w/sessions/other/messages/list").json["total"] == 0


def test_message_filters(api: Api) -> None:
    path = f"{W}/w/sessions/s/messages"
    items = [
        {"peer_id": "alice", "content": "a", "metadata": {"label": "keep", "n": 3}},
        {"peer_id": "bob", "content": "b", "metadata": {"label": "drop", "n": 10}},
        {"peer_id": "carol", "content": "c"},
    ]
    api.post(path, {"messages": items})

    def contents(filters: object) -> list[str]:
        reply = api.post(f"{path}/list", {"filters": filters})
        assert reply.status == 200, reply
        return [m["content"] for m in reply.json["items"]]

    assert contents({"metadata": {"label": "keep"}}) == ["a"]
    assert contents({"metadata.n": {"gte": 5}}) == ["b"]
    assert contents({"metadata": {"n": {"lt": 5}}}) == ["a"]
    assert contents({"peer_id": ["alice", "carol"]}) == ["a", "c"]
    assert contents({"peer_id": {"in": ["bob"]}}) == ["b"]
    assert contents({"OR": [{"peer_id": "alice"}, {"peer_id": "bob"}]}) == ["a", "b"]
    assert contents({"NOT": [{"peer_id": "alice"}]}) == ["b", "c"]
    assert contents({"peer_id": "*"}) == ["a", "b", "c"]
    assert contents({"peer_id": {"ne": "bob"}, "session_id": "s"}) == ["a", "c"]
    assert contents({"created_at": {"gte": "2000-01-01"}}) == ["a", "b", "c"]
    assert contents({"created_at": {"lt": "2000-01-01T00:00:00Z"}}) == []
    assert contents({"peer_id": {"icontains": "AR"}}) == ["c"]


def test_get_and_update_message(api: Api) -> None:
    (message,) = api.add_messages("w", "s", ("alice", "text")).json
    path = f"{W}/w/sessions/s/messages/{message['id']}"
    assert api.get(path).json == message
    updated = api.put(path, {"metadata": {"k": 1}})
    assert updated.status == 200
    assert (updated.json["metadata"], updated.json["content"]) == ({"k": 1}, "text")
    missing = api.get(f"{W}/w/sessions/s/messages/nope")
    assert (missing.status, missing.detail) == (404, "Message with ID nope not found")
    assert api.put(f"{W}/w/sessions/s/messages/nope", {"metadata": {}}).detail == (
        "Message not found"
    )


def test_conclusions_create_list_query_delete(api: Api) -> None:
    api.post(f"{W}/w/sessions", {"id": "s", "peers": {"alice": {}, "bob": {}}})
    body = {
        "conclusions": [
            {"content": "Alice likes tea", "observer_id": "bob", "observed_id": "alice"},
            {
                "content": "Alice hates rain",
                "observer_id": "bob",
                "observed_id": "alice",
                "session_id": "s",
            },
        ]
    }
    created = api.post(f"{W}/w/conclusions", body)
    assert created.status == 201
    first = created.json[0]
    assert first["level"] == "explicit" and first["source_ids"] is None
    assert set(first) >= {"id", "content", "observer_id", "observed_id", "session_id"}
    # One batch shares one timestamp; ties keep insertion order in both directions (3.0.12).
    assert created.json[0]["created_at"] == created.json[1]["created_at"]
    listed = api.post(f"{W}/w/conclusions/list").json
    assert [c["content"] for c in listed["items"]] == ["Alice likes tea", "Alice hates rain"]
    oldest = api.post(f"{W}/w/conclusions/list", query={"reverse": "true"}).json
    assert oldest["items"][0]["content"] == "Alice likes tea"
    later = api.post(
        f"{W}/w/conclusions",
        {"conclusions": [{"content": "Alice naps", "observer_id": "bob", "observed_id": "alice"}]},
    )
    assert later.status == 201
    newest = api.post(f"{W}/w/conclusions/list").json["items"]
    assert newest[0]["content"] == "Alice naps"
    filters = {"observer_id": "bob", "observed_id": "alice"}
    hits = api.post(f"{W}/w/conclusions/query", {"query": "tea", "filters": filters})
    assert hits.status == 200
    assert hits.json[0]["content"] == "Alice likes tea"
    top = api.post(f"{W}/w/conclusions/query", {"query": "x", "filters": filters, "top_k": 1})
    assert len(top.json) == 1
    no_filters = api.post(f"{W}/w/conclusions/query", {"query": "tea"})
    assert no_filters.status == 422
    assert no_filters.detail.startswith("observer and observed must be specified")
    deleted = api.delete(f"{W}/w/conclusions/{first['id']}")
    assert (deleted.status, deleted.body) == (204, b"")
    assert deleted.headers["content-type"] == "application/json"
    again = api.delete(f"{W}/w/conclusions/{first['id']}")
    assert again.status == 404
    assert again.detail == f"Document {first['id']} not found or does not belong to workspace w"


def test_conclusions_validation(api: Api) -> None:
    api.post(f"{W}/w/peers", {"id": "alice"})
    assert api.post(f"{W}/w/conclusions", {"conclusions": []}).detail[0]["type"] == "too_short"
    missing_peer = {"content": "x", "observer_id": "alice", "observed_id": "ghost"}
    reply = api.post(f"{W}/w/conclusions", {"conclusions": [missing_peer]})
    assert (reply.status, reply.detail) == (404, "Peer ghost not found in workspace w")
    bad_session = {"content": "x", "observer_id": "alice", "observed_id": "alice"}
    bad_session["session_id"] = "nope"
    reply = api.post(f"{W}/w/conclusions", {"conclusions": [bad_session]})
    assert (reply.status, reply.detail) == (404, "Session nope not found in workspace w")


def test_search_endpoints(api: Api) -> None:
    api.add_messages(
        "w",
        "s1",
        ("alice", "I went hiking in the alps"),
        ("bob", "hiking is fun, the alps too"),
        ("alice", "nothing related"),
    )
    api.add_messages("w", "s2", ("alice", "more hiking"))
    ranked = [m["content"] for m in api.post(f"{W}/w/search", {"query": "alps hiking"}).json]
    # As 3.0.12's hybrid search: the full-text matches (every query word) lead; semantic
    # search (no distance cut-off) fills up to the limit with the rest.
    assert sorted(ranked[:2]) == ["I went hiking in the alps", "hiking is fun, the alps too"]
    assert sorted(ranked[2:]) == ["more hiking", "nothing related"]
    assert len(api.post(f"{W}/w/search", {"query": "hiking", "limit": 1}).json) == 1
    assert api.post(f"{W}/w/search", {"query": "hiking", "limit": 0}).status == 422
    peer = api.post(f"{W}/w/peers/bob/search", {"query": "hiking"}).json
    assert [m["peer_id"] for m in peer] == ["bob"]
    session = api.post(f"{W}/w/sessions/s2/search", {"query": "hiking"}).json
    assert [m["session_id"] for m in session] == ["s2"]
    filtered = api.post(
        f"{W}/w/search", {"query": "hiking", "filters": {"session_id": "s1", "peer_id": "bob"}}
    ).json
    assert [m["peer_id"] for m in filtered] == ["bob"]


def test_context_representation_card_summaries(api: Api) -> None:
    api.add_messages("w", "s", ("alice", "hello there"), ("bob", "hi alice"))
    context = api.get(f"{W}/w/sessions/s/context").json
    assert set(context) == {"id", "messages", "summary", "peer_representation", "peer_card"}
    assert [m["content"] for m in context["messages"]] == ["hello there", "hi alice"]
    summaries = api.get(f"{W}/w/sessions/s/summaries").json
    assert summaries == {"id": "s", "short_summary": None, "long_summary": None}
    card = api.put(f"{W}/w/peers/alice/card", {"peer_card": ["likes tea"]})
    assert card.json == {"peer_card": ["likes tea"]}
    assert api.get(f"{W}/w/peers/alice/card").json == {"peer_card": ["likes tea"]}
    peer_context = api.get(f"{W}/w/peers/alice/context").json
    assert set(peer_context) == {"peer_id", "target_id", "representation", "peer_card"}
    representation = api.post(f"{W}/w/peers/alice/representation", {})
    assert representation.status == 200 and "representation" in representation.json
    assert api.get(f"{W}/w/peers/ghost/context").detail == "Peer ghost not found in workspace w"


def test_bad_author_creates_no_session(api: Api) -> None:
    path = f"{W}/w/sessions/s/messages"
    assert api.post(path, {"messages": [{"peer_id": "bad name", "content": "x"}]}).status == 422
    assert api.post(f"{W}/w/sessions/list").json["total"] == 0
