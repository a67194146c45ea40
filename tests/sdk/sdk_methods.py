"""Every public method of the official SDK (honcho-ai 2.7.0), called once, run by its own venv.

    <sdk-venv>/bin/python sdk_methods.py --base-url URL --workspace NAME

Calls each public method of `Honcho`, `Peer`, `Session`, `Scope` and the two conclusion views
(`ConclusionsView`, `WorkspaceConclusions`) and prints one JSON object per call: `method`
(`Class.name`), `outcome` (`ok` or `error <Class> <status>`), and `wire`: each HTTP exchange
with its route (a template: `{W}` the workspace, `{p}` a peer, `{s}` a session, `{scope}`,
`{id}` a server-made id), its path as `sdk_flow.py` records it (to hold it against the recorded
real run), its status and `accepted`: whether the body validates against the SDK's own response
model for that route (`api_types`; the models the SDK's methods validate with, read from its
source), with `model` naming it and `unknown` the keys the model does not declare. A last line
`{"coverage": ...}` names any public method left uncalled (there must be none). Nothing here
imports roncho: this file runs where only the SDK is installed.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from collections.abc import Callable
from typing import Any

import httpx
from honcho import Honcho, api_types
from honcho.api_types import SessionPeerConfig
from honcho.conclusions import ConclusionsView, WorkspaceConclusions
from honcho.peer import Peer
from honcho.scope import Scope
from honcho.session import Session
from pydantic import BaseModel, ValidationError
from sdk_flow import ID, S1, TIMEOUT, _names, cleanup

CLASSES: tuple[type, ...] = (Honcho, Peer, Session, Scope, ConclusionsView, WorkspaceConclusions)
PEERS = ("alice", "bob")
SCOPE = "sc1"

W = "/v3/workspaces/{W}"
# (method, route) -> (the SDK's response model, how the body holds it): "one", "list" (a bare
# array), "page" (a Page's items), "stream" (each SSE event), "none" (the SDK reads nothing).
MODELS: dict[tuple[str, str], tuple[type[BaseModel] | None, str]] = {
    ("POST", "/v3/workspaces"): (api_types.WorkspaceResponse, "one"),
    ("POST", "/v3/workspaces/list"): (api_types.WorkspaceResponse, "page"),
    ("PUT", W): (api_types.WorkspaceResponse, "one"),
    ("DELETE", W): (None, "none"),
    ("POST", W + "/peers"): (api_types.PeerResponse, "one"),
    ("POST", W + "/peers/list"): (api_types.PeerResponse, "page"),
    ("PUT", W + "/peers/{p}"): (api_types.PeerResponse, "one"),
    ("POST", W + "/peers/{p}/chat"): (api_types.DialecticResponse, "one"),
    ("POST", W + "/peers/{p}/representation"): (api_types.RepresentationResponse, "one"),
    ("GET", W + "/peers/{p}/card"): (api_types.PeerCardResponse, "one"),
    ("PUT", W + "/peers/{p}/card"): (api_types.PeerCardResponse, "one"),
    ("GET", W + "/peers/{p}/context"): (api_types.PeerContextResponse, "one"),
    ("POST", W + "/peers/{p}/search"): (api_types.MessageResponse, "list"),
    ("POST", W + "/peers/{p}/sessions"): (api_types.SessionResponse, "page"),
    ("POST", W + "/sessions"): (api_types.SessionResponse, "one"),
    ("POST", W + "/sessions/list"): (api_types.SessionResponse, "page"),
    ("PUT", W + "/sessions/{s}"): (api_types.SessionResponse, "one"),
    ("DELETE", W + "/sessions/{s}"): (None, "none"),
    ("POST", W + "/sessions/{s}/clone"): (api_types.SessionResponse, "one"),
    ("GET", W + "/sessions/{s}/context"): (api_types.SessionContextResponse, "one"),
    ("GET", W + "/sessions/{s}/summaries"): (api_types.SessionSummariesResponse, "one"),
    ("POST", W + "/sessions/{s}/search"): (api_types.MessageResponse, "list"),
    ("GET", W + "/sessions/{s}/peers"): (api_types.PeerResponse, "page"),
    ("POST", W + "/sessions/{s}/peers"): (None, "none"),
    ("PUT", W + "/sessions/{s}/peers"): (None, "none"),
    ("DELETE", W + "/sessions/{s}/peers"): (None, "none"),
    ("GET", W + "/sessions/{s}/peers/{p}/config"): (SessionPeerConfig, "one"),
    ("PUT", W + "/sessions/{s}/peers/{p}/config"): (None, "none"),
    ("POST", W + "/sessions/{s}/messages"): (api_types.MessageResponse, "list"),
    ("POST", W + "/sessions/{s}/messages/list"): (api_types.MessageResponse, "page"),
    ("GET", W + "/sessions/{s}/messages/{id}"): (api_types.MessageResponse, "one"),
    ("PUT", W + "/sessions/{s}/messages/{id}"): (api_types.MessageResponse, "one"),
    ("POST", W + "/sessions/{s}/messages/upload"): (api_types.MessageResponse, "list"),
    ("POST", W + "/conclusions"): (api_types.ConclusionResponse, "list"),
    ("POST", W + "/conclusions/list"): (api_types.ConclusionResponse, "page"),
    ("POST", W + "/conclusions/query"): (api_types.ConclusionResponse, "list"),
    ("GET", W + "/conclusions/{id}"): (api_types.ConclusionResponse, "one"),
    ("DELETE", W + "/conclusions/{id}"): (None, "none"),
    ("POST", W + "/chat"): (api_types.DialecticResponse, "one"),
    ("POST", W + "/search"): (api_types.MessageResponse, "list"),
    ("GET", W + "/queue/status"): (api_types.QueueStatusResponse, "one"),
    ("POST", W + "/schedule_dream"): (None, "none"),
    ("POST", W + "/scopes"): (api_types.ScopeResponse, "one"),
    ("POST", W + "/scopes/list"): (api_types.ScopeResponse, "page"),
    ("GET", W + "/scopes/{scope}"): (api_types.ScopeResponse, "one"),
    ("POST", W + "/scopes/{scope}/sessions"): (None, "none"),
    ("POST", W + "/scopes/{scope}/sessions/list"): (api_types.SessionResponse, "page"),
    ("DELETE", W + "/scopes/{scope}/sessions/{s}"): (None, "none"),
    ("GET", W + "/scopes/{scope}/status"): (api_types.ScopeStatusResponse, "one"),
}


def route_of(path: str) -> str:
    """A recorded path (`{W}`, `{S1}`, `{id}` already in) as its route template."""
    parts = path.split("/")
    named = {"peers": "{p}", "sessions": "{s}", "scopes": "{scope}"}
    for index in range(1, len(parts)):
        kind = named.get(parts[index - 1])
        if kind and parts[index] not in ("list", "") and not parts[index].startswith("{W"):
            parts[index] = kind
    return "/".join(parts).replace("{S1}", "{s}")


def unknown_keys(model: type[BaseModel], data: Any) -> list[str]:
    """Keys of `data` (and of nested models' objects) the SDK's model does not declare."""
    if not isinstance(data, dict):
        return []
    found: list[str] = []
    for key, value in data.items():
        field = next(
            (f for n, f in model.model_fields.items() if key in (n, f.alias, f.validation_alias)),
            None,
        )
        if field is None:
            found.append(key)
            continue
        inner = _nested_model(field.annotation)
        if inner is not None:
            keyed = _keyed(field.annotation)
            items = list(value.values()) if keyed and isinstance(value, dict) else value
            items = items if isinstance(items, list) else [items]
            found += [f"{key}.{k}" for item in items for k in unknown_keys(inner, item)]
    return sorted(set(found))


def _keyed(annotation: Any) -> bool:
    """A `dict[str, Model]` (optional or not): its keys are data, its values the models."""
    if getattr(annotation, "__origin__", None) is dict:
        return True
    return any(_keyed(arg) for arg in getattr(annotation, "__args__", ()))


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if getattr(annotation, "__origin__", None) is dict:
        return _nested_model(annotation.__args__[1])
    for arg in getattr(annotation, "__args__", ()):
        inner = _nested_model(arg)
        if inner is not None:
            return inner
    return None


def judge(method: str, route: str, status: int, body: Any) -> dict[str, Any]:
    """Whether a 2xx body validates against the SDK's model for the route."""
    if status >= 300:
        return {"model": None, "accepted": None, "unknown": []}
    model, kind = MODELS.get((method, route), (None, "unmapped"))
    if kind == "unmapped":
        return {"model": "no model known for this route", "accepted": False, "unknown": []}
    if model is None:
        return {"model": None, "accepted": True, "unknown": []}
    if isinstance(body, list) and body and isinstance(body[-1], dict) and "done" in body[-1]:
        return _judge_stream(body)
    items: list[Any]
    if kind == "one":
        items = [body]
    elif kind == "page":
        try:
            api_types.PageResponse.model_validate(body)
        except ValidationError as error:
            return {"model": "PageResponse", "accepted": False, "error": str(error)[:300]}
        items = body["items"]
    else:
        items = body if isinstance(body, list) else [body]
    try:
        for item in items:
            model.model_validate(item)
    except ValidationError as error:
        return {"model": model.__name__, "accepted": False, "error": str(error)[:300]}
    unknown = sorted({k for item in items for k in unknown_keys(model, item)})
    return {"model": model.__name__, "accepted": True, "unknown": unknown}


def _judge_stream(events: list[Any]) -> dict[str, Any]:
    """A chat stream as the SDK's parser reads it (`utils/sse.py`): each content event a
    `DialecticStreamChunk`; the final one `{"done": true}`, its `evidence` (when sent) an
    `Evidence`. Its model, `DialecticStreamChunk`, wants a `delta` no server's final event
    has (3.0.12 sends `{"done": true}`), and the parser never asks for one."""
    *chunks, final = events
    try:
        for chunk in chunks:
            api_types.DialecticStreamChunk.model_validate(chunk)
        if final.get("done") is not True:
            raise ValueError("the last event is not done")
        if final.get("evidence") is not None:
            api_types.Evidence.model_validate(final["evidence"])
    except (ValidationError, ValueError) as error:
        return {"model": "DialecticStreamChunk", "accepted": False, "error": str(error)[:300]}
    unknown = sorted(
        {k for chunk in chunks for k in unknown_keys(api_types.DialecticStreamChunk, chunk)}
        | {f"evidence.{k}" for k in unknown_keys(api_types.Evidence, final.get("evidence"))}
        | {k for k in final if k not in ("done", "evidence", "delta")}
    )
    return {"model": "DialecticStreamChunk, Evidence", "accepted": True, "unknown": unknown}


class Wire:
    """httpx event hook: each exchange's route, recorded path, status and the model's verdict."""

    def __init__(self, workspace: str) -> None:
        self.workspace = workspace
        self.exchanges: list[dict[str, Any]] = []

    def on_response(self, response: httpx.Response) -> None:
        response.read()
        kind = response.headers.get("content-type") or ""
        body: Any
        if kind.startswith("text/event-stream"):
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
        path = ID.sub("/{id}", _names(response.request.url.path, self.workspace))
        route = route_of(path)
        method = response.request.method
        self.exchanges.append(
            {"method": method, "route": route, "path": path, "status": response.status_code}
            | judge(method, route, response.status_code, body)
        )


def calls(honcho: Honcho) -> list[tuple[str, Callable[[], Any]]]:
    """One call per public method, in an order that builds what the later ones need."""
    saved: dict[str, Any] = {}

    def keep(name: str, value: Any) -> Any:
        saved[name] = value
        return value

    def first_message() -> Any:
        return saved["messages"][0]

    def conclusion_id() -> str:
        return str(saved["conclusions"][0].id)

    def alice() -> Peer:
        return saved["alice"]

    def bob() -> Peer:
        return saved["bob"]

    def s1() -> Session:
        return saved["s1"]

    def view() -> ConclusionsView:
        return bob().conclusions_of(alice())

    def scope() -> Scope:
        return saved["scope"]

    return [
        ("Honcho.set_metadata", lambda: honcho.set_metadata({"k": 1})),
        ("Honcho.get_metadata", honcho.get_metadata),
        ("Honcho.set_configuration", lambda: honcho.set_configuration({})),
        ("Honcho.get_configuration", honcho.get_configuration),
        ("Honcho.refresh", honcho.refresh),
        ("Honcho.workspaces", lambda: list(honcho.workspaces(filters={"id": honcho.workspace_id}))),
        ("Honcho.peer", lambda: keep("alice", honcho.peer("alice", metadata={"role": "user"}))),
        ("Peer.set_metadata", lambda: alice().set_metadata({"role": "admin"})),
        ("Peer.get_metadata", lambda: alice().get_metadata()),
        (
            "Peer.set_configuration",
            lambda: keep("bob", honcho.peer("bob")).set_configuration({"observe_me": True}),
        ),
        ("Peer.get_configuration", lambda: bob().get_configuration()),
        ("Peer.refresh", lambda: alice().refresh()),
        ("Honcho.peers", lambda: list(honcho.peers())),
        ("Honcho.session", lambda: keep("s1", honcho.session(S1, metadata={"topic": "tea"}))),
        ("Session.add_peers", lambda: s1().add_peers([alice(), bob()])),
        ("Session.set_peers", lambda: s1().set_peers([alice(), bob()])),
        ("Session.remove_peers", lambda: s1().remove_peers([bob()])),
        ("Session.peers", lambda: (s1().add_peers([bob()]), s1().peers())[1]),
        (
            "Session.set_peer_configuration",
            lambda: s1().set_peer_configuration(bob(), SessionPeerConfig(observe_others=True)),
        ),
        ("Session.get_peer_configuration", lambda: s1().get_peer_configuration(bob())),
        ("Session.set_metadata", lambda: s1().set_metadata({"topic": "tea"})),
        ("Session.get_metadata", lambda: s1().get_metadata()),
        ("Session.set_configuration", lambda: s1().set_configuration({})),
        ("Session.get_configuration", lambda: s1().get_configuration()),
        ("Session.refresh", lambda: s1().refresh()),
        ("Honcho.sessions", lambda: list(honcho.sessions())),
        ("Peer.sessions", lambda: list(alice().sessions())),
        ("Peer.message", lambda: keep("draft", alice().message("I like green tea"))),
        (
            "Session.add_messages",
            lambda: keep(
                "messages",
                s1().add_messages(
                    [saved["draft"], bob().message("Tea is nice"), alice().message("Rain is sad")]
                ),
            ),
        ),
        ("Session.messages", lambda: list(s1().messages())),
        ("Session.get_message", lambda: s1().get_message(first_message().id)),
        ("Session.update_message", lambda: s1().update_message(first_message(), {"e": True})),
        (
            "Session.upload_file",
            lambda: s1().upload_file(
                ("notes.txt", b"alice keeps notes in a file", "text/plain"), alice()
            ),
        ),
        ("Honcho.search", lambda: honcho.search("tea", limit=5)),
        ("Peer.search", lambda: alice().search("tea")),
        ("Session.search", lambda: s1().search("tea")),
        ("Peer.conclusions_of", view),
        (
            "ConclusionsView.create",
            lambda: keep(
                "conclusions",
                view().create(
                    [{"content": "alice likes tea", "session_id": S1}, {"content": "alice hikes"}]
                ),
            ),
        ),
        ("ConclusionsView.list", lambda: list(view().list())),
        ("ConclusionsView.query", lambda: view().query("tea")),
        ("ConclusionsView.get", lambda: view().get(conclusion_id())),
        ("ConclusionsView.get_many", lambda: view().get_many([conclusion_id()])),
        ("ConclusionsView.derived", lambda: list(view().derived(conclusion_id()))),
        ("ConclusionsView.representation", lambda: view().representation()),
        ("WorkspaceConclusions.list", lambda: list(honcho.conclusions.list())),
        ("WorkspaceConclusions.get", lambda: honcho.conclusions.get(conclusion_id())),
        ("WorkspaceConclusions.get_many", lambda: honcho.conclusions.get_many([conclusion_id()])),
        ("Honcho.queue_status", honcho.queue_status),
        ("Session.queue_status", lambda: s1().queue_status()),
        ("Peer.set_card", lambda: bob().set_card(["likes tea"], target=alice())),
        ("Peer.get_card", lambda: bob().get_card(target=alice())),
        ("Peer.card", lambda: bob().card(target=alice())),
        ("Peer.context", lambda: bob().context(target=alice())),
        ("Peer.representation", lambda: bob().representation(target=alice())),
        ("Session.context", lambda: s1().context(peer_target="alice", peer_perspective="bob")),
        ("Session.representation", lambda: s1().representation(bob(), target=alice())),
        ("Session.summaries", lambda: s1().summaries()),
        ("Peer.chat", lambda: bob().chat("what does alice like?", include_evidence=True)),
        ("Peer.chat_stream", lambda: _drain(bob().chat_stream("tea?", include_evidence=True))),
        ("Honcho.chat", lambda: honcho.chat("what is known?", include_evidence=True)),
        ("Honcho.chat_stream", lambda: _drain(honcho.chat_stream("tea?", include_evidence=True))),
        ("Session.clone", lambda: keep("clone", s1().clone())),
        ("Honcho.scope", lambda: keep("scope", honcho.scope(SCOPE))),
        ("Honcho.get_scope", lambda: honcho.get_scope(SCOPE)),
        ("Honcho.scopes", lambda: list(honcho.scopes())),
        ("Scope.add_sessions", lambda: scope().add_sessions([s1()])),
        ("Scope.sessions", lambda: list(scope().sessions())),
        ("Scope.status", lambda: scope().status()),
        ("Scope.remove_session", lambda: scope().remove_session(s1())),
        ("Honcho.schedule_dream", lambda: honcho.schedule_dream(bob(), observed=alice())),
        ("ConclusionsView.delete", lambda: view().delete(conclusion_id())),
        ("Session.delete", lambda: (saved["clone"].delete(), s1().delete())),
        ("Honcho.delete_workspace", lambda: _deleted(honcho)),
    ]


def _drain(stream: Any) -> Any:
    text = "".join(stream)
    return {"text": bool(text), "evidence": stream.evidence is not None}


def _deleted(honcho: Honcho) -> None:
    """The workspace, once its sessions' deletes are done (202, purged after a moment)."""
    import time

    deadline = time.monotonic() + 30
    while True:
        try:
            return honcho.delete_workspace(honcho.workspace_id)
        except Exception as error:  # 409 while a session delete is still being purged
            if getattr(error, "status_code", None) != 409 or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def public_methods() -> set[str]:
    """Every public method (not property) each class defines in the SDK itself."""
    found = set()
    for cls in CLASSES:
        for name in dir(cls):
            if name.startswith("_"):
                continue
            value = inspect.getattr_static(cls, name)
            if callable(value) and str(getattr(value, "__module__", "")).startswith("honcho"):
                found.add(f"{cls.__name__}.{name}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--workspace", required=True)
    args = parser.parse_args()
    wire = Wire(args.workspace)
    client = httpx.Client(
        base_url=args.base_url, timeout=TIMEOUT, event_hooks={"response": [wire.on_response]}
    )
    honcho = Honcho(
        base_url=args.base_url,
        workspace_id=args.workspace,
        timeout=TIMEOUT,
        max_retries=0,
        http_client=client,
    )
    called = []
    try:
        for name, action in calls(honcho):
            wire.exchanges = []
            record: dict[str, Any] = {"method": name}
            try:
                action()
                record["outcome"] = "ok"
            except Exception as error:  # an SDK error is an outcome to report, not a crash
                status = getattr(error, "status_code", None) or getattr(error, "status", None)
                record["outcome"] = f"error {type(error).__name__} {status}"
                if status is None:
                    record["error"] = str(error).splitlines()[0][:200]
            record["wire"] = wire.exchanges
            called.append(name)
            print(json.dumps(record, sort_keys=True), flush=True)
    finally:
        cleanup(honcho)
        client.close()
    missing = sorted(public_methods() - set(called))
    print(json.dumps({"coverage": {"called": len(set(called)), "missing": missing}}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
