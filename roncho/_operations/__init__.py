"""The operation catalogue: what each Honcho call *is*, written once for both clients.

One module per resource. Each public function of one whose first parameter is ``paths``
is one operation: it checks its arguments (every check runs before anything is sent) and
returns a ``Call`` (method, path, query, body, whether it writes, what a status means, and
the decoder of its answer), or a ``Pages`` walk over a list. Nothing here does I/O, and
nothing here knows about time: how long a call may take is the executor's.
``scripts/render_clients.py`` writes each operation out as a method of ``Client`` and
``AsyncClient`` (adding the ``deadline`` parameter every method takes), with the
parameters and the docstring it has here, so this is the one place an operation is
written by hand. The methods come in the order of ``RESOURCES``, and of the operations
in each module.
"""

from . import (
    chat,
    conclusions,
    messages,
    peers,
    scopes,
    search,
    server,
    sessions,
    webhooks,
    workspaces,
)
from ._shared import Pages, Paths

# The order of the clients' methods and of docs/api.md; a new resource module goes here.
RESOURCES = (
    workspaces,
    peers,
    sessions,
    scopes,
    messages,
    conclusions,
    search,
    chat,
    webhooks,
    server,
)

__all__ = [
    "RESOURCES",
    "Pages",
    "Paths",
    "chat",
    "conclusions",
    "messages",
    "peers",
    "scopes",
    "search",
    "server",
    "sessions",
    "webhooks",
    "workspaces",
]
