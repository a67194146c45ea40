"""The scripted calls of the differential, in order, over the whole v3 surface roncho and the
emulator serve. Each runs in the run's own workspace `{W}`; later steps use ids saved by
earlier ones. The real server runs its deriver with flush on (the kit's default)."""

from __future__ import annotations

import json
from typing import Any

from diff_script import Step, Wait, multipart

WS = "/v3/workspaces/{W}"
# The cloned session's name is the run's own ({S1}, filled by Run): Honcho 3.0.12 clones every
# message of *any* workspace's session by that name (docs/compatibility.md, "Server defects"),
# so a plain "s1" collides with another run's workspace still waiting to be purged (a 500).
S1 = WS + "/sessions/{S1}"
PEERS = {"alice": {}, "bob": {"observe_others": True}}
SOURCE_ID_FILTERS = {
    "contains-string": {"contains": "{C0}"},
    "contains-list": {"contains": ["{C0}"]},
    "bare-list": ["{C0}"],
    "scalar": "{C0}",
    "in": {"in": ["{C0}"]},
    "null": None,
}


def _save(name: str, *path: Any) -> Any:
    def save(body: Any, variables: dict[str, str]) -> None:
        value = body
        for part in path:
            value = value[part]
        variables[name] = str(value)

    return save


def _info_version(body: Any) -> Any:
    """Only `info.version` of /openapi.json is the emulator's business (the rest is a stub)."""
    return {"info": {"version": body["info"]["version"]}}


def _search_view(body: Any) -> Any:
    """Search hits in a fixed order: the server orders those after the word matches by
    embeddings, which the emulator cannot know; which hits come back is compared."""
    return sorted(body, key=_stable)


def _stable(item: Any, *ignored: str) -> str:
    """A sort key of an item without its server-made parts (ids, timestamps)."""
    if not isinstance(item, dict):
        return json.dumps(item, sort_keys=True)
    kept = {k: v for k, v in item.items() if k not in ("id", "created_at", *ignored)}
    return json.dumps(kept, sort_keys=True)


def _queue_view(body: Any) -> Any:
    """Queue status keys its `sessions` map by internal session ids: compare the values
    (in a fixed order)."""
    sessions = body.get("sessions")
    if not isinstance(sessions, dict):
        return {**body, "sessions": None}
    ordered = sorted(sessions.values(), key=lambda v: _stable(v, "session_id"))
    return {**body, "sessions": ordered}


def _items_unordered(body: Any) -> Any:
    """A page whose order is not fully defined (session members: no ORDER BY; conclusions:
    created_at only, and one batch shares it): its items in a fixed order."""
    return {**body, "items": sorted(body["items"], key=_stable)}


def _lines_unordered(key: str) -> Any:
    """The representation text under `key` with its lines in a fixed order: the server's
    order of lines sharing one timestamp (one deriver batch) is its own."""

    def view(body: Any) -> Any:
        text = body.get(key)
        if not isinstance(text, str):
            return body
        lines = text.splitlines()
        return {**body, key: sorted(lines, key=lambda line: line.split("] ", 1)[-1])}

    return view


UPLOAD = multipart({"peer_id": "alice"}, "notes.txt", "text/plain", b"alice keeps notes in a file")
UPLOAD_HEADERS = {"Content-Type": "multipart/form-data; boundary=roncho-differential-boundary"}

STEPS: list[Step | Wait] = [
    Step("health", "GET", "/health"),
    # The emulator reports "<version>-emulator": compared by shape.
    Step("openapi version", "GET", "/openapi.json", view=_info_version, values=False),
    Step("workspace create", "POST", "/v3/workspaces", {"id": "{W}", "metadata": {"k": 1}}),
    Step("workspace get-or-create", "POST", "/v3/workspaces", {"id": "{W}"}),
    Step("workspace bad id", "POST", "/v3/workspaces", {"id": "bad id!"}),
    Step("workspace list by id", "POST", "/v3/workspaces/list", {"filters": {"id": "{W}"}}),
    Step("workspace update", "PUT", WS, {"metadata": {"k": 2}}),
    Step("peer create", "POST", WS + "/peers", {"id": "alice", "metadata": {"role": "user"}}),
    Step("peer get-or-create", "POST", WS + "/peers", {"id": "alice"}),
    Step("peer bob", "POST", WS + "/peers", {"id": "bob"}),
    Step("peer list", "POST", WS + "/peers/list", {}),
    Step(
        "peer list filter", "POST", WS + "/peers/list", {"filters": {"metadata": {"role": "user"}}}
    ),
    Step("peer list bad key", "POST", WS + "/peers/list", {"filters": {"nope": 1}}),
    Step("peer update", "PUT", WS + "/peers/alice", {"metadata": {"role": "admin"}}),
    Step("session create", "POST", WS + "/sessions", {"id": "{S1}", "peers": PEERS}),
    Step("session get-or-create", "POST", WS + "/sessions", {"id": "{S1}"}),
    Step("session s2", "POST", WS + "/sessions", {"id": "s2", "peers": PEERS}),
    Step("session list", "POST", WS + "/sessions/list", {}),
    Step("session update", "PUT", S1, {"metadata": {"topic": "tea"}}),
    Step("session peers add", "POST", S1 + "/peers", {"carol": {}}),
    Step("session peers list", "GET", S1 + "/peers", view=_items_unordered),
    Step("session peers remove", "DELETE", S1 + "/peers", ["carol"]),
    Step("peer config get", "GET", S1 + "/peers/bob/config"),
    Step("peer config put", "PUT", S1 + "/peers/alice/config", {"observe_me": True}),
    Step("peer config missing", "GET", S1 + "/peers/nobody/config"),
    Step("peer sessions", "POST", WS + "/peers/alice/sessions", {}),
    Step(
        "messages create",
        "POST",
        S1 + "/messages",
        {
            "messages": [
                {"peer_id": "alice", "content": "I like green tea", "metadata": {"n": 1}},
                {"peer_id": "bob", "content": "Tea is nice", "metadata": {"n": 2}},
                {"peer_id": "alice", "content": "Rain makes me sad", "metadata": {"n": 3}},
            ]
        },
        save=_save("M0", 0, "id"),
    ),
    Step(
        "messages s2",
        "POST",
        WS + "/sessions/s2/messages",
        {"messages": [{"peer_id": "alice", "content": "In s2 I drink coffee"}]},
    ),
    Step("messages empty batch", "POST", S1 + "/messages", {"messages": []}),
    Step("messages list", "POST", S1 + "/messages/list?size=2&page=1", {}),
    Step("messages list reverse", "POST", S1 + "/messages/list?reverse=true", {}),
    Step("messages list size 101", "POST", S1 + "/messages/list?size=101", {}),
    Step(
        "messages list filter",
        "POST",
        S1 + "/messages/list",
        {"filters": {"metadata": {"n": {"gte": 2}}, "peer_id": "alice"}},
    ),
    Step("messages list filter id", "POST", S1 + "/messages/list", {"filters": {"id": "x"}}),
    Step("message get", "GET", S1 + "/messages/{M0}"),
    Step("message get missing", "GET", S1 + "/messages/nope"),
    Step("message update", "PUT", S1 + "/messages/{M0}", {"metadata": {"edited": True}}),
    Step("message delete", "DELETE", S1 + "/messages/{M0}"),
    # The deriver's conclusions about the messages above are part of the lists below: wait
    # for them, so the lists' values do not race the real server's deriver.
    Wait("wait for the deriver (messages)"),
    # Searched only now: the server embeds new messages in a background task after its
    # answer, and a search's semantic half finds only embedded ones; the deriver's wait
    # gives that task its time (right after the batch, a loaded server answered only the
    # word matches where the emulator, which knows no such lag, filled to the limit).
    Step(
        "search workspace", "POST", WS + "/search", {"query": "tea", "limit": 5}, view=_search_view
    ),
    Step("search peer", "POST", WS + "/peers/alice/search", {"query": "tea"}, view=_search_view),
    Step("search session", "POST", S1 + "/search", {"query": "tea"}, view=_search_view),
    Step("search limit 0", "POST", WS + "/search", {"query": "tea", "limit": 0}),
    Step(
        "conclusions create",
        "POST",
        WS + "/conclusions",
        {
            "conclusions": [
                {
                    "content": "alice likes tea",
                    "observer_id": "bob",
                    "observed_id": "alice",
                    "session_id": "{S1}",
                },
                {"content": "alice dislikes rain", "observer_id": "bob", "observed_id": "alice"},
            ]
        },
        save=_save("C0", 0, "id"),
    ),
    Step("conclusions list", "POST", WS + "/conclusions/list", {}, view=_items_unordered),
    *[
        Step(
            f"conclusions filter source_ids {label}",
            "POST",
            WS + "/conclusions/list",
            {"filters": {"source_ids": value}},
            view=_items_unordered,
        )
        for label, value in SOURCE_ID_FILTERS.items()
    ],
    Step(
        "conclusions filter level",
        "POST",
        WS + "/conclusions/list",
        {"filters": {"level": "explicit", "observer_id": "bob"}},
        view=_items_unordered,
    ),
    Step(
        "conclusions query",
        "POST",
        WS + "/conclusions/query",
        {"query": "tea", "filters": {"observer_id": "bob", "observed_id": "alice"}},
        view=_search_view,
    ),
    Step("conclusions query no observer", "POST", WS + "/conclusions/query", {"query": "tea"}),
    Step("conclusion get", "GET", WS + "/conclusions/{C0}"),
    Step("conclusion delete", "DELETE", WS + "/conclusions/{C0}"),
    Step("conclusion delete again", "DELETE", WS + "/conclusions/{C0}"),
    Wait(),
    Step("queue status", "GET", WS + "/queue/status", view=_queue_view),
    Step("queue status session", "GET", WS + "/queue/status?session_id={S1}"),
    Step("queue status observer", "GET", WS + "/queue/status?observer_id=bob", view=_queue_view),
    Step("card put", "PUT", WS + "/peers/bob/card?target=alice", {"peer_card": ["likes tea"]}),
    Step("card get", "GET", WS + "/peers/bob/card?target=alice"),
    Step("card get none", "GET", WS + "/peers/alice/card"),
    Step(
        "peer context",
        "GET",
        WS + "/peers/bob/context?target=alice",
        view=_lines_unordered("representation"),
    ),
    Step("peer context missing", "GET", WS + "/peers/nobody/context"),
    Step("peer context missing target", "GET", WS + "/peers/bob/context?target=nobody"),
    Step(
        "representation",
        "POST",
        WS + "/peers/bob/representation",
        {"target": "alice"},
        view=_lines_unordered("representation"),
    ),
    Step(
        "representation allowlist",
        "POST",
        WS + "/peers/bob/representation",
        {"target": "alice", "filters": {"session_id": ["{S1}"]}},
        view=_lines_unordered("representation"),
    ),
    Step("representation missing peer", "POST", WS + "/peers/nobody/representation", {}),
    Step(
        "representation missing target",
        "POST",
        WS + "/peers/bob/representation",
        {"target": "nobody"},
    ),
    Step(
        "representation missing session",
        "POST",
        WS + "/peers/bob/representation",
        {"session_id": "nope"},
    ),
    Step(
        "representation bad filter",
        "POST",
        WS + "/peers/bob/representation",
        {"target": "alice", "filters": {"peer_id": "x"}},
    ),
    Step("session context", "GET", S1 + "/context"),
    Step(
        "session context target",
        "GET",
        S1 + "/context?peer_target=alice&peer_perspective=bob",
        view=_lines_unordered("peer_representation"),
    ),
    Step(
        "session context allowlist",
        "GET",
        S1 + "/context?peer_target=alice&peer_perspective=bob&sessions={S1}&sessions=s2",
        view=_lines_unordered("peer_representation"),
    ),
    Step(
        "session context limit_to_session",
        "GET",
        S1 + "/context?peer_target=alice&peer_perspective=bob&limit_to_session=true",
        view=_lines_unordered("peer_representation"),
    ),
    Step("session context not in sessions", "GET", S1 + "/context?peer_target=alice&sessions=s2"),
    Step(
        "session context both",
        "GET",
        S1 + "/context?peer_target=alice&sessions={S1}&limit_to_session=true",
    ),
    Step("session context search_top_k 0", "GET", S1 + "/context?search_top_k=0"),
    Step("session context missing target", "GET", S1 + "/context?peer_target=nobody"),
    Step(
        "session context missing perspective",
        "GET",
        S1 + "/context?peer_target=alice&peer_perspective=nobody",
    ),
    Step(
        "session context missing target, one session",
        "GET",
        S1 + "/context?peer_target=nobody&limit_to_session=true",
    ),
    Step("session summaries", "GET", S1 + "/summaries"),
    # Chat answers are an LLM's text (the kit's stub, the emulator's canned one): shapes only.
    Step("chat", "POST", WS + "/peers/bob/chat", {"query": "what does alice like?"}, values=False),
    Step(
        "chat include_evidence",
        "POST",
        WS + "/peers/bob/chat",
        {"query": "what does alice like?", "include_evidence": True},
        values=False,
    ),
    Step(
        "chat stream",
        "POST",
        WS + "/peers/bob/chat",
        {"query": "what does alice like?", "stream": True},
        sse=True,
        values=False,
    ),
    Step("chat missing target", "POST", WS + "/peers/bob/chat", {"query": "x", "target": "nobody"}),
    Step("chat empty query", "POST", WS + "/peers/bob/chat", {"query": ""}),
    Step("workspace chat", "POST", WS + "/chat", {"query": "hello"}),
    Step("clone", "POST", S1 + "/clone"),
    Step("clone missing", "POST", WS + "/sessions/nope/clone"),
    Step("upload", "POST", S1 + "/messages/upload", raw=UPLOAD, headers=UPLOAD_HEADERS),
    Step("upload json body", "POST", S1 + "/messages/upload", {"peer_id": "alice"}),
    Step("scope create", "POST", WS + "/scopes", {"id": "sc1"}),
    Step("scope get-or-create", "POST", WS + "/scopes", {"id": "sc1"}),
    Step("scope list", "POST", WS + "/scopes/list", {}),
    Step("scope get", "GET", WS + "/scopes/sc1"),
    Step("scope add sessions", "POST", WS + "/scopes/sc1/sessions", {"session_ids": ["{S1}"]}),
    Step("scope sessions", "POST", WS + "/scopes/sc1/sessions/list", {}),
    Step("scope remove session", "DELETE", WS + "/scopes/sc1/sessions/{S1}"),
    Step("scope missing", "GET", WS + "/scopes/nope"),
    Step(
        "schedule dream", "POST", WS + "/schedule_dream", {"observer": "bob", "dream_type": "omni"}
    ),
    Step("keys with auth off", "POST", "/v3/keys?workspace_id={W}"),
    Step("workspace delete with sessions", "DELETE", WS),
    Step("session delete", "DELETE", WS + "/sessions/s2"),
    Step("session delete again", "DELETE", WS + "/sessions/s2"),
]
