"""roncho.aio: the asyncio client, ``AsyncClient``, a thin sibling of ``roncho.Client``
(whose text is written from this package's, scripts/render_clients.py).

Importing it imports asyncio (``import roncho`` alone never does). Standard library only;
ssl loads only for an https base URL.
"""

from __future__ import annotations

from ._client import AsyncClient
from ._stream import AsyncChatStream

__all__ = ["AsyncChatStream", "AsyncClient"]

# Tracebacks and reprs name the import users write, not the private module.
AsyncClient.__module__ = AsyncChatStream.__module__ = __name__
