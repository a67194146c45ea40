"""Q5: can a conclusion be traced back to the message it came from?

In a scratch workspace: write an explicit conclusion (raw, to see every field the server
returns), send a message long enough to pass the deriver's token gate and wait (bounded)
for a derived conclusion, then look at both for ``source_ids`` and any message link; ask
the dialectic with ``include_evidence`` and see whether it names the message.
"""

from __future__ import annotations

import json
from typing import Any

from roncho import MessageCreate

from ._finding import Finding, sample_text, wait_until
from ._raw import RawClient, status_word
from ._target import Target

SESSION = "q5-provenance"
PEER = "q5-user"
# Field names a message link could have (DOCS-new evidence.mdx claims source_message_ids).
LINK_FIELDS = ("source_message_ids", "message_ids", "source_messages", "message_id")
ABOVE_GATE_CHARS = 4000


def probe_provenance(target: Target, prefix: str, *, wait_bound: float, poll: float) -> Finding:
    """Run the whole Q5 probe; see the module docstring."""
    finding = Finding(question="Q5 provenance")
    trace = finding.trace
    with target.scratch(prefix) as client:
        raw = target.raw(client.workspace)
        client.get_or_create_session(SESSION, peers={PEER: {}})
        explicit = trace.raw(
            "create an explicit conclusion",
            raw,
            "POST",
            raw.ws_path("conclusions"),
            {
                "conclusions": [
                    {
                        "content": "q5 explicit conclusion",
                        "observer_id": PEER,
                        "observed_id": PEER,
                        "session_id": SESSION,
                    }
                ]
            },
        )
        explicit_items: Any = explicit.json if explicit else None
        explicit_item = explicit_items[0] if isinstance(explicit_items, list) else {}
        (message,) = client.add_messages(
            SESSION, [MessageCreate(PEER, sample_text(ABOVE_GATE_CHARS, "q5-source"))]
        )
        derived: dict[str, Any] = {}

        def found() -> bool:
            for item in _conclusions(raw):
                if item.get("id") != explicit_item.get("id"):
                    derived.update(item)
                    return True
            return False

        waited = wait_until(found, bound=wait_bound, interval=poll)
        trace.raw(
            "list conclusions (both kinds)",
            raw,
            "POST",
            raw.ws_path("conclusions", "list"),
            {"filters": {"session_id": SESSION}},
        )
        rows = finding.table("fields")
        for kind, item in (("explicit (API)", explicit_item), ("derived (deriver)", derived)):
            rows.append(
                {
                    "conclusion": kind,
                    "present": bool(item),
                    "level": item.get("level"),
                    "fields": ",".join(sorted(item)),
                    "source_ids": _show(item, "source_ids"),
                    "message link field": next((f for f in LINK_FIELDS if f in item), "none"),
                    "mentions the message id": bool(item) and message.id in str(item),
                }
            )
        chat = trace.raw(
            "chat with include_evidence",
            raw,
            "POST",
            raw.ws_path("peers", PEER, "chat"),
            {"query": "What did the user do on saturday?", "include_evidence": True},
        )
        chat_json: Any = chat.json if chat else None
        evidence = chat_json.get("evidence") if isinstance(chat_json, dict) else None
        finding.table("chat_evidence").append(
            {
                "status": chat.status if chat else None,
                "evidence returned": evidence is not None,
                "evidence names the message": evidence is not None and message.id in str(evidence),
                "evidence keys": ",".join(sorted(evidence)) if isinstance(evidence, dict) else "",
            }
        )
        finding.table("timing").append(
            {"derived conclusion after s": None if waited is None else round(waited, 3)}
        )
        finding.answer = _answer(rows, evidence, chat, message.id, waited)
    return finding


def _conclusions(raw: RawClient) -> list[dict[str, Any]]:
    reply = raw.request(
        "POST", raw.ws_path("conclusions", "list"), {"filters": {"session_id": SESSION}}
    )
    data: Any = reply.json
    items = data.get("items") if isinstance(data, dict) else None
    return [i for i in items or [] if isinstance(i, dict)]


def _show(item: dict[str, Any], key: str) -> str:
    """``absent``, or the value as JSON (so null reads as null, not Python's None)."""
    return "absent" if key not in item else json.dumps(item[key])


def _answer(
    rows: list[dict[str, Any]], evidence: Any, chat: Any, message_id: str, waited: float | None
) -> str:
    explicit, derived = rows
    link = any(r["message link field"] != "none" or r["mentions the message id"] for r in rows)
    chat_part = (
        "chat include_evidence returned evidence "
        + ("naming the message" if evidence and message_id in str(evidence) else "without it")
        if evidence is not None
        else f"chat include_evidence gave no evidence (status {status_word(chat)})"
    )
    derived_part = (
        f"derived ({derived['level']}) source_ids {derived['source_ids']}"
        if derived["present"]
        else "no derived conclusion within the bound"
    )
    return (
        f"Explicit conclusion source_ids {explicit['source_ids']}; {derived_part}; "
        f"stored message link: {'yes' if link else 'none'}; {chat_part}."
    )
