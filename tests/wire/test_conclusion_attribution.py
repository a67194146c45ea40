"""Honcho 3.2.0's conclusion attribution on the wire: `get_conclusion` on servers with and
without the route, and `source_ids`/`times_derived` read when sent, ignored when absent.

Honcho 3.0.12 answers `GET .../conclusions/{id}` with 405 `Method Not Allowed` (the path has
only DELETE; seen on the kit's server, 2026-12-07); a server with no route there at all would
answer 404 `Not Found`; 3.2.0's own 404 is `Conclusion not found` (PR 952's `get_conclusion`).
"""

from __future__ import annotations

from typing import Any

import pytest
from rawserver import RawServer, reply
from test_operations import CID, CONCLUSION, READ_TIMEOUT, WS

import roncho
from roncho import Conclusion, DecodeError, EvidenceConclusion, StatusError

W = f"/v3/workspaces/{WS}"


@pytest.mark.parametrize(
    ("status", "detail"), [(405, "Method Not Allowed"), (404, "Not Found"), (405, None)]
)
def test_get_conclusion_on_a_server_without_the_route_says_which_version_added_it(
    status: int, detail: str | None
) -> None:
    body: Any = {"detail": detail} if detail is not None else ""
    with RawServer([reply(status, body)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(StatusError) as info:
            client.get_conclusion(CID)
    error = info.value
    assert type(error) is StatusError  # the plain class: nothing new to catch
    assert (error.status, error.method, error.path) == (status, "GET", f"{W}/conclusions/{CID}")
    assert error.detail == detail and error.request_sent is True
    assert str(error) == (
        f"GET {W}/conclusions/{CID} answered {status}: GET conclusions/{{id}} was added in "
        "Honcho 3.2.0; this server does not have it (Honcho 3.0.12 answers 405 there)"
    )


def test_get_conclusion_missing_on_3_2_0_is_the_servers_404() -> None:
    with RawServer([reply(404, {"detail": "Conclusion not found"})]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(StatusError) as info:
            client.get_conclusion("nope")
    assert (info.value.status, info.value.detail) == (404, "Conclusion not found")
    assert "added in" not in str(info.value)


def test_get_conclusion_other_statuses_are_as_they_are() -> None:
    with RawServer([reply(401, {"detail": "Invalid JWT"})]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(roncho.UnauthorizedError) as info:
            client.get_conclusion(CID)
    assert "added in" not in str(info.value)


@pytest.mark.parametrize(
    ("extra", "source_ids", "times_derived"),
    [
        ({}, None, None),  # 3.0.12: neither key
        ({"source_ids": None}, None, None),  # the observed 3.2.0
        ({"source_ids": None, "times_derived": 1}, None, 1),  # 3.2.0 as PR 952 shapes it
        ({"source_ids": [], "times_derived": 1}, (), 1),  # 3.2.1's explicit conclusion
        ({"source_ids": ["a" * 21, "b" * 21], "times_derived": 3}, ("a" * 21, "b" * 21), 3),
        ({"times_derived": None}, None, None),
    ],
)
def test_conclusion_attribution_read_when_sent(
    extra: dict[str, Any], source_ids: tuple[str, ...] | None, times_derived: int | None
) -> None:
    body = {k: v for k, v in CONCLUSION.items() if k != "source_ids"} | extra
    with RawServer([reply(200, body)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        got = client.get_conclusion(CID)
    assert isinstance(got, Conclusion)
    assert (got.source_ids, got.times_derived) == (source_ids, times_derived)


@pytest.mark.parametrize("bad", ["1", 1.5, True, [1]])
def test_conclusion_times_derived_of_another_type_is_a_decode_error(bad: object) -> None:
    with RawServer([reply(200, {**CONCLUSION, "times_derived": bad})]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        with pytest.raises(DecodeError) as info:
            client.get_conclusion(CID)
    assert "times_derived" in str(info.value) and info.value.request_sent is True


def test_a_3_2_0_page_of_conclusions_with_a_derived_one() -> None:
    derived = {
        **CONCLUSION,
        "id": "d" * 21,
        "level": "deductive",
        "source_ids": [CID],
        "times_derived": 2,
    }
    explicit = {**CONCLUSION, "times_derived": 1}
    page = {"items": [derived, explicit], "total": 2, "page": 1, "size": 50, "pages": 1}
    with RawServer([reply(200, page)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        listed = client.list_conclusions({"source_ids": {"contains": CID}})
    assert [(c.level, c.source_ids, c.times_derived) for c in listed.items] == [
        ("deductive", (CID,), 2),
        ("explicit", None, 1),
    ]


@pytest.mark.parametrize(
    "peers",
    [
        {},  # 3.2.0: no observer or observed id on an evidence conclusion (3.2.1 adds them)
        {"observer_id": None, "observed_id": None},
        {"observer_id": "bob", "observed_id": "alice"},  # 3.2.1 on
    ],
)
def test_chat_evidence_conclusions_with_or_without_their_peers(peers: dict[str, Any]) -> None:
    seen = {k: v for k, v in CONCLUSION.items() if k not in ("observer_id", "observed_id")}
    answer = {
        "content": "She likes tea.",
        "evidence": {
            "conclusions": [{**seen, "source_ids": [], **peers}],
            "messages": [],
            "tool_calls": [],
            "reasoning_trace_id": None,
        },
    }
    with RawServer([reply(200, answer)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        got = client.chat("bob", "what does alice like?", include_evidence=True)
    assert got.evidence is not None
    [conclusion] = got.evidence.conclusions
    assert isinstance(conclusion, EvidenceConclusion)
    assert (conclusion.id, conclusion.content, conclusion.source_ids) == (
        CID,
        CONCLUSION["content"],
        (),
    )
    assert (conclusion.observer_id, conclusion.observed_id) == (
        peers.get("observer_id"),
        peers.get("observed_id"),
    )
