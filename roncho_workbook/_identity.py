"""Which server a run talked to, told apart well enough that two servers never share a folder.

A run's folder is named from its `ServerIdentity`: host and port, authentication on or off
(seen, not assumed: a listing without a key is refused or not), the version the server
reports, and the deriver settings the run was given. Two runs of different servers on the
same day therefore land in different folders; the runner decides what a second run of the
same server does (`choose_run_folder`).
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from roncho import Client, RonchoError, UnauthorizedError

MANIFEST = "manifest.json"
# A workspace id for the read-only calls that name none; never written to.
_PROBE_WORKSPACE = "roncho-workbook-probe"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_part(text: str) -> str:
    """``text`` as one piece of a folder name (letters, digits, ``.``, ``_``, ``-``)."""
    return _UNSAFE.sub("-", text).strip("-.") or "unknown"


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerIdentity:
    """What tells one investigated server from another.

    ``auth`` is None when it could not be seen; ``version`` is what the server reports
    (None when it reveals none, ``"unknown"`` when it says it does not know).
    """

    host: str
    port: int | None
    auth: bool | None
    version: str | None
    emulator: bool = False

    def folder(self, *extra: str) -> str:
        """``<host>-<port>-auth-<on|off>-v<version>[-<extra>...]``, safe as a folder name."""
        if self.emulator and self.port is None:
            parts = ["emulator"]
        else:
            auth = {True: "auth-on", False: "auth-off", None: "auth-unseen"}[self.auth]
            host = safe_part(self.host)
            parts = [host if self.port is None else f"{host}-{self.port}", auth]
            if self.version is None:
                parts.append("version-not-revealed")
            elif self.version == "unknown":
                parts.append("version-unknown")
            else:
                parts.append("v" + safe_part(self.version))
        parts += [safe_part(e) for e in extra if e]
        return "-".join(parts)

    def row(self) -> dict[str, Any]:
        return asdict(self)


EMULATOR_IDENTITY = ServerIdentity(
    host="emulator", port=None, auth=None, version=None, emulator=True
)


def identify(base_url: str, *, api_key: str = "", timeout: float = 5.0) -> ServerIdentity:
    """Read the identity of the server at ``base_url``: two reads, nothing written.

    Authentication is seen by listing one workspace with no key (refused: on). The version
    is ``server_version()`` with the run's key.
    """
    parts = urlsplit(base_url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    host = parts.hostname or "unknown-host"

    def reader(key: str | None) -> Client:
        return Client(
            base_url,
            _PROBE_WORKSPACE,
            api_key=key,
            connect_timeout=timeout,
            read_timeout=timeout,
            read_only=True,
        )

    auth: bool | None
    with reader(None) as anonymous:
        try:
            anonymous.list_workspaces(size=1)
            auth = False
        except UnauthorizedError:
            auth = True
        except RonchoError:
            auth = None
    with reader(api_key or None) as client:
        try:
            version = client.server_version()
        except RonchoError:
            version = None
    return ServerIdentity(host=host, port=port, auth=auth, version=version)


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The run's manifest, or None for a folder without one (or with an unreadable one)."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def choose_run_folder(
    day: Path, name: str, same: dict[str, Any], *, replace: bool
) -> tuple[Path, str]:
    """Where a run goes under ``day``, and a few words saying which choice was made.

    ``same`` is what must match for an earlier run to count as the same server (the
    manifest's ``server``, ``deriver`` and ``label``). A different server's run is never
    touched; an earlier run of the same server is replaced only with ``replace``, else this
    run goes beside it as ``<name>-2``, ``<name>-3``, ...
    """
    first = day / name
    if not first.exists():
        return first, "new"
    earlier = read_manifest(first)
    ours = earlier is not None and all(earlier.get(k) == v for k, v in same.items())
    if ours and replace:
        shutil.rmtree(first)
        return first, "replaces today's earlier run of this server: --replace"
    number = 2
    while (day / f"{name}-{number}").exists():
        number += 1
    why = (
        "today's earlier run of this server is kept there; --replace replaces it"
        if ours
        else "the run there is not of this server, or has no manifest: it is kept"
    )
    return day / f"{name}-{number}", f"beside {name}: {why}"
