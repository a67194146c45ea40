"""Q7: what does /health answer, does any header reveal a version, what does /openapi.json say?

Read only: raw GETs of ``/health`` and ``/openapi.json`` plus the client's probe() and
server_version(). No workspace is touched.
"""

from __future__ import annotations

import re
from typing import Any

from roncho import RonchoError

from ._finding import Finding
from ._raw import RawReply, status_word
from ._target import Target

# A header reveals a version if its name says so or its value holds a dotted number.
_VERSION_VALUE = re.compile(r"\d+\.\d+")


def probe_health(target: Target) -> Finding:
    """Run the whole Q7 probe; see the module docstring."""
    finding = Finding(question="Q7 health and version")
    trace = finding.trace
    raw = target.raw("roncho-workbook-probe")
    health = trace.raw("GET /health", raw, "GET", "/health")
    spec = trace.raw("GET /openapi.json", raw, "GET", "/openapi.json")
    headers = finding.table("headers")
    for name, reply in (("/health", health), ("/openapi.json", spec)):
        for key, value in (reply.headers if reply else {}).items():
            headers.append(
                {
                    "path": name,
                    "header": key,
                    "value": value,
                    "reveals a version": "version" in key or bool(_VERSION_VALUE.search(value)),
                }
            )
    info: Any = spec.json.get("info") if spec and isinstance(spec.json, dict) else None
    with target.reader() as client:
        probe = trace.call("client.probe()", client.probe)
        version = trace.call("client.server_version()", client.server_version)
    finding.table("answers").append(
        {
            "health status": health.status if health else None,
            "health body": health.text() if health else "",
            "probe()": getattr(probe, "status", repr(probe)),
            "openapi status": spec.status if spec else None,
            "info.title": info.get("title") if isinstance(info, dict) else None,
            "info.version": info.get("version") if isinstance(info, dict) else None,
            "server_version()": None if isinstance(version, RonchoError) else version,
        }
    )
    revealing = [h for h in headers if h["reveals a version"]]
    finding.answer = (
        f"/health -> {status_word(health)} {health.text() if health else ''}; "
        f"version headers: "
        f"{', '.join(sorted({h['header'] for h in revealing})) or 'none'}; "
        f"/openapi.json {_spec_version(spec, info)}; "
        f"server_version() = {_version_text(version)}."
    )
    return finding


def _spec_version(spec: RawReply | None, info: Any) -> str:
    """What /openapi.json said about the version, telling "not served" from "unreadable"."""
    if spec is None:
        return "no answer"
    if spec.status != 200:
        return f"answered {spec.status} (not served)"
    if not isinstance(info, dict):
        why = "cut at the read cap" if spec.truncated else "no info object in the JSON"
        return f"answered 200 but unreadable ({why})"
    version = info.get("version")
    if isinstance(version, str) and version.strip().lower() == "unknown":
        return f'info.version = "{version}", so the version is unknown ({UNKNOWN_WHY})'
    return f"info.version = {version if version is not None else 'absent'}"


# Why a server says "unknown": it is not a version, and the answer says where it comes from.
UNKNOWN_WHY = (
    "the server does not know its own version: Honcho's Docker images before 3.1.1 were "
    "built without it"
)


def _version_text(version: object) -> str:
    if isinstance(version, RonchoError):
        return f"error {type(version).__name__}"
    return str(version) if version else "no version"
