"""Q6: when does a workspace delete answer 409, and how does a session become inactive?

In a scratch workspace with one active session: DELETE the workspace (expect 409), delete
the session (202), check it is no longer listed as active, DELETE the workspace again
(expect 202) and watch, bounded, until the workspace is gone.
"""

from __future__ import annotations

from typing import Any

from roncho import MessageCreate

from ._finding import Finding, wait_until
from ._raw import RawClient, said, status_word
from ._target import Target

SESSION = "q6-active"


def probe_workspace_delete(
    target: Target, prefix: str, *, wait_bound: float, poll: float
) -> Finding:
    """Run the whole Q6 probe; see the module docstring."""
    finding = Finding(question="Q6 workspace delete")
    trace = finding.trace
    with target.scratch(prefix) as client:
        raw = target.raw(client.workspace)
        client.add_messages(SESSION, [MessageCreate("q6-user", "keeps the session active")])
        busy = trace.raw("delete workspace, session active", raw, "DELETE", raw.ws_path())
        gone = trace.raw("delete the session", raw, "DELETE", raw.ws_path("sessions", SESSION))
        listed = trace.raw("list active sessions", raw, "POST", raw.ws_path("sessions", "list"), {})
        items = listed.json.get("items", []) if listed and isinstance(listed.json, dict) else []
        still_active = any(isinstance(i, dict) and i.get("id") == SESSION for i in items)
        accepted = trace.raw("delete workspace again", raw, "DELETE", raw.ws_path())
        vanished = wait_until(lambda: _gone(raw), bound=wait_bound, interval=poll)
        trace.raw(
            "list workspaces filtered by id",
            raw,
            "POST",
            "/v3/workspaces/list",
            {"filters": {"id": client.workspace}},
        )
        finding.table("steps").extend(
            {"step": c.step, "status": c.status, "body": c.body} for c in trace.calls
        )
        finding.table("timing").append(
            {
                "workspace gone after s": None if vanished is None else round(vanished, 3),
                "wait bound s": wait_bound,
            }
        )
        finding.answer = (
            f"With an active session the workspace delete answers "
            f"{said(busy, quoted=True)}; the session "
            f"delete ({status_word(gone)}) makes it inactive at once (listed as "
            f"active afterwards: {still_active}); then the workspace delete answers "
            f"{status_word(accepted)}"
            + (
                f" and the workspace is gone within {vanished:.1f}s."
                if vanished is not None
                else " but it was still there at the bound."
            )
        )
    return finding


def _gone(raw: RawClient) -> bool:
    """The workspace is no longer listed (admin / auth off) or its delete answers 404."""
    reply = raw.request("POST", "/v3/workspaces/list", {"filters": {"id": raw.workspace}})
    if reply.status == 200:
        data: Any = reply.json
        return isinstance(data, dict) and not data.get("items")
    return raw.request("DELETE", raw.ws_path()).status == 404
