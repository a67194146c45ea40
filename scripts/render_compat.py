"""Render live-suite observation files into the O1-O22 part of docs/compatibility.md.

Usage::

    python scripts/render_compat.py docs/observations/*.json
    python scripts/render_compat.py --check docs/observations/*.json   # exit 1 if stale

The part between ``<!-- BEGIN GENERATED: O1-O22 -->`` and ``<!-- END GENERATED: O1-O22 -->``
is rebuilt from two things: the facts per operation that earlier sources established (the
3.0.12 source, the documentation, the real servers of the project reference, each with its
date; kept in ``FACTS`` below, not in the document) and every observation file given, each
run in its own column, labelled by kind (``live`` = a real server, ``emulator`` = roncho's
FakeHoncho, which is not evidence about Honcho). Everything outside the markers is left as
it is. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _generated, also when loaded by path

from _generated import update

BEGIN = "<!-- BEGIN GENERATED: O1-O22 -->"
END = "<!-- END GENERATED: O1-O22 -->"
DEFAULT_DOC = Path(__file__).resolve().parent.parent / "docs" / "compatibility.md"
# The version memoryd's owner runs (a self-hosted Honcho 3.2.0). Its recorded runs get their
# own column; a server version with a build suffix (3.2.0-...) counts as its release.
OWNER_VERSION = "3.2.0"

# Which operation each recorded client call belongs to.
OPS: dict[str, str] = {
    "get_or_create_workspace": "O1", "update_workspace": "O1", "list_workspaces": "O1",
    "get_or_create_peer": "O2", "update_peer": "O2", "list_peers": "O2",
    "get_or_create_session": "O3", "update_session": "O3", "list_sessions": "O3",
    "list_session_peers": "O3", "get_session_peer_config": "O3",
    "set_session_peer_config": "O3",
    "add_messages": "O4", "add_messages_invalid": "O4",
    "list_messages": "O5", "get_message": "O5", "update_message_metadata": "O5",
    "delete_session": "O6",
    "delete_workspace": "O7",
    "create_conclusions": "O8",
    "list_conclusions": "O9", "query_conclusions": "O9", "query_conclusions_unscoped": "O9",
    "delete_conclusion": "O9",
    "search": "O10",
    "search_peer": "O11", "search_session": "O11",
    "chat": "O12", "chat_stream": "O12", "chat_workspace": "O12",
    "chat_workspace_stream": "O12",
    "probe": "O13", "server_version": "O13",
    "queue_status": "O14",
    "create_key": "keys",
    "get_or_create_webhook": "O15", "list_webhooks": "O15", "delete_webhook": "O15",
    "trigger_webhook_test": "O15",
    "list_peer_sessions": "O16", "get_peer_representation": "O16", "get_peer_card": "O16",
    "set_peer_card": "O16", "get_peer_context": "O16",
    "get_session_context": "O17", "get_session_summaries": "O17",
    "clone_session": "O18",
    "add_session_peers": "O19", "set_session_peers": "O19", "remove_session_peers": "O19",
    "upload_file": "O20",
    "get_or_create_scope": "O21", "list_scopes": "O21", "get_scope": "O21",
    "add_scope_sessions": "O21", "remove_scope_session": "O21", "list_scope_sessions": "O21",
    "get_scope_status": "O21",
    "schedule_dream": "O22",
}  # fmt: skip

SRC = "3.0.12 source (`ddbb90e3`, 2026-08-20)"
OAS = "OpenAPI 3.0.12 (`ddbb90e3`) / 3.3.0 (`02266e4b`)"
OBS = "real Honcho 3.2.0, 2026-09-25"
LOOP = "real Honcho 3.0.12 on loopback, 2026-11-30"


@dataclass(frozen=True)
class Fact:
    """One earlier finding: where it comes from, what it says, and whether a server did it."""

    source: str
    says: str
    real_server: bool


@dataclass(frozen=True)
class Operation:
    title: str
    endpoints: tuple[str, ...]
    request: str
    response: str
    statuses: str
    facts: tuple[Fact, ...] = field(default_factory=tuple)
    # Where the observed 3.2.0 deployment and a 3.0.12 server answered differently (the
    # observed server wins for the version it ran; each side names its version).
    versions: str = ""


# From the project reference (docs/compatibility.md names each source in its header). The
# 3.2.0 server is the deployment memoryd targets, recorded publicly (kisom/roncho
# docs/compatibility-2026-09-25.md); its image tag was not confirmed by the server.
FACTS: dict[str, Operation] = {
    "O1": Operation(
        "Workspaces",
        (
            "POST /v3/workspaces",
            "PUT /v3/workspaces/{workspace}",
            "POST /v3/workspaces/list (admin only when auth is on)",
        ),
        "`{id, metadata?, configuration?}`; PUT `{metadata, configuration}`; list "
        "`{filters?}` + query `page, size, reverse`",
        "`{id, metadata, configuration, created_at}`; list: page `{items, total, page, size, "
        "pages}`",
        "201 new, 200 existing (get-or-create); PUT 200 (also creates); 401; 409 on a race; 422",
        (
            Fact(SRC, "201 new / 200 existing; metadata of an existing workspace ignored", False),
            Fact(OAS, "documents 200 only", False),
            Fact(OBS, "201 on create", True),
            Fact(LOOP, "201 new, 200 when it already existed", True),
        ),
        versions="the earlier 3.2.0 record's table said 200 on create, its compatibility file "
        "201; 3.0.12 (recorded) answers 201 new, 200 existing. A refused workspace key gets 401 "
        "`Unauthorized access to resource` on 3.0.12 (recorded).",
    ),
    "O2": Operation(
        "Peers",
        ("POST /v3/workspaces/{workspace}/peers", "PUT .../peers/{peer}", "POST .../peers/list"),
        "`{id, metadata?, configuration?}` (configuration free-form; only `observe_me` is read)",
        "`{id, workspace_id, metadata, configuration, created_at}`",
        "201 new, 200 existing; PUT 200; 422 bad id",
        (
            Fact(SRC, "201/200; given metadata/configuration replace wholesale", False),
            Fact(OAS, "documents 200 only", False),
            Fact(OBS, "201; configuration echoes what was sent (`observe_me: true`)", True),
            Fact(LOOP, "201 new, 200 existing", True),
        ),
    ),
    "O3": Operation(
        "Sessions",
        (
            "POST /v3/workspaces/{workspace}/sessions",
            "PUT .../sessions/{session}",
            "POST .../sessions/list",
            "GET .../sessions/{session}/peers",
            "GET/PUT .../sessions/{session}/peers/{peer}/config",
        ),
        "`{id, metadata?, peers?: {peer: {observe_me, observe_others}}, configuration?}`",
        "`{id, is_active, workspace_id, metadata, configuration, created_at}`; peer config "
        "`{observe_me, observe_others}`",
        "201 new, 200 existing, 404 deleted (until purged), 400 over 10 observers; config PUT 204",
        (
            Fact(SRC, "201/200; an active member keeps its config; list = active only", False),
            Fact(OAS, "documents 200 only", False),
            Fact(OBS, "201 on create", True),
            Fact(LOOP, "201 new, 200 existing; get-or-create of a deleted session 404", True),
        ),
    ),
    "O4": Operation(
        "Add messages",
        ("POST /v3/workspaces/{workspace}/sessions/{session}/messages",),
        "`{messages: [{peer_id, content, metadata?, configuration?, created_at?}]}` (1-100; "
        "content 0-25000 chars)",
        "array of `{id, content, peer_id, session_id, metadata, created_at, workspace_id, "
        "token_count}` in input order (no `role`)",
        "201; 404 inactive session; 422 validation (FastAPI list shape)",
        (
            Fact(SRC, "201 array; deriver work enqueued after the response", False),
            Fact(OAS, "201", False),
            Fact(OBS, "201 (compatibility file; its earlier record's table said 200)", True),
            Fact(LOOP, "201 array with the fields above, no `role`", True),
        ),
    ),
    "O5": Operation(
        "List messages",
        (
            "POST .../sessions/{session}/messages/list",
            "GET .../messages/{message}",
            "PUT .../messages/{message} (metadata only)",
        ),
        "`{filters?}` + query `page, size, reverse`; PUT `{metadata}`",
        "page of messages, oldest first (by insertion)",
        "200; unknown session = empty page (not 404); DELETE of a message 405",
        (
            Fact(SRC, "ordered by internal id; no session check", False),
            Fact(OBS, "metadata filters work; PUT leaves content unchanged; DELETE 405", True),
            Fact(
                LOOP,
                "200 `{items, total, page, size, pages}`; after a workspace delete an "
                "empty page, never 404",
                True,
            ),
        ),
    ),
    "O6": Operation(
        "Delete session",
        ("DELETE /v3/workspaces/{workspace}/sessions/{session}",),
        "none",
        '`{message: "Session deleted successfully"}`',
        "202; 404 when missing or already deleted",
        (
            Fact(SRC, "202 with the message; purge in the deriver worker", False),
            Fact(OBS, "202 with the message (its earlier record's table said empty body)", True),
            Fact(LOOP, "202 with the message; a second delete 404", True),
        ),
    ),
    "O7": Operation(
        "Delete workspace",
        ("DELETE /v3/workspaces/{workspace}",),
        "none",
        '`{message: "Workspace deletion accepted"}`',
        "202; 409 while a session is active; 404 when missing",
        (
            Fact(SRC, "409 exactly when an active session remains", False),
            Fact(
                OBS,
                "409 detail `Cannot delete workspace '<w>': active session(s) remain. "
                "Delete all sessions first.`",
                True,
            ),
            Fact(
                LOOP,
                "409 as above; 202; gone 1-3 s later; a repeated delete 202 for about "
                "3.5 s, then 404",
                True,
            ),
        ),
    ),
    "O8": Operation(
        "Create conclusions",
        ("POST /v3/workspaces/{workspace}/conclusions",),
        "`{conclusions: [{content, observer_id, observed_id, session_id?}]}` (1-100)",
        "array of `{id, content, observer_id, observed_id, session_id, level, created_at}`",
        "201; 404 unknown peer or inactive session; 422",
        (
            Fact(SRC, "201; `level` always `explicit`; no `source_ids`", False),
            Fact("OpenAPI 3.3.0 (`02266e4b`)", "adds `source_ids` (array), `times_derived`", False),
            Fact(OBS, "201; `source_ids: null`", True),
            Fact(LOOP, '201 array, `level: "explicit"`', True),
        ),
        versions="3.2.0 (observed 2026-09-25) sent `source_ids: null`; 3.0.12 (recorded) sends "
        "no `source_ids` key at all. roncho reads it as optional.",
    ),
    "O9": Operation(
        "List, query, delete conclusions",
        (
            "POST .../conclusions/list",
            "POST .../conclusions/query",
            "DELETE .../conclusions/{conclusion}",
        ),
        "list `{filters?}`; query `{query, top_k?, distance?, filters: {observer_id, "
        "observed_id, ...}}`",
        "list: page, newest first; query: bare array; delete: empty body",
        "200; query without observer and observed 422 (string detail); delete 204",
        (
            Fact(SRC, "query needs observer and observed (422)", False),
            Fact(OAS, "schema marks `filters` optional", False),
            Fact(OBS, "422 without observer/observed", True),
            Fact(
                LOOP,
                "list 200 page; 422 string detail; DELETE 204 with an empty body and "
                "`Content-Type: application/json`",
                True,
            ),
        ),
        versions="as in O8: listed and queried conclusions carry `source_ids: null` on 3.2.0 "
        "(observed) and no such key on 3.0.12 (recorded).",
    ),
    "O10": Operation(
        "Workspace search",
        ("POST /v3/workspaces/{workspace}/search",),
        "`{query, filters?, limit? (1-100, default 10)}`",
        "bare array of messages",
        "200; 422",
        (
            Fact(SRC, "bare array; full text + semantic, fused", False),
            Fact(
                "docs `advanced/search.mdx` (`31723bb3`)",
                "shows `{items: [...]}` (wrong: the servers answer a bare array)",
                False,
            ),
            Fact(OBS, "bare array", True),
            Fact(LOOP, "bare array", True),
        ),
    ),
    "O11": Operation(
        "Peer and session search",
        ("POST .../peers/{peer}/search", "POST .../sessions/{session}/search"),
        "`{query, filters?, limit?}`",
        "bare array of messages (peer_id / session_id forced into the filters)",
        "200",
        (
            Fact(SRC, "bare array", False),
            Fact(LOOP, "bare array for both", True),
        ),
    ),
    "O12": Operation(
        "Dialectic chat",
        ("POST .../peers/{peer}/chat", "POST /v3/workspaces/{workspace}/chat (3.3 only)"),
        "`{query, target?, session_id?, stream?, reasoning_level?, response_format?, "
        "filters?: {session_id}, include_evidence? (3.3)}`",
        '`{content}` (+ `evidence` when asked, 3.3); stream: `data: {"delta": {"content": '
        '...}, "done": false}` ... `data: {"done": true}`',
        "200; 404 unknown target or session; 422; workspace chat 404 where absent",
        (
            Fact(SRC, "peer chat only; no `include_evidence`, no workspace chat", False),
            Fact(
                "OpenAPI 3.3.0 (`02266e4b`), docs `features/chat.mdx`",
                "workspace chat, `include_evidence`, `semantic_query`",
                False,
            ),
            Fact(
                OBS,
                "a few seconds at `minimal`, 30-50 s at higher levels (earlier record); "
                "workspace chat and evidence not tried",
                True,
            ),
            Fact(
                LOOP,
                "200 `{content}`; stream `text/event-stream; charset=utf-8` with the events above",
                True,
            ),
        ),
        versions="3.0.12 (recorded) has no workspace chat (404) and ignores `include_evidence` "
        "(no `evidence` key); neither was tried on 3.2.0.",
    ),
    "O13": Operation(
        "Health and version",
        ("GET /health", "GET /openapi.json"),
        "none",
        '`{status: "ok"}`; version only as `info.version` of /openapi.json',
        "200",
        (
            Fact(SRC, "`{status: ok}`; no version header; /openapi.json served", False),
            Fact(OBS, "`{status: ok}`, no version; /openapi.json not tried", True),
            Fact(LOOP, "`{status: ok}`", True),
        ),
        versions="3.0.12 (recorded) serves `/openapi.json` with `info.version` `3.0.12`; on "
        "3.2.0 it was not fetched, so that server's version is unconfirmed.",
    ),
    "O14": Operation(
        "Queue status",
        ("GET /v3/workspaces/{workspace}/queue/status",),
        "query `observer_id?, sender_id?, session_id?` (session name)",
        "`{total_work_units, completed_work_units, in_progress_work_units, pending_work_units, "
        "sessions}`; `sessions` keyed by internal session id, null when empty or filtered",
        "200; 400",
        (
            Fact(SRC, "counts queue rows, not work units; observer/sender OR-ed", False),
            Fact(OBS, "`pending_work_units: 2` for a few short messages (batching gate)", True),
            Fact(
                LOOP,
                "shape above; nothing for about 0.1-0.25 s after the messages, then "
                "pending, in progress, completed (deriver set to flush)",
                True,
            ),
        ),
        versions="3.2.0 (observed) showed `pending_work_units: 2` for a few short messages, its "
        "deriver batching; the recorded 3.0.12 runs had batching off (flush), so work went "
        "straight to in progress. On 3.0.12 `?observer_id=` counts 0 for message work (its "
        "filter reads `payload.observer`; message items carry an `observers` list): filter by "
        "`session_id` or `sender_id` there (recorded: `queue_observer_filter_counts_messages`).",
    ),
    "O15": Operation(
        "Webhooks",
        (
            "POST /v3/workspaces/{workspace}/webhooks",
            "GET .../webhooks",
            "DELETE .../webhooks/{endpoint}",
            "GET .../webhooks/test",
        ),
        "`{url}` (http or https with a host); list: query `page, size`",
        "`{id, workspace_id, url, created_at}`; list: page `{items, total, page, size, pages}`; "
        "test: `null`. Deliveries: POST `{data, timestamp, type}` (compact, keys sorted), "
        "`X-Honcho-Signature` = hex HMAC-SHA256 of the body with `WEBHOOK_SECRET`",
        "201 new, 200 existing URL; 404 missing workspace; 409 past 10 endpoints; 422 bad URL "
        "or a private/loopback IP literal; DELETE 204, 404 unknown; test 200",
        (
            Fact(
                SRC,
                "validator refuses IP literals that are private, loopback, link-local, "
                "reserved, multicast or unspecified, not host names; `queue.empty` per drained "
                "work unit (representation, summary); each delivery posted once, no retry",
                False,
            ),
            Fact(
                "real Honcho 3.0.12 on loopback, 2026-12-01",
                "`http://127.0.0.1:...` 422 `Private/internal IP addresses are not allowed`, "
                "`http://localhost:...` 201; test event about 1-2 s after the request; "
                "`queue.empty` about 0.5 s after the last conclusion; a summary's "
                '`queue.empty` carries `observer` and `observed` as the string `"None"`',
                True,
            ),
        ),
        versions="Not tried on 3.2.0. The 409 text names the limit: `Maximum number of webhook "
        "endpoints (10) reached for this workspace.`",
    ),
    "O16": Operation(
        "A peer's sessions, representation, card and context",
        (
            "POST /v3/workspaces/{workspace}/peers/{peer}/sessions",
            "POST .../peers/{peer}/representation",
            "GET/PUT .../peers/{peer}/card",
            "GET .../peers/{peer}/context",
        ),
        "sessions `{filters?}` + query `page, size, reverse`; representation `{session_id?, "
        "filters? (`session_id` only), scope?, target?, search_query?, search_top_k? (1-100), "
        "search_max_distance? (0-1), include_most_frequent?, max_conclusions? (1-100, default "
        "25)}`; card query `target?`, PUT `{peer_card: [str]}`; context query `target?, "
        "search_query?, search_top_k?, search_max_distance?, include_most_frequent? (default "
        "true), max_conclusions?`",
        "sessions: page of sessions; representation `{representation: str}` (markdown); card "
        "`{peer_card: [str] | null}`, PUT echoes the card it set; context `{peer_id, target_id, "
        "representation: str | null, peer_card: [str] | null}`",
        "200; representation 404 `Peer or session not found`, 422 `scope` with `filters` or "
        "`session_id`, 401 `scope` with a peer key; card GET 404 unknown observer (PUT creates "
        "it); context 404 `Peer not found`",
        (
            Fact(
                SRC,
                "the sessions list joins memberships with no `left_at` or `is_active` "
                "condition: it names every session the peer ever joined, left or deleted ones "
                "included; without `target` the card and context are the peer's own "
                "(observer = observed); a card is keyed by observer and observed, with no "
                "session",
                False,
            ),
            Fact(
                SRC,
                "keys: workspace key, or a key for this peer (`peer_id` of the path); a session "
                "key is refused (401 `JWT not permissioned for this resource`)",
                False,
            ),
        ),
    ),
    "O17": Operation(
        "Session context and summaries",
        ("GET .../sessions/{session}/context", "GET .../sessions/{session}/summaries"),
        "context query `tokens? (at most 100000), summary? (default true), peer_target?, "
        "peer_perspective?, scope?, sessions? (repeated), limit_to_session?, search_query?, "
        "search_top_k?, search_max_distance?, include_most_frequent?, max_conclusions?`",
        "context `{id, messages: [message], summary: Summary | null, peer_representation: "
        "str | null, peer_card: [str] | null}`; summaries `{id, short_summary: Summary | null, "
        "long_summary: Summary | null}`; `Summary` = `{content, message_id, summary_type, "
        "created_at (str), token_count}`",
        "200; context 422 on contradictory options (`peer_perspective` or `scope` or "
        "`sessions` without `peer_target`; `scope` with `peer_perspective`; `sessions` with "
        "`scope` or `limit_to_session`), 401 `scope` with a peer or session key, 401 a peer "
        "key asking for another peer's view",
        (
            Fact(
                SRC,
                "without `peer_target` only messages and summary; the budget gives the summary "
                "40% and the newest messages the rest; with `sessions` or `limit_to_session` the "
                "peer card is left out; a short summary every 20 messages, a long one every 60 "
                "(`SUMMARY_MESSAGES_PER_SHORT_SUMMARY`, `..._LONG_SUMMARY`)",
                False,
            ),
            Fact(
                SRC,
                "keys: workspace key, a key for this session, or a peer key whose peer is an "
                "active member (`allow_member_read`)",
                False,
            ),
        ),
    ),
    "O18": Operation(
        "Clone a session",
        ("POST .../sessions/{session}/clone",),
        "query `message_id?` (the last message to copy); no body",
        "the new session `{id, is_active, workspace_id, metadata, configuration, created_at}`, "
        "its `id` a server-made nanoid",
        "201; 404 original session missing or inactive, or `message_id` not in it",
        (
            Fact(
                SRC,
                "copies metadata, configuration, the messages up to `message_id` and the "
                "memberships with their configuration; messages and memberships are selected "
                "by the session's name alone, in any workspace (see Server defects)",
                False,
            ),
            Fact(SRC, "keys: workspace key or a key for this session", False),
        ),
    ),
    "O19": Operation(
        "Session members",
        (
            "POST .../sessions/{session}/peers",
            "PUT .../sessions/{session}/peers",
            "DELETE .../sessions/{session}/peers",
        ),
        "POST and PUT `{peer: {observe_me, observe_others}}`; DELETE `[peer, ...]`",
        "the session `{id, is_active, workspace_id, metadata, configuration, created_at}`",
        "200 (POST also creates a missing session); 404 PUT or DELETE on a missing session, "
        "any of them on a deleted one; 400 over 10 observers; 422 a scope's peer named",
        (
            Fact(
                SRC,
                "POST is the session get-or-create with `peers`: missing peers are created; PUT "
                "ends every other ordinary membership (scope memberships stay); DELETE sets "
                "`left_at`",
                False,
            ),
            Fact(SRC, "keys: workspace key or a key for this session", False),
        ),
    ),
    "O20": Operation(
        "Upload a file as messages",
        ("POST .../sessions/{session}/messages/upload",),
        "`multipart/form-data`: `file`, `peer_id`, `metadata?` and `configuration?` (JSON "
        "text), `created_at?`",
        "array of messages, as O4",
        "201; 413 over 5 MB (`MAX_FILE_SIZE`); 415 a type other than `text/*`, "
        "`application/pdf`, `application/json`; 422 invalid JSON upload",
        (
            Fact(
                SRC,
                "the text is split into messages of at most 25000 characters "
                "(`MAX_MESSAGE_SIZE`); `metadata` or `configuration` that is not valid JSON is "
                "dropped with a log line, not refused",
                False,
            ),
            Fact(SRC, "keys: workspace key or a key for this session", False),
        ),
    ),
    "O21": Operation(
        "Named scopes",
        (
            "POST /v3/workspaces/{workspace}/scopes",
            "POST .../scopes/list",
            "GET .../scopes/{scope}",
            "POST .../scopes/{scope}/sessions",
            "DELETE .../scopes/{scope}/sessions/{session}",
            "POST .../scopes/{scope}/sessions/list",
            "GET .../scopes/{scope}/status",
        ),
        "`{id, metadata?}`; list: query `page, size, reverse`, no body; add `{session_ids: "
        "[str]}` (1-100)",
        "`{id, metadata, created_at}`; lists: pages of scopes, of sessions; status "
        "`{backfill_status: {session: {state, updated_at, docs_copied?}}}`",
        "201 new, 200 existing, 409 when an ordinary peer holds the scope's reserved name; add "
        "and remove 204, 404 unknown scope or session; get, list of sessions, status 404 "
        "unknown scope",
        (
            Fact(
                SRC,
                "a scope is a peer named `scope.<id>` that observes its sessions; a "
                "get-or-create with other `metadata` replaces the existing scope's; adding a "
                "session that has messages queues a backfill (state `pending`, `completed` or "
                "`failed`); its sessions list holds active members only; `scope` on chat, "
                "representation and session context reads through it",
                False,
            ),
            Fact(SRC, "keys: workspace key only (every scopes route)", False),
            Fact(
                "OpenAPI 3.0.12 (`ddbb90e3`)",
                "no scopes routes (stale against the source)",
                False,
            ),
        ),
    ),
    "O22": Operation(
        "Dreams",
        ("POST /v3/workspaces/{workspace}/schedule_dream",),
        '`{observer, observed?, dream_type: "omni" | "card_refresh", session_id?, rebuild? '
        "(default false)}`",
        "empty",
        "204; 400 `Dreams are not enabled in the system configuration`; 422",
        (
            Fact(
                SRC,
                "`observed` defaults to `observer`; queued for the deriver at once, skipped "
                "when the same dream is pending or running; the route checks `DREAM_ENABLED` "
                "(default on), not `DREAM_ENABLED_TYPES` (default `omni` only, read by the "
                "automatic scheduler)",
                False,
            ),
            Fact(SRC, "keys: workspace key only", False),
        ),
    ),
}


# -- reading observation files ----------------------------------------------------------------
@dataclass
class Run:
    path: Path
    data: dict[str, Any]

    @property
    def label(self) -> str:
        return str(self.data.get("server_label", self.path.stem))

    @property
    def kind(self) -> str:
        return str(self.data.get("kind", "unknown"))

    @property
    def column(self) -> str:
        return f"{self.label} {self.data.get('date', '?')}"

    @property
    def answers_as(self) -> str:
        """Which response column its answers fill: "owner", "live" (other real) or "emulator"."""
        if self.kind != "live":
            return "emulator"
        return "owner" if release(self.data.get("version")) == OWNER_VERSION else "live"


def release(version: object) -> str:
    """``3.2.0-pr1092-7e57fe2`` -> ``3.2.0``."""
    return str(version or "").split("-", 1)[0]


def load(paths: list[Path]) -> list[Run]:
    runs = []
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or "calls" not in data:
            raise SystemExit(f"{path}: not an observation file (no 'calls')")
        runs.append(Run(path, data))
    # Real servers first, then emulators; oldest first within each.
    runs.sort(key=lambda r: (r.kind != "live", str(r.data.get("date", "")), r.label))
    return runs


# -- rendering ---------------------------------------------------------------------------------
_TYPE = {"string": "str", "string(datetime)": "datetime", "integer": "int", "number": "float",
         "boolean": "bool", "null": "null", "array": "array", "object": "object"}  # fmt: skip
_USER_DATA = {"metadata", "configuration", "peers"}


def brief(shape: Any, depth: int = 0, key: str = "") -> str:
    """A shape in one short line: ``{id: str, items: [{...}]}``; caller data as ``{…}``."""
    if isinstance(shape, dict):
        if not shape:
            return "{}"
        if depth >= 3 or (key in _USER_DATA and depth > 0):
            return "{…}"
        return "{" + ", ".join(f"{k}: {brief(v, depth + 1, k)}" for k, v in shape.items()) + "}"
    if isinstance(shape, list):
        if not shape:
            return "[]"
        items = list(dict.fromkeys(brief(item, depth + 1, key) for item in shape))
        return "[" + " / ".join(items) + "]"
    return _TYPE.get(str(shape), str(shape))


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def response_text(call: dict[str, Any]) -> str:
    """A call's answer in one line: shape (or SSE events), error detail, unusual content type."""
    if call.get("events"):
        text = "SSE events " + " then ".join(brief(e) for e in call["events"])
    elif call.get("response") is not None:
        text = brief(call["response"])
    else:
        text = "empty"
    if call.get("detail"):
        text += f" — detail: “{call['detail']}”"
    content_type = call.get("content_type")
    if content_type and not content_type.startswith("application/json"):
        text = f"{content_type}: " + text
    return text


@dataclass
class Row:
    """One (call, method, path, status) as every run that made it saw it."""

    op: str
    method: str
    path: str
    status: Any
    request: Any
    detail: str | None
    query: list[str]
    # What each kind of run answered ("live", "emulator"): distinct texts, in run order.
    answers: dict[str, list[str]] = field(default_factory=dict)
    seconds: dict[str, list[float]] = field(default_factory=dict)

    def key(self) -> tuple[Any, ...]:
        return (self.op, self.method, self.path, self.status)

    def answer(self, kind: str) -> str | None:
        texts = self.answers.get(kind)
        return " / ".join(texts) if texts else None


def rows_for(runs: list[Run], op_id: str) -> list[Row]:
    rows: dict[tuple[Any, ...], Row] = {}
    for run in runs:
        for call in run.data["calls"]:
            if OPS.get(call.get("op", ""), "other") != op_id:
                continue
            row = Row(
                op=call["op"],
                method=call["method"],
                path=call["path"],
                status=call.get("status"),
                request=call.get("request"),
                detail=call.get("detail"),
                query=call.get("query") or [],
            )
            kept = rows.setdefault(row.key(), row)
            texts = kept.answers.setdefault(run.answers_as, [])
            text = response_text(call)
            if text not in texts:
                texts.append(text)
            seconds = call.get("total_seconds") or call.get("head_seconds")
            times = kept.seconds.setdefault(run.column, [])
            if isinstance(seconds, int | float):
                times.append(float(seconds))
    return list(rows.values())


def render_runs(runs: list[Run]) -> list[str]:
    lines = [
        "### Recorded runs",
        "",
        "| run | kind | date | server version (`/openapi.json`) | health | roncho | note |",
        "|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        d = run.data
        kind = "real server" if run.kind == "live" else "emulator (not evidence about Honcho)"
        if run.answers_as == "owner":
            kind = "real server (the owner's version)"
        note = d.get("note") or ""
        if d.get("emulator_options"):
            note += " options: " + json.dumps(d["emulator_options"], sort_keys=True)
        lines.append(
            f"| `{run.path.name}` | {kind} | {d.get('date')} | {d.get('version') or 'not served'}"
            f" | `{json.dumps(d.get('health'))}` | {d.get('roncho_version')} | {cell(note)} |"
        )
    lines.append("")
    return lines


def render_operation(op_id: str, runs: list[Run]) -> list[str]:
    op = FACTS[op_id]
    lines = [f"### {op_id}. {op.title}", ""]
    lines += [f"- Endpoint: {', '.join(f'`{e}`' for e in op.endpoints)}"]
    lines += [f"- Request: {op.request}", f"- Response: {op.response}"]
    lines += [f"- Status codes: {op.statuses}", ""]
    lines += ["| source | what it showed | rests on |", "|---|---|---|"]
    for fact in op.facts:
        rests = "a real server's behaviour" if fact.real_server else "documentation/source"
        lines.append(f"| {fact.source} | {cell(fact.says)} | {rests} |")
    for run in runs:
        statuses = sorted(
            {str(c.get("status")) for c in run.data["calls"] if OPS.get(c.get("op", "")) == op_id}
        )
        if not statuses:
            continue
        rests = "a real server's behaviour" if run.kind == "live" else "emulator only"
        version = run.data.get("version") or "version not served"
        lines.append(
            f"| run `{run.label}` {run.data.get('date')} ({version}) | statuses seen: "
            f"{', '.join(statuses)}; calls below | {rests} |"
        )
    lines.append("")
    lines += recorded_summary(op_id, runs)
    if op.versions:
        lines += [f"- 3.2.0 and 3.0.12 differ: {op.versions}", ""]
    rows = rows_for(runs, op_id)
    if rows:
        others = versions_of(runs, "live")
        real = (
            f"real server ({others}): response"
            if any(r.answers_as == "live" for r in runs)
            else "real server: response"
        )
        emulated = f"emulator ({versions_of(runs, 'emulator')}): response"
        owner = f"owner's version ({OWNER_VERSION}): response"
        lines += [
            f"| call | method, path | request shape | status | {real} | {emulated} "
            f"| {owner} | runs (median ms) |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in rows:
            query = f"?{'&'.join(row.query)}" if row.query else ""
            request = brief(row.request) if row.request is not None else "—"
            live, emulator = row.answer("live"), row.answer("emulator")
            owned = row.answer("owner")
            live_text = f"`{cell(live)}`" if live is not None else "not recorded"
            # The emulator is set beside a recorded real answer: other versions', else the owner's.
            reference = live if live is not None else owned
            if emulator is None:
                emulator_text = "not recorded"
            elif reference is not None and emulator == reference:
                emulator_text = "same"
            else:
                emulator_text = f"`{cell(emulator)}`" + (
                    " (differs)" if reference is not None else ""
                )
            if owned is None:
                owner_text = "not recorded"
            elif live is not None and owned == live:
                owner_text = f"same as {others}"
            else:
                owner_text = f"`{cell(owned)}`" + (" (differs)" if live is not None else "")
            runs_text = ", ".join(
                f"{column} ({statistics.median(times) * 1000:.1f})" if times else column
                for column, times in row.seconds.items()
            )
            lines.append(
                f"| `{row.op}` | `{row.method} {row.path}{query}` | `{cell(request)}` | "
                f"{row.status} | {live_text} | {emulator_text} | {owner_text} | {runs_text} |"
            )
        lines.append("")
    return lines


def versions_of(runs: list[Run], kind: str) -> str:
    """The versions the runs of one column reported ("live", "owner", "emulator")."""
    chosen = [r for r in runs if r.answers_as == kind]
    found = list(dict.fromkeys(str(r.data.get("version") or "version not served") for r in chosen))
    return ", ".join(found) if found else "no run"


def recorded_summary(op_id: str, runs: list[Run]) -> list[str]:
    """One line saying whether a recorded real-server run backs this operation."""
    real = [r for r in runs if r.kind == "live"]
    backing = []
    for run in real:
        statuses = sorted(
            {str(c.get("status")) for c in run.data["calls"] if OPS.get(c.get("op", "")) == op_id}
        )
        if statuses:
            backing.append(f"`{run.path.name}` (statuses {', '.join(statuses)})")
    if backing:
        joined = "; ".join(backing)
        return [f"- Recorded on a real server: {joined}; the answers are in the table below.", ""]
    return ["- Not recorded on a real server: the lines above rest on the sources named.", ""]


def render_owner(runs: list[Run]) -> list[str]:
    """What the owner's version column rests on, and how to fill it."""
    owned = [r for r in runs if r.answers_as == "owner"]
    lines = [f"### The owner's version ({OWNER_VERSION})", ""]
    if owned:
        names = ", ".join(f"`{r.path.name}`" for r in owned)
        lines.append(
            f"Each call table has a column for Honcho {OWNER_VERSION}, the version memoryd's "
            f"owner runs, filled from its recorded runs: {names}. "
            f"`python scripts/emulator_drift.py {OWNER_VERSION}` lists every place where the "
            f"emulator's {OWNER_VERSION} profile disagrees with them."
        )
    else:
        lines.append(
            f"Each call table has a column for Honcho {OWNER_VERSION}, the version memoryd's "
            "owner runs. **No run of it is recorded yet** (no such server was reachable here): "
            "the column says `not recorded` until the owner's acceptance run "
            "(`RONCHO_LIVE_URL=... bash scripts/test-real.sh --record docs/observations`) adds "
            "its observation files and this script is run again; "
            f"`python scripts/emulator_drift.py {OWNER_VERSION}` then lists every place where "
            f"the emulator's {OWNER_VERSION} profile disagrees with that run. Until then, what "
            f"this page says of {OWNER_VERSION} rests on the OBS 3.2.0 record."
        )
    lines.append("")
    return lines


# The finding of tests/live/test_live_beyond.py: per key kind, per route, what the key got.
KEY_KINDS = "key_kinds_beyond"
# Its key kinds, as the test names them, and the column each becomes.
KEY_KIND_COLUMNS = {
    "workspace": "workspace key",
    "peer": "peer key, its peer a member",
    "peer, outside": "peer key, its peer not a member",
    "session": "session key (this session)",
}
NEW_OPS = tuple(f"O{i}" for i in range(16, 23))


def render_key_kinds(runs: list[Run]) -> list[str]:
    """The route by key kind table of O16-O22, from the runs that recorded it: each real run
    its own table, the emulator beside it (``same`` or its answer); emulator runs alone when
    no real run has it."""
    having = [r for r in runs if isinstance(r.data.get("findings", {}).get(KEY_KINDS), dict)]
    if not having:
        return []
    real = [r for r in having if r.kind == "live"]
    emulated = [r for r in having if r.kind != "live"]
    lines = [
        "### What each kind of key may do on the O16 to O22 routes",
        "",
        "A key minted by the admin key for the scratch workspace (`workspace`), for one peer "
        "`{p}` (on a session `{p}` is a member of, and on one it is not) and for one session "
        "`{s}` (the session the calls name), each calling every route once "
        "(`tests/live/test_live_beyond.py`, finding `key_kinds_beyond`). `allowed`: the call "
        "succeeded; `refused`: roncho's `UnauthorizedError` (401 or 403), with the statuses "
        "that the run's refused calls of these routes got; the line under each table gives "
        "their details.",
        "",
    ]
    for run in real or emulated:
        table: dict[str, dict[str, str]] = run.data["findings"][KEY_KINDS]
        kinds = list(table)
        routes = list(dict.fromkeys(route for kind in kinds for route in table[kind]))
        others = [r for r in emulated if r is not run] if real else []
        rests = "a real server's behaviour" if run.kind == "live" else "emulator only"
        version = run.data.get("version") or "version not served"
        lines.append(f"Run `{run.path.name}` ({version}; rests on {rests}):")
        lines.append("")
        header = ["route"] + [KEY_KIND_COLUMNS.get(kind, kind) for kind in kinds]
        header += [f"emulator `{other.label}` {other.data.get('date')}" for other in others]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|---" * len(header) + "|")
        statuses = refused_statuses(run)
        refused = f"refused ({', '.join(statuses)})" if statuses else "refused"
        for route in routes:
            outcomes = [table[k].get(route, "—") for k in kinds]
            cells = [f"`{cell(route)}`"] + [refused if o == "refused" else o for o in outcomes]
            for other in others:
                theirs = other.data["findings"][KEY_KINDS]
                row = [theirs.get(k, {}).get(route, "—") for k in kinds]
                if row == outcomes:
                    cells.append("same")
                else:
                    cells.append(" / ".join(row) + " (differs)")
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        lines.append(f"- This run: {refusals(run)}")
        for other in others:
            lines.append(f"- Emulator `{other.path.name}`: {refusals(other)}")
        lines.append("")
    return lines


def _refused_calls(run: Run) -> list[dict[str, Any]]:
    """The calls of O16-O22 in one run that a key was refused (401 or 403)."""
    return [
        call
        for call in run.data["calls"]
        if OPS.get(call.get("op", "")) in NEW_OPS and call.get("status") in (401, 403)
    ]


def refused_statuses(run: Run) -> list[str]:
    return sorted({str(call["status"]) for call in _refused_calls(run)})


def refusals(run: Run) -> str:
    """The statuses and details of the refused calls of O16-O22 in one run."""
    seen: dict[str, int] = {}
    for call in _refused_calls(run):
        text = f"{call['status']} “{call.get('detail', '')}”"
        seen[text] = seen.get(text, 0) + 1
    if not seen:
        return "no call of these routes was refused."
    answers = "; ".join(
        f"{text} ({count} call{'' if count == 1 else 's'})" for text, count in seen.items()
    )
    return f"every refused call of these routes answered {answers}."


def render_findings(runs: list[Run]) -> list[str]:
    keys: list[str] = []
    for run in runs:
        for key in run.data.get("findings", {}):
            if key not in keys and key != KEY_KINDS:  # its own table: render_key_kinds
                keys.append(key)
    if not keys:
        return []
    lines = ["### Findings per run", ""]
    lines.append(
        "| finding | " + " | ".join(f"{r.label} {r.data.get('date')}" for r in runs) + " |"
    )
    lines.append("|---|" + "---|" * len(runs))
    for key in keys:
        values = []
        for run in runs:
            value = run.data.get("findings", {}).get(key)
            values.append("—" if value is None else cell(json.dumps(value, ensure_ascii=False)))
        lines.append(
            f"| `{key}` | " + " | ".join(f"`{v}`" if v != "—" else v for v in values) + " |"
        )
    lines.append("")
    return lines


def render(runs: list[Run]) -> str:
    lines = [
        BEGIN,
        "<!-- Generated by scripts/render_compat.py from "
        + ", ".join(f"docs/observations/{r.path.name}" for r in runs)
        + "; edit FACTS in the script or record a new run, not this text. -->",
        "",
    ]
    lines += render_runs(runs)
    lines += render_owner(runs)
    for op_id in FACTS:
        lines += render_operation(op_id, runs)
    keys_rows = rows_for(runs, "keys")
    if keys_rows:
        lines += ["### Keys (`POST /v3/keys`)", ""]
        for row in keys_rows:
            query = f"?{'&'.join(row.query)}" if row.query else ""
            answers = "; ".join(
                f"{name}: `{cell(row.answer(kind) or '')}`"
                for kind, name in (("live", "real server"), ("emulator", "emulator"))
                if row.answer(kind) is not None
            )
            lines.append(
                f"- `{row.method} {row.path}{query}` → {row.status}, {answers} "
                f"({', '.join(row.seconds)})"
            )
        lines.append("")
    lines += render_key_kinds(runs)
    lines += render_findings(runs)
    lines.append(END)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("observations", nargs="+", type=Path, help="observation JSON files")
    parser.add_argument("--doc", type=Path, default=DEFAULT_DOC, help="the document to update")
    parser.add_argument("--check", action="store_true", help="exit 1 if the document is stale")
    args = parser.parse_args(argv)
    generated = render(load(args.observations))
    return update(
        args.doc, generated, BEGIN, END, check=args.check, script="scripts/render_compat.py"
    )


if __name__ == "__main__":
    sys.exit(main())
