"""State snapshots: the whole store of an emulator as versioned JSON, and back.

`export(store, deriver_log, ...)` writes every workspace with its peers, sessions (and their
members), messages, conclusions, deriver queue, peer cards and scopes, the id sequence and the
deriver log. Datetimes are RFC 3339 strings; the deriver's monotonic instants (`visible_at`,
`claimed_at`, ...) are written as seconds relative to the moment of export, so a snapshot
restores into another process. A snapshot names the roncho version that made it: `restore`
refuses one from another version (or another format) rather than guess at its layout.
Request records and fault rules are not state and are not in it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import asdict
from datetime import datetime
from typing import Any

from .. import __version__
from ._common import JsonDict, iso
from ._deriver import DeriverRecord
from ._state import (
    Conclusion,
    Membership,
    Message,
    Peer,
    QueueItem,
    Scope,
    Session,
    Workspace,
)

FORMAT = "roncho-fake-honcho-state"
FORMAT_VERSION = 1
# QueueItem and DeriverRecord fields holding time.monotonic() instants.
_INSTANTS = ("visible_at", "claimed_at", "completed_at", "enqueued_at")


class SnapshotError(ValueError):
    """A snapshot this emulator cannot restore: another version, another format, or broken."""


def _relative(data: JsonDict, now: float) -> JsonDict:
    return {
        key: (value - now if key in _INSTANTS and value is not None else value)
        for key, value in data.items()
    }


def _absolute(data: Mapping[str, Any], now: float) -> dict[str, Any]:
    return {
        key: (now + value if key in _INSTANTS and value is not None else value)
        for key, value in data.items()
    }


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _workspace_json(ws: Workspace, now: float) -> JsonDict:
    open_items = {id(item) for item in ws.open_items}
    return {
        "id": ws.id,
        "created_at": iso(ws.created_at),
        "metadata": ws.metadata,
        "configuration": ws.configuration,
        "deleting": ws.deleting,
        "peers": [{**asdict(p), "created_at": iso(p.created_at)} for p in ws.peers.values()],
        "sessions": [{**asdict(s), "created_at": iso(s.created_at)} for s in ws.sessions.values()],
        "messages": [{**asdict(m), "created_at": iso(m.created_at)} for m in ws.messages],
        "conclusions": [{**asdict(c), "created_at": iso(c.created_at)} for c in ws.conclusions],
        "queue": [
            {
                **_relative(asdict(q), now),
                "observers": list(q.observers),
                "open": id(q) in open_items,
            }
            for q in ws.queue
        ],
        "cards": [
            {"observer": observer, "target": target, "lines": list(lines)}
            for (observer, target), lines in ws.cards.items()
        ],
        "scopes": [{**asdict(sc), "created_at": iso(sc.created_at)} for sc in ws.scopes.values()],
    }


def export(
    workspaces: Mapping[str, Workspace],
    seq: int,
    log: list[DeriverRecord],
    honcho_version: str,
) -> JsonDict:
    """The snapshot of a store (the caller holds its lock)."""
    now = time.monotonic()
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "emulator_version": __version__,
        "honcho_version": honcho_version,
        "seq": seq,
        "workspaces": [_workspace_json(ws, now) for ws in workspaces.values()],
        "deriver_log": [
            {**_relative(asdict(record), now), "observers": list(record.observers)}
            for record in log
        ],
    }


def check(snapshot: object) -> Mapping[str, Any]:
    """The snapshot if this emulator can restore it; a SnapshotError saying why not."""
    if not isinstance(snapshot, dict) or snapshot.get("format") != FORMAT:
        raise SnapshotError(f'not an emulator state snapshot (no "format": {FORMAT!r})')
    version = snapshot.get("emulator_version")
    if version != __version__:
        raise SnapshotError(
            f"this snapshot was made by roncho {version}'s emulator; this is roncho "
            f"{__version__}, which restores only its own snapshots (export the state again "
            f"with this version)"
        )
    if snapshot.get("format_version") != FORMAT_VERSION:
        raise SnapshotError(
            f"snapshot format version {snapshot.get('format_version')!r} is not "
            f"{FORMAT_VERSION}, the one roncho {__version__} writes"
        )
    return snapshot


def _session(data: Mapping[str, Any]) -> Session:
    members = {name: Membership(**member) for name, member in data["members"].items()}
    return Session(**{**data, "created_at": _when(data["created_at"]), "members": members})


def _workspace(data: Mapping[str, Any], now: float) -> Workspace:
    ws = Workspace(
        id=data["id"],
        created_at=_when(data["created_at"]),
        metadata=data["metadata"],
        configuration=data["configuration"],
        deleting=data["deleting"],
    )
    for peer in data["peers"]:
        ws.peers[peer["id"]] = Peer(**{**peer, "created_at": _when(peer["created_at"])})
    for session in data["sessions"]:
        ws.sessions[session["id"]] = _session(session)
    ws.messages = [Message(**{**m, "created_at": _when(m["created_at"])}) for m in data["messages"]]
    ws.conclusions = [
        Conclusion(**{**c, "created_at": _when(c["created_at"])}) for c in data["conclusions"]
    ]
    for raw in data["queue"]:
        fields = _absolute({key: value for key, value in raw.items() if key != "open"}, now)
        item = QueueItem(**{**fields, "observers": tuple(raw["observers"])})
        ws.queue.append(item)
        if raw["open"]:
            ws.open_items.append(item)
    ws.cards = {(card["observer"], card["target"]): list(card["lines"]) for card in data["cards"]}
    for scope in data["scopes"]:
        ws.scopes[scope["id"]] = Scope(**{**scope, "created_at": _when(scope["created_at"])})
    return ws


def restore(snapshot: object) -> tuple[dict[str, Workspace], int, list[DeriverRecord]]:
    """The workspaces, id sequence and deriver log of a snapshot `check` accepts."""
    checked = check(snapshot)
    now = time.monotonic()
    try:
        workspaces = {data["id"]: _workspace(data, now) for data in checked["workspaces"]}
        log = [
            DeriverRecord(**{**_absolute(raw, now), "observers": tuple(raw["observers"])})
            for raw in checked["deriver_log"]
        ]
        seq = int(checked["seq"])
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise SnapshotError(f"a broken snapshot: {type(error).__name__}: {error}") from None
    return workspaces, seq, log
