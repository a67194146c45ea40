"""The operations beyond memoryd's first list on the wire: the exact request each sends and
how it decodes the answer, in the shapes the kit's Honcho 3.0.12 gave (seen 2026-12-03):
a summary's ``summary_type`` is ``honcho_chat_summary_short``, a card is a list of lines or
null, scope writes answer 204 with nothing, a clone 201.

Each case runs without and with a key, for both clients (tests/wire/conftest.py).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from rawserver import RawServer, send_raw
from test_operations import (
    CASES,
    CID,
    CONCLUSION,
    KEY,
    MESSAGE,
    MID,
    READ_TIMEOUT,
    SESSION,
    TS,
    WS,
    Case,
    _message,
    _ok,
    expected_head,
    page,
    run,
)

import roncho
from roncho import SessionPeerConfig

W = f"/v3/workspaces/{WS}"
SHORT = {
    "content": "Summary of 20 message(s). alice said: I like green tea",
    "message_id": MID,
    "summary_type": "honcho_chat_summary_short",
    "created_at": "2026-12-03T17:24:28Z",
    "token_count": 209,
}
LONG = {**SHORT, "summary_type": "honcho_chat_summary_long", "token_count": 700}
REPRESENTATION = "## Explicit Observations\n\n[2026-12-03 17:24:25] alice said: I like green tea\n"
SCOPE = {"id": "travel", "metadata": {"k": "v"}, "created_at": TS}
UPLOAD_TEXT = b"line one\r\n--not a boundary\n"
# What the upload sends, read back by the test from the multipart body (the parts in order).
UPLOAD = [
    ("peer_id", None, None, b"alice"),
    ("metadata", None, None, b'{"source": "notes"}'),
    ("configuration", None, None, b'{"reasoning": {"enabled": false}}'),
    ("created_at", None, None, b"2026-11-30T12:00:00Z"),
    ("file", "notes \u00e9.txt", "text/plain; charset=utf-8", UPLOAD_TEXT),
]


def _summary(data: dict[str, Any]) -> roncho.Summary:
    return roncho.Summary(
        content=data["content"],
        message_id=data["message_id"],
        summary_type=data["summary_type"],
        token_count=data["token_count"],
        created_at=data["created_at"],
    )


def _session(created: bool | None = None) -> roncho.Session:
    return roncho.Session(
        id="s1",
        is_active=True,
        workspace_id=WS,
        metadata={"topic": "tea"},
        configuration={},
        created_at=TS,
        created=created,
    )


def _equal(expected: object) -> Any:
    def check(result: object) -> None:
        assert result == expected

    return check


MEMBERS_SENT = {
    "carol": {"observe_me": None, "observe_others": None},
    "dan": {"observe_me": False, "observe_others": None},
}

BEYOND = [
    Case(
        "list_peer_sessions",
        lambda c: c.list_peer_sessions(
            "alice", page=2, size=10, reverse=True, filters={"metadata": {"k": "v"}}
        ),
        _ok(200, page([SESSION], total=11, p=2, size=10)),
        "POST",
        f"{W}/peers/alice/sessions?page=2&size=10&reverse=true",
        {"filters": {"metadata": {"k": "v"}}},
        _equal(roncho.Page(items=(_session(),), total=11, page=2, size=10, pages=2)),
    ),
    Case(
        "get_peer_representation",
        lambda c: c.get_peer_representation(
            "alice",
            target="bob",
            session_id="s1",
            search_query="green tea",
            search_top_k=5,
            search_max_distance=0.5,
            include_most_frequent=True,
            max_conclusions=20,
        ),
        _ok(200, {"representation": REPRESENTATION}),
        "POST",
        f"{W}/peers/alice/representation",
        {
            "search_query": "green tea",
            "search_top_k": 5,
            "search_max_distance": 0.5,
            "include_most_frequent": True,
            "max_conclusions": 20,
            "target": "bob",
            "session_id": "s1",
        },
        _equal(REPRESENTATION),
    ),
    Case(
        "get_peer_card",
        lambda c: c.get_peer_card("alice", target="bob"),
        _ok(200, {"peer_card": ["likes green tea", "hikes"]}),
        "GET",
        f"{W}/peers/alice/card?target=bob",
        None,
        _equal(("likes green tea", "hikes")),
    ),
    Case(
        "set_peer_card",
        lambda c: c.set_peer_card("alice", ["likes green tea", ""]),
        _ok(200, {"peer_card": ["likes green tea", ""]}),
        "PUT",
        f"{W}/peers/alice/card",
        {"peer_card": ["likes green tea", ""]},
        _equal(("likes green tea", "")),
    ),
    Case(
        "get_peer_context",
        lambda c: c.get_peer_context(
            "alice",
            target="bob",
            search_query="green tea & more/less?",  # "/" escaped too: quote's default keeps it
            include_most_frequent=False,
            max_conclusions=10,
        ),
        _ok(
            200,
            {
                "peer_id": "alice",
                "target_id": "bob",
                "representation": REPRESENTATION,
                "peer_card": None,
            },
        ),
        "GET",
        f"{W}/peers/alice/context?target=bob&search_query=green%20tea%20%26%20more%2Fless%3F"
        "&include_most_frequent=false&max_conclusions=10",
        None,
        _equal(
            roncho.PeerContext(
                peer_id="alice", target_id="bob", representation=REPRESENTATION, peer_card=None
            )
        ),
    ),
    Case(
        "get_session_context",
        lambda c: c.get_session_context(
            "s1",
            tokens=500,
            summary=False,
            peer_target="alice",
            peer_perspective="bob",
            search_query="tea",
            search_top_k=3,
            search_max_distance=0.25,
        ),
        _ok(
            200,
            {
                "id": "s1",
                "messages": [MESSAGE],
                "summary": SHORT,
                "peer_representation": REPRESENTATION,
                "peer_card": ["likes green tea"],
                "added_later": {"ignored": True},
            },
        ),
        "GET",
        f"{W}/sessions/s1/context?tokens=500&summary=false&peer_target=alice"
        "&peer_perspective=bob&search_query=tea&search_top_k=3&search_max_distance=0.25",
        None,
        _equal(
            roncho.SessionContext(
                id="s1",
                messages=(_message(MESSAGE),),
                summary=_summary(SHORT),
                peer_representation=REPRESENTATION,
                peer_card=("likes green tea",),
            )
        ),
    ),
    Case(
        "get_session_summaries",
        lambda c: c.get_session_summaries("s1"),
        _ok(200, {"id": "s1", "short_summary": SHORT, "long_summary": LONG}),
        "GET",
        f"{W}/sessions/s1/summaries",
        None,
        _equal(roncho.Summaries(id="s1", short=_summary(SHORT), long=_summary(LONG))),
    ),
    Case(
        "clone_session",
        lambda c: c.clone_session("s1", message_id=MID),
        _ok(201, SESSION),
        "POST",
        f"{W}/sessions/s1/clone?message_id={MID}",
        None,
        _equal(_session()),
        empty_body=True,
    ),
    Case(
        "add_session_peers",
        lambda c: c.add_session_peers(
            "s1", {"carol": None, "dan": SessionPeerConfig(observe_me=False)}
        ),
        _ok(200, SESSION),
        "POST",
        f"{W}/sessions/s1/peers",
        MEMBERS_SENT,
        _equal(_session()),
    ),
    Case(
        "set_session_peers",
        lambda c: c.set_session_peers("s1", {"carol": {}, "dan": {"observe_me": False}}),
        _ok(200, SESSION),
        "PUT",
        f"{W}/sessions/s1/peers",
        MEMBERS_SENT,
        _equal(_session()),
    ),
    Case(
        "remove_session_peers",
        lambda c: c.remove_session_peers("s1", ("carol", "dan")),
        _ok(200, SESSION),
        "DELETE",
        f"{W}/sessions/s1/peers",
        ["carol", "dan"],
        _equal(_session()),
    ),
    Case(
        "upload_file",
        lambda c: c.upload_file(
            "s1",
            "alice",
            UPLOAD_TEXT,
            "notes é.txt",
            "text/plain; charset=utf-8",
            metadata={"source": "notes"},
            configuration={"reasoning": {"enabled": False}},
            created_at="2026-11-30T12:00:00Z",
        ),
        _ok(201, [MESSAGE]),
        "POST",
        f"{W}/sessions/s1/messages/upload",
        UPLOAD,
        _equal((_message(MESSAGE),)),
    ),
    Case(
        "get_or_create_scope",
        lambda c: c.get_or_create_scope("travel", {"k": "v"}),
        _ok(201, SCOPE),
        "POST",
        f"{W}/scopes",
        {"id": "travel", "metadata": {"k": "v"}},
        _equal(roncho.Scope(id="travel", metadata={"k": "v"}, created_at=TS, created=True)),
    ),
    Case(
        "list_scopes",
        lambda c: c.list_scopes(page=2, size=1, reverse=True),
        _ok(200, page([SCOPE], total=2, p=2, size=1)),
        "POST",
        f"{W}/scopes/list?page=2&size=1&reverse=true",
        None,
        _equal(
            roncho.Page(
                items=(roncho.Scope(id="travel", metadata={"k": "v"}, created_at=TS),),
                total=2,
                page=2,
                size=1,
                pages=2,
            )
        ),
        empty_body=True,
    ),
    Case(
        "get_scope",
        lambda c: c.get_scope("travel"),
        _ok(200, {**SCOPE, "added_later": 1}),
        "GET",
        f"{W}/scopes/travel",
        None,
        _equal(roncho.Scope(id="travel", metadata={"k": "v"}, created_at=TS)),
    ),
    Case(
        "add_scope_sessions",
        lambda c: c.add_scope_sessions("travel", ["s1", "s2"]),
        _ok(204, None, content_type=None),
        "POST",
        f"{W}/scopes/travel/sessions",
        {"session_ids": ["s1", "s2"]},
        _equal(None),
    ),
    Case(
        "remove_scope_session",
        lambda c: c.remove_scope_session("travel", "s1"),
        _ok(204, None, content_type=None),
        "DELETE",
        f"{W}/scopes/travel/sessions/s1",
        None,
        _equal(None),
    ),
    Case(
        "list_scope_sessions",
        lambda c: c.list_scope_sessions("travel"),
        _ok(200, page([SESSION])),
        "POST",
        f"{W}/scopes/travel/sessions/list?page=1&size=50&reverse=false",
        None,
        _equal(roncho.Page(items=(_session(),), total=1, page=1, size=50, pages=1)),
        empty_body=True,
    ),
    Case(
        "get_scope_status",
        lambda c: c.get_scope_status("travel"),
        _ok(
            200,
            {
                "backfill_status": {
                    "s1": {"state": "completed", "updated_at": TS, "docs_copied": 3},
                    "s2": {"state": "pending", "updated_at": TS},
                }
            },
        ),
        "GET",
        f"{W}/scopes/travel/status",
        None,
        _equal(
            roncho.ScopeStatus(
                backfill={
                    "s1": roncho.ScopeBackfill(
                        session_id="s1", state="completed", updated_at=TS, docs_copied=3
                    ),
                    "s2": roncho.ScopeBackfill(session_id="s2", state="pending", updated_at=TS),
                }
            )
        ),
    ),
    Case(
        "get_conclusion",
        lambda c: c.get_conclusion(CID),
        # Honcho 3.2.0's shape (PR 952's schema, in its order): `times_derived` after
        # `source_ids`, null for an explicit conclusion.
        _ok(200, {**CONCLUSION, "source_ids": None, "times_derived": 1}),
        "GET",
        f"{W}/conclusions/{CID}",
        None,
        _equal(
            roncho.Conclusion(
                id=CID,
                content=CONCLUSION["content"],
                observer_id="alice",
                observed_id="alice",
                level="explicit",
                created_at=TS,
                times_derived=1,
            )
        ),
    ),
    Case(
        "schedule_dream",
        lambda c: c.schedule_dream(
            "alice", observed="bob", dream_type="card_refresh", session_id="s1", rebuild=True
        ),
        _ok(204, None, content_type="application/json"),
        "POST",
        f"{W}/schedule_dream",
        {
            "observer": "alice",
            "observed": "bob",
            "dream_type": "card_refresh",
            "session_id": "s1",
            "rebuild": True,
        },
        _equal(None),
    ),
]


@pytest.mark.parametrize("key", [None, KEY], ids=["no-key", "key"])
@pytest.mark.parametrize("case", BEYOND, ids=[c.name for c in BEYOND])
def test_operation_request_bytes_and_decoding(case: Case, key: str | None) -> None:
    def handler(conn: Any) -> None:
        conn.read_request()
        conn.send(case.answer)

    result, request, server = run(handler, case.call, key=key)
    if case.name == "upload_file":
        assert _form_parts(request.head, request.body) == case.body
    else:
        assert request.head == expected_head(
            case.method, case.target, server.port, case.body, key=key, empty_body=case.empty_body
        )
        if case.body is None:
            assert request.body == b""
        else:
            assert request.json == case.body
    case.check(result)


def _form_parts(head: bytes, body: bytes) -> list[tuple[str, str | None, str | None, bytes]]:
    """A multipart/form-data request's parts as (name, filename, content type, bytes), read
    by the book (RFC 7578): each part between CRLF--boundary lines, headers, a blank line."""
    lines = head.split(b"\r\n")
    (kind,) = [line for line in lines if line.lower().startswith(b"content-type:")]
    (length,) = [line for line in lines if line.lower().startswith(b"content-length:")]
    assert int(length.split(b":")[1]) == len(body)
    match = re.fullmatch(rb"Content-Type: multipart/form-data; boundary=([A-Za-z0-9-]{1,70})", kind)
    assert match is not None, kind
    delimiter = b"--" + match.group(1)
    assert body.startswith(delimiter + b"\r\n") and body.endswith(b"\r\n" + delimiter + b"--\r\n")
    inner = body[len(delimiter) + 2 : -len(delimiter) - 6]
    parts = []
    for raw in inner.split(b"\r\n" + delimiter + b"\r\n"):
        headers, _, payload = raw.partition(b"\r\n\r\n")
        fields = dict(line.split(b": ", 1) for line in headers.split(b"\r\n"))
        disposition = fields[b"Content-Disposition"].decode()
        name = re.search(r'; name="([^"]*)"', disposition)
        filename = re.search(r'; filename="([^"]*)"', disposition)
        assert name is not None
        kind_of = fields.get(b"Content-Type")
        parts.append(
            (
                name.group(1),
                filename.group(1) if filename else None,
                kind_of.decode() if kind_of else None,
                payload,
            )
        )
    return parts


@pytest.mark.blocking_only("it compares two lists of cases, and calls no client")
def test_beyond_cases_are_not_duplicated_in_the_first_list() -> None:
    assert not {c.name for c in BEYOND} & {c.name for c in CASES}


# -- the defaults go out as the server's own defaults, with nothing else -----------------
@pytest.mark.parametrize(
    ("call", "method", "target", "body", "answer", "result"),
    [
        (
            lambda c: c.get_peer_representation("alice"),
            "POST",
            f"{W}/peers/alice/representation",
            {},
            _ok(200, {"representation": ""}),
            "",
        ),
        (
            lambda c: c.get_peer_card("alice"),
            "GET",
            f"{W}/peers/alice/card",
            None,
            _ok(200, {"peer_card": None}),
            None,
        ),
        (
            lambda c: c.get_peer_context("alice"),
            "GET",
            f"{W}/peers/alice/context",
            None,
            _ok(200, {"peer_id": "alice", "target_id": "alice"}),
            roncho.PeerContext(peer_id="alice", target_id="alice"),
        ),
        (
            # The summary switch goes out under its wire name, always: a wrong name would be
            # ignored by the server without a word.
            lambda c: c.get_session_context("s1"),
            "GET",
            f"{W}/sessions/s1/context?summary=true",
            None,
            _ok(200, {"id": "s1", "messages": [], "summary": None}),
            roncho.SessionContext(id="s1"),
        ),
        (
            lambda c: c.schedule_dream("alice"),
            "POST",
            f"{W}/schedule_dream",
            {"observer": "alice", "dream_type": "omni"},
            _ok(204, None, content_type="application/json"),
            None,
        ),
    ],
    ids=["representation", "card", "peer-context", "session-context", "dream"],
)
def test_defaults_send_only_what_was_given(
    call: Any, method: str, target: str, body: object, answer: bytes, result: object
) -> None:
    def handler(conn: Any) -> None:
        conn.read_request()
        conn.send(answer)

    got, request, server = run(handler, call)
    assert request.head == expected_head(method, target, server.port, body)
    assert got == result


def test_session_context_repeats_sessions_and_says_limit_to_session() -> None:
    calls = [
        lambda c: c.get_session_context("s1", peer_target="alice", sessions=["s1", "s2"]),
        lambda c: c.get_session_context("s1", peer_target="alice", limit_to_session=True),
        lambda c: c.get_session_context("s1", peer_target="alice", scope="travel"),
    ]
    answer = _ok(200, {"id": "s1", "messages": []})
    with RawServer([send_raw(answer) for _ in calls]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        for call in calls:
            assert call(client) == roncho.SessionContext(id="s1")
    targets = [r.head.split(b" ")[1].decode() for r in server.requests]
    assert targets == [
        f"{W}/sessions/s1/context?summary=true&peer_target=alice&sessions=s1&sessions=s2",
        f"{W}/sessions/s1/context?summary=true&peer_target=alice&limit_to_session=true",
        f"{W}/sessions/s1/context?summary=true&peer_target=alice&scope=travel",
    ]


@pytest.mark.parametrize(
    ("call", "answer", "says"),
    [
        (lambda c: c.get_session_context("s1"), {"messages": []}, "session context.id"),
        (lambda c: c.get_session_context("s1"), {"id": "s1"}, "session context.messages"),
        (
            lambda c: c.get_session_summaries("s1"),
            {"id": "s1", "short_summary": {**SHORT, "token_count": "209"}},
            "summary.token_count",
        ),
        (lambda c: c.get_peer_representation("a"), {"representation": None}, "representation"),
        (lambda c: c.get_peer_card("a"), {"peer_card": "likes tea"}, "peer_card"),
        (lambda c: c.get_peer_context("a"), {"peer_id": "a"}, "peer context.target_id"),
    ],
)
def test_answers_without_what_a_caller_relies_on_are_decode_errors(
    call: Any, answer: object, says: str
) -> None:
    def handler(conn: Any) -> None:
        conn.read_request()
        conn.send(_ok(200, answer))

    with pytest.raises(roncho.DecodeError) as caught:
        run(handler, call)
    assert says in str(caught.value)
    assert caught.value.request_sent


def test_reads_among_them_go_out_on_a_read_only_client() -> None:
    """The representation and the peer's sessions are POSTs, yet reads."""
    calls: list[tuple[Any, bytes]] = [
        (lambda c: c.list_peer_sessions("a"), _ok(200, page([]))),
        (lambda c: c.get_peer_representation("a"), _ok(200, {"representation": ""})),
        (lambda c: c.get_peer_card("a"), _ok(200, {"peer_card": None})),
        (lambda c: c.get_peer_context("a"), _ok(200, {"peer_id": "a", "target_id": "a"})),
        (lambda c: c.get_session_context("s1"), _ok(200, {"id": "s1", "messages": []})),
        (lambda c: c.get_session_summaries("s1"), _ok(200, {"id": "s1"})),
    ]
    with RawServer([send_raw(answer) for _, answer in calls]) as server:
        client = roncho.Client(server.url, WS, read_only=True, read_timeout=READ_TIMEOUT)
        for call, _ in calls:
            call(client)
    assert server.connections == len(calls)
    assert not server.errors
