"""The route table's records: who may call a route (`Access`), what its handler may use
(`Services`, with the `Host` around the app for the control routes), and the `Route`.

`App` holds one table of them (`_routes.all_routes`): Honcho's endpoints and, under
`/_fake`, the emulator's own control surface (admin routes like any other).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ._faults import Faults
from ._options import Options
from ._web import Ctx, RecordedRequest, Response

if TYPE_CHECKING:
    from ._backends.webhooks import Webhooks
    from ._deriver import Deriver
    from ._state import Store

# Who may call a route when auth is on (see `App._authorize`). "workspace_only": a workspace
# or admin key, never a peer or session key, even one naming the route's session (scopes).
Access = Literal[
    "public", "admin", "self", "workspace", "workspace_only", "peer", "member_read", "own_config"
]


class Host(Protocol):
    """What the app's host (`FakeHoncho`: the sockets, the fault switches, the request
    record) offers the control routes. `reset` replaces the app itself."""

    options: Options
    faults: Faults
    # Whether the control routes answer (off: every path under /_fake is a 404).
    control_enabled: bool

    @property
    def url(self) -> str: ...

    @property
    def requests(self) -> list[RecordedRequest]: ...

    def clear_requests(self) -> None: ...

    def reset(self) -> None: ...

    def export_state(self) -> dict[str, Any]: ...

    def restore_state(self, snapshot: object) -> None: ...


@dataclass(frozen=True, slots=True)
class Services:
    """What a handler may use: the state, the deriver, the webhooks, the options, the secret
    keys are signed with, and the host (not the routes, the dispatcher or the sockets)."""

    store: Store
    deriver: Deriver
    webhooks: Webhooks
    options: Options
    secret: bytes
    host: Host


Handler = Callable[[Services, Ctx], Response]


@dataclass(frozen=True, slots=True)
class Route:
    """One endpoint: `template` names path parts `{w}`, `{p}`...; `served` may turn it off.
    `store=False` for those that never read state (health, the key minter, the control
    routes): they run without the store lock."""

    method: str
    template: str
    handler: Handler
    access: Access
    served: Callable[[Options], bool] | None = None
    store: bool = True
