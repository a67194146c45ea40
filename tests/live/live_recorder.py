"""Observations of the live suite: what each call sent and got, as shapes, never values.

One seam: ``Recorder.install`` wraps ``roncho.Client._exchange`` (every request, streams
included: method, path, request body, status line, content type, time to the head),
``Exchange.result`` (the body of a non-stream answer, time to the last byte, and the
body of an error answer) and ``ChatDecoder._take_event`` (each SSE event of a stream).
roncho/ itself is not changed.

In memory each ``Call`` keeps the decoded JSON, so the tests can check the server's raw
shapes (the models ignore unknown keys). What ``Recorder.write`` puts on disk is only:
method, a path template (ids replaced by ``{workspace}``, ``{peer}``, ...), query parameter
names, the request and response *shapes* (keys and JSON types), the status, the content
type, timings, and for error answers the server's string ``detail`` with every id of the
run replaced. Memory text, keys, hosts and ports never reach the file.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import roncho
from roncho import _call as call_module
from roncho import _chat as chat_module
from roncho import _client as client_module
from roncho import _exchange as exchange_module
from roncho.aio import AsyncClient

SCHEMA_VERSION = 1
# Path segments that are route words, never ids (reference §3).
_ROUTE_WORDS = frozenset(
    {
        "v3", "workspaces", "peers", "sessions", "messages", "conclusions", "list", "query",
        "search", "chat", "queue", "status", "config", "keys", "health", "openapi.json",
        "representation", "context", "card", "summaries", "upload", "clone", "scopes",
        "webhooks", "test", "schedule_dream",
    }
)  # fmt: skip
# The placeholder for an id that follows each collection word.
_ID_AFTER = {
    "workspaces": "{workspace}",
    "peers": "{peer}",
    "sessions": "{session}",
    "messages": "{message}",
    "conclusions": "{conclusion}",
    "webhooks": "{webhook}",
    "scopes": "{scope}",
}
# Words that may follow a collection word without being an id.
_COLLECTION_WORDS = frozenset({"list", "query", "upload", "test"})
# A server-made id (21-char nanoid, reference §1.2) used as an object key.
_NANOID = re.compile(r"^[A-Za-z0-9_-]{21}$")
_PLAIN_KEY = re.compile(r"^[a-z][a-z0-9_]*$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$")
# How much of an error detail string is kept (details are short; this bounds a surprise).
MAX_DETAIL_CHARS = 300


def json_type(value: object) -> str:
    """The JSON type name of a decoded value; strings that are ISO datetimes say so."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string(datetime)" if _DATETIME.match(value) else "string"
    if isinstance(value, list):
        return "array"
    return "object"


def shape(value: object, ids: Mapping[str, str] | None = None) -> Any:
    """Keys and JSON types of ``value``, recursively; no value survives.

    Object keys that are ids (of this run, or server nanoids) become placeholders, so a map
    keyed by peer or session ids does not carry them. Array items with differing shapes are
    listed once each.
    """
    ids = ids or {}
    if isinstance(value, dict):
        return {_key(k, ids): shape(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        seen: list[Any] = []
        for item in value:
            item_shape = shape(item, ids)
            if item_shape not in seen:
                seen.append(item_shape)
        return seen
    return json_type(value)


def _key(key: str, ids: Mapping[str, str]) -> str:
    if key in ids:
        return ids[key]
    if _NANOID.match(key) and not _PLAIN_KEY.match(key):
        return "{id}"
    if not _PLAIN_KEY.match(key) and not key.replace("_", "").isalnum():
        return "{key}"
    return key


def path_template(path: str, ids: Mapping[str, str] | None = None) -> str:
    """``/v3/workspaces/ws-1/peers/u/chat`` -> ``/v3/workspaces/{workspace}/peers/{peer}/chat``.

    A path prefix before ``/v3`` (or before ``/health``) is dropped: it belongs to the
    deployment, not to the API.
    """
    ids = ids or {}
    parts = [p for p in path.split("?", 1)[0].split("/") if p]
    for anchor in ("v3", "health", "openapi.json"):
        if anchor in parts:
            parts = parts[parts.index(anchor) :]
            break
    out: list[str] = []
    for i, part in enumerate(parts):
        previous = parts[i - 1] if i else ""
        if previous in _ID_AFTER and part not in _COLLECTION_WORDS:
            # A registered placeholder of the same kind ("{user_peer}") says more than
            # the generic one ("{peer}"); anything else gets the generic one.
            generic = _ID_AFTER[previous]
            known = ids.get(part, "")
            out.append(known if known.endswith(generic[1:]) else generic)
        elif part in _ROUTE_WORDS:
            out.append(part)
        else:
            out.append("{id}")
    return "/" + "/".join(out)


def scrub(text: str, ids: Mapping[str, str]) -> str:
    """``text`` with every known id replaced by its placeholder, cut to a bounded length."""
    for value in sorted(ids, key=len, reverse=True):
        text = text.replace(value, ids[value])
    return text[:MAX_DETAIL_CHARS]


@dataclass
class Call:
    """One request as the recorder saw it (in memory: the raw JSON too)."""

    op: str
    method: str
    path: str
    query: list[str]
    request: object
    status: int | None = None
    content_type: str | None = None
    response: object = None
    events: list[object] = field(default_factory=list)
    error: str | None = None
    head_seconds: float | None = None
    total_seconds: float | None = None
    started: float = 0.0


class Recorder:
    """Collects ``Call``s from every roncho.Client while installed, plus named findings."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.findings: dict[str, Any] = {}
        self.ids: dict[str, str] = {}
        self.health: object = None
        self.version: str | None = None
        self._lock = threading.Lock()
        self._local = threading.local()

    # -- what the tests use ---------------------------------------------------------------
    def name(self, value: str, placeholder: str) -> None:
        """Register an id of this run (``value``) to be written as ``placeholder``."""
        self.ids[value] = placeholder

    def last(self, op: str) -> Call:
        """The most recent call of operation ``op`` (AssertionError when there is none)."""
        for call in reversed(self.calls):
            if call.op == op:
                return call
        raise AssertionError(f"no {op} call was recorded")

    def note(self, key: str, value: Any) -> None:
        """A finding for the observation file (plain strings, numbers, booleans, dicts)."""
        self.findings[key] = value

    # -- the seam -------------------------------------------------------------------------
    @contextmanager
    def install(self) -> Iterator[Recorder]:
        """Wrap the client's executor for the duration of the block (class-level patch)."""
        original_exchange = client_module.Client._exchange
        original_async_exchange = AsyncClient._exchange
        original_result = exchange_module.Exchange.result
        original_take = chat_module.ChatDecoder._take_event
        recorder = self

        def _begin(request: Any) -> Call:
            call = Call(
                op=request.op,
                method=request.method,
                path=request.path,
                query=[name for name, _ in request.query],
                request=_request_body(request.body),
                started=time.perf_counter(),
            )
            with recorder._lock:
                recorder.calls.append(call)
            recorder._local.current = call
            return call

        def _headed(call: Call, exchange: Any) -> None:
            call.status = exchange.head.status
            call.content_type = exchange.head.get("content-type")
            call.head_seconds = time.perf_counter() - call.started

        def _exchange(self: roncho.Client, request: Any, deadline: float | None) -> Any:
            call = _begin(request)
            try:
                result = original_exchange(self, request, deadline)
            except roncho.RonchoError as exc:
                call.error = type(exc).__name__
                raise
            _headed(call, result[1])
            return result

        async def _async_exchange(self: AsyncClient, request: Any, deadline: float | None) -> Any:
            # The facade runs each call in one loop thread: the thread-local is that thread's.
            call = _begin(request)
            try:
                result = await original_async_exchange(self, request, deadline)
            except roncho.RonchoError as exc:
                call.error = type(exc).__name__
                raise
            _headed(call, result[1])
            return result

        def _result(self: Any) -> Any:
            call = recorder._local.current
            # Redacted as the exchange redacts it: a server echoing the key must not put it
            # in a local of this frame either (tests/wire/test_leaks.py reads every frame).
            # A 2xx body of announced length sits in its own buffer (`_whole`); any other
            # body, an error's included, in `_chunks`. No local holds it unredacted.
            body = self.redact(
                bytes(self._whole) if self._whole is not None else b"".join(self._chunks)
            )
            try:
                answer = original_result(self)
            except roncho.StatusError as exc:
                if call is not None:
                    call.total_seconds = time.perf_counter() - call.started
                    call.error = type(exc).__name__
                    call.response = _maybe_json(exc.body)
                raise
            except roncho.RonchoError as exc:
                if call is not None:
                    call.error = type(exc).__name__
                raise
            if call is not None:
                call.total_seconds = time.perf_counter() - call.started
                call.response = _maybe_json(body)
            return answer

        def _take_event(self: Any, data: str) -> bool:
            call = recorder._local.current
            if call is not None:
                call.events.append(_maybe_json(data.encode("utf-8")))
                call.total_seconds = time.perf_counter() - call.started
            return bool(original_take(self, data))

        client_module.Client._exchange = _exchange  # type: ignore[method-assign]
        AsyncClient._exchange = _async_exchange  # type: ignore[method-assign]
        exchange_module.Exchange.result = _result  # type: ignore[method-assign]
        chat_module.ChatDecoder._take_event = _take_event  # type: ignore[method-assign]
        try:
            yield self
        finally:
            client_module.Client._exchange = original_exchange  # type: ignore[method-assign]
            AsyncClient._exchange = original_async_exchange  # type: ignore[method-assign]
            exchange_module.Exchange.result = original_result  # type: ignore[method-assign]
            chat_module.ChatDecoder._take_event = original_take  # type: ignore[method-assign]

    # -- the file -------------------------------------------------------------------------
    def observation(
        self,
        *,
        label: str,
        base_url: str,
        kind: str,
        health: object,
        version: str | None,
        extra: Mapping[str, Any] | None = None,
        now: datetime | None = None,
    ) -> dict[str, Any]:
        """The JSON document for this run: shapes and findings only."""
        moment = now or datetime.now(UTC)
        split = urlsplit(base_url)
        prefix = split.path.rstrip("/")
        return {
            "schema": SCHEMA_VERSION,
            "date": moment.strftime("%Y-%m-%d"),
            "recorded_at": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "server_label": label,
            "kind": kind,
            "base_url": f"{split.scheme}://{label}{prefix}",
            "health": health,
            "version": version,
            "roncho_version": roncho.__version__,
            **(dict(extra) if extra else {}),
            "findings": self.findings,
            "calls": [self._entry(call) for call in self.calls],
        }

    def _entry(self, call: Call) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "op": call.op,
            "method": call.method,
            "path": path_template(call.path, self.ids),
            "query": sorted(set(call.query)),
            "request": None if call.request is None else shape(call.request, self.ids),
            "status": call.status,
            "content_type": call.content_type,
            "response": None if call.response is None else shape(call.response, self.ids),
            "head_seconds": _round(call.head_seconds),
            "total_seconds": _round(call.total_seconds),
        }
        if call.events:
            entry["events"] = shape(call.events, self.ids)
        if call.error is not None:
            entry["error"] = call.error
            detail = call.response.get("detail") if isinstance(call.response, dict) else None
            if isinstance(detail, str):
                entry["detail"] = scrub(detail, self.ids)
        return entry

    def write(self, directory: Path, document: Mapping[str, Any]) -> Path:
        """Write ``<date>-<label>.json`` in ``directory``; returns its path."""
        directory.mkdir(parents=True, exist_ok=True)
        target = directory / f"{document['date']}-{document['server_label']}.json"
        text = json.dumps(document, indent=1, sort_keys=False, ensure_ascii=False)
        target.write_text(text + "\n", encoding="utf-8")
        return target


def _request_body(body: object) -> object:
    """A JSON body as it was sent; an upload by its size and type only (a file's bytes are
    no observation); None without a body."""
    if body is call_module.NO_BODY:
        return None
    if isinstance(body, call_module.Upload):
        return {"upload_bytes": len(body.data), "content_type": body.content_type.split(";")[0]}
    return body


def _maybe_json(body: bytes) -> object:
    if not body.strip():
        return None
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return "<not json>"


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def check_label(label: str) -> str:
    """A server label is a short plain word: it names the file and replaces the host."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,39}", label):
        raise ValueError(f"--server-label must match [a-z0-9][a-z0-9-]{{0,39}}, got {label!r}")
    return label
