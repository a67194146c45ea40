"""Q8: where the sources disagree about Honcho's behaviour, what does this server do?

The sources (their labels in the table and figure): SRC 3.0.12, the Honcho 3.0.12 source;
OAS-3.3/docs, the OpenAPI document and documentation of Honcho 3.3; OBS 3.2.0, a real 3.2.0
server as observed (docs/compatibility.md lists each). The topics are the differences the
project's reference of the v3 API lists between them.

Quick re-probes in one scratch workspace (raw calls, so every status and shape is seen as
sent). Each row names the topic, what the sources say, what this server did, and which
source it agrees with.

Then, for a server that reports 3.2.x, "against upstream 3.2": each endpoint's answer held
against what upstream 3.2 is known to send (`_upstream32`: the official SDK's response
models and the release notes), one row per endpoint with each difference and its source.
For any other version that part does not apply, and the answer says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ._finding import Finding
from ._questions import source_legend
from ._raw import RawClient, RawReply, said
from ._target import Target
from ._upstream32 import ENDPOINTS, NOTE_321, REACH, applies, check, which_release

PEER = "q8-user"
# What a source says when it says nothing about the topic: never counted as agreement.
_SILENT = frozenset({"not tried", "-", "untyped"})
SESSION = "q8-session"
UPSTREAM = "Against upstream 3.2"


def _status(reply: RawReply | None) -> str:
    return "no answer" if reply is None else str(reply.status)


def _shape(reply: RawReply | None) -> str:
    data = reply.json if reply else None
    if isinstance(data, list):
        return "bare array"
    if isinstance(data, dict):
        return "object {" + ",".join(sorted(data)[:6]) + "}"
    return _status(reply)


def probe_differences(target: Target, prefix: str) -> Finding:
    """Run the whole Q8 probe; see the module docstring."""
    finding = Finding(question="Q8 differences", notes=[f"*Sources:* {source_legend()}."])
    t = finding.trace
    rows = finding.table("differences")

    def add(
        topic: str,
        src: str,
        oas33: str,
        obs: str,
        seen: str,
        agree: Callable[[str], bool] | None = None,
    ) -> None:
        sources = {"SRC 3.0.12": src, "OAS-3.3/docs": oas33, "OBS 3.2.0": obs}
        matches = [
            name
            for name, said in sources.items()
            if said not in _SILENT and (agree or _same(seen))(said)
        ]
        rows.append(
            {
                "topic": topic,
                "SRC 3.0.12": src,
                "OAS-3.3/docs": oas33,
                "OBS 3.2.0": obs,
                "this server": seen,
                "agrees with": ", ".join(matches) or "none",
            }
        )

    replies: dict[str, RawReply | None] = {}
    with target.scratch(prefix) as client:
        raw = target.raw(client.workspace)
        version = client.server_version()
        peer_new = t.raw("create peer (new)", raw, "POST", raw.ws_path("peers"), {"id": PEER})
        peer_old = t.raw("create peer (again)", raw, "POST", raw.ws_path("peers"), {"id": PEER})
        sess = t.raw("create session (new)", raw, "POST", raw.ws_path("sessions"), {"id": SESSION})
        add(
            "create status peer/session (new, existing)",
            "201/200",
            "200 only",
            "201 (new), 200 (existing)",
            f"{_status(peer_new)}/{_status(peer_old)}, session {_status(sess)}",
            lambda said: said.startswith(f"{_status(peer_new)}") and _status(peer_old) in said,
        )
        msgs = t.raw(
            "add a message",
            raw,
            "POST",
            raw.ws_path("sessions", SESSION, "messages"),
            {"messages": [{"peer_id": PEER, "content": "apple pie on sunday"}]},
        )
        concl = t.raw(
            "create a conclusion",
            raw,
            "POST",
            raw.ws_path("conclusions"),
            {
                "conclusions": [
                    {"content": "likes apple pie", "observer_id": PEER, "observed_id": PEER}
                ]
            },
        )
        add(
            "messages / conclusions create status",
            "201",
            "201",
            "201",
            f"{_status(msgs)}/{_status(concl)}",
            lambda said: all(s == said for s in (_status(msgs), _status(concl))),
        )
        item: Any = concl.json[0] if concl and isinstance(concl.json, list) and concl.json else {}
        fields = f"{_field(item, 'source_ids')}, {_field(item, 'times_derived')}"
        add(
            "conclusion fields",
            "no source_ids, no times_derived",
            "source_ids[], times_derived",
            "source_ids: null",
            fields,
            lambda said: _fields_agree(said, item),
        )
        search = t.raw("workspace search", raw, "POST", raw.ws_path("search"), {"query": "apple"})
        add(
            "search response",
            "bare array",
            "docs show {items}",
            "bare array",
            _shape(search),
            lambda said: (said == "bare array") == (_shape(search) == "bare array"),
        )
        query = t.raw(
            "conclusions query without observer/observed",
            raw,
            "POST",
            raw.ws_path("conclusions", "query"),
            {"query": "apple"},
        )
        add(
            "conclusions query without observer/observed",
            "422",
            "filters optional (200)",
            "422",
            _status(query),
        )
        wchat = t.raw("workspace chat", raw, "POST", raw.ws_path("chat"), {"query": "hi"})
        add(
            "workspace chat route",
            "absent (404/405)",
            "present (200)",
            "not tried",
            _status(wchat),
            lambda said: ("200" in said) == (_status(wchat) == "200"),
        )
        evid = t.raw(
            "peer chat include_evidence",
            raw,
            "POST",
            raw.ws_path("peers", PEER, "chat"),
            {"query": "what does the user like?", "include_evidence": True},
        )
        has_evidence = isinstance(evid.json if evid else None, dict) and "evidence" in (
            evid.json if evid else {}
        )
        add(
            "include_evidence on chat",
            "absent",
            "present",
            "not tried",
            f"{_status(evid)}, evidence {'returned' if has_evidence else 'not returned'}",
            lambda said: (said == "present") == has_evidence,
        )
        cursor = t.raw(
            "messages/list with cursor=",
            raw,
            "POST",
            raw.ws_path("sessions", SESSION, "messages", "list"),
            {},
            query={"cursor": ""},
        )
        has_cursor = isinstance(cursor.json if cursor else None, dict) and "next_page" in (
            cursor.json if cursor else {}
        )
        add(
            "cursor pagination",
            "absent",
            "present",
            "not tried",
            f"{_status(cursor)}, {'cursor page' if has_cursor else 'page/total page'}",
            lambda said: (said == "present") == has_cursor,
        )
        cid = str(item.get("id", "missing"))
        one = t.raw("GET one conclusion", raw, "GET", raw.ws_path("conclusions", cid))
        replies.update(
            {
                "POST …/peers": peer_new,
                "POST …/sessions": sess,
                "POST …/sessions/{s}/messages": msgs,
                "POST …/conclusions": concl,
                "POST …/search": search,
                "POST …/chat": wchat,
                "POST …/peers/{p}/chat include_evidence": evid,
                "GET …/conclusions/{id}": one,
            }
        )
        add(
            "GET .../conclusions/{id}",
            "absent",
            "present",
            "not tried",
            _status(one),
            lambda said: (said == "present") == (_status(one) == "200"),
        )
        scopes = t.raw("list scopes", raw, "POST", raw.ws_path("scopes", "list"), {})
        add(
            "scopes routes",
            "present (post-release)",
            "present",
            "not tried",
            said(scopes),
            lambda said: said.startswith("present") == (_status(scopes) == "200"),
        )
        listed = client.list_messages(SESSION).items
        mid = listed[0].id if listed else "missing"
        if applies(version):
            replies.update(_upstream_calls(t, raw, mid))
        mdel = t.raw(
            "DELETE a message", raw, "DELETE", raw.ws_path("sessions", SESSION, "messages", mid)
        )
        add(
            "message DELETE",
            "absent",
            "absent",
            "405 Method Not Allowed",
            said(mdel),
            lambda said: (
                said.startswith(_status(mdel))
                or (said == "absent" and _status(mdel) in ("404", "405"))
            ),
        )
        sdel = t.raw("delete the session", raw, "DELETE", raw.ws_path("sessions", SESSION))
        add(
            "session delete",
            '202 {"message":"Session deleted successfully"}',
            "untyped",
            "same as SRC",
            f"{_status(sdel)} {sdel.text() if sdel else ''}",
            lambda said: (
                (
                    "Session deleted successfully" in said
                    and sdel is not None
                    and "Session deleted successfully" in sdel.text()
                )
                or (
                    said == "same as SRC"
                    and sdel is not None
                    and "Session deleted successfully" in sdel.text()
                )
            ),
        )
        health = t.raw("GET /health", raw, "GET", "/health")
        version_header = any("version" in h for h in (health.headers if health else {}))
        add(
            "/health",
            '{"status":"ok"}, no version',
            "untyped",
            '{"status":"ok"}, no version',
            f"{health.text() if health else 'no answer'}"
            f"{', version header' if version_header else ', no version'}",
            lambda said: (
                '{"status":"ok"}' in said.replace(" ", "")
                and not version_header
                and health is not None
                and '"ok"' in health.text()
            ),
        )
        keys = _keys(t, raw, client.workspace)
        add(
            "POST /v3/keys without a key",
            "405 when auth off; 401 when on",
            "-",
            "405 Feature is disabled (auth off)",
            keys,
            lambda said: keys.split(" ")[0] in said,
        )
    upstream = hold_upstream(version, replies)
    against = summarise_upstream(version, upstream)
    if upstream:
        finding.tables["upstream_3_2"] = upstream
        evidence = evid.json.get("evidence") if evid and isinstance(evid.json, dict) else None
        releases = which_release(item, evidence) or ["not shown by these answers"]
        against += f" Where 3.2.0 and 3.2.1 differ ({NOTE_321}): {'; '.join(releases)}."
    finding.answer = summarise(rows) + " " + against
    return finding


def upstream_answer(finding: Finding) -> str:
    """The "against upstream 3.2" part of a Q8 answer, as the notebook shows it."""
    answer = finding.answer
    return answer[answer.index(UPSTREAM) :] if UPSTREAM in answer else ""


def _upstream_calls(t: Any, raw: RawClient, mid: str) -> dict[str, RawReply | None]:
    """The endpoints the topics above do not call, each once, in the same scratch workspace."""
    ws = raw.ws_path
    filters = {"filters": {"observer_id": PEER, "observed_id": PEER}}
    calls: list[tuple[str, str, str, object]] = [
        ("PUT /v3/workspaces/{w}", "PUT", ws(), {"metadata": {"q8": True}}),
        ("POST …/peers/list", "POST", ws("peers", "list"), {}),
        ("POST …/sessions/list", "POST", ws("sessions", "list"), {}),
        (
            "POST …/sessions/{s}/messages/list",
            "POST",
            ws("sessions", SESSION, "messages", "list"),
            {},
        ),
        ("GET …/sessions/{s}/messages/{id}", "GET", ws("sessions", SESSION, "messages", mid), None),
        ("GET …/sessions/{s}/context", "GET", ws("sessions", SESSION, "context"), None),
        ("GET …/sessions/{s}/summaries", "GET", ws("sessions", SESSION, "summaries"), None),
        ("POST …/conclusions/list", "POST", ws("conclusions", "list"), {}),
        (
            "POST …/conclusions/query",
            "POST",
            ws("conclusions", "query"),
            {"query": "apple", **filters},
        ),
        ("GET …/peers/{p}/card", "GET", ws("peers", PEER, "card"), None),
        ("GET …/peers/{p}/context", "GET", ws("peers", PEER, "context"), None),
        ("POST …/peers/{p}/representation", "POST", ws("peers", PEER, "representation"), {}),
        ("GET …/queue/status", "GET", ws("queue", "status"), None),
    ]
    return {
        name: t.raw(f"upstream 3.2: {name}", raw, method, path, body)
        for name, method, path, body in calls
    }


def hold_upstream(version: str | None, replies: dict[str, RawReply | None]) -> list[dict[str, Any]]:
    """One row per endpoint: its answer held against upstream 3.2 (none unless 3.2.x)."""
    if not applies(version):
        return []
    rows = []
    for endpoint in ENDPOINTS:
        reply = replies.get(endpoint.name)
        found, objects = check(
            endpoint, reply.status if reply else None, reply.json if reply else None
        )
        rows.append(
            {
                "endpoint": endpoint.name,
                "status": _status(reply),
                "held against": endpoint.model.name
                + (" (array)" if endpoint.holds == "list" else ""),
                "objects held": objects,
                "differences": "; ".join(found) or "none",
            }
        )
    return rows


def summarise_upstream(version: str | None, rows: list[dict[str, Any]]) -> str:
    """The "against upstream 3.2" sentence: each difference with its source, or none found
    and how far that reaches, or why the part does not apply."""
    if not applies(version):
        said = f"reports {version}" if version else "reveals no version"
        return (
            f"{UPSTREAM}: does not apply, the server {said}; the expectations "
            "are of upstream 3.2 (docs/emulator.md), so only a 3.2.x server is held to them."
        )
    differ = [row for row in rows if row["differences"] != "none"]
    if not differ:
        empty = [row["endpoint"] for row in rows if not row["objects held"]]
        unseen = f"; no object to hold from {', '.join(empty)}" if empty else ""
        return (
            f"{UPSTREAM} (server reports {version}): none found in the "
            f"{len(rows)} endpoints held; {REACH}{unseen}."
        )
    listed = "; ".join(f"{row['endpoint']}: {row['differences']}" for row in differ)
    return (
        f"{UPSTREAM} (server reports {version}): {len(differ)} of {len(rows)} "
        f"endpoints differ: {listed}."
    )


def summarise(rows: list[dict[str, Any]]) -> str:
    """One line that accounts for every topic: matching 3.0.12/3.2.0, newer (3.3), or none.

    Each topic lands in exactly one group, so the counts always add up to ``len(rows)``.
    """
    known, newer, lone = [], [], []
    for row in rows:
        said = row["agrees with"]
        if "SRC" in said or "OBS" in said:
            known.append(row)
        elif "OAS-3.3" in said:
            newer.append(row["topic"])
        else:
            lone.append(f"{row['topic']} ({row['this server']})")
    parts = [
        f"{len(known)}/{len(rows)} topics match the 3.0.12 source or the observed 3.2.0 server",
        f"{len(newer)} show newer (3.3) behaviour: {', '.join(newer) or 'none'}",
        f"{len(lone)} match no source: {', '.join(lone) or 'none'}",
    ]
    return "; ".join(parts) + "."


def _same(seen: str) -> Callable[[str], bool]:
    return lambda said: said == seen or said.split(" ")[0] == seen.split(" ")[0]


def _field(item: dict[str, Any], name: str) -> str:
    """``source_ids absent``, ``source_ids null`` or ``source_ids ["a"]``: JSON, never a repr."""
    if name not in item:
        return f"{name} absent"
    return f"{name} {json.dumps(item[name])}"


def _fields_agree(said: str, item: dict[str, Any]) -> bool:
    if said.startswith("no source_ids"):
        return "source_ids" not in item and "times_derived" not in item
    if said.startswith("source_ids[]"):
        return isinstance(item.get("source_ids"), list) and "times_derived" in item
    return "source_ids" in item and item["source_ids"] is None


def _keys(t: Any, raw: RawClient, workspace: str) -> str:
    reply = t.raw(
        "mint a key with no Authorization",
        raw,
        "POST",
        "/v3/keys",
        query={"workspace_id": workspace},
        api_key=None,
    )
    return said(reply)
