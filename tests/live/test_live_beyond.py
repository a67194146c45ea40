"""O16 to O22, the operations beyond memoryd's first list, against one scratch workspace: a
peer's sessions, representation, card and context (O16), a session's context and summaries
(O17), clone (O18), members (O19), file upload (O20), named scopes (O21) and dreams (O22);
and what a workspace, a peer and a session key may do with each of their routes.

Every session made here has a name unique to the run (Honcho 3.0.12's clone copies any
workspace's session of the same name). Runs per target and client kind (conftest.py).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import pytest
from live_data import ASSISTANT, PAGE_KEYS, SESSION_KEYS, USER, Target, World, keys_of
from live_recorder import Recorder

import roncho


def _unique(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(4)}"


# -- O16 a peer's sessions, representation, card and context ----------------------------------


def test_o16_peer_sessions_representation_card_and_context(
    world: World, recorder: Recorder
) -> None:
    client = world.client
    sessions = client.list_peer_sessions(USER)
    assert world.session in [s.id for s in sessions.items]
    assert keys_of(recorder.last("list_peer_sessions").response) >= PAGE_KEYS
    text = client.get_peer_representation(USER)
    assert isinstance(text, str)
    assert keys_of(recorder.last("get_peer_representation").response) == {"representation"}
    scoped = client.get_peer_representation(USER, session_id=world.session, max_conclusions=5)
    assert isinstance(scoped, str)
    card = client.get_peer_card(USER, target=ASSISTANT)
    assert card is None or all(isinstance(line, str) for line in card)
    lines = ["Allergic to peanuts.", "Travels to Lisbon in May."]
    assert client.set_peer_card(USER, lines, target=ASSISTANT) == tuple(lines)
    assert client.get_peer_card(USER, target=ASSISTANT) == tuple(lines)
    context = client.get_peer_context(USER, target=ASSISTANT)
    assert (context.peer_id, context.target_id) == (USER, ASSISTANT)
    assert context.peer_card == tuple(lines)
    recorder.note(
        "o16",
        {
            "card_before_set": None if card is None else len(card),
            "representation_chars": len(text),
            "peer_context_keys": sorted(keys_of(recorder.last("get_peer_context").response)),
        },
    )


# -- O17 session context and summaries ---------------------------------------------------------


def test_o17_session_context_holds_its_token_budget(world: World, recorder: Recorder) -> None:
    client = world.client
    whole = client.get_session_context(world.session)
    assert [m.id for m in whole.messages] == [m.id for m in world.messages]
    assert set(keys_of(recorder.last("get_session_context").response)) >= {
        "id",
        "messages",
        "summary",
    }
    budget = sum(m.token_count or 0 for m in world.messages[-2:])
    cut = client.get_session_context(world.session, tokens=budget, summary=False)
    assert cut.summary is None
    assert [m.id for m in cut.messages] == [m.id for m in world.messages[-2:]]
    assert sum(m.token_count or 0 for m in cut.messages) <= budget
    with_peer = client.get_session_context(world.session, peer_target=USER)
    assert isinstance(with_peer.peer_representation, str)
    summaries = client.get_session_summaries(world.session)
    assert summaries.id == world.session
    # Five messages: short and long summaries come at the 20th and the 60th (q10_context).
    assert summaries.short is None and summaries.long is None
    recorder.note(
        "o17",
        {
            "messages_in_budget": len(cut.messages),
            "summary_keys": sorted(keys_of(recorder.last("get_session_summaries").response)),
        },
    )


# -- O18 clone ---------------------------------------------------------------------------------


def test_o18_clone_copies_the_session_up_to_a_message(world: World, recorder: Recorder) -> None:
    client = world.client
    whole = client.clone_session(world.session)
    assert recorder.last("clone_session").status == 201
    assert keys_of(recorder.last("clone_session").response) >= SESSION_KEYS
    cut_at = world.messages[1]
    part = client.clone_session(world.session, message_id=cut_at.id)
    try:
        copied = client.list_messages(whole.id).items
        assert [m.content for m in copied] == [m.content for m in world.messages]
        partial = client.list_messages(part.id).items
        assert [m.content for m in partial] == [m.content for m in world.messages[:2]]
    finally:
        client.delete_session(whole.id)
        client.delete_session(part.id)


# -- O19 session members ------------------------------------------------------------------------


def test_o19_add_set_and_remove_session_peers(world: World, recorder: Recorder) -> None:
    client = world.client
    session = _unique("members")
    recorder.name(session, "{members_session}")
    client.get_or_create_session(session, peers={USER: None})
    try:
        added = client.add_session_peers(
            session, {ASSISTANT: roncho.SessionPeerConfig(observe_me=False)}
        )
        assert added.id == session
        assert {p.id for p in client.list_session_peers(session).items} == {USER, ASSISTANT}
        assert client.get_session_peer_config(session, ASSISTANT).observe_me is False
        client.set_session_peers(session, {ASSISTANT: None})
        assert [p.id for p in client.list_session_peers(session).items] == [ASSISTANT]
        client.remove_session_peers(session, [ASSISTANT])
        assert client.list_session_peers(session).items == ()
    finally:
        client.delete_session(session)


# -- O20 file upload ----------------------------------------------------------------------------

UPLOADED = "Notes from the trip.\n\nWe ate grilled sardines in Alfama twice.\n"


def test_o20_upload_a_text_file(world: World, recorder: Recorder) -> None:
    client = world.client
    session = _unique("upload")
    recorder.name(session, "{upload_session}")
    client.get_or_create_session(session, peers={USER: None})
    try:
        made = client.upload_file(
            session,
            USER,
            UPLOADED.encode(),
            "trip notes.txt",
            "text/plain",
            metadata={"source": "upload"},
        )
        assert recorder.last("upload_file").status == 201
        assert "".join(m.content for m in made).split() == UPLOADED.split()
        assert all(m.peer_id == USER and m.metadata == {"source": "upload"} for m in made)
        with pytest.raises(roncho.StatusError) as refused:
            client.upload_file(session, USER, b"\x89PNG\r\n\x1a\n", "photo.png", "image/png")
        assert refused.value.status == 415
        assert "content type" in str(refused.value)
        with pytest.raises(roncho.ConfigError):
            client.upload_file(session, USER, b"12345", "a.txt", "text/plain", max_bytes=4)
        recorder.note("o20", {"messages": len(made), "unsupported_status": refused.value.status})
    finally:
        client.delete_session(session)


# -- O21 named scopes ---------------------------------------------------------------------------


def test_o21_scopes(world: World, recorder: Recorder) -> None:
    client = world.client
    scope = _unique("trips")
    recorder.name(scope, "{scope}")
    made = client.get_or_create_scope(scope, {"kind": "trips"})
    assert (made.id, made.created, made.metadata) == (scope, True, {"kind": "trips"})
    assert client.get_or_create_scope(scope).created is False
    assert scope in [s.id for s in client.list_scopes(size=100).items]
    assert client.get_scope(scope).id == scope
    absent = _unique("no-such-scope")
    recorder.name(absent, "{missing_scope}")  # the 404's detail names it
    with pytest.raises(roncho.StatusError) as missing:
        client.get_scope(absent)
    assert missing.value.status == 404
    client.add_scope_sessions(scope, [world.session])
    assert [s.id for s in client.list_scope_sessions(scope).items] == [world.session]
    status = client.get_scope_status(scope)
    assert set(status.backfill) <= {world.session}
    assert all(b.state in ("pending", "completed", "failed") for b in status.backfill.values())
    context = client.get_session_context(world.session, peer_target=USER, scope=scope)
    assert isinstance(context.peer_representation, str)
    client.remove_scope_session(scope, world.session)
    assert client.list_scope_sessions(scope).items == ()
    recorder.note("o21", {"backfill_states": sorted(b.state for b in status.backfill.values())})


# -- O22 dreams ---------------------------------------------------------------------------------


def test_o22_schedule_dream(world: World, recorder: Recorder) -> None:
    try:
        world.client.schedule_dream(USER, dream_type="card_refresh")
    except roncho.StatusError as exc:
        # A server with dreams off says so with 400; anything else is a failure.
        assert exc.status == 400 and "not enabled" in str(exc.detail)
        recorder.note("o22", {"status": 400})
        return
    assert recorder.last("schedule_dream").status == 204
    recorder.note("o22", {"status": 204})


# -- what each kind of key may do with these routes ---------------------------------------------

PEER = "kk-alice"
OTHER = "kk-bob"
# Each route, as a call given the key kind's session and scope. The order matters: a member
# added before it is removed, a session added to the scope before it is taken out.
ROUTES: dict[str, Callable[[roncho.Client, str, str], Any]] = {
    "POST peers/{p}/sessions": lambda c, s, sc: c.list_peer_sessions(PEER),
    "POST peers/{p}/representation": lambda c, s, sc: c.get_peer_representation(PEER),
    "GET peers/{p}/card": lambda c, s, sc: c.get_peer_card(PEER),
    "PUT peers/{p}/card": lambda c, s, sc: c.set_peer_card(PEER, ["x"]),
    "GET peers/{p}/context": lambda c, s, sc: c.get_peer_context(PEER),
    "GET sessions/{s}/context": lambda c, s, sc: c.get_session_context(s),
    "GET sessions/{s}/context?peer_target={p}": lambda c, s, sc: c.get_session_context(
        s, peer_target=PEER
    ),
    "GET sessions/{s}/summaries": lambda c, s, sc: c.get_session_summaries(s),
    "POST sessions/{s}/clone": lambda c, s, sc: c.clone_session(s),
    "POST sessions/{s}/peers": lambda c, s, sc: c.add_session_peers(s, {"kk-carol": None}),
    "PUT sessions/{s}/peers": lambda c, s, sc: c.set_session_peers(
        s, {PEER: None, OTHER: None, "kk-carol": None}
    ),
    "DELETE sessions/{s}/peers": lambda c, s, sc: c.remove_session_peers(s, ["kk-carol"]),
    "POST sessions/{s}/messages/upload": lambda c, s, sc: c.upload_file(
        s, PEER, b"a note", "note.txt", "text/plain"
    ),
    "POST scopes": lambda c, s, sc: c.get_or_create_scope(sc + "-b"),
    "POST scopes/list": lambda c, s, sc: c.list_scopes(),
    "GET scopes/{id}": lambda c, s, sc: c.get_scope(sc),
    "POST scopes/{id}/sessions": lambda c, s, sc: c.add_scope_sessions(sc, [s]),
    "POST scopes/{id}/sessions/list": lambda c, s, sc: c.list_scope_sessions(sc),
    "GET scopes/{id}/status": lambda c, s, sc: c.get_scope_status(sc),
    "DELETE scopes/{id}/sessions/{s}": lambda c, s, sc: c.remove_scope_session(sc, s),
    "POST schedule_dream": lambda c, s, sc: c.schedule_dream(PEER),
}
PEER_ROUTES = {
    route for route in ROUTES if route.startswith(("POST peers", "GET peers", "PUT peers"))
}
SESSION_READS = {
    "GET sessions/{s}/context",
    "GET sessions/{s}/context?peer_target={p}",
    "GET sessions/{s}/summaries",
}
SESSION_WRITES = {
    "POST sessions/{s}/clone",
    "POST sessions/{s}/peers",
    "PUT sessions/{s}/peers",
    "DELETE sessions/{s}/peers",
    "POST sessions/{s}/messages/upload",
}
# What each key may do, as the kit's Honcho 3.0.12 answered (2026-12-03): every other route
# is refused with 401. A peer key is for PEER; "peer, outside" is that key on a session
# PEER is not a member of; a session key is for the session the calls name.
ALLOWED: dict[str, set[str]] = {
    "workspace": set(ROUTES),
    "peer": PEER_ROUTES | SESSION_READS,
    "peer, outside": PEER_ROUTES,
    "session": SESSION_READS | SESSION_WRITES,
}


def _outcome(call: Callable[..., Any], *args: Any) -> str:
    try:
        call(*args)
    except roncho.UnauthorizedError:
        return "refused"
    except roncho.StatusError as exc:
        return f"status {exc.status}"
    return "allowed"


@pytest.mark.timeout(300)
def test_what_each_key_kind_may_do_with_these_routes(
    target: Target, scratch: roncho.Client, auth_on: bool, recorder: Recorder
) -> None:
    if not auth_on:
        pytest.skip("authentication is off on this server")
    try:
        scratch.create_key(workspace_id=scratch.workspace)
    except roncho.UnauthorizedError:
        pytest.skip("the key is not an admin key: it cannot mint the keys to probe with")
    table: dict[str, dict[str, str]] = {}
    for kind in ALLOWED:
        session = _unique("kk")
        scope = _unique("kk-scope")
        members = {OTHER: None} if kind == "peer, outside" else {PEER: None, OTHER: None}
        scratch.get_or_create_session(session, peers=members)
        scratch.add_messages(session, [roncho.MessageCreate(OTHER, "hello there")])
        scratch.get_or_create_scope(scope)
        scratch.add_scope_sessions(scope, [session])
        if kind == "workspace":
            key = scratch.create_key(workspace_id=scratch.workspace)
        elif kind.startswith("peer"):
            key = scratch.create_key(workspace_id=scratch.workspace, peer_id=PEER)
        else:
            key = scratch.create_key(workspace_id=scratch.workspace, session_id=session)
        client = target.client(scratch.workspace, api_key=key)
        try:
            table[kind] = {
                route: _outcome(call, client, session, scope) for route, call in ROUTES.items()
            }
        finally:
            client.close()
    recorder.note("key_kinds_beyond", table)
    expected = {
        kind: {route: "allowed" if route in allowed else "refused" for route in ROUTES}
        for kind, allowed in ALLOWED.items()
    }
    assert table == expected
