"""The request-log reading that the acceptance test rests on, checked on its own."""

from __future__ import annotations

from request_log import created_by_run, touches, violations


def _log(*requests: tuple[str, str, object]) -> list[dict[str, object]]:
    return [{"method": m, "path": p, "query": {}, "json": j} for m, p, j in requests]


def test_reads_and_writes_are_told_apart() -> None:
    seen = touches(
        _log(
            ("GET", "/health", None),
            ("POST", "/v3/workspaces/list", {}),
            ("POST", "/v3/workspaces/mine/peers/list", {}),
            ("POST", "/v3/workspaces/mine/search", {"query": "x"}),
            ("POST", "/v3/workspaces/mine/peers/p/chat", {"query": "x"}),
            ("GET", "/v3/workspaces/mine/queue/status?session_id=s", None),
            ("POST", "/v3/workspaces/mine/peers", {"id": "p"}),
            ("PUT", "/v3/workspaces/mine", {"metadata": {}}),
            ("DELETE", "/v3/workspaces/mine/sessions/s", None),
            ("POST", "/v3/workspaces/mine/sessions/s/clone", None),
        )
    )
    assert [t.write for t in seen] == [False] * 6 + [True] * 4
    assert [t.workspace for t in seen] == [None, None] + ["mine"] * 8


def test_a_write_to_a_workspace_that_existed_is_a_violation() -> None:
    seen = touches(
        _log(
            ("POST", "/v3/workspaces", {"id": "agent"}),  # get-or-create of an existing one
            ("POST", "/v3/workspaces/agent/sessions/s/messages", {"messages": []}),
        )
    )
    assert created_by_run(seen, {"agent"}) == set()
    assert [t.index for t in violations(seen, {"agent"})] == [0, 1]


def test_a_write_to_a_workspace_the_run_never_created_is_a_violation() -> None:
    seen = touches(_log(("POST", "/v3/workspaces/stranger/peers", {"id": "p"})))
    assert [t.workspace for t in violations(seen, set())] == ["stranger"]


def test_writes_to_the_runs_own_workspace_pass() -> None:
    seen = touches(
        _log(
            ("POST", "/v3/workspaces", {"id": "roncho-test-1"}),
            ("POST", "/v3/workspaces/roncho-test-1/peers", {"id": "p"}),
            ("DELETE", "/v3/workspaces/roncho-test-1", None),
            ("POST", "/v3/workspaces/agent/peers/list", {}),
        )
    )
    assert created_by_run(seen, {"agent"}) == {"roncho-test-1"}
    assert violations(seen, {"agent"}) == []


def test_minting_a_key_counts_as_a_write_to_its_workspace() -> None:
    log = [{"method": "POST", "path": "/v3/keys", "query": {"workspace_id": "agent"}, "json": None}]
    assert [t.workspace for t in violations(touches(log), {"agent"})] == ["agent"]
