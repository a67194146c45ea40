"""Fixtures that let Honcho's own route tests run over HTTP against a server.

Loaded with `-p plugin` by `run_routes.py`, inside a throwaway copy of Honcho 3.0.12's
`tests/routes/` (unpacked at run time from the kit's tarball, never kept in this project), by
an interpreter that can import Honcho's `src` package. Honcho's own conftest builds a database
and an in-process app; this one stands in for it:

- `client` is an `httpx.Client(base_url=...)` (FastAPI's `TestClient` is a subclass of it);
- `sample_data` and the `auth_client` keys are made through the API;
- a test that touches `db_session`, `monkeypatch`, `unittest.mock.patch`, `crud` or the
  deriver's `enqueue`, or has no HTTP client at all, is skipped with the reason, the moment it
  would do so (so the reason is always the one that applies);
- a test that would write to a workspace its run did not create is skipped before the write.

Every workspace a test creates on a real server is deleted afterwards (its sessions first),
also on failure.
Each outcome is written to `$HONCHO_ROUTES_RESULTS` (JSON lines).

Targets (`$HONCHO_ROUTES_TARGET`): `real` (`$HONCHO_ROUTES_URL`, `$HONCHO_ROUTES_AUTH_URL`, the
admin key in `$HONCHO_ROUTES_ADMIN_KEY_FILE`, and `AUTH_JWT_SECRET` for the keys the tests
mint), or `emulator` (two `roncho.testing.FakeHoncho`, auth off and on, started here).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import ssl
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
import jwt
import pytest
from nanoid import generate as generate_nanoid

TARGET = os.environ.get("HONCHO_ROUTES_TARGET", "real")
RESULTS = os.environ.get("HONCHO_ROUTES_RESULTS", "")
TIMEOUT = httpx.Timeout(30.0, connect=5.0)
# One TLS context for every client: httpx makes a new one per client otherwise, and loading
# the CA bundle each time was half of this run's CPU (the targets are plain-HTTP loopback, so
# it is never used; it is still the default, verifying one).
TLS = ssl.create_default_context()
# Names a test mints itself (nanoid's default alphabet and length), so no other run has them.
UNIQUE_NAME = re.compile(r"[A-Za-z0-9_-]{21}")
# POST routes that only read.
READ_POSTS = ("/list", "/search", "/query", "/context", "/chat", "/representation")
CLEANUP_WAIT = 10.0

SKIP_DB = "reads or writes Honcho's database directly (db_session)"
SKIP_PATCH = "patches the server process in-process (monkeypatch/unittest.mock.patch)"
SKIP_CRUD = "calls Honcho's crud layer in-process"
SKIP_ENQUEUE = "enqueues deriver work in-process"
SKIP_MOCK_LLM = "relies on the in-process LLM mocks of Honcho's conftest"
SKIP_NO_CLIENT = "has no HTTP client (inspects the app object in-process)"
SKIP_FOREIGN = "would write to a workspace with a fixed name (not made by this run)"


# -- the servers -------------------------------------------------------------------------


@dataclass
class Servers:
    url: str
    auth_url: str
    admin_key: str
    # Mints a key for claims (the server's secret): the tests call `create_jwt` for theirs.
    sign: Any
    keep: list[Any] = field(default_factory=list)


def _start_servers() -> Servers:
    if TARGET == "real":
        with open(os.environ["HONCHO_ROUTES_ADMIN_KEY_FILE"], encoding="utf-8") as handle:
            admin = handle.read().strip()
        from src.security import JWTParams, create_jwt

        return Servers(
            url=os.environ["HONCHO_ROUTES_URL"],
            auth_url=os.environ["HONCHO_ROUTES_AUTH_URL"],
            admin_key=admin,
            sign=lambda claims: create_jwt(JWTParams(**claims)),
        )
    from roncho.testing import FakeHoncho, _auth

    version = os.environ.get("HONCHO_ROUTES_VERSION", "3.0.12")
    plain = FakeHoncho(version=version, deriver_delay=0.0)
    keyed = FakeHoncho(version=version, auth=True, deriver_delay=0.0)
    secret = keyed._secret  # the emulator's signing secret, to sign the tests' own claims

    def sign(claims: dict[str, Any]) -> str:
        return _auth.encode(secret, {k: v for k, v in claims.items() if v is not None})

    return Servers(plain.url, keyed.url, keyed.admin_key, sign, keep=[plain, keyed])


_SERVERS: Servers | None = None


def servers() -> Servers:
    global _SERVERS
    if _SERVERS is None:
        _SERVERS = _start_servers()
    return _SERVERS


def pytest_unconfigure(config: pytest.Config) -> None:
    if _SERVERS is not None:
        for fake in _SERVERS.keep:
            fake.close()


# -- what the tests may not do over HTTP ---------------------------------------------------


class _Refuses:
    """Stands in for an in-process object: any use skips the test, with the reason."""

    def __init__(self, reason: str) -> None:
        object.__setattr__(self, "_reason", reason)

    def __getattr__(self, name: str) -> Any:
        pytest.skip(self._reason)

    def __setattr__(self, name: str, value: Any) -> None:
        pytest.skip(self._reason)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        pytest.skip(self._reason)


def _uses_http(item: pytest.Item) -> bool:
    names = getattr(item, "fixturenames", ())
    return "client" in names or "auth_client" in names


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    seen: set[int] = set()
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and id(module) not in seen:
            seen.add(id(module))
            # Module globals the tests reach the server process through.
            for name, reason in (
                ("patch", SKIP_PATCH),
                ("crud", SKIP_CRUD),
                ("enqueue", SKIP_ENQUEUE),
            ):
                if name in vars(module):
                    setattr(module, name, _Refuses(reason))
            if "create_jwt" in vars(module):
                module.create_jwt = _create_jwt
        if not _uses_http(item):
            item.add_marker(pytest.mark.skip(reason=SKIP_NO_CLIENT))


def _create_jwt(params: Any) -> str:
    """The tests' `create_jwt`, signed with the target server's secret."""
    claims = {k: v for k, v in params.__dict__.items() if v is not None}
    return str(servers().sign(claims))


@pytest.fixture
def db_session() -> Any:
    return _Refuses(SKIP_DB)


@pytest.fixture
def monkeypatch() -> Any:
    return _Refuses(SKIP_PATCH)


@pytest.fixture
def mock_llm_call_functions() -> Any:
    pytest.skip(SKIP_MOCK_LLM)


@pytest.fixture
def mock_tracked_db() -> Any:
    pytest.skip(SKIP_DB)


# -- the HTTP client -------------------------------------------------------------------------


class AuthClient(httpx.Client):
    auth_type: str | None = None


@dataclass
class Tracker:
    """Workspaces this test made (deleted afterwards) and the write guard."""

    created: set[str] = field(default_factory=set)

    def allowed(self, name: str) -> bool:
        return name in self.created or bool(UNIQUE_NAME.fullmatch(name))


def _workspace_of(path: str) -> str | None:
    parts = [unquote(p) for p in path.split("/") if p]
    if len(parts) >= 3 and parts[0] == "v3" and parts[1] == "workspaces" and parts[2] != "list":
        return parts[2]
    return None


def _locally_invalid(body: Any) -> bool:
    """A workspace body the server refuses (422) before it stores anything."""
    if not isinstance(body, dict):
        return True
    name = body.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 512:
        return True
    return "metadata" in body and not isinstance(body["metadata"], dict)


def _guard(tracker: Tracker) -> Any:
    def on_request(request: httpx.Request) -> None:
        path = urlsplit(str(request.url)).path
        if request.method == "GET":
            return
        if request.method == "POST" and path.rstrip("/") == "/v3/workspaces":
            try:
                body = json.loads(request.content or b"null")
            except ValueError:
                return
            if _locally_invalid(body):
                return
            if not tracker.allowed(str(body.get("name"))):
                pytest.skip(SKIP_FOREIGN)
            return
        workspace = _workspace_of(path)
        if workspace is None or tracker.allowed(workspace):
            return
        if request.method == "POST" and path.rstrip("/").endswith(READ_POSTS):
            return
        pytest.skip(SKIP_FOREIGN)

    def on_response(response: httpx.Response) -> None:
        request = response.request
        path = urlsplit(str(request.url)).path
        made = request.method == "POST" and path.rstrip("/") == "/v3/workspaces"
        if made and response.status_code in (200, 201):
            response.read()
            with contextlib.suppress(ValueError, KeyError, TypeError):
                tracker.created.add(str(response.json()["id"]))
        workspace = _workspace_of(path)
        if workspace is not None and UNIQUE_NAME.fullmatch(workspace):
            tracker.created.add(workspace)  # minted by the test: made by this run, if at all

    return {"request": [on_request], "response": [on_response]}


def _delete_workspace(base_url: str, key: str | None, name: str) -> None:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    with httpx.Client(base_url=base_url, headers=headers, timeout=TIMEOUT, verify=TLS) as api:
        give_up = time.monotonic() + CLEANUP_WAIT
        while True:
            listed = api.post(f"/v3/workspaces/{name}/sessions/list?size=100", json={})
            if listed.status_code == 200:
                for session in listed.json().get("items", []):
                    api.delete(f"/v3/workspaces/{name}/sessions/{session['id']}")
            gone = api.delete(f"/v3/workspaces/{name}")
            if gone.status_code != 409 or time.monotonic() > give_up:
                return
            time.sleep(0.2)


@pytest.fixture
def _tracker(request: pytest.FixtureRequest) -> Iterator[Tracker]:
    tracker = Tracker()
    yield tracker
    if TARGET == "emulator":
        return  # the emulator's state goes with it at the end of the run
    where = servers()
    uses_auth = "auth_client" in request.fixturenames
    for name in sorted(tracker.created):
        if uses_auth:
            _delete_workspace(where.auth_url, where.admin_key, name)
        else:
            _delete_workspace(where.url, None, name)


@pytest.fixture
def client(request: pytest.FixtureRequest, _tracker: Tracker) -> Iterator[AuthClient]:
    where = servers()
    if "auth_client" in request.fixturenames:
        # Honcho's conftest gives the client the admin key when auth is on.
        http = AuthClient(
            base_url=where.auth_url, timeout=TIMEOUT, verify=TLS, event_hooks=_guard(_tracker)
        )
        http.headers["Authorization"] = f"Bearer {where.admin_key}"
    else:
        http = AuthClient(
            base_url=where.url, timeout=TIMEOUT, verify=TLS, event_hooks=_guard(_tracker)
        )
    with http:
        yield http


def _invalid_jwt() -> str:
    return jwt.encode({"ad": "invalid"}, "this is not the secret", algorithm="HS256")


@pytest.fixture(
    params=[
        ("none", None),
        ("invalid", _invalid_jwt),
        ("empty", lambda: _create_jwt(_jwt_params())),
        ("admin", lambda: servers().admin_key),
    ]
)
def auth_client(client: AuthClient, request: pytest.FixtureRequest) -> AuthClient:
    """As Honcho's: the same client, with no key, a bad one, an empty one or the admin's."""
    client.headers.pop("Authorization", None)
    auth_type, token = request.param
    client.auth_type = auth_type
    if token is not None:
        client.headers["Authorization"] = f"Bearer {token()}"
    return client


def _jwt_params() -> Any:
    """`JWTParams()` with nothing set (what Honcho's empty key is made from)."""
    from src.security import JWTParams

    return JWTParams()


@dataclass
class Workspace:
    name: str


@dataclass
class Peer:
    name: str
    workspace_name: str


@pytest.fixture
def sample_data(
    request: pytest.FixtureRequest, _tracker: Tracker
) -> Iterator[tuple[Workspace, Peer]]:
    """A new workspace and peer (nanoid names, as Honcho's), made through the API."""
    where = servers()
    uses_auth = "auth_client" in request.fixturenames
    base, key = (where.auth_url, where.admin_key) if uses_auth else (where.url, None)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    workspace, peer = str(generate_nanoid()), str(generate_nanoid())
    with httpx.Client(base_url=base, headers=headers, timeout=TIMEOUT, verify=TLS) as api:
        made = api.post("/v3/workspaces", json={"name": workspace})
        assert made.status_code == 201, made.text
        _tracker.created.add(workspace)
        made = api.post(f"/v3/workspaces/{workspace}/peers", json={"name": peer})
        assert made.status_code == 201, made.text
    yield Workspace(workspace), Peer(peer, workspace)


# -- outcomes ----------------------------------------------------------------------------------


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if not RESULTS:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        reason = ""
        if report.skipped and isinstance(report.longrepr, tuple):
            reason = str(report.longrepr[2]).removeprefix("Skipped: ")
        elif report.failed:
            reason = str(
                getattr(report.longrepr, "reprcrash", None) and report.longrepr.reprcrash.message
            )  # type: ignore[union-attr]
        with open(RESULTS, "a", encoding="utf-8") as out:
            out.write(
                json.dumps({"test": report.nodeid, "outcome": report.outcome, "why": reason[:300]})
                + "\n"
            )
