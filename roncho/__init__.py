"""roncho: a small blocking client for the Honcho memory server (v3 API).

Standard library only. Importing it starts no thread, reads no environment variable,
touches no file and imports neither asyncio nor ssl (ssl loads only for an https URL).
Its asyncio sibling, ``roncho.aio.AsyncClient``, is imported only from ``roncho.aio``;
the add-ons (``scratch_workspace``, the deriver wait's records, ``roncho.webhooks``, the
pytest plugin) load on first use.
"""

# No `from __future__ import annotations` here: it would bind `annotations`, a public name
# outside __all__ (tests/unit/test_exports.py holds dir(roncho) to __all__).
from types import FunctionType as _FunctionType
from typing import TYPE_CHECKING as _TYPE_CHECKING

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
    EvidenceConclusion,
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
from ._stream import ChatStream
from ._version import __version__

# BEGIN GENERATED __all__ (scripts/render_clients.py)
__all__ = [
    "CallReport",
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
    "DerivationOutcome",
    "DeriverGates",
    "Evidence",
    "EvidenceConclusion",
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

# Names loaded on first use (PEP 562), so that ``import roncho`` does not load the add-ons
# beside the call path: the scratch workspace is for tests and notebooks, the deriver
# wait's records load with its logic, at the first wait_for_derivation (or first use here),
# and CallReport with the first report to a client's on_call.
_LAZY = {
    "CallReport": "_reports",
    "DerivationOutcome": "_derivation",
    "DeriverGates": "_derivation",
    "ScratchCleanupError": "_scratch",
    "scratch_workspace": "_scratch",
}
if _TYPE_CHECKING:
    from ._derivation import DerivationOutcome, DeriverGates
    from ._reports import CallReport
    from ._scratch import ScratchCleanupError, scratch_workspace


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
    value.__module__ = __name__  # as below: roncho.scratch_workspace, not a private path
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


# Tracebacks and reprs say roncho.ConfigError, not roncho._errors.ConfigError, a private
# path. Pickle finds a class by the same two attributes, and this module exports each one.
for _name in __all__:
    if _name not in _LAZY and isinstance(globals()[_name], (type, _FunctionType)):
        globals()[_name].__module__ = __name__
del _name, _FunctionType
