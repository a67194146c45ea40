"""Chat routes: a peer's chat and the workspace chat, answered whole or as an SSE stream."""

from __future__ import annotations

import json
import re
from typing import Any

from .._backends import chat, context, scopes
from .._common import ApiError, JsonDict
from .._options import Options
from .._routing import Route, Services
from .._validate import get_bool, get_dict, get_literal, get_str
from .._web import Ctx, P, Response, W, json_response

MAX_QUERY_CHARS = 10000
REASONING_LEVELS = ("minimal", "low", "medium", "high", "max")
# How many words each streamed chat piece carries.
WORDS_PER_PIECE = 4
SSE_CONTENT_TYPE = "text/event-stream; charset=utf-8"


def _chat_options(body: JsonDict) -> dict[str, Any]:
    query = get_str(body, "query", ["body"], required=True, min_len=1, max_len=MAX_QUERY_CHARS)
    get_literal(body, "reasoning_level", ["body"], REASONING_LEVELS, "low")
    response_format = get_dict(body, "response_format", ["body"])
    if response_format is not None and response_format.get("type", "object") != "object":
        raise ApiError(422, "Invalid response_format: root schema must have type 'object'")
    return {
        "query": query,
        "stream": get_bool(body, "stream", ["body"], False),
        "include_evidence": get_bool(body, "include_evidence", ["body"], False),
        "response_format": response_format,
    }


def peer_chat(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()
    options = _chat_options(body)
    target = get_str(body, "target", ["body"])
    session_id = get_str(body, "session_id", ["body"])
    scope = scopes.parse_read_option(body.get("scope"), ["body", "scope"])
    recall = context.Recall(session_id, body.get("filters"), scope)
    try:
        answer = chat.ask_peer(
            services.store,
            ctx.ws,
            ctx.w,
            ctx.claims,
            ctx.params["p"],
            target,
            options["query"],
            recall,
        )
    except chat.Unanswerable:
        if options["stream"]:
            # In stream mode the server runs these checks inside its generator,
            # after the 200 headers, so the stream just ends without its final event.
            return _ended_stream()
        raise
    return _chat_response(services, options, answer)


def workspace_chat(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()
    options = _chat_options(body)
    session_id = get_str(body, "session_id", ["body"])
    answer = chat.about_workspace(ctx.ws, ctx.w, options["query"], session_id)
    return _chat_response(services, options, answer)


def _chat_response(services: Services, options: dict[str, Any], answer: chat.Answer) -> Response:
    delay = services.options.chat_delay
    content = answer.text
    schema = options["response_format"]
    if schema is not None:
        content = json.dumps(chat.fill_schema(schema, content))
    wants_evidence = options["include_evidence"] and services.options.profile.chat_evidence
    evidence = answer.evidence() if wants_evidence else None
    if not options["stream"]:
        payload: JsonDict = {"content": content}
        if evidence is not None:
            payload["evidence"] = evidence
        answered = json_response(200, payload)
        answered.delay = delay
        return answered
    words = re.findall(r"\S+\s*", content) or [content]
    pieces = [
        "".join(words[i : i + WORDS_PER_PIECE]) for i in range(0, len(words), WORDS_PER_PIECE)
    ]
    events = [_sse({"delta": {"content": piece}, "done": False}) for piece in pieces]
    final: JsonDict = {"done": True}
    if evidence is not None:
        final["evidence"] = evidence
    events.append(_sse(final))
    return Response(
        200,
        content_type=SSE_CONTENT_TYPE,
        events=events,
        event_delay=services.options.stream_chunk_delay,
        delay=delay,
    )


def _ended_stream() -> Response:
    """A 200 event stream that ends at once, as an error inside the server's generator does."""
    return Response(200, content_type=SSE_CONTENT_TYPE, events=[])


def _sse(payload: JsonDict) -> bytes:
    # As the server writes them: `data: <json>\n\n`, json.dumps defaults, ASCII-escaped.
    return b"data: " + json.dumps(payload).encode("ascii") + b"\n\n"


def _serves_workspace_chat(options: Options) -> bool:
    return options.serves_workspace_chat


ROUTES = (
    Route("POST", P + "/chat", peer_chat, "peer"),
    Route("POST", W + "/chat", workspace_chat, "workspace", served=_serves_workspace_chat),
)
