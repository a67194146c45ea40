"""A flow over the official SDK's whole surface (honcho-ai), run by the SDK's own venv.

    <sdk-venv>/bin/python sdk_flow.py --base-url URL --workspace NAME [--key-file PATH]

Prints one JSON object per line and step: `step`, `outcome` (`ok` or `error <Class> <status>`),
`result` (the shape of what the SDK returned: types and keys, not values) and `wire` (every HTTP
exchange of the step: method, path with ids replaced, status, content type, body shape). The
workspace is deleted at the end, also on failure. Nothing here imports roncho: this file runs
where only the SDK is installed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import secrets
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
from honcho import Honcho
from honcho.api_types import SessionPeerConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: deriver_told
from deriver_told import Watch

ID = re.compile(r"/[A-Za-z0-9_-]{21}(?=/|$)")
# A server-made id (21-character nanoid) anywhere in a text or as a map key.
NANOID = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{21}(?![A-Za-z0-9_-])")
# The cloned session's name is this run's own: Honcho 3.0.12 clones every message of *any*
# workspace's session by that name (docs/compatibility.md, "Server defects"), so a plain "s1"
# collides with another run's workspace still waiting for the deriver to purge it (a 500).
S1 = f"s1-{secrets.token_hex(4)}"
TIMEOUT = 60.0
DERIVER_WAIT = 60.0


def shape(value: Any) -> Any:
    """Keys and JSON types of a parsed body; lists become the sorted set of item shapes."""
    if isinstance(value, dict):
        # Maps keyed by server-made ids (queue status `sessions`) or by the run's session name
        # (a scope's `backfill_status`) compare by their values.
        return {
            NANOID.sub("{id}", key.replace(S1, "{S1}")): shape(item)
            for key, item in sorted(value.items())
        }
    if isinstance(value, list):
        shapes = {json.dumps(shape(item), sort_keys=True) for item in value}
        return [json.loads(s) for s in sorted(shapes)]
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return "string"


def describe(result: Any) -> Any:
    """The shape of an SDK return value: models by their JSON, SDK objects by class name."""
    if result is None or isinstance(result, str | int | float | bool):
        return shape(result)
    if isinstance(result, dict):
        return shape(result)
    dump = getattr(result, "model_dump", None)
    if callable(dump):
        try:
            return {"model": type(result).__name__, "json": shape(dump(mode="json"))}
        except Exception:  # an SDK object that is a model but not serialisable as such
            pass
    if isinstance(result, list | tuple):
        items = {json.dumps(describe(item), sort_keys=True) for item in result}
        return [json.loads(s) for s in sorted(items)]
    if hasattr(result, "__iter__") and hasattr(result, "_raw_items"):  # SyncPage
        return {"page": describe(list(result))}
    if dataclasses.is_dataclass(result):
        return {
            "object": type(result).__name__,
            "fields": {
                f.name: describe(getattr(result, f.name)) for f in dataclasses.fields(result)
            },
        }
    return {"object": type(result).__name__}


class Recorder:
    """httpx event hooks: every exchange of the current step, with its body's shape."""

    def __init__(self, workspace: str) -> None:
        self.workspace = workspace
        self.exchanges: list[dict[str, Any]] = []

    def on_response(self, response: httpx.Response) -> None:
        response.read()
        kind = response.headers.get("content-type")
        body: Any
        if kind and kind.startswith("text/event-stream"):
            body = [
                json.loads(line[5:].strip())
                for line in response.text.splitlines()
                if line.startswith("data:")
            ]
        else:
            try:
                body = response.json() if response.content else None
            except ValueError:
                body = response.text
        path = _names(response.request.url.path, self.workspace)
        detail = body.get("detail") if isinstance(body, dict) else None
        self.exchanges.append(
            {
                "method": response.request.method,
                "path": ID.sub("/{id}", path),
                "status": response.status_code,
                "content_type": kind,
                "shape": shape(body),
                "detail": detail
                if isinstance(detail, str) and response.status_code >= 400
                else None,
            }
        )


@contextmanager
def step(name: str, recorder: Recorder) -> Iterator[dict[str, Any]]:
    recorder.exchanges = []
    record: dict[str, Any] = {"step": name}
    try:
        yield record
        record.setdefault("outcome", "ok")
    except Exception as error:  # every SDK error is an outcome to compare, not a crash
        status = getattr(error, "status_code", None) or getattr(error, "status", None)
        record["outcome"] = f"error {type(error).__name__} {status}"
        if status is None:  # raised by the SDK before or after the wire: say why
            record["error"] = str(error).splitlines()[0][:200]
    record["wire"] = [
        dict(x, detail=_unfill(x["detail"], recorder.workspace)) for x in recorder.exchanges
    ]
    print(json.dumps(record, sort_keys=True), flush=True)


def _names(text: str, workspace: str) -> str:
    """The run's own names as placeholders, so two runs' paths and details compare."""
    return text.replace(workspace, "{W}").replace(S1, "{S1}")


def _unfill(detail: str | None, workspace: str) -> str | None:
    return None if detail is None else NANOID.sub("{id}", _names(detail, workspace))


def flow(honcho: Honcho, recorder: Recorder, look: float = 0.0) -> None:
    saved: dict[str, Any] = {}

    def run(name: str, action: Callable[[], Any], save: str | None = None) -> None:
        with step(name, recorder) as record:
            result = action()
            if hasattr(result, "_raw_items"):
                result = list(result)
            if save:
                saved[save] = result
            record["result"] = describe(result)

    run("workspace metadata set", lambda: honcho.set_metadata({"k": 1}))
    run("workspace metadata get", honcho.get_metadata)
    run("workspace configuration get", honcho.get_configuration)
    # Filtered to this run's workspace: a shared server lists other runs' workspaces too.
    run("workspaces list", lambda: honcho.workspaces(filters={"id": honcho.workspace_id}))
    run("peer alice", lambda: honcho.peer("alice", metadata={"role": "user"}), save="alice")
    run("peer bob", lambda: honcho.peer("bob"), save="bob")
    alice, bob = saved["alice"], saved["bob"]
    run("peer get metadata", alice.get_metadata)
    run("peer set metadata", lambda: alice.set_metadata({"role": "admin"}))
    run("peer set configuration", lambda: bob.set_configuration({"observe_me": True}))
    run("peers list", honcho.peers)
    run("peers list filter", lambda: honcho.peers(filters={"metadata": {"role": "admin"}}))
    run("session s1", lambda: honcho.session(S1, metadata={"topic": "tea"}), save="s1")
    s1 = saved["s1"]
    run("session add peers", lambda: s1.add_peers([alice, bob]))
    run("session peers", s1.peers)
    run(
        "session peer config set",
        lambda: s1.set_peer_configuration(bob, SessionPeerConfig(observe_others=True)),
    )
    run("session peer config get", lambda: s1.get_peer_configuration(bob))
    run("session set peers", lambda: s1.set_peers([alice, bob]))
    run("session metadata", s1.get_metadata)
    run("sessions list", honcho.sessions)
    run("peer sessions", alice.sessions)
    run(
        "messages add",
        lambda: s1.add_messages(
            [
                alice.message("I like green tea", metadata={"n": 1}),
                bob.message("Tea is nice", metadata={"n": 2}),
                alice.message("Rain makes me sad", metadata={"n": 3}),
            ]
        ),
        save="messages",
    )
    first = saved.get("messages", [None])[0]
    run("messages list", s1.messages)
    run("messages page size 2", lambda: s1.messages(size=2).items)
    run("messages filter", lambda: s1.messages(filters={"metadata": {"n": {"gte": 2}}}))
    run("messages filter bad key", lambda: s1.messages(filters={"id": "x"}))
    run("message get", lambda: s1.get_message(first.id))
    run("message update", lambda: s1.update_message(first, {"edited": True}))
    run("message get missing", lambda: s1.get_message("nope"))
    run("search workspace", lambda: honcho.search("tea", limit=5))
    run("search peer", lambda: alice.search("tea"))
    run("search session", lambda: s1.search("tea"))
    run("search bad limit", lambda: honcho.search("tea", limit=0))
    view = bob.conclusions_of(alice)
    run(
        "conclusions create",
        lambda: view.create(
            [
                {"content": "alice likes tea", "session_id": S1},
                {"content": "alice dislikes rain"},
            ]
        ),
        save="created",
    )
    cid = saved.get("created", [None])[0]
    cid = cid.id if cid is not None else "missing"
    run("conclusions list", view.list)
    run("conclusions list workspace", honcho.conclusions.list)
    run("conclusions query", lambda: view.query("tea"))
    run("conclusions get (SDK: GET route 3.0.12 lacks)", lambda: view.get(cid))
    run("conclusions derived (SDK: always 422)", lambda: view.derived(cid))
    run("conclusions representation", view.representation)
    run("conclusions delete", lambda: view.delete(cid))
    run("conclusions delete again", lambda: view.delete(cid))
    with step("wait for the deriver", recorder) as record:
        # Drained, or (a batching server, deriver_told.Watch) what is left held in a batch.
        deadline = time.monotonic() + DERIVER_WAIT
        watch = Watch(look)
        while True:
            status = honcho.queue_status()
            ended = watch.see(
                status.total_work_units,
                status.pending_work_units,
                status.in_progress_work_units,
                time.monotonic(),
            )
            if ended or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        record["result"] = ended or "timeout"
        recorder.exchanges = recorder.exchanges[-1:]
    run("queue status", honcho.queue_status)
    run("queue status session", lambda: s1.queue_status())
    run("queue status observer", lambda: honcho.queue_status(observer=bob))
    run("card set", lambda: bob.set_card(["likes tea"], target=alice))
    run("card get", lambda: bob.get_card(target=alice))
    run("card get none", alice.get_card)
    run("peer context", lambda: bob.context(target=alice))
    run("peer representation", lambda: bob.representation(target=alice))
    run("peer representation sessions", lambda: bob.representation(target=alice, sessions=[S1]))
    run("session context", s1.context)
    run("session context target", lambda: s1.context(peer_target="alice", peer_perspective="bob"))
    run(
        "session context sessions",
        lambda: s1.context(peer_target="alice", peer_perspective="bob", sessions=[S1]),
    )
    run(
        "session context limit_to_session",
        lambda: s1.context(peer_target="alice", peer_perspective="bob", limit_to_session=True),
    )
    run(
        "session context sessions without s1",
        lambda: s1.context(peer_target="alice", sessions=["s2"]),
    )
    run("session context to openai", lambda: s1.context(tokens=1000).to_openai(assistant=bob))
    run("session representation", lambda: s1.representation(bob, target=alice))
    run("session summaries", s1.summaries)
    run("chat", lambda: bob.chat("what does alice like?"))
    run("chat target", lambda: bob.chat("what does alice like?", target=alice, session=s1))
    run(
        "chat include_evidence (3.0.12: ignored)",
        lambda: bob.chat("what does alice like?", include_evidence=True),
    )
    run("chat stream", lambda: "".join(bob.chat_stream("what does alice like?")))
    run("chat missing target", lambda: bob.chat("x", target="nobody"))
    run("workspace chat (SDK: 404 on 3.0.12)", lambda: honcho.chat("hello"))
    run("clone", lambda: s1.clone(), save="clone")
    run("clone up to message", lambda: s1.clone(message_id=first.id))
    run(
        "upload file",
        lambda: s1.upload_file(("notes.txt", b"alice keeps notes in a file", "text/plain"), alice),
    )
    run("scope", lambda: honcho.scope("sc1"), save="scope")
    run("scope again", lambda: honcho.get_scope("sc1"))
    run("scopes list", honcho.scopes)
    run("scope add sessions", lambda: saved["scope"].add_sessions([s1]))
    run("scope sessions", lambda: saved["scope"].sessions())
    run("scope status", lambda: saved["scope"].status())
    run("scope remove session", lambda: saved["scope"].remove_session(s1))
    run("schedule dream", lambda: honcho.schedule_dream(bob, observed=alice))
    run("workspace delete with sessions", lambda: honcho.delete_workspace(honcho.workspace_id))
    run("session delete", s1.delete)
    run("session delete again", s1.delete)
    if "clone" in saved:
        run("clone delete", saved["clone"].delete)


def cleanup(honcho: Honcho) -> None:
    """Delete every session, then the workspace; bounded and quiet (real-server hygiene)."""
    for _ in range(5):
        try:
            for session in list(honcho.sessions()):
                with suppress(Exception):
                    session.delete()
            honcho.delete_workspace(honcho.workspace_id)
            return
        except Exception:
            time.sleep(0.5)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--key-file")
    parser.add_argument(
        "--deriver-look", type=float, default=0.0, help="the server's deriver look; 0: it flushes"
    )
    args = parser.parse_args()
    key = None
    if args.key_file:
        with open(args.key_file, encoding="utf-8") as handle:
            key = handle.read().strip()
    recorder = Recorder(args.workspace)
    client = httpx.Client(
        base_url=args.base_url, timeout=TIMEOUT, event_hooks={"response": [recorder.on_response]}
    )
    honcho = Honcho(
        api_key=key,
        base_url=args.base_url,
        workspace_id=args.workspace,
        timeout=TIMEOUT,
        max_retries=0,
        http_client=client,
    )
    try:
        flow(honcho, recorder, args.deriver_look)
    finally:
        cleanup(honcho)
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
