"""The differential's scripted calls, their runner and the comparison (shapes and values).

One script of raw HTTP calls (http.client, one connection per call, every wait bounded) runs
against a server and yields an `Outcome` per step: status, content type, the *shape* of the
body (keys and JSON types) and its *value* with what differs from run to run masked, as
localstack-snapshot's transformers do: the run's own names (`{W}`, saved ids), server-made ids
(`{id}`), timestamps (`{ts}`) and keys (`{jwt}`). Running it against FakeHoncho and against
a real server and comparing outcome by outcome shows every difference of the wire contract;
string error details are compared word for word as well, since tests and clients match on
them. Steps
whose values no emulator can know (an LLM's text, the embeddings' order) keep `values=False`
and are compared by shape; token counts compare within TOKEN_TOLERANCE (the emulator
estimates the tokenizer).

Steps refer to values of earlier answers (ids) through `{name}` placeholders filled from
`Run.vars`; `{W}` is the run's own throwaway workspace.
"""

from __future__ import annotations

import http.client
import json
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from deriver_told import Watch

# Every socket wait of a step; the real server's chat with the stub LLM answers within seconds.
SOCKET_TIMEOUT = 60.0
# Longest wait for the deriver to drain its queue (real server: flush on, ~2 s per batch). The
# deriver serves every workspace in turn: on a shared server (CI runs this after stages whose
# deletions it still works off) our turn can take minutes.
DERIVER_WAIT = 180.0
BOUNDARY = "roncho-differential-boundary"
# A server-made id (21-character nanoid) and a timestamp, anywhere in a text.
NANOID = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{21}(?![A-Za-z0-9_-])")
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?")
# A key (JWT): signed with each server's own secret.
JWT = re.compile(r"eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
TOKEN_TOLERANCE = 0.1
TOKEN_KEYS = frozenset({"token_count"})


def mask(value: Any, variables: dict[str, str]) -> Any:
    """`value` with run-specific parts replaced by placeholders (keys too: maps keyed by ids)."""
    if isinstance(value, str):
        text = JWT.sub("{jwt}", _unfill(value, variables))
        return NANOID.sub("{id}", TIMESTAMP.sub("{ts}", text))
    if isinstance(value, list):
        return [mask(item, variables) for item in value]
    if isinstance(value, dict):
        return {mask(key, variables): mask(item, variables) for key, item in value.items()}
    return value


def value_differences(want: Any, have: Any, path: str = "") -> list[str]:
    """Where two masked values differ (token counts within TOKEN_TOLERANCE are equal)."""
    if isinstance(want, dict) and isinstance(have, dict):
        found = []
        for key in sorted(set(want) | set(have)):
            if key not in want or key not in have:
                found.append(f"{path}.{key}: only on one side")
                continue
            a, b = want[key], have[key]
            if key in TOKEN_KEYS and isinstance(a, int) and isinstance(b, int):
                if abs(a - b) > max(1, TOKEN_TOLERANCE * a):
                    found.append(f"{path}.{key}: {a} != {b}")
                continue
            found += value_differences(a, b, f"{path}.{key}")
        return found
    if isinstance(want, list) and isinstance(have, list):
        if len(want) != len(have):
            return [f"{path}: {len(want)} != {len(have)} items"]
        found = []
        for index, (a, b) in enumerate(zip(want, have, strict=True)):
            found += value_differences(a, b, f"{path}[{index}]")
        return found
    if want != have:
        return [f"{path or '.'}: {json.dumps(want)[:160]} != {json.dumps(have)[:160]}"]
    return []


def shape(value: Any) -> Any:
    """The JSON type skeleton of `value`: objects keep their keys, arrays the sorted set of
    their items' shapes (so lengths and order do not count), scalars become type names."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in sorted(value.items())}
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


def sse_events(body: bytes) -> list[Any]:
    """The `data:` payloads of an event stream, parsed."""
    events = []
    for block in body.decode("utf-8", errors="replace").split("\n\n"):
        for line in block.splitlines():
            if line.startswith("data:"):
                events.append(json.loads(line[5:].strip()))
    return events


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a step got back, reduced to what the differential compares."""

    step: str
    status: int
    content_type: str | None
    shape: Any
    detail: str | None = None  # a string `detail` of an error, compared as text
    value: Any = None  # the masked body, for steps that compare values (else None)

    def differences(self, other: Outcome) -> list[str]:
        """How `other` differs from this outcome (empty when it does not)."""
        found = []
        if self.status != other.status:
            found.append(f"status {self.status} != {other.status}")
        if self.content_type != other.content_type:
            found.append(f"content type {self.content_type!r} != {other.content_type!r}")
        if self.shape != other.shape:
            found.append(f"shape {json.dumps(self.shape)} != {json.dumps(other.shape)}")
        if self.detail != other.detail:
            found.append(f"detail {self.detail!r} != {other.detail!r}")
        if self.value is not None and not found:
            found += [f"value {line}" for line in value_differences(self.value, other.value)]
        return found

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "status": self.status,
            "content_type": self.content_type,
            "shape": self.shape,
            "detail": self.detail,
            "value": self.value,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Outcome:
        return Outcome(
            data["step"],
            data["status"],
            data["content_type"],
            data["shape"],
            data["detail"],
            data.get("value"),
        )


@dataclass
class Run:
    """One run of the script against one server: where, with which key, its variables."""

    base_url: str
    key: str | None = None
    vars: dict[str, str] = field(default_factory=dict)
    # The server's deriver look (deriver_told.Watch): 0 for a flushing server.
    look: float = 0.0

    def __post_init__(self) -> None:
        self.vars.setdefault("W", f"roncho-diff-{uuid.uuid4().hex[:12]}")
        self.vars.setdefault("S1", f"s1-{uuid.uuid4().hex[:8]}")

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
        key: str | None = None,
    ) -> tuple[int, str | None, bytes]:
        """One call. `key` names the run variable whose value is sent as the bearer key instead
        of the run's own (`NO_KEY`: none at all; an unset variable: its `{name}` text)."""
        split = urlsplit(self.base_url)
        host = split.hostname or "127.0.0.1"
        sent = {"Accept": "application/json"}
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        bearer = self.key if key is None else fill_text("{" + key + "}", self.vars)
        if key != NO_KEY and bearer is not None:
            sent["Authorization"] = f"Bearer {bearer}"
        sent.update(headers or {})
        conn = http.client.HTTPConnection(host, split.port or 80, timeout=SOCKET_TIMEOUT)
        try:
            conn.request(method, fill_text(path, self.vars), body=data, headers=sent)
            reply = conn.getresponse()
            payload = reply.read()
            return reply.status, reply.getheader("Content-Type"), payload
        finally:
            conn.close()


View = Callable[[Any], Any]
Masker = Callable[[Any, dict[str, str]], Any]
# A step's `key` that sends no Authorization header at all.
NO_KEY = "-"


@dataclass(frozen=True, slots=True)
class Step:
    """One scripted call. `view` narrows the parsed body before its shape is taken (for maps
    keyed by server-made ids, or bodies only partly ours); `save` stores values for later
    steps; `sse` parses an event stream instead of JSON."""

    name: str
    method: str
    path: str
    body: Any = None
    raw: bytes | None = None
    headers: dict[str, str] | None = None
    view: View | None = None
    save: Callable[[Any, dict[str, str]], None] | None = None
    sse: bool = False
    values: bool = True
    # The run variable holding the key this step sends (None: the run's own; NO_KEY: none).
    key: str | None = None
    # How the value is normalised (default: `mask`, every id and timestamp anywhere).
    masker: Masker | None = None

    def run(self, run: Run) -> Outcome:
        body = _fill(self.body, run.vars)
        status, content_type, payload = run.request(
            self.method, self.path, body, raw=self.raw, headers=self.headers, key=self.key
        )
        parsed: Any
        if self.sse:
            parsed = sse_events(payload)
        elif payload:
            try:
                parsed = json.loads(payload)
            except ValueError:
                parsed = payload.decode("utf-8", errors="replace")
        else:
            parsed = None
        if self.save is not None and status < 300:
            self.save(parsed, run.vars)
        detail = None
        if status >= 400 and isinstance(parsed, dict) and isinstance(parsed.get("detail"), str):
            detail = _unfill(parsed["detail"], run.vars)
        viewed = self.view(parsed) if self.view is not None and status < 300 else parsed
        masker = self.masker or mask
        value = masker(viewed, run.vars) if self.values and viewed is not None else None
        return Outcome(self.name, status, content_type, shape(viewed), detail, value)


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill_text(text: str, variables: dict[str, str]) -> str:
    """`{name}` replaced by the run's variable; other braces (JSON in a form field) stay."""
    return _PLACEHOLDER.sub(lambda m: variables.get(m.group(1), m.group(0)), text)


def _fill(value: Any, variables: dict[str, str]) -> Any:
    if isinstance(value, str):
        return fill_text(value, variables)
    if isinstance(value, list):
        return [_fill(item, variables) for item in value]
    if isinstance(value, dict):
        return {key: _fill(item, variables) for key, item in value.items()}
    return value


def _unfill(text: str, variables: dict[str, str]) -> str:
    """Put placeholders back for run-specific values so two runs' texts compare."""
    for name, value in sorted(variables.items(), key=lambda kv: -len(kv[1])):
        if len(value) >= 8:
            text = text.replace(value, "{" + name + "}")
    return text


@dataclass(frozen=True, slots=True)
class Wait:
    """Wait (bounded) until the deriver has finished every queued item of the workspace, or,
    on a server that batches, until what is left is held in a batch (deriver_told.Watch)."""

    name: str = "wait for the deriver"

    def run(self, run: Run) -> Outcome:
        deadline = time.monotonic() + DERIVER_WAIT
        watch = Watch(run.look)
        while True:
            status, content_type, payload = run.request("GET", "/v3/workspaces/{W}/queue/status")
            data = json.loads(payload) if status == 200 else {}
            ended = watch.see(
                data.get("total_work_units", 0),
                data.get("pending_work_units", 0),
                data.get("in_progress_work_units", 0),
                time.monotonic(),
            )
            if ended or time.monotonic() > deadline:
                return Outcome(self.name, status, content_type, ended or "timeout")
            time.sleep(0.2)


def multipart(fields: dict[str, str], filename: str, kind: str, data: bytes) -> bytes:
    """A multipart/form-data body with text fields and one file part named `file`."""
    parts = [
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
        for k, v in fields.items()
    ]
    parts.append(
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"'
        f"\r\nContent-Type: {kind}\r\n\r\n".encode()
        + data
        + b"\r\n"
    )
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


def cleanup(run: Run) -> None:
    """Delete every session of the run's workspace, then the workspace (real server hygiene).

    Best effort and bounded: a failure here must not hide the test's own result.
    """
    try:
        for _ in range(3):
            status, _, payload = run.request(
                "POST", "/v3/workspaces/{W}/sessions/list?size=100", {}
            )
            items = json.loads(payload).get("items", []) if status == 200 else []
            for item in items:
                run.request("DELETE", "/v3/workspaces/{W}/sessions/" + item["id"])
            status, _, _ = run.request("DELETE", "/v3/workspaces/{W}")
            if status in (202, 404):
                return
            time.sleep(0.5)
    except OSError:
        return
