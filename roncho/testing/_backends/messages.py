"""Messages: a batch written in one transaction (one timestamp, members joined, deriver
queue fed), file uploads split as the server splits them, lookups and metadata updates."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from .._common import ApiError, JsonDict, nanoid, utcnow
from .._deriver import Deriver
from .._state import Message, Store, Workspace
from . import peers, scopes, sessions

# 3.0.12 `src/utils/files.py:179` splits an upload at `settings.MAX_MESSAGE_SIZE`
# (`src/config.py:1498`), not at `split_text_into_chunks`' own default of 49,500.
MAX_UPLOAD_CHUNK = 25_000
# 3.0.12 `settings.MAX_FILE_SIZE` (`src/config.py:1493`): a larger upload is refused, 413.
MAX_FILE_SIZE = 5_242_880


@dataclass(frozen=True, slots=True)
class NewMessage:
    """One checked message of a create body."""

    content: str
    peer_id: str
    metadata: JsonDict | None
    configuration: JsonDict
    created_at: datetime | None


def create(
    store: Store, deriver: Deriver, ws: Workspace, session_name: str, batch: list[NewMessage]
) -> list[Message]:
    """Write a batch: senders made peers and active members, then the messages, enqueued
    (a scope peer authors none: 422)."""
    scopes.refuse(ws, [item.peer_id for item in batch], scopes.AUTHOR)
    peers.check_names(item.peer_id for item in batch if item.peer_id not in ws.peers)
    session, _ = sessions.find_or_create(ws, session_name)
    for item in batch:
        peers.find_or_create(ws, item.peer_id)
    for item in batch:
        sessions.join(session, item.peer_id)
    now = utcnow()  # one transaction, one timestamp for the whole batch
    created = [
        Message(
            id=nanoid(),
            seq=store.next_seq(),
            content=item.content,
            peer_id=item.peer_id,
            session_id=session.id,
            workspace_id=ws.id,
            created_at=item.created_at or now,
            token_count=store.count_tokens(item.content),
            metadata=item.metadata or {},
            configuration=item.configuration,
        )
        for item in batch
    ]
    ws.messages.extend(created)
    deriver.enqueue(ws, session, created)
    return created


def upload(
    store: Store,
    deriver: Deriver,
    ws: Workspace,
    session_name: str,
    peer_id: str,
    text: str,
    metadata: JsonDict,
    created_at: datetime | None,
) -> list[Message]:
    """A file's text as messages of at most `MAX_UPLOAD_CHUNK` characters, enqueued (a
    scope peer authors none: 422)."""
    scopes.refuse(ws, [peer_id], scopes.AUTHOR)
    session, _ = sessions.find_or_create(ws, session_name)
    peers.find_or_create(ws, peer_id)
    sessions.join(session, peer_id)
    now = utcnow()
    created = [
        Message(
            id=nanoid(),
            seq=store.next_seq(),
            content=chunk,
            peer_id=peer_id,
            session_id=session.id,
            workspace_id=ws.id,
            created_at=created_at or now,
            token_count=store.count_tokens(chunk),
            metadata=metadata,
        )
        for chunk in split_chunks(text, MAX_UPLOAD_CHUNK)
    ]
    ws.messages.extend(created)
    deriver.enqueue(ws, session, created)
    return created


def file_text(content_type: str, data: bytes) -> str:
    """An uploaded file's text as 3.0.12's processors make it (`src/utils/files.py`): over
    `MAX_FILE_SIZE` refused first (413, `src/routers/messages.py:199-202`); text/* decoded
    as UTF-8, else UTF-16, else Latin-1 (`:44-55`, so always accepted); JSON parsed and
    written again with `json.dumps` (`:62-79`, invalid: 422). Anything else 415 (a PDF
    too: the emulator extracts no PDF text, a deliberate difference)."""
    if len(data) > MAX_FILE_SIZE:
        raise ApiError(
            413,
            f"File size ({len(data)} bytes) exceeds maximum allowed size ({MAX_FILE_SIZE} bytes)",
        )
    kind = content_type.split(";")[0].strip().lower()
    if kind.startswith("text/"):
        for encoding in ("utf-8", "utf-16"):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError:
                continue
        return data.decode("latin-1")
    if kind == "application/json":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(422, "JSON uploads must be UTF-8 encoded") from None
        if not text.strip():
            return ""
        try:
            parsed = json.loads(text)
        except ValueError:
            raise ApiError(422, "Uploaded JSON is invalid") from None
        return json.dumps(parsed, ensure_ascii=False)
    raise ApiError(
        415,
        f"Unsupported file type: {content_type}. Supported types: "
        "['PDFProcessor', 'TextProcessor', 'JSONProcessor']",
    )


def of_session(ws: Workspace | None, session_name: str) -> list[Message]:
    """Every message of the session (deleted sessions' too, until their purge)."""
    return [m for m in (ws.messages if ws else []) if m.session_id == session_name]


def get(ws: Workspace | None, session_name: str, message_id: str) -> Message:
    """The message, else 404 (`Message with ID <id> not found`)."""
    message = _find(ws, session_name, message_id)
    if message is None:
        raise ApiError(404, f"Message with ID {message_id} not found")
    return message


def update(
    ws: Workspace | None, session_name: str, message_id: str, metadata: JsonDict | None
) -> Message:
    """The message with its metadata replaced when given, else 404 (`Message not found`)."""
    message = _find(ws, session_name, message_id)
    if message is None:
        raise ApiError(404, "Message not found")
    if metadata is not None:
        message.metadata = metadata
    return message


def _find(ws: Workspace | None, session_name: str, message_id: str) -> Message | None:
    if ws is None:
        return None
    return next(
        (m for m in ws.messages if m.id == message_id and m.session_id == session_name), None
    )


def split_chunks(text: str, limit: int) -> list[str]:
    """The server's `split_text_into_chunks`: break at a paragraph, line, sentence or word."""
    if len(text) <= limit:
        return [text]
    chunks: list[str] = []
    pos = 0
    while pos < len(text):
        end = pos + limit
        if end >= len(text):
            chunks.append(text[pos:])
            break
        cut = end
        for delimiter in ("\n\n", "\n", ". ", " "):
            found = text.rfind(delimiter, pos, end)
            if found > pos:
                cut = found + len(delimiter)
                break
        chunks.append(text[pos:cut])
        pos = cut
    return chunks
