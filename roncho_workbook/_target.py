"""Which server a notebook talks to, and what that server says about itself.

`open_target` yields a `Target`: a real server named by its base URL, or (base URL empty)
the `roncho.testing` emulator started in-process and stopped on exit. Writes go only into
scratch workspaces made by `Target.scratch`; any other workspace is read only through a
read-only client (`Target.reader`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from roncho import Client, ConfigError, RonchoError, StatusError, scratch_workspace

from ._raw import RawClient

EMULATOR_LABEL = "emulator"
# Shown with every refusal of a base URL, so the fix is one copy away.
EXAMPLE_URL = "http://127.0.0.1:8000"
# A workspace id for calls that name none (health, version); never written to.
_PROBE_WORKSPACE = "roncho-workbook-probe"
_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def server_label(base_url: str) -> str:
    """``emulator`` for an empty base URL, else the URL's host as a safe folder name.

    A real host that happens to be called "emulator" becomes ``host-emulator``, so a real
    server's results never share a folder with an emulator run.
    """
    if not base_url:
        return EMULATOR_LABEL
    host = urlsplit(base_url).hostname or "unknown-host"
    label = _LABEL_UNSAFE.sub("-", host).strip("-.") or "unknown-host"
    return f"host-{label}" if label == EMULATOR_LABEL else label


def check_server(base_url: str, *, api_key: str = "", timeout: float = 5.0) -> str:
    """Check ``base_url``, ``/health`` and the key once: "" when usable, else one line why.

    Run before any notebook starts, so a typo, a server that is down or a refused key costs
    one line rather than nine failed notebooks and a junk results folder. Only reads: the
    key (or its absence) is tried on the admin listing of workspaces, which the notebooks
    need anyway (they create their scratch workspaces).
    """
    hint = f"for example --base-url {EXAMPLE_URL}"
    try:
        client = Client(
            base_url,
            _PROBE_WORKSPACE,
            api_key=api_key or None,
            connect_timeout=timeout,
            read_timeout=timeout,
            read_only=True,
        )
    except ConfigError as exc:
        return f"--base-url {base_url!r} is not a usable Honcho URL: {_one_line(exc)} ({hint})"
    with client:
        return _check_reachable(client, base_url, api_key, hint)


def _check_reachable(client: Client, base_url: str, api_key: str, hint: str) -> str:
    try:
        health = client.probe()
    except RonchoError as exc:
        return (
            f"{base_url} did not answer GET /health: {type(exc).__name__}: {_one_line(exc)} "
            f"(is the server up, and is this its base URL? {hint})"
        )
    if health.status != "ok":
        return f"{base_url} answered GET /health with status {health.status!r}, not 'ok'"
    try:
        client.list_workspaces(size=1)
    except StatusError as exc:
        if exc.status in (401, 403):
            given = "the API key given was refused" if api_key else "no API key was given"
            return (
                f"{base_url} has authentication on and {given} "
                f"({exc.status} {_one_line(exc.detail)}); pass an admin key (--api-key-file PATH)"
            )
        return f"{base_url} refused a read-only listing of workspaces: {_one_line(exc)}"
    except RonchoError as exc:
        return f"{base_url} failed a read-only listing of workspaces: {_one_line(exc)}"
    return ""


def _one_line(what: object) -> str:
    return " ".join(str(what).split())


@dataclass(slots=True, kw_only=True)
class Target:
    """A server to investigate: its URL, key, label and (for the emulator) the instance."""

    base_url: str
    api_key: str | None
    label: str
    emulator: bool
    connect_timeout: float = 5.0
    read_timeout: float = 30.0
    fake: Any = None
    emulator_options: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        key = "set" if self.api_key else "none"
        return f"<Target {self.label} {self.base_url} key={key}>"

    def client(self, workspace: str, *, api_key: Any = True, read_only: bool = False) -> Client:
        """A client for ``workspace``; ``api_key=True`` uses the target's key."""
        key = self.api_key if api_key is True else api_key
        return Client(
            self.base_url,
            workspace,
            api_key=key,
            connect_timeout=self.connect_timeout,
            read_timeout=self.read_timeout,
            read_only=read_only,
        )

    def reader(self, workspace: str = _PROBE_WORKSPACE) -> Client:
        """A read-only client: the only way the workbook touches a workspace it did not make."""
        return self.client(workspace, read_only=True)

    def raw(self, workspace: str, *, api_key: Any = True) -> RawClient:
        key = self.api_key if api_key is True else api_key
        return RawClient(
            self.base_url, workspace, api_key=key, timeout=self.read_timeout + self.connect_timeout
        )

    @contextmanager
    def scratch(
        self, prefix: str, *, configuration: dict[str, Any] | None = None
    ) -> Iterator[Client]:
        """A fresh workspace (roncho.scratch_workspace), deleted on exit also after an error."""
        with scratch_workspace(
            self.base_url,
            prefix,
            api_key=self.api_key,
            configuration=configuration,
            connect_timeout=self.connect_timeout,
            read_timeout=self.read_timeout,
        ) as client:
            yield client


@contextmanager
def open_target(
    base_url: str = "",
    api_key: str = "",
    *,
    connect_timeout: float = 5.0,
    read_timeout: float = 30.0,
    emulator_options: dict[str, Any] | None = None,
) -> Iterator[Target]:
    """The server to probe: ``base_url`` or, when empty, an in-process emulator.

    On the emulator, ``api_key`` is ignored: with ``auth`` on the target carries the
    emulator's admin key, with it off no key (as a server with authentication off).
    """
    options = dict(emulator_options or {})
    if base_url:
        yield Target(
            base_url=base_url,
            api_key=api_key or None,
            label=server_label(base_url),
            emulator=False,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
        )
        return
    from roncho.testing import FakeHoncho  # only when asked for: the emulator is optional

    with FakeHoncho(**options) as fake:
        yield Target(
            base_url=fake.url,
            api_key=fake.admin_key if options.get("auth") else None,
            label=EMULATOR_LABEL,
            emulator=True,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            fake=fake,
            emulator_options=options,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class RunInfo:
    """What a run records about itself: when, which server, and what the server said."""

    date: str
    started_at: str
    server: str
    emulator: bool
    health: str
    version: str | None

    def row(self) -> dict[str, Any]:
        return {
            "date": self.date,
            "started_at": self.started_at,
            "server": self.server,
            "emulator": self.emulator,
            "health": self.health,
            "version": self.version or "not revealed",
        }


def describe(target: Target, *, now: datetime | None = None) -> RunInfo:
    """Date, server label, ``client.probe()`` and ``client.server_version()`` (read only)."""
    moment = now or datetime.now(UTC)
    with target.reader() as client:
        try:
            health = client.probe().status
        except RonchoError as exc:
            health = f"error: {type(exc).__name__}"
        try:
            version = client.server_version()
        except RonchoError as exc:
            version = f"error: {type(exc).__name__}"
    return RunInfo(
        date=moment.strftime("%Y-%m-%d"),
        started_at=moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        server=target.label,
        emulator=target.emulator,
        health=health,
        version=version,
    )
