"""Every v3 route of the Honcho server roncho is built against has a method on both clients.

The routes are read from ``data/server_routes.txt``, committed in this repository: made by
``scripts/server_routes.py`` from the kit's Honcho 3.0.12 source (its routers' syntax
trees; the file's header says so). Nothing outside the repository is read. For each route
the test calls the method that serves it and checks the request line it sends (so a method
that went to another path would fail too), once per client (tests/wire/conftest.py).
A route left out on purpose is in LEFT_OUT with why; a new route in the list with neither a
method nor a reason fails the first test.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rawserver import RawServer, response_bytes, send_raw

import roncho
from roncho import ConclusionCreate, MessageCreate

ROUTE_LIST = Path(__file__).parent / "data" / "server_routes.txt"
WS = "w1"
READ_TIMEOUT = 5.0

LEFT_OUT = {
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/messages/": (
        "the same handler as POST .../messages, registered a second time with a trailing "
        "slash; add_messages calls the one without"
    ),
}

# Each route, the method that serves it, and a call of it with good arguments.
METHODS: dict[str, tuple[str, Callable[[roncho.Client], Any]]] = {
    "POST /v3/keys": ("create_key", lambda c: c.create_key(workspace_id=WS)),
    "POST /v3/workspaces": ("get_or_create_workspace", lambda c: c.get_or_create_workspace()),
    "POST /v3/workspaces/list": ("list_workspaces", lambda c: c.list_workspaces()),
    "DELETE /v3/workspaces/{workspace_id}": ("delete_workspace", lambda c: c.delete_workspace()),
    "PUT /v3/workspaces/{workspace_id}": ("update_workspace", lambda c: c.update_workspace()),
    "POST /v3/workspaces/{workspace_id}/conclusions": (
        "create_conclusions",
        lambda c: c.create_conclusions([ConclusionCreate("likes tea", "a", "a")]),
    ),
    "POST /v3/workspaces/{workspace_id}/conclusions/list": (
        "list_conclusions",
        lambda c: c.list_conclusions(),
    ),
    "POST /v3/workspaces/{workspace_id}/conclusions/query": (
        "query_conclusions",
        lambda c: c.query_conclusions("tea", "a", "a"),
    ),
    "DELETE /v3/workspaces/{workspace_id}/conclusions/{conclusion_id}": (
        "delete_conclusion",
        lambda c: c.delete_conclusion("c1"),
    ),
    "POST /v3/workspaces/{workspace_id}/peers": (
        "get_or_create_peer",
        lambda c: c.get_or_create_peer("a"),
    ),
    "POST /v3/workspaces/{workspace_id}/peers/list": ("list_peers", lambda c: c.list_peers()),
    "PUT /v3/workspaces/{workspace_id}/peers/{peer_id}": (
        "update_peer",
        lambda c: c.update_peer("a"),
    ),
    "GET /v3/workspaces/{workspace_id}/peers/{peer_id}/card": (
        "get_peer_card",
        lambda c: c.get_peer_card("a"),
    ),
    "PUT /v3/workspaces/{workspace_id}/peers/{peer_id}/card": (
        "set_peer_card",
        lambda c: c.set_peer_card("a", ["likes tea"]),
    ),
    "POST /v3/workspaces/{workspace_id}/peers/{peer_id}/chat": ("chat", lambda c: c.chat("a", "q")),
    "GET /v3/workspaces/{workspace_id}/peers/{peer_id}/context": (
        "get_peer_context",
        lambda c: c.get_peer_context("a"),
    ),
    "POST /v3/workspaces/{workspace_id}/peers/{peer_id}/representation": (
        "get_peer_representation",
        lambda c: c.get_peer_representation("a"),
    ),
    "POST /v3/workspaces/{workspace_id}/peers/{peer_id}/search": (
        "search_peer",
        lambda c: c.search_peer("a", "q"),
    ),
    "POST /v3/workspaces/{workspace_id}/peers/{peer_id}/sessions": (
        "list_peer_sessions",
        lambda c: c.list_peer_sessions("a"),
    ),
    "GET /v3/workspaces/{workspace_id}/queue/status": ("queue_status", lambda c: c.queue_status()),
    "POST /v3/workspaces/{workspace_id}/schedule_dream": (
        "schedule_dream",
        lambda c: c.schedule_dream("a"),
    ),
    "POST /v3/workspaces/{workspace_id}/scopes": (
        "get_or_create_scope",
        lambda c: c.get_or_create_scope("x"),
    ),
    "POST /v3/workspaces/{workspace_id}/scopes/list": ("list_scopes", lambda c: c.list_scopes()),
    "GET /v3/workspaces/{workspace_id}/scopes/{scope_id}": (
        "get_scope",
        lambda c: c.get_scope("x"),
    ),
    "POST /v3/workspaces/{workspace_id}/scopes/{scope_id}/sessions": (
        "add_scope_sessions",
        lambda c: c.add_scope_sessions("x", ["s"]),
    ),
    "POST /v3/workspaces/{workspace_id}/scopes/{scope_id}/sessions/list": (
        "list_scope_sessions",
        lambda c: c.list_scope_sessions("x"),
    ),
    "DELETE /v3/workspaces/{workspace_id}/scopes/{scope_id}/sessions/{session_id}": (
        "remove_scope_session",
        lambda c: c.remove_scope_session("x", "s"),
    ),
    "GET /v3/workspaces/{workspace_id}/scopes/{scope_id}/status": (
        "get_scope_status",
        lambda c: c.get_scope_status("x"),
    ),
    "POST /v3/workspaces/{workspace_id}/search": ("search", lambda c: c.search("q")),
    "POST /v3/workspaces/{workspace_id}/sessions": (
        "get_or_create_session",
        lambda c: c.get_or_create_session("s"),
    ),
    "POST /v3/workspaces/{workspace_id}/sessions/list": (
        "list_sessions",
        lambda c: c.list_sessions(),
    ),
    "DELETE /v3/workspaces/{workspace_id}/sessions/{session_id}": (
        "delete_session",
        lambda c: c.delete_session("s"),
    ),
    "PUT /v3/workspaces/{workspace_id}/sessions/{session_id}": (
        "update_session",
        lambda c: c.update_session("s"),
    ),
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/clone": (
        "clone_session",
        lambda c: c.clone_session("s"),
    ),
    "GET /v3/workspaces/{workspace_id}/sessions/{session_id}/context": (
        "get_session_context",
        lambda c: c.get_session_context("s"),
    ),
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/messages": (
        "add_messages",
        lambda c: c.add_messages("s", [MessageCreate("a", "hi")]),
    ),
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/messages/list": (
        "list_messages",
        lambda c: c.list_messages("s"),
    ),
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/messages/upload": (
        "upload_file",
        lambda c: c.upload_file("s", "a", b"hi", "a.txt", "text/plain"),
    ),
    "GET /v3/workspaces/{workspace_id}/sessions/{session_id}/messages/{message_id}": (
        "get_message",
        lambda c: c.get_message("s", "m1"),
    ),
    "PUT /v3/workspaces/{workspace_id}/sessions/{session_id}/messages/{message_id}": (
        "update_message_metadata",
        lambda c: c.update_message_metadata("s", "m1", {"k": 1}),
    ),
    "DELETE /v3/workspaces/{workspace_id}/sessions/{session_id}/peers": (
        "remove_session_peers",
        lambda c: c.remove_session_peers("s", ["a"]),
    ),
    "GET /v3/workspaces/{workspace_id}/sessions/{session_id}/peers": (
        "list_session_peers",
        lambda c: c.list_session_peers("s"),
    ),
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/peers": (
        "add_session_peers",
        lambda c: c.add_session_peers("s", {"a": None}),
    ),
    "PUT /v3/workspaces/{workspace_id}/sessions/{session_id}/peers": (
        "set_session_peers",
        lambda c: c.set_session_peers("s", {"a": None}),
    ),
    "GET /v3/workspaces/{workspace_id}/sessions/{session_id}/peers/{peer_id}/config": (
        "get_session_peer_config",
        lambda c: c.get_session_peer_config("s", "a"),
    ),
    "PUT /v3/workspaces/{workspace_id}/sessions/{session_id}/peers/{peer_id}/config": (
        "set_session_peer_config",
        lambda c: c.set_session_peer_config("s", "a", observe_me=False),
    ),
    "POST /v3/workspaces/{workspace_id}/sessions/{session_id}/search": (
        "search_session",
        lambda c: c.search_session("s", "q"),
    ),
    "GET /v3/workspaces/{workspace_id}/sessions/{session_id}/summaries": (
        "get_session_summaries",
        lambda c: c.get_session_summaries("s"),
    ),
    "GET /v3/workspaces/{workspace_id}/webhooks": ("list_webhooks", lambda c: c.list_webhooks()),
    "POST /v3/workspaces/{workspace_id}/webhooks": (
        "get_or_create_webhook",
        lambda c: c.get_or_create_webhook("http://localhost:9/hook"),
    ),
    "GET /v3/workspaces/{workspace_id}/webhooks/test": (
        "trigger_webhook_test",
        lambda c: c.trigger_webhook_test(),
    ),
    "DELETE /v3/workspaces/{workspace_id}/webhooks/{endpoint_id}": (
        "delete_webhook",
        lambda c: c.delete_webhook("e1"),
    ),
}


def server_routes() -> list[str]:
    """``METHOD /path`` of each route in the committed list (comments and blanks skipped)."""
    lines = ROUTE_LIST.read_text(encoding="utf-8").splitlines()
    return [line.split("#")[0].strip() for line in lines if line and not line.startswith("#")]


@pytest.mark.blocking_only("it reads the committed list, and calls no client")
def test_the_route_list_is_the_servers_and_each_route_has_a_method_or_a_reason() -> None:
    routes = server_routes()
    assert len(routes) == len(set(routes)) == 53  # 52 distinct, and the trailing-slash twin
    assert "# The v3 routes declared in honcho-3.0.12-server.tar.gz" in ROUTE_LIST.read_text()
    unserved = [route for route in routes if route not in METHODS and route not in LEFT_OUT]
    assert unserved == []
    assert set(METHODS) | set(LEFT_OUT) == set(routes)  # nothing here that the list lacks


@pytest.mark.blocking_only("it reads both client classes itself")
def test_each_method_is_on_both_clients() -> None:
    from roncho.aio import AsyncClient

    for name, _ in METHODS.values():
        assert callable(getattr(roncho.Client, name, None)), name
        assert callable(getattr(AsyncClient, name, None)), name


def _pattern(route: str) -> re.Pattern[str]:
    method, template = route.split(" ")
    path = re.sub(r"\\\{\w+\\\}", "[^/?]+", re.escape(template))
    return re.compile(f"{method} {path}(\\?.*)? HTTP/1.1")


@pytest.mark.parametrize("route", sorted(METHODS))
def test_the_method_sends_the_route_and_reports_it_to_on_call(route: str) -> None:
    name, call = METHODS[route]
    # Any answer will do: the request line is what is checked, so a decode error is fine.
    answer = response_bytes(500, {"detail": "checked no further"}, reason="X")
    reports: list[roncho.CallReport] = []
    with RawServer([send_raw(answer)]) as server:
        client = roncho.Client(server.url, WS, read_timeout=READ_TIMEOUT, on_call=reports.append)
        with pytest.raises(roncho.RonchoError):
            call(client)
    request_line = server.requests[0].head.split(b"\r\n", 1)[0].decode()
    assert _pattern(route).fullmatch(request_line), (name, request_line)
    # on_call names the route as the server's own list does, ids not filled in
    [report] = reports
    assert (report.op, f"{report.method} {report.path}", report.status) == (name, route, 500)
