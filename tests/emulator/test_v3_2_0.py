"""What `FakeHoncho(version="3.2.0")` adds to 3.0.12, and that `version="3.0.12"` keeps none of it.

No 3.2.0 server was seen here: each expectation comes from 3.2.0's release note (conclusion
attribution, plastic-labs/honcho PR 952), its server code (branch abigail/dev-2219:
`get_conclusion`, the `Conclusion` schema, `_build_source_ids_condition`), the official SDK's
response models (honcho-ai 2.7.0) or the one observation of the owner's 3.2.0 server
(`source_ids: null`); docs/emulator.md lists which is which.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from emu_http import Api

import roncho
from roncho import ConclusionCreate, EvidenceConclusion, StatusError
from roncho.testing import FakeHoncho

W = "/v3/workspaces/w"


@pytest.fixture
def fake_3_2_0() -> Iterator[FakeHoncho]:
    with FakeHoncho(version="3.2.0") as fake:
        yield fake


@pytest.fixture
def fake_3_0_12() -> Iterator[FakeHoncho]:
    with FakeHoncho(version="3.0.12") as fake:
        yield fake


def _conclusions(api: Api) -> list[dict[str, object]]:
    api.post(f"{W}/sessions", {"id": "s1", "peers": {"alice": {}, "bob": {}}})
    made = api.post(
        f"{W}/conclusions",
        {
            "conclusions": [
                {"content": "alice likes tea", "observer_id": "bob", "observed_id": "alice"},
                {
                    "content": "alice hikes",
                    "observer_id": "bob",
                    "observed_id": "alice",
                    "session_id": "s1",
                },
            ]
        },
    )
    assert made.status == 201, made
    result: list[dict[str, object]] = made.json
    return result


def test_3_2_0_conclusions_carry_attribution(fake_3_2_0: FakeHoncho) -> None:
    api = Api(fake_3_2_0.port)
    made = _conclusions(api)
    keys = {
        "id",
        "content",
        "observer_id",
        "observed_id",
        "session_id",
        "level",
        "created_at",
        "source_ids",
        "times_derived",
    }
    for body in made:
        assert set(body) == keys
        # Observed on the owner's 3.2.0 for an explicit conclusion; PR 952's schema: "None for
        # 'explicit' conclusions", times_derived defaults to 1.
        assert (body["level"], body["source_ids"], body["times_derived"]) == ("explicit", None, 1)
    listed = api.post(f"{W}/conclusions/list").json["items"]
    assert sorted(listed, key=lambda c: str(c["id"])) == sorted(made, key=lambda c: str(c["id"]))
    query = {"query": "tea", "filters": {"observer_id": "bob", "observed_id": "alice"}}
    hits = api.post(f"{W}/conclusions/query", query).json
    assert hits and all(set(hit) == keys for hit in hits)


def test_3_2_0_get_conclusion(fake_3_2_0: FakeHoncho) -> None:
    api = Api(fake_3_2_0.port)
    first, second = _conclusions(api)
    reply = api.get(f"{W}/conclusions/{first['id']}")
    assert (reply.status, reply.json) == (200, first)
    assert api.get(f"{W}/conclusions/{second['id']}").json == second
    missing = api.get(f"{W}/conclusions/nope")
    assert (missing.status, missing.detail) == (404, "Conclusion not found")
    # Another workspace's id, and a workspace that does not exist: the same 404.
    assert api.get(f"/v3/workspaces/other/conclusions/{first['id']}").status == 404
    assert api.delete(f"{W}/conclusions/{first['id']}").status == 204
    gone = api.get(f"{W}/conclusions/{first['id']}")
    assert (gone.status, gone.detail) == (404, "Conclusion not found")


def test_3_2_0_get_conclusion_wants_a_workspace_key() -> None:
    with FakeHoncho(version="3.2.0", auth=True) as fake:
        admin = Api(fake.port, fake.admin_key)
        [made, _] = _conclusions(admin)
        assert admin.get(f"{W}/conclusions/{made['id']}").status == 200
        assert Api(fake.port).get(f"{W}/conclusions/{made['id']}").status == 401
        other = admin.post("/v3/keys", query={"workspace_id": "other"}).json["key"]
        assert Api(fake.port, other).get(f"{W}/conclusions/{made['id']}").status == 401
        own = admin.post("/v3/keys", query={"workspace_id": "w"}).json["key"]
        assert Api(fake.port, own).get(f"{W}/conclusions/{made['id']}").status == 200


@pytest.mark.parametrize(
    "value", [{"contains": "x"}, "x", ["x"], {"in": ["x", "y"]}, {"contains": "x", "in": ["x"]}]
)
def test_3_2_0_source_ids_filter_by_membership_finds_no_explicit(
    fake_3_2_0: FakeHoncho, value: object
) -> None:
    """What the SDK's `derived()` sends, answered as PR 952 does: 200, and no explicit
    conclusion lists a premise."""
    api = Api(fake_3_2_0.port)
    _conclusions(api)
    reply = api.post(f"{W}/conclusions/list", {"filters": {"source_ids": value}})
    assert (reply.status, reply.json["total"], reply.json["items"]) == (200, 0, [])


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        ({"gte": "x"}, "Operator 'gte' is not supported on source_ids"),
        ({"contains": ""}, "source_ids filter entries must be non-empty strings"),
        ([1], "source_ids filter entries must be non-empty strings"),
        ({"in": "x"}, "Invalid value for 'in' operator: x. Expected an iterable"),
        (5, "Invalid source_ids filter value: 5"),
    ],
)
def test_3_2_0_source_ids_filter_refusals(
    fake_3_2_0: FakeHoncho, value: object, detail: str
) -> None:
    api = Api(fake_3_2_0.port)
    _conclusions(api)
    reply = api.post(f"{W}/conclusions/list", {"filters": {"source_ids": value}})
    assert (reply.status, reply.detail) == (422, detail)


def test_3_2_0_source_ids_membership_over_derived_conclusions(fake_3_2_0: FakeHoncho) -> None:
    """A deductive conclusion (a dream's, which the emulator does not make: restored from a
    snapshot) is found by each of its premises, and `in` matches any of them."""
    api = Api(fake_3_2_0.port)
    premise_a, premise_b = _conclusions(api)
    snapshot = fake_3_2_0.export_state()
    [workspace] = snapshot["workspaces"]
    template = workspace["conclusions"][0]
    workspace["conclusions"].append(
        {
            **template,
            "id": "d" * 21,
            "seq": template["seq"] + 100,
            "level": "deductive",
            "content": "alice is outdoorsy",
            "source_ids": [premise_a["id"], premise_b["id"]],
        }
    )
    fake_3_2_0.restore_state(json.loads(json.dumps(snapshot)))

    def found(value: object) -> list[object]:
        reply = api.post(f"{W}/conclusions/list", {"filters": {"source_ids": value}})
        assert reply.status == 200, reply
        return [c["id"] for c in reply.json["items"]]

    assert found({"contains": premise_a["id"]}) == ["d" * 21]
    assert found(premise_b["id"]) == ["d" * 21]
    assert found([premise_a["id"], premise_b["id"]]) == ["d" * 21]
    assert found([premise_a["id"], "nope"]) == []
    assert found({"in": ["nope", premise_b["id"]]}) == ["d" * 21]
    derived = api.get(f"{W}/conclusions/{'d' * 21}").json
    assert derived["level"] == "deductive"
    assert derived["source_ids"] == [premise_a["id"], premise_b["id"]]


def test_3_2_0_evidence_in_peer_and_workspace_chat_and_their_streams(
    fake_3_2_0: FakeHoncho,
) -> None:
    api = Api(fake_3_2_0.port)
    _conclusions(api)
    api.post(f"{W}/sessions/s1/messages", {"messages": [{"peer_id": "alice", "content": "tea!"}]})
    for path, extra in ((f"{W}/peers/bob/chat", {"target": "alice"}), (f"{W}/chat", {})):
        whole = api.post(path, {"query": "tea", "include_evidence": True, **extra})
        assert whole.status == 200 and set(whole.json) == {"content", "evidence"}
        evidence = whole.json["evidence"]
        assert set(evidence) == {"conclusions", "messages", "tool_calls", "reasoning_trace_id"}
        assert evidence["conclusions"][0]["content"] == "alice likes tea"
        # The SDK's EvidenceObservation, without the peers 3.2.1 added (its release notes).
        assert set(evidence["conclusions"][0]) == {
            "id", "level", "content", "created_at", "session_id", "source_ids"
        }  # fmt: skip
        assert set(evidence["messages"][0]) == {"id", "session_id", "peer_id", "created_at"}
        streamed = api.post(
            path, {"query": "tea", "include_evidence": True, "stream": True, **extra}
        )
        events = [json.loads(line[6:]) for line in streamed.body.decode().split("\n\n") if line]
        assert [e["done"] for e in events] == [False] * (len(events) - 1) + [True]
        assert "evidence" not in events[0]
        # 3.2.0's release notes (PR 1188): a stream's evidence arrives on its final event.
        assert events[-1]["evidence"] == evidence
        plain = api.post(path, {"query": "tea", **extra})
        assert set(plain.json) == {"content"}


def test_3_0_12_has_none_of_it(fake_3_0_12: FakeHoncho) -> None:
    api = Api(fake_3_0_12.port)
    first, _ = _conclusions(api)
    assert "times_derived" not in first and "source_ids" not in first
    reply = api.get(f"{W}/conclusions/{first['id']}")
    # The real 3.0.12 (kit, 2026-12-07): 405, the path having only DELETE.
    assert (reply.status, reply.detail) == (405, "Method Not Allowed")
    refused = api.post(f"{W}/conclusions/list", {"filters": {"source_ids": {"contains": "x"}}})
    assert refused.status == 422 and "JSONB column" in refused.detail
    assert api.post(f"{W}/chat", {"query": "tea"}).status == 404


def test_roncho_get_conclusion_on_both_versions() -> None:
    with FakeHoncho(version="3.2.0") as fake, roncho.Client(fake.url, "w") as client:
        client.get_or_create_session("s1", peers={"alice": {}, "bob": {}})
        [made] = client.create_conclusions([ConclusionCreate("alice likes tea", "bob", "alice")])
        assert (made.source_ids, made.times_derived) == (None, 1)
        assert client.get_conclusion(made.id) == made
        with pytest.raises(StatusError) as info:
            client.get_conclusion("nope")
        assert (info.value.status, info.value.detail) == (404, "Conclusion not found")
    with FakeHoncho(version="3.0.12") as fake, roncho.Client(fake.url, "w") as client:
        client.get_or_create_session("s1", peers={"alice": {}, "bob": {}})
        [made] = client.create_conclusions([ConclusionCreate("alice likes tea", "bob", "alice")])
        assert (made.source_ids, made.times_derived) == (None, None)
        with pytest.raises(StatusError) as info:
            client.get_conclusion(made.id)
        assert info.value.status == 405
        assert "was added in Honcho 3.2.0" in str(info.value)
        [found] = client.list_conclusions({"id": made.id}).items  # the way on 3.0.12
        assert found == made


def test_roncho_reads_3_2_0_evidence_whole_and_streamed() -> None:
    with FakeHoncho(version="3.2.0") as fake, roncho.Client(fake.url, "w") as client:
        client.get_or_create_session("s1", peers={"alice": {}, "bob": {}})
        [made] = client.create_conclusions([ConclusionCreate("alice likes tea", "bob", "alice")])
        answer = client.chat("bob", "tea?", target="alice", include_evidence=True)
        assert answer.evidence is not None
        expected = EvidenceConclusion(
            id=made.id,
            content="alice likes tea",
            level="explicit",
            created_at=made.created_at,
            source_ids=(),
        )  # no observer_id/observed_id before 3.2.1
        assert answer.evidence.conclusions == (expected,)
        with client.chat_stream("bob", "tea?", target="alice", include_evidence=True) as stream:
            chunks = list(stream)
        assert chunks[-1].done and chunks[-1].evidence == answer.evidence
        assert all(chunk.evidence is None for chunk in chunks[:-1])
        workspace = client.chat_workspace("tea?", include_evidence=True)
        assert workspace.evidence is not None and workspace.evidence.conclusions == (expected,)
