"""Message routes: create a batch (201), upload a file, list, get and update one."""

from __future__ import annotations

import json

from .. import _filters, _tokens
from .._backends import messages
from .._backends.messages import NewMessage
from .._common import ApiError, JsonDict, error_item, parse_datetime, validation_error
from .._multipart import parse_form
from .._routing import Route, Services
from .._state import message_json, message_row
from .._validate import datetime_error, get_bool, get_dict, get_list, get_metadata, get_str
from .._web import Ctx, Response, S, filters_of, json_response, paged

# The server's batch limit and message size.
MAX_BATCH = 100
MAX_MESSAGE_CHARS = 25000


def _message_input(item: object, loc: list[str | int]) -> NewMessage:
    if not isinstance(item, dict):
        raise validation_error(
            "model_attributes_type",
            loc,
            "Input should be a valid dictionary or object to extract fields from",
            item,
        )
    content = get_str(item, "content", loc, required=True, max_len=MAX_MESSAGE_CHARS)
    peer_id = get_str(item, "peer_id", loc, required=True)
    metadata = get_metadata(item, loc)
    config = get_dict(item, "configuration", loc)
    reasoning = config.get("reasoning") if config else None
    configuration: JsonDict = {}
    if isinstance(reasoning, dict):
        get_bool(reasoning, "enabled", [*loc, "configuration", "reasoning"], None)
        configuration = {"reasoning": reasoning}
    created_at = None
    raw_created = item.get("created_at")
    if raw_created is not None:
        created_at = parse_datetime(raw_created) if isinstance(raw_created, str) else None
        if created_at is None:
            raise datetime_error([*loc, "created_at"], raw_created)
    refused = _tokens.special_token_refusal(str(content))  # the schema's model validator
    if refused is not None:
        raise validation_error("value_error", loc, f"Value error, {refused}", item, {"error": {}})
    return NewMessage(str(content), str(peer_id), metadata, configuration, created_at)


def create_messages(services: Services, ctx: Ctx) -> Response:
    body = ctx.body()
    raw = (
        get_list(body, "messages", ["body"], min_items=1, max_items=MAX_BATCH, required=True) or []
    )
    batch = [_message_input(item, ["body", "messages", i]) for i, item in enumerate(raw)]
    ws = ctx.made_ws(services.store)
    created = messages.create(services.store, services.deriver, ws, ctx.params["s"], batch)
    return json_response(201, [message_json(m) for m in created])


def list_messages(services: Services, ctx: Ctx) -> Response:
    match = _filters.compile_filter(filters_of(ctx.body(required=False)), _filters.MESSAGE)
    found = messages.of_session(ctx.ws, ctx.params["s"])
    items = [message_json(m) for m in found if match(message_row(m))]
    return paged(ctx, items)


def get_message(services: Services, ctx: Ctx) -> Response:
    message = messages.get(ctx.ws, ctx.params["s"], ctx.params["m"])
    return json_response(200, message_json(message))


def update_message(services: Services, ctx: Ctx) -> Response:
    metadata = get_metadata(ctx.body(), ["body"])
    message = messages.update(ctx.ws, ctx.params["s"], ctx.params["m"], metadata)
    return json_response(200, message_json(message))


def upload_messages(services: Services, ctx: Ctx) -> Response:
    """A file becomes messages (3.0.12 `messages.py` upload): text/* and JSON as text."""
    content_type = next(
        (v for k, v in ctx.request.headers.items() if k.lower() == "content-type"), ""
    )
    form = parse_form(content_type, ctx.request.body)
    fields = form.fields if form else {}
    files = form.files if form else {}
    missing = [
        error_item("missing", ["body", key], "Field required", None)
        for key, present in (("peer_id", "peer_id" in fields), ("file", "file" in files))
        if not present
    ]
    if missing:
        raise ApiError(422, missing)
    text = messages.file_text(files["file"].content_type, files["file"].data)
    metadata = _json_field(fields.get("metadata"))
    created_at = parse_datetime(fields["created_at"]) if fields.get("created_at") else None
    ws = ctx.made_ws(services.store)
    created = messages.upload(
        services.store,
        services.deriver,
        ws,
        ctx.params["s"],
        fields["peer_id"],
        text,
        metadata if isinstance(metadata, dict) else {},
        created_at,
    )
    return json_response(201, [message_json(m) for m in created])


def _json_field(raw: str | None) -> object:
    """A JSON-encoded form field; the server logs and drops one that does not parse."""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


ROUTES = (
    Route("POST", S + "/messages", create_messages, "workspace"),
    Route("POST", S + "/messages/", create_messages, "workspace"),
    Route("POST", S + "/messages/list", list_messages, "member_read"),
    Route("POST", S + "/messages/upload", upload_messages, "workspace"),
    Route("GET", S + "/messages/{m}", get_message, "member_read"),
    Route("PUT", S + "/messages/{m}", update_message, "workspace"),
)
