"""How a real Honcho fails, by name: what `FaultRule(failure=...)` makes the emulator do.

Each entry says what the server sends or does, where, since which release, and how that is
known. Three kinds:

- `answer`: a status and `{"detail": ...}` (`Content-Type: application/json`, no
  `Retry-After`: Honcho's exception handlers set no header) on the entry's routes, unless the
  rule names its own; a streamed chat fails as `stream` says when the entry has one;
- `background`: not an answer but the deriver or the webhook deliveries, while the rule is
  in place (`deriver_stopped`), or on each event the rule fires on (`deriver_fails`,
  `webhook_lost`: `nth`, `times` and `probability` count those events).

docs/emulator.md ("Failures of the real server") shows the same table to users.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FailureKind = Literal["answer", "background"]

# Honcho's LLM-backed routes: peer chat and workspace chat (3.1.0 and later).
CHAT_ROUTES = (
    ("POST", "/v3/workspaces/{w}/peers/{p}/chat"),
    ("POST", "/v3/workspaces/{w}/chat"),
)


@dataclass(frozen=True, slots=True)
class ServerFailure:
    """One way the real server fails, as a client meets it."""

    name: str
    kind: FailureKind
    since: str
    sends: str
    source: str
    routes: tuple[tuple[str, str], ...] = ()
    status: int | None = None
    detail: str | None = None
    # How a streamed answer fails ("abort": the connection closes after `stream_after`
    # events, without the final event or the chunked body's end), None: like the others.
    stream: Literal["abort"] | None = None
    stream_after: int = 0
    # False: the rule acts for as long as it is in place (nth, times, probability refused).
    per_event: bool = True


FAILURES: dict[str, ServerFailure] = {
    failure.name: failure
    for failure in (
        ServerFailure(
            name="llm_unavailable",
            kind="answer",
            since="3.2.0",
            sends='503 {"detail": "LLM provider unavailable"} on peer and workspace chat',
            source="3.2.0's release notes (PR 1188), as in honcho-v3.md section 8; the "
            "{detail} body follows the exception handler of src/main.py (3.0.12). Not seen on "
            "a server here, nor how a streamed chat fails: the emulator answers it the same 503",
            routes=CHAT_ROUTES,
            status=503,
            detail="LLM provider unavailable",
        ),
        ServerFailure(
            name="llm_error",
            kind="answer",
            since="3.0.12",
            sends='500 {"detail": "An unexpected error occurred"} on peer and workspace chat; '
            "a streamed chat: 200 text/event-stream, then the connection closes before any "
            "event and without the chunked body's end",
            source="3.0.12 src/exceptions.py: LLMError is not a HonchoException, so the catch-"
            "all handler of src/main.py answers it; src/routers/peers.py format_sse_stream has "
            "no except, and uvicorn closes a response that fails after it started",
            routes=CHAT_ROUTES,
            status=500,
            detail="An unexpected error occurred",
            stream="abort",
        ),
        ServerFailure(
            name="deriver_stopped",
            kind="background",
            since="3.0.12",
            sends="every route answers as usual, but queue items stay pending, no conclusion "
            "or summary is made, no webhook is delivered and deleted sessions and workspaces "
            "are not purged, until the rule is removed; then all of it catches up",
            source="3.0.12 runs the deriver as a process of its own (src/deriver/__main__.py); "
            "the API only enqueues (src/deriver/enqueue.py), the purge is a deriver task "
            "(honcho-v3.md section 4.1) and so is a webhook delivery (src/webhooks/events.py)",
            per_event=False,
        ),
        ServerFailure(
            name="deriver_fails",
            kind="background",
            since="3.0.12",
            sends="each queue item the rule fires on is marked done with an error: queue "
            "status counts it completed, yet it writes no conclusion and no summary, and a work "
            "unit none of whose items succeeded sends no queue.empty",
            source="3.0.12 src/deriver/queue_manager.py: _handle_processing_error and "
            "mark_queue_item_as_errored (processed=True), the queue.empty webhook only when "
            "queue_item_count > 0; src/crud/deriver.py counts processed items as completed",
        ),
        ServerFailure(
            name="webhook_lost",
            kind="background",
            since="3.0.12",
            sends="each webhook delivery the rule fires on is never received, and never sent "
            "again (journalled as not sent)",
            source="3.0.12 src/webhooks/webhook_delivery.py: one POST per endpoint (30 s "
            "timeout); a failure is logged, never retried, and the queue item is processed",
        ),
    )
}
