"""What upstream Honcho 3.2 is known to send, endpoint by endpoint, and a check against it.

No upstream 3.2 server has been seen here, so every expectation names its source:

- ``SDK``: the official SDK, honcho-ai 2.7.0, which speaks 3.2: each response model in its
  ``honcho/api_types.py`` (the keys it requires, their types, the keys it declares). These
  are the models ``tests/sdk/sdk_methods.py`` validates the emulator's answers with; here
  they are written out as plain data, so the workbook needs no SDK and no pydantic.
- ``NOTES``: the 3.2.0 release notes (``../shared/reference/honcho-v3.md`` section 8) and the
  owner's 3.2.0 as once observed, for keys the SDK reads with a default and so does not
  require (a conclusion's ``source_ids`` and ``times_derived``, chat's ``evidence``).

The same expectations are what ``FakeHoncho(version="3.2.0")`` serves (docs/emulator.md,
"Honcho 3.2.0 as the emulator imitates it"). The check is a shape check: status 2xx, each
required key present with its JSON type, no key the model does not declare, nested models
held the same way. It says nothing of behaviour (which items come back, how many, in which
order, what the deriver concludes). Standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

SDK = "honcho-ai 2.7.0 api_types"
NOTE_952 = "3.2.0 release notes (conclusion attribution, PR 952)"
NOTE_1188 = "3.2.0 release notes (chat include_evidence, PR 1188)"
SEEN_320 = "observed on the owner's 3.2.0 (source_ids: null)"


@dataclass(frozen=True, slots=True)
class Key:
    """One key of a model: its JSON types, whether it must be there, and where that is from."""

    name: str
    kinds: tuple[str, ...]  # "string", "integer", "boolean", "array", "object", "null", "datetime"
    required: bool = True
    inner: Model | None = None  # the model of the object, or of each item of the array
    source: str = ""  # empty: the model's own source


@dataclass(frozen=True, slots=True)
class Model:
    """A response model: its keys; any other key is one upstream 3.2 does not send."""

    name: str
    keys: tuple[Key, ...]
    source: str = SDK


def _opt(name: str, *kinds: str, inner: Model | None = None) -> Key:
    return Key(name, kinds, required=False, inner=inner)


MESSAGE = Model(
    "MessageResponse",
    (
        Key("id", ("string",)),
        Key("content", ("string",)),
        Key("peer_id", ("string",)),
        Key("session_id", ("string",)),
        _opt("metadata", "object"),
        Key("created_at", ("datetime",)),
        Key("workspace_id", ("string",)),
        Key("token_count", ("integer",)),
    ),
)
CONCLUSION = Model(
    "ConclusionResponse",
    (
        Key("id", ("string",)),
        Key("content", ("string",)),
        Key("observer_id", ("string",)),
        Key("observed_id", ("string",)),
        _opt("session_id", "string", "null"),
        _opt("level", "string"),
        # Defaults in the SDK's model, but 3.2.0 sends them: the release notes and the owner's
        # server say so.
        Key("source_ids", ("array", "null"), source=f"{NOTE_952}; {SEEN_320}; {SDK}"),
        Key("times_derived", ("integer",), source=f"{NOTE_952}; {SDK} (default 1)"),
        Key("created_at", ("datetime",)),
    ),
)
PEER = Model(
    "PeerResponse",
    (
        Key("id", ("string",)),
        _opt("uid", "string", "null"),
        Key("workspace_id", ("string",)),
        Key("created_at", ("datetime",)),
        _opt("metadata", "object"),
        _opt("configuration", "object"),
    ),
)
SESSION = Model(
    "SessionResponse",
    (
        Key("id", ("string",)),
        _opt("uid", "string", "null"),
        Key("is_active", ("boolean",)),
        Key("workspace_id", ("string",)),
        _opt("metadata", "object"),
        _opt("configuration", "object"),
        Key("created_at", ("datetime",)),
    ),
)
WORKSPACE = Model(
    "WorkspaceResponse",
    (
        Key("id", ("string",)),
        _opt("uid", "string", "null"),
        _opt("metadata", "object"),
        _opt("configuration", "object"),
        Key("created_at", ("datetime",)),
    ),
)
EVIDENCE_CONCLUSION = Model(
    "EvidenceObservation",
    (
        Key("id", ("string",)),
        Key("level", ("string",)),
        Key("content", ("string",)),
        Key("created_at", ("datetime",)),
        _opt("session_id", "string", "null"),
        # "None from servers before 3.2.1" (the SDK's docstring): 3.2.0 may leave them out.
        _opt("observer_id", "string", "null"),
        _opt("observed_id", "string", "null"),
        _opt("source_ids", "array"),
    ),
)
EVIDENCE = Model(
    "Evidence",
    (
        _opt("conclusions", "array", inner=EVIDENCE_CONCLUSION),
        _opt("messages", "array"),
        _opt("tool_calls", "array"),
        _opt("reasoning_trace_id", "string", "null"),
    ),
)
DIALECTIC = Model(
    "DialecticResponse",
    (Key("content", ("string", "null")), _opt("evidence", "object", "null", inner=EVIDENCE)),
)
DIALECTIC_EVIDENCE = Model(
    "DialecticResponse",
    (
        Key("content", ("string", "null")),
        Key("evidence", ("object",), inner=EVIDENCE, source=f"{NOTE_1188}; {SDK} Evidence"),
    ),
)
PEER_CARD = Model("PeerCardResponse", (_opt("peer_card", "array", "null"),))
PEER_CONTEXT = Model(
    "PeerContextResponse",
    (
        Key("peer_id", ("string",)),
        Key("target_id", ("string",)),
        _opt("representation", "string", "null"),
        _opt("peer_card", "array", "null"),
    ),
)
REPRESENTATION = Model("RepresentationResponse", (Key("representation", ("string",)),))
SESSION_CONTEXT = Model(
    "SessionContextResponse",
    (
        Key("id", ("string",)),
        Key("messages", ("array",), inner=MESSAGE),
        _opt("summary", "object", "null"),
        _opt("peer_representation", "string", "null"),
        _opt("peer_card", "array", "null"),
    ),
)
SUMMARIES = Model(
    "SessionSummariesResponse",
    (
        Key("id", ("string",)),
        _opt("short_summary", "object", "null"),
        _opt("long_summary", "object", "null"),
    ),
)
QUEUE_STATUS = Model(
    "QueueStatusResponse",
    (
        Key("total_work_units", ("integer",)),
        Key("completed_work_units", ("integer",)),
        Key("in_progress_work_units", ("integer",)),
        Key("pending_work_units", ("integer",)),
        _opt("sessions", "object", "null"),
    ),
)


def page_of(item: Model) -> Model:
    """The SDK's ``PageResponse`` around ``item``."""
    return Model(
        f"PageResponse[{item.name}]",
        (
            Key("items", ("array",), inner=item),
            Key("page", ("integer",)),
            Key("size", ("integer",)),
            Key("total", ("integer",)),
            Key("pages", ("integer",)),
        ),
    )


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One endpoint the probe calls: its route, the model its answer holds, and how."""

    name: str  # "POST …/conclusions", as the table shows it
    model: Model
    holds: str = "one"  # "one" object, or "list": a bare array of them
    source: str = SDK  # where the route itself is from


def _route(method: str, path: str) -> str:
    return f"{method} …/{path}" if path else f"{method} /v3/workspaces/{{w}}"


NOTE_1069 = "3.1.0 release notes (workspace chat, PR 1069)"
ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint(_route("PUT", ""), WORKSPACE),
    Endpoint(_route("POST", "peers"), PEER),
    Endpoint(_route("POST", "peers/list"), page_of(PEER)),
    Endpoint(_route("POST", "sessions"), SESSION),
    Endpoint(_route("POST", "sessions/list"), page_of(SESSION)),
    Endpoint(_route("POST", "sessions/{s}/messages"), MESSAGE, "list"),
    Endpoint(_route("POST", "sessions/{s}/messages/list"), page_of(MESSAGE)),
    Endpoint(_route("GET", "sessions/{s}/messages/{id}"), MESSAGE),
    Endpoint(_route("GET", "sessions/{s}/context"), SESSION_CONTEXT),
    Endpoint(_route("GET", "sessions/{s}/summaries"), SUMMARIES),
    Endpoint(_route("POST", "conclusions"), CONCLUSION, "list"),
    Endpoint(_route("POST", "conclusions/list"), page_of(CONCLUSION)),
    Endpoint(_route("POST", "conclusions/query"), CONCLUSION, "list"),
    Endpoint(_route("GET", "conclusions/{id}"), CONCLUSION, source=f"{NOTE_952}; {SDK}"),
    Endpoint(_route("GET", "peers/{p}/card"), PEER_CARD),
    Endpoint(_route("GET", "peers/{p}/context"), PEER_CONTEXT),
    Endpoint(_route("POST", "peers/{p}/representation"), REPRESENTATION),
    Endpoint(
        _route("POST", "peers/{p}/chat") + " include_evidence",
        DIALECTIC_EVIDENCE,
        source=f"{NOTE_1188}; {SDK}",
    ),
    Endpoint(_route("POST", "chat"), DIALECTIC, source=f"{NOTE_1069}; {SDK}"),
    Endpoint(_route("POST", "search"), MESSAGE, "list"),
    Endpoint(_route("GET", "queue/status"), QUEUE_STATUS),
)
# Items held of each array: the first few show its shape; this is not a census.
SAMPLE = 3


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def _fits(value: Any, kinds: tuple[str, ...]) -> bool:
    kind = _json_kind(value)
    if kind in kinds:
        return True
    if kind == "string" and "datetime" in kinds:
        try:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return False
        return True
    return False


def check_model(model: Model, data: Any, where: str = "") -> list[str]:
    """Each way ``data`` is not the shape ``model`` says, with the source of what it misses."""
    return _held(model, data, where, [0])


def _held(model: Model, data: Any, where: str, count: list[int]) -> list[str]:
    at = f"{where}." if where else ""
    if not isinstance(data, Mapping):
        kind = _json_kind(data)
        return [f"{where or 'body'} is {kind}, not an object [{model.source} {model.name}]"]
    count[0] += 1
    found: list[str] = []
    declared = {key.name for key in model.keys}
    for key in model.keys:
        source = key.source or f"{model.source} {model.name}"
        if key.name not in data:
            if key.required:
                found.append(f"`{at}{key.name}` absent [{source}]")
            continue
        value = data[key.name]
        if not _fits(value, key.kinds):
            kinds = " or ".join(key.kinds)
            found.append(f"`{at}{key.name}` is {_json_kind(value)}, not {kinds} [{source}]")
        elif key.inner is not None and isinstance(value, list):
            for index, item in enumerate(value[:SAMPLE]):
                found += _held(key.inner, item, f"{at}{key.name}[{index}]", count)
        elif key.inner is not None and isinstance(value, dict):
            found += _held(key.inner, value, f"{at}{key.name}", count)
    extra = sorted(set(data) - declared)
    if extra:
        names = ", ".join(f"`{at}{name}`" for name in extra)
        found.append(f"{names} not declared [{model.source} {model.name}]")
    return found


def check(endpoint: Endpoint, status: int | None, data: Any) -> tuple[list[str], int]:
    """Each way one answer differs from what upstream 3.2 is known to send at ``endpoint``,
    and how many objects were held (an empty array holds none: nothing shown of its items)."""
    count = [0]
    if status is None:
        return [f"no answer (expected 2xx) [{endpoint.source}]"], 0
    if not 200 <= status < 300:
        return [f"status {status} (expected 2xx) [{endpoint.source}]"], 0
    if endpoint.holds == "one":
        return _held(endpoint.model, data, "", count), count[0]
    if not isinstance(data, list):
        return [f"body is {_json_kind(data)}, not an array [{SDK} {endpoint.model.name}]"], 0
    found: list[str] = []
    for index, item in enumerate(data[:SAMPLE]):
        found += _held(endpoint.model, item, f"[{index}]", count)
    return found, count[0]


def applies(version: str | None) -> bool:
    """Whether the part answers for a server reporting ``version``: upstream 3.2 is 3.2.x."""
    return bool(version) and str(version).startswith("3.2.")


NOTE_321 = "3.2.1's release notes, reference honcho-v3.md section 8"


def which_release(conclusion: Any, evidence: Any) -> list[str]:
    """Where 3.2.0 and 3.2.1 are known to differ, which one this server's answers match:
    an explicit conclusion's ``source_ids`` (null in 3.2.0, [] in 3.2.1) and an evidence
    conclusion's observer/observed ids (3.2.1 adds them). Only what the answers showed."""
    said = []
    if isinstance(conclusion, Mapping) and "source_ids" in conclusion:
        ids = conclusion["source_ids"]
        match = "3.2.0" if ids is None else "3.2.1" if ids == [] else "neither"
        said.append(f"an explicit conclusion's source_ids {json.dumps(ids)}, as {match}")
    found = evidence.get("conclusions") if isinstance(evidence, Mapping) else None
    if isinstance(found, list) and found and isinstance(found[0], Mapping):
        ids_in = found[0].get("observer_id") is not None and found[0].get("observed_id") is not None
        said.append(
            "evidence conclusions with observer/observed ids, as 3.2.1"
            if ids_in
            else "evidence conclusions without observer/observed ids, as 3.2.0"
        )
    return said


REACH = (
    "a shape check (status 2xx, each key the SDK's model requires or the release notes "
    "add, its JSON type, no undeclared key), not behaviour"
)
