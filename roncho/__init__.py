"""roncho: a small blocking client for the Honcho memory server (v3 API).

Standard library only. Importing it starts no thread, reads no environment variable,
touches no file and imports neither asyncio nor ssl (ssl loads only for an https URL).
Its asyncio sibling, ``roncho.aio.AsyncClient``, is imported only from ``roncho.aio``.
"""

from __future__ import annotations

from types import FunctionType as _FunctionType

from ._checks import parse_timestamp
from ._client import Client
from ._errors import (
    ConfigError,
    ConnectError,
    ConnectTimeout,
    DeadlineExceeded,
    DecodeError,
    ProtocolError,
    ReadOnlyError,
    ReadTimeout,
    RedirectError,
    ResponseTooLargeError,
    RonchoError,
    StatusError,
    Timeout,
    UnauthorizedError,
    WebhookLimitError,
    WorkspaceBusyError,
)

# BEGIN GENERATED models (scripts/render_clients.py)
from ._models import (
    ChatAnswer,
    ChatChunk,
    Conclusion,
    ConclusionCreate,
    DeleteAccepted,
    Evidence,
    EvidenceMessage,
    Health,
    Message,
    MessageCreate,
    Page,
    Peer,
    PeerContext,
    QueueStatus,
    Scope,
    ScopeBackfill,
    ScopeStatus,
    Session,
    SessionContext,
    SessionPeerConfig,
    SessionQueueStatus,
    Summaries,
    Summary,
    WebhookEndpoint,
    Workspace,
)

# END GENERATED models
from ._scratch import ScratchCleanupError, scratch_workspace
from ._stream import ChatStream
from ._version import __version__

# BEGIN GENERATED __all__ (scripts/render_clients.py)
__all__ = [
    "ChatAnswer",
    "ChatChunk",
    "ChatStream",
    "Client",
    "Conclusion",
    "ConclusionCreate",
    "ConfigError",
    "ConnectError",
    "ConnectTimeout",
    "DeadlineExceeded",
    "DecodeError",
    "DeleteAccepted",
    "Evidence",
    "EvidenceMessage",
    "Health",
    "Message",
    "MessageCreate",
    "Page",
    "Peer",
    "PeerContext",
    "ProtocolError",
    "QueueStatus",
    "ReadOnlyError",
    "ReadTimeout",
    "RedirectError",
    "ResponseTooLargeError",
    "RonchoError",
    "Scope",
    "ScopeBackfill",
    "ScopeStatus",
    "ScratchCleanupError",
    "Session",
    "SessionContext",
    "SessionPeerConfig",
    "SessionQueueStatus",
    "StatusError",
    "Summaries",
    "Summary",
    "Timeout",
    "UnauthorizedError",
    "WebhookEndpoint",
    "WebhookLimitError",
    "Workspace",
    "WorkspaceBusyError",
    "__version__",
    "parse_timestamp",
    "scratch_workspace",
]
# END GENERATED __all__

# Tracebacks and reprs say roncho.ConfigError, not roncho._errors.ConfigError, a private
# path. Pickle finds a class by the same two attributes, and this module exports each one.
for _name in __all__:
    if isinstance(globals()[_name], (type, _FunctionType)):
        globals()[_name].__module__ = __name__
del _name, _FunctionType
