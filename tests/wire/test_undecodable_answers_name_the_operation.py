"""An answer an operation cannot decode is a DecodeError that names the operation and
what it expected, for every operation of the catalogue: a body that is not JSON, and JSON
of the wrong kind (the number 3 where an object or an array belongs). The name is the
caller's one clue to which call of a batch of work failed, so each operation's own is held.

Each operation is called as in tests/wire/test_every_option.py (its first case), on both
clients, answered 200 by a raw-socket server on loopback. An operation whose 2xx answer
is never read (a 204 in Honcho 3.0.12) returns None whatever the body holds.
"""

from __future__ import annotations

from typing import Any

import pytest
from rawserver import RawServer, response_bytes, send_raw
from test_every_option import CASES, READ_TIMEOUT, WS, Case

import roncho
from roncho import DecodeError

# What each operation says of the answer ``3``, after its name and ": ".
SHAPE = {
    "get_or_create_workspace": "expected a JSON object for workspace, got int",
    "update_workspace": "expected a JSON object for workspace, got int",
    "delete_workspace": "expected a JSON object for delete answer, got int",
    "list_workspaces": "expected a JSON object for page, got int",
    "get_or_create_peer": "expected a JSON object for peer, got int",
    "update_peer": "expected a JSON object for peer, got int",
    "list_peers": "expected a JSON object for page, got int",
    "list_peer_sessions": "expected a JSON object for page, got int",
    "get_peer_representation": "expected a JSON object for representation answer, got int",
    "get_peer_card": "expected a JSON object for peer card answer, got int",
    "set_peer_card": "expected a JSON object for peer card answer, got int",
    "get_peer_context": "expected a JSON object for peer context, got int",
    "get_or_create_session": "expected a JSON object for session, got int",
    "update_session": "expected a JSON object for session, got int",
    "delete_session": "expected a JSON object for delete answer, got int",
    "list_sessions": "expected a JSON object for page, got int",
    "clone_session": "expected a JSON object for session, got int",
    "list_session_peers": "expected a JSON object for page, got int",
    "add_session_peers": "expected a JSON object for session, got int",
    "set_session_peers": "expected a JSON object for session, got int",
    "remove_session_peers": "expected a JSON object for session, got int",
    "get_session_peer_config": "expected a JSON object for session peer config, got int",
    "get_session_context": "expected a JSON object for session context, got int",
    "get_session_summaries": "expected a JSON object for summaries, got int",
    "add_messages": "expected a JSON array, got int",
    "get_message": "expected a JSON object for message, got int",
    "update_message_metadata": "expected a JSON object for message, got int",
    "list_messages": "expected a JSON object for page, got int",
    "upload_file": "expected a JSON array, got int",
    "create_conclusions": "expected a JSON array, got int",
    "get_conclusion": "expected a JSON object for conclusion, got int",
    "list_conclusions": "expected a JSON object for page, got int",
    "query_conclusions": "expected a JSON array, got int",
    "search": "expected a JSON array, got int",
    "search_peer": "expected a JSON array, got int",
    "search_session": "expected a JSON array, got int",
    "get_or_create_scope": "expected a JSON object for scope, got int",
    "get_scope": "expected a JSON object for scope, got int",
    "get_scope_status": "expected a JSON object for scope status, got int",
    "list_scopes": "expected a JSON object for page, got int",
    "list_scope_sessions": "expected a JSON object for page, got int",
    "chat": "expected a JSON object for chat answer, got int",
    "chat_stream": "expected a JSON object for chat answer, got int",
    "chat_workspace": "expected a JSON object for chat answer, got int",
    "chat_workspace_stream": "expected a JSON object for chat answer, got int",
    "get_or_create_webhook": "expected a JSON object for webhook endpoint, got int",
    "list_webhooks": "expected a JSON object for page, got int",
    "probe": "expected a JSON object for health, got int",
    "queue_status": "expected a JSON object for queue status, got int",
    "create_key": "the answer has no key",
}
BODY_NOT_READ = {
    "schedule_dream",
    "set_session_peer_config",
    "delete_conclusion",
    "add_scope_sessions",
    "remove_scope_session",
    "delete_webhook",
    "trigger_webhook_test",
}


FIRST_CASES = {case.method: case for case in reversed(CASES)}


def answer(case: Case, body: bytes) -> Any:
    """The result of ``case``'s call when the server answers 200 with ``body``."""
    with RawServer([send_raw(response_bytes(200, raw_body=body))]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT)
        result = getattr(client, case.method)(*case.args, **case.kwargs)
        if case.method.endswith("_stream"):
            with result as stream:
                result = stream.read_all()
    assert server.connections == 1
    return result


@pytest.mark.blocking_only("checks the tables, not a client")
def test_every_operation_is_listed_here() -> None:
    assert set(SHAPE) | BODY_NOT_READ | {"server_version"} == set(FIRST_CASES)
    assert not set(SHAPE) & BODY_NOT_READ


@pytest.mark.parametrize("op", sorted(SHAPE))
def test_an_answer_of_the_wrong_kind_names_the_operation_and_what_it_expected(op: str) -> None:
    with pytest.raises(DecodeError) as info:
        answer(FIRST_CASES[op], b"3")
    assert str(info.value) == f"{op}: {SHAPE[op]}"
    assert info.value.request_sent is True


@pytest.mark.parametrize("op", sorted({*SHAPE, "server_version"}))
def test_an_answer_that_is_not_json_names_the_operation(op: str) -> None:
    with pytest.raises(DecodeError) as info:
        answer(FIRST_CASES[op], b"not json")
    assert str(info.value).startswith(f"{op}: the answer is not JSON")
    assert info.value.request_sent is True


@pytest.mark.parametrize("op", sorted(BODY_NOT_READ))
def test_an_answer_that_is_never_read_is_none_whatever_it_holds(op: str) -> None:
    assert answer(FIRST_CASES[op], b"not json") is None


def test_a_server_version_document_that_is_not_an_object_states_no_version() -> None:
    assert answer(FIRST_CASES["server_version"], b"3") is None
