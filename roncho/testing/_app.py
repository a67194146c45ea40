"""The emulated server behind the sockets: `App.dispatch(request) -> Response`.

One table of routes (`_routes.all_routes`: Honcho's endpoints and the emulator's control
surface under `/_fake`), matched the way Starlette does (first full match wins; a path match
with another method is 405; otherwise 404); then the key is checked when auth is on (one
`_authorize` for every route, the control routes' `admin` level included), the path's
workspace is looked up once, and the handler runs. The routes come from `_routes` (HTTP
glue), the state rules from `_backends`. This is the one place a request takes the store
lock: around the key check and the whole handler of every route that uses the store, so each
request sees and leaves a consistent state. Handlers never sleep (a delay rides on the
`Response`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from . import _auth, _snapshot, _tokens
from ._backends import scopes, sessions, workspaces
from ._backends.webhooks import Webhooks
from ._common import ApiError, JsonDict, not_found
from ._deliveries import Deliverer
from ._deriver import Deriver
from ._options import Options
from ._routes import all_routes, control
from ._routing import Host, Route, Services
from ._state import Store
from ._web import Ctx, Request, Response, compile_template, error_response


class App:
    """The emulated server: state, deriver and routes. Thread-safe."""

    def __init__(
        self,
        options: Options,
        secret: bytes,
        host: Host,
        failing: Callable[[str], bool] = lambda _: False,
    ) -> None:
        # `failing`: whether a background failure of the fault rules fires (Faults.failing).
        self.host = host
        self.options = options
        self.secret = secret
        self.store = Store(_tokens.counter(options.tokens))
        self.deliverer = Deliverer(allow_remote=options.allow_remote, failing=failing)
        self.webhooks = Webhooks(options.webhook_secret, self.deliverer)
        self.deriver = Deriver(
            self.store, options, on_drained=self.webhooks.queue_empty, failing=failing
        )
        self.services = Services(self.store, self.deriver, self.webhooks, options, secret, host)
        self.routes: list[tuple[Route, re.Pattern[str]]] = [
            (route, compile_template(route.template)) for route in all_routes(options)
        ]

    def dispatch(self, request: Request) -> Response:
        """Answer one request (never raises for API errors)."""
        try:
            return self._dispatch(request)
        except ApiError as error:
            return error_response(error)

    def _dispatch(self, request: Request) -> Response:
        on_control = control.addressed(request.raw_path)
        if on_control:
            if not self.host.control_enabled:
                raise ApiError(404, control.DISABLED)
            method, path = request.method, control.route_path(request.raw_path)
        else:
            # Starlette serves HEAD wherever it serves GET.
            method = "GET" if request.method == "HEAD" else request.method
            path = request.path
        path_matched = False
        for route, pattern in self.routes:
            # A control route answers only a path sent under its prefix (`/%5Ffake/info`
            # is Honcho's 404), and an API route never one sent there.
            if control.addressed(route.template) != on_control:
                continue
            match = pattern.match(path)
            if match is None:
                continue
            if route.method != method:
                path_matched = True
                continue
            if route.store:
                with self.store.lock:
                    return self._run(route, match.groupdict(), request)
            return self._run(route, match.groupdict(), request)
        if path_matched:
            raise ApiError(405, "Method Not Allowed")
        raise control.no_route(request) if on_control else not_found()

    def _run(self, route: Route, params: dict[str, str], request: Request) -> Response:
        claims = self._authorize(route, params, request)
        ws = self.store.workspaces.get(params["w"]) if "w" in params else None
        return route.handler(self.services, Ctx(request, params, claims, ws))

    def _authorize(self, route: Route, params: Mapping[str, str], request: Request) -> _auth.Claims:
        if route.access == "public" or not self.options.auth:
            return _auth.ADMIN
        header = next((v for k, v in request.headers.items() if k.lower() == "authorization"), None)
        token = _auth.bearer_token(header)
        claims = _auth.decode(self.secret, token, refuse_expiring=self.options.refuse_expiring_keys)
        if claims.admin:
            return claims
        if route.access == "admin":
            raise ApiError(401, _auth.ADMIN_ONLY)
        denied = ApiError(401, _auth.NOT_PERMITTED)
        if route.access == "self":
            return claims  # the handler compares the path and body ids with the claims
        if "w" in params and claims.workspace != params["w"]:
            raise denied
        if route.access == "workspace_only" and (claims.session, claims.peer) != (None, None):
            raise denied
        if claims.session is not None:
            if params.get("s") != claims.session:
                raise denied
            return claims
        if claims.peer is not None:
            if route.access == "peer" and params.get("p") == claims.peer:
                return claims
            if route.access in ("member_read", "own_config") and self._is_member(
                params["w"], params["s"], claims.peer
            ):
                if route.access == "own_config" and params.get("p") != claims.peer:
                    raise denied
                return claims
            raise denied
        return claims

    def _is_member(self, w: str, s: str, peer: str) -> bool:
        # Only member routes ask, and they use the store: the caller holds the lock.
        return sessions.is_member(self.store, w, s, peer)

    def export_state(self) -> JsonDict:
        """A versioned JSON snapshot of every workspace and the deriver log (`_snapshot`)."""
        with self.store.lock:
            return _snapshot.export(
                self.store.workspaces, self.store.seq, self.deriver.log(), self.options.version
            )

    def restore_state(self, snapshot: object) -> None:
        """Replace all state by a snapshot's; purges and backfills that were waiting are
        scheduled again. Raises `SnapshotError` (nothing changed) if it cannot be restored."""
        restored, seq, log = _snapshot.restore(snapshot)
        delay = self.options.purge_delay
        with self.store.changed:
            self.store.replace(restored, seq)
            self.deriver.restart_from(log)
            for ws in restored.values():
                if ws.deleting:
                    workspaces.schedule_purge(self.store, self.deriver, ws, delay)
                for session in ws.sessions.values():
                    if not session.is_active:
                        sessions.schedule_purge(ws, session, self.deriver, delay)
                for scope in ws.scopes.values():
                    if any(job.get("state") == "pending" for job in scope.backfill.values()):
                        scopes.schedule_backfill(
                            ws, scope, self.deriver, self.options.deriver_delay
                        )
            self.store.changed.notify_all()
