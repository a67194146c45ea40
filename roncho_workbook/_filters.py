"""Q4: do metadata filters work on messages/list and search; what do chat filters accept?

Three messages with different metadata go into a scratch session; each filter is tried on
``messages/list`` (and a few on workspace search), and the ids returned are compared with
the ids the filter should select (reference §4.4). Chat filters are sent raw, because the
client refuses anything but ``session_id`` before sending.
"""

from __future__ import annotations

import json
from typing import Any

from roncho import MessageCreate

from ._finding import Finding
from ._raw import said
from ._target import Target

SESSION = "q4-filters"
PEER = "q4-user"
# label, metadata; every content shares the word "apple" so search finds all three.
MESSAGES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("m1", {"label": "keep", "n": 1}),
    ("m2", {"label": "drop", "n": 2}),
    ("m3", {"label": "keep", "n": 3, "nested": {"a": 1}}),
)
# name, filters, the labels it should select (None: the server should refuse with 422).
LIST_CASES: tuple[tuple[str, dict[str, Any], tuple[str, ...] | None], ...] = (
    ("metadata equality", {"metadata": {"label": "keep"}}, ("m1", "m3")),
    ("metadata gte", {"metadata": {"n": {"gte": 2}}}, ("m2", "m3")),
    ("metadata nested containment", {"metadata": {"nested": {"a": 1}}}, ("m3",)),
    (
        "OR of metadata",
        {"OR": [{"metadata": {"label": "drop"}}, {"metadata": {"n": 3}}]},
        ("m2", "m3"),
    ),
    ("NOT metadata", {"NOT": [{"metadata": {"label": "keep"}}]}, ("m2",)),
    ("metadata AND peer_id", {"metadata": {"label": "keep"}, "peer_id": PEER}, ("m1", "m3")),
    ("unknown column id", {"id": "anything"}, None),
)
SEARCH_CASES: tuple[tuple[str, dict[str, Any], tuple[str, ...] | None], ...] = (
    ("no filter", {}, ("m1", "m2", "m3")),
    ("metadata equality", {"metadata": {"label": "keep"}}, ("m1", "m3")),
    ("metadata in", {"metadata": {"label": {"in": ["drop"]}}}, ("m2",)),
)


def probe_filters(target: Target, prefix: str) -> Finding:
    """Run the whole Q4 probe; see the module docstring."""
    finding = Finding(question="Q4 filters")
    trace = finding.trace
    with target.scratch(prefix) as client:
        raw = target.raw(client.workspace)
        sent = client.add_messages(
            SESSION,
            [MessageCreate(PEER, f"apple note {label}", metadata=meta) for label, meta in MESSAGES],
        )
        label_of = {m.id: label for m, (label, _) in zip(sent, MESSAGES, strict=True)}
        rows = finding.table("filters")
        list_path = raw.ws_path("sessions", SESSION, "messages", "list")
        for name, filters, expected in LIST_CASES:
            reply = trace.raw(
                f"messages/list: {name}", raw, "POST", list_path, {"filters": filters}
            )
            data: Any = reply.json if reply else None
            items = data.get("items", []) if isinstance(data, dict) else []
            rows.append(_row("messages/list", name, filters, expected, reply, items, label_of))
        search_path = raw.ws_path("search")
        for name, filters, expected in SEARCH_CASES:
            body: dict[str, Any] = {"query": "apple", "limit": 10}
            if filters:
                body["filters"] = filters
            reply = trace.raw(f"search: {name}", raw, "POST", search_path, body)
            data = reply.json if reply else None
            items = data if isinstance(data, list) else []
            rows.append(_row("search", name, filters, expected, reply, items, label_of))
        chat_path = raw.ws_path("peers", PEER, "chat")
        chat_cases: tuple[tuple[str, dict[str, Any], bool], ...] = (
            ("session_id allowlist", {"session_id": SESSION}, True),
            ("metadata", {"metadata": {"label": "keep"}}, False),
            ("peer_id", {"peer_id": PEER}, False),
        )
        for name, filters, accepted in chat_cases:
            reply = trace.raw(
                f"chat: {name}",
                raw,
                "POST",
                chat_path,
                {"query": "What does the user note?", "filters": filters},
            )
            status = reply.status if reply else None
            rows.append(
                {
                    "where": "peer chat",
                    "case": name,
                    "filters": _compact(filters),
                    "expected": "accepted" if accepted else "422",
                    "status": status,
                    "seen": "accepted"
                    if status is not None and 200 <= status < 300
                    else said(reply),
                    "agrees": (status is not None and 200 <= status < 300) == accepted
                    and (accepted or status == 422),
                }
            )
    agree = sum(1 for r in rows if r["agrees"])
    finding.answer = (
        f"{agree}/{len(rows)} filter cases behaved as the source says: metadata filters "
        f"{'work' if _all_agree(rows, 'messages/list') else 'DO NOT all work'} on messages/list "
        f"and {'work' if _all_agree(rows, 'search') else 'DO NOT all work'} on search; chat "
        f"{'accepts only session_id (others 422)' if _all_agree(rows, 'peer chat') else 'differs'}."
    )
    return finding


def _row(
    where: str,
    name: str,
    filters: dict[str, Any],
    expected: tuple[str, ...] | None,
    reply: Any,
    items: list[Any],
    label_of: dict[str, str],
) -> dict[str, Any]:
    status = reply.status if reply else None
    labels = tuple(
        sorted(label_of.get(str(i.get("id")), "?") for i in items if isinstance(i, dict))
    )
    if expected is None:
        agrees = status == 422
        seen = said(reply)
    else:
        agrees = status == 200 and labels == tuple(sorted(expected))
        seen = ",".join(labels) if status == 200 else said(reply)
    return {
        "where": where,
        "case": name,
        "filters": _compact(filters),
        "expected": "422" if expected is None else ",".join(expected),
        "status": status,
        "seen": seen[:160],
        "agrees": agrees,
    }


def _compact(filters: dict[str, Any]) -> str:
    return json.dumps(filters, separators=(",", ":"))


def _all_agree(rows: list[dict[str, Any]], where: str) -> bool:
    return all(r["agrees"] for r in rows if r["where"] == where)
