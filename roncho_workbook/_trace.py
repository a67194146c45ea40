"""Evidence: every call a probe makes, with the status and the body that support an answer.

A `Trace` wraps two kinds of call. `raw()` sends through `RawClient` and keeps the exact
status and body. `call()` runs a roncho.Client method and keeps what the client tells: the
result (201/200 from a get-or-create's ``created``), or the error's status and detail,
beside the request line the method sends (`request_line`). Nothing here holds a key:
bodies are the server's answers and steps are the probe's words.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from types import MethodType
from typing import Any, Final, TypeVar

from roncho import Client, RonchoError, StatusError

from ._raw import RawClient, RawReply

T = TypeVar("T")

# Evidence tables keep this much of each body.
EXCERPT_CHARS = 240

# The request line each roncho.Client method the probes trace sends, as roncho's catalogue
# builds it: ``{workspace}`` is the client's, every other field the method's argument of
# that name. roncho has no public way to ask a method for its request line, so the workbook
# keeps this one table (not a path typed at each call); tests/notebooks/test_trace.py
# holds every entry against the request the emulator receives.
REQUEST_LINES: Final[Mapping[str, tuple[str, str]]] = {
    "probe": ("GET", "/health"),
    "server_version": ("GET", "/openapi.json"),
    "get_or_create_peer": ("POST", "/v3/workspaces/{workspace}/peers"),
    "get_peer_card": ("GET", "/v3/workspaces/{workspace}/peers/{peer_id}/card"),
    "set_peer_card": ("PUT", "/v3/workspaces/{workspace}/peers/{peer_id}/card"),
    "get_peer_representation": (
        "POST",
        "/v3/workspaces/{workspace}/peers/{peer_id}/representation",
    ),
    "get_or_create_session": ("POST", "/v3/workspaces/{workspace}/sessions"),
    "add_messages": ("POST", "/v3/workspaces/{workspace}/sessions/{session_id}/messages"),
    "update_message_metadata": (
        "PUT",
        "/v3/workspaces/{workspace}/sessions/{session_id}/messages/{message_id}",
    ),
    "get_session_summaries": (
        "GET",
        "/v3/workspaces/{workspace}/sessions/{session_id}/summaries",
    ),
    "get_session_context": ("GET", "/v3/workspaces/{workspace}/sessions/{session_id}/context"),
    "schedule_dream": ("POST", "/v3/workspaces/{workspace}/schedule_dream"),
}


def request_line(method: Callable[..., object], /, *args: Any, **kwargs: Any) -> tuple[str, str]:
    """The HTTP method and path (no query) a roncho.Client ``method`` sends for ``args``.

    Raises:
        TypeError: ``method`` is not a bound roncho.Client method, or the arguments do not
            fit its signature.
        KeyError: a method REQUEST_LINES does not have yet (add its line there).
    """
    if not isinstance(method, MethodType) or not isinstance(method.__self__, Client):
        raise TypeError(f"not a method of a roncho.Client: {method!r}")
    verb, template = REQUEST_LINES[method.__name__]
    bound = inspect.signature(method).bind(*args, **kwargs)
    bound.apply_defaults()
    return verb, template.format(workspace=method.__self__.workspace, **bound.arguments)


@dataclass(frozen=True, slots=True, kw_only=True)
class Call:
    """One step of a probe: what was asked, how, and what came back."""

    step: str
    method: str
    path: str
    status: int | None
    outcome: str
    body: str
    seconds: float

    def row(self) -> dict[str, Any]:
        return asdict(self)


class Trace:
    """The ordered list of calls one probe made."""

    def __init__(self) -> None:
        self.calls: list[Call] = []

    def rows(self) -> list[dict[str, Any]]:
        return [c.row() for c in self.calls]

    def raw(
        self,
        step: str,
        raw: RawClient,
        method: str,
        path: str,
        body: object = None,
        **options: Any,
    ) -> RawReply | None:
        """Send a raw request and record it; a connection failure is recorded, not raised."""
        started = time.monotonic()
        try:
            reply = raw.request(method, path, body, **options)
        except OSError as exc:
            self._add(step, method, path, None, type(exc).__name__, str(exc), started)
            return None
        outcome = "ok" if 200 <= reply.status < 300 else "refused"
        self._add(step, method, path, reply.status, outcome, _evidence_body(reply), started)
        return reply

    def call(
        self,
        step: str,
        client_method: Callable[..., T],
        /,
        *args: Any,
        describe: Callable[[T], str] | None = None,
        status: Callable[[T], int | None] | None = None,
        **kwargs: Any,
    ) -> T | RonchoError:
        """Run ``client_method(*args, **kwargs)``, a roncho.Client method; return its result
        or the RonchoError it raised, recorded with the request line it sends.

        ``describe`` (the result as evidence) and ``status`` (the status a result stands
        for) are the trace's own keywords, never passed on: no traced method has a
        parameter of either name.
        """
        method, path = request_line(client_method, *args, **kwargs)
        started = time.monotonic()
        try:
            result = client_method(*args, **kwargs)
        except StatusError as exc:
            body = exc.body.decode("utf-8", "replace")
            self._add(step, method, path, exc.status, type(exc).__name__, body, started)
            return exc
        except RonchoError as exc:
            self._add(step, method, path, None, type(exc).__name__, str(exc), started)
            return exc
        code = status(result) if status is not None else created_status(result)
        shown = plain(result) if describe is None else describe(result)
        self._add(step, method, path, code, "ok", shown, started)
        return result

    def _add(
        self,
        step: str,
        method: str,
        path: str,
        status: int | None,
        outcome: str,
        body: str,
        started: float,
    ) -> None:
        if len(body) > EXCERPT_CHARS:
            body = body[: EXCERPT_CHARS - 1] + "…"
        self.calls.append(
            Call(
                step=step,
                method=method,
                path=path,
                status=status,
                outcome=outcome,
                body=body,
                seconds=round(time.monotonic() - started, 4),
            )
        )


def plain(value: object) -> str:
    """A client result as evidence: a model (or a list of them) as JSON, never a Python repr."""

    def data(item: object) -> object:
        fields: tuple[str, ...] = getattr(type(item), "__slots__", ())
        if fields and type(item).__module__ == "roncho":  # a roncho record
            return {name: data(getattr(item, name)) for name in fields}
        if dataclasses.is_dataclass(item) and not isinstance(item, type):
            return dataclasses.asdict(item)
        if isinstance(item, list | tuple):
            return [data(i) for i in item]
        if isinstance(item, dict):
            return {key: data(value) for key, value in item.items()}
        return item

    try:
        return json.dumps(data(value), default=str)
    except (TypeError, ValueError):
        return str(value)


def _evidence_body(reply: RawReply) -> str:
    """The body as evidence, with any minted key (``{"key": "<jwt>"}``) replaced.

    A key minted by ``POST /v3/keys`` is a live credential: it must never reach a table.
    """
    data = reply.json
    if isinstance(data, dict) and "key" in data:
        shown = {k: ("(a key, not shown)" if k == "key" else v) for k, v in data.items()}
        return json.dumps(shown)
    return reply.text(EXCERPT_CHARS)


def created_status(result: object) -> int | None:
    """201 or 200 for a get-or-create result (its ``created`` flag); None when unknown."""
    created = getattr(result, "created", None)
    if created is True:
        return 201
    if created is False:
        return 200
    return None


def status_of(result: object) -> int | None:
    """The HTTP status a recorded outcome carries: a StatusError's, or a raw reply's."""
    if isinstance(result, StatusError):
        return result.status
    if isinstance(result, RawReply):
        return result.status
    return None
