"""Q2: what can be edited or deleted, and what does a session delete remove?

In a scratch workspace: edit a message's metadata (client) and try its content (raw PUT);
try DELETE on a message (raw: the client has no such call); write one conclusion tied to
the session and one without; delete the session and watch, at a bounded interval, what
is still listable until the background purge, and what survives it.
"""

from __future__ import annotations

import json
from typing import Any

from roncho import Client, ConclusionCreate, MessageCreate, RonchoError

from ._finding import Finding, wait_until
from ._raw import status_word
from ._target import Target

SESSION = "q2-doomed"
PEER = "q2-user"


def probe_deletion(target: Target, prefix: str, *, wait_bound: float, poll: float) -> Finding:
    """Run the whole Q2 probe; see the module docstring."""
    finding = Finding(question="Q2 editing and deleting")
    trace = finding.trace
    with target.scratch(prefix) as client:
        raw = target.raw(client.workspace)
        client.get_or_create_peer(PEER)
        client.get_or_create_session(SESSION, peers={PEER: {}})
        sent = client.add_messages(
            SESSION, [MessageCreate(PEER, f"message {i} to be deleted") for i in range(3)]
        )
        first = sent[0]
        msg_path = raw.ws_path("sessions", SESSION, "messages", first.id)
        edits = finding.table("edits")

        meta = trace.call(
            "edit metadata",
            client.update_message_metadata,
            SESSION,
            first.id,
            {"edited": True},
            describe=lambda m: json.dumps({"metadata": m.metadata, "content": m.content}),
        )
        edits.append(
            {
                "what": "metadata (PUT {metadata})",
                "status": "2xx" if not isinstance(meta, RonchoError) else meta,
                "stored afterwards": _stored(client, first.id),
            }
        )
        put = trace.raw(
            "try to edit content",
            raw,
            "PUT",
            msg_path,
            {"content": "rewritten", "metadata": {"edited": "again"}},
        )
        edits.append(
            {
                "what": "content (PUT {content, metadata})",
                "status": put.status if put else None,
                "stored afterwards": _stored(client, first.id),
            }
        )
        delete = trace.raw("try to delete one message", raw, "DELETE", msg_path)
        edits.append(
            {
                "what": "DELETE one message",
                "status": delete.status if delete else None,
                "stored afterwards": _stored(client, first.id),
            }
        )

        tied, loose = client.create_conclusions(
            [
                ConclusionCreate("q2 conclusion tied to the session", PEER, PEER, SESSION),
                ConclusionCreate("q2 conclusion without a session", PEER, PEER),
            ]
        )
        snapshot = _snapshot(client, tied.id, loose.id)
        accepted = trace.raw("delete the session", raw, "DELETE", raw.ws_path("sessions", SESSION))
        right_after = _snapshot(client, tied.id, loose.id)
        again = trace.raw(
            "get-or-create the deleted session",
            raw,
            "POST",
            raw.ws_path("sessions"),
            {"id": SESSION},
        )
        purged_in = wait_until(
            lambda: _snapshot(client, tied.id, loose.id)["messages listed"] == 0,
            bound=wait_bound,
            interval=poll,
        )
        after = _snapshot(client, tied.id, loose.id)
        rows = finding.table("session_delete")
        for item in snapshot:
            rows.append(
                {
                    "item": item,
                    "before delete": snapshot[item],
                    "right after 202": right_after[item],
                    "after purge" if purged_in is not None else "at the bound": after[item],
                }
            )
        finding.table("timing").append(
            {
                "delete status": accepted.status if accepted else None,
                "delete body": accepted.text() if accepted else "",
                "get-or-create after delete": again.status if again else None,
                "purge seen after s": None if purged_in is None else round(purged_in, 3),
                "wait bound s": wait_bound,
            }
        )
        finding.answer = _answer(finding, put, delete, accepted, purged_in, after)
    return finding


def _stored(client: Client, message_id: str) -> str:
    try:
        message = client.get_message(SESSION, message_id)
    except RonchoError as exc:
        return f"error {getattr(exc, 'status', type(exc).__name__)}"
    return json.dumps({"content": message.content, "metadata": message.metadata})


def _snapshot(client: Client, tied: str, loose: str) -> dict[str, Any]:
    messages = client.list_messages(SESSION, size=100)
    ids = {c.id for c in client.list_conclusions(size=100).items}
    active = {s.id for s in client.list_sessions(size=100).items}
    return {
        "messages listed": messages.total,
        "session listed as active": SESSION in active,
        "conclusion with session_id": tied in ids,
        "conclusion without session_id": loose in ids,
    }


def _answer(
    finding: Finding,
    put: Any,
    delete: Any,
    accepted: Any,
    purged_in: float | None,
    after: dict[str, Any],
) -> str:
    edits = finding.tables["edits"]
    content_kept = "rewritten" not in str(edits[1]["stored afterwards"])
    purge = (
        f"purged within {purged_in:.1f}s"
        if purged_in is not None
        else "not purged within the bound"
    )
    return (
        f"Metadata is editable; content is not (PUT with content -> "
        f"{status_word(put)}, content {'unchanged' if content_kept else 'CHANGED'}); "
        f"DELETE of a message -> {status_word(delete)}; session delete -> "
        f"{status_word(accepted)}, messages stay listable until the purge "
        f"({purge}); after it the session's conclusion is "
        f"{'kept' if after['conclusion with session_id'] else 'gone'} and the session-less one "
        f"{'kept' if after['conclusion without session_id'] else 'gone'}."
    )
