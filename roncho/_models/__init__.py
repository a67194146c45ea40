"""Frozen records for what Honcho answers, and for what roncho sends.

Every model is a plain class on ``_record.Record`` (frozen, compared, hashed, copied and
pickled by its fields, the ``__slots__``). A model is declared by its fields, each an
annotation (its default in a comment after it), and its ``from_json``; its ``__slots__``
and ``__init__`` are written out from the fields by scripts/render_records.py. Each answer
model has one decoder, its ``from_json``, written out: it reads the keys memoryd relies on
(through ``_decode.Fields``), raises DecodeError naming the operation and the field when
one is missing or mistyped, and ignores every key the server adds. Timestamps stay RFC 3339
strings (``parse_timestamp`` turns one into a datetime); ids stay strings.

The records are written one module per group of resources: ``entities`` (workspaces,
peers, sessions, webhook endpoints, Page, Health, DeleteAccepted), ``messages`` (messages,
conclusions, evidence, and the inputs), ``dialectic`` (chat answers, queue status) and
``context`` (summaries, session and peer context, scopes). This package only re-exports
them, so each is imported from here (``from ._models import Message``), and the imports
below say which module holds which.
"""

from .context import (
    PeerContext,
    Scope,
    ScopeBackfill,
    ScopeStatus,
    SessionContext,
    Summaries,
    Summary,
)
from .dialectic import ChatAnswer, ChatChunk, QueueStatus, SessionQueueStatus
from .entities import (
    DeleteAccepted,
    Health,
    Page,
    Peer,
    Session,
    SessionPeerConfig,
    WebhookEndpoint,
    Workspace,
)
from .messages import (
    Conclusion,
    ConclusionCreate,
    Evidence,
    EvidenceConclusion,
    EvidenceMessage,
    Message,
    MessageCreate,
    render_batch,
)

# In the order docs/api.md shows them (scripts/render_api.py): the resources, the inputs,
# then what the server has made of the messages, and scopes.
__all__ = [
    "Workspace",
    "Peer",
    "Session",
    "WebhookEndpoint",
    "SessionPeerConfig",
    "Message",
    "Conclusion",
    "Page",
    "EvidenceConclusion",
    "EvidenceMessage",
    "Evidence",
    "ChatAnswer",
    "ChatChunk",
    "SessionQueueStatus",
    "QueueStatus",
    "Health",
    "DeleteAccepted",
    "MessageCreate",
    "ConclusionCreate",
    "render_batch",
    "Summary",
    "Summaries",
    "SessionContext",
    "PeerContext",
    "Scope",
    "ScopeBackfill",
    "ScopeStatus",
]
