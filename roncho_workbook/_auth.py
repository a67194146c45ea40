"""Q1: is authentication on, and how far does each kind of scoped key reach?

Everything happens inside two scratch workspaces the probe makes (A and B). With an admin
key it mints a workspace key for A, a peer key (A, p1) and a session key (A, s1), then
tries the same actions with each and compares the status with what the 3.0.12 source says
(reference §2). A wrong key and no key at all are tried too.
"""

from __future__ import annotations

from typing import Any

from roncho import MessageCreate, UnauthorizedError

from ._finding import Finding, fmt_status
from ._raw import RawClient, said
from ._target import Target

WRONG_KEY = "not-a-valid-jwt"

# (action, where) -> expected status per key kind, from reference §2 (SRC security.py).
# "2xx" means any success; writes answer 201, reads 200.
ACTIONS: tuple[tuple[str, str, str, str, dict[str, Any] | None], ...] = (
    ("list peers", "A", "POST", "peers/list", {}),
    ("add message to s1", "A", "POST", "sessions/s1/messages", None),
    ("list messages of s1 (p1 is a member)", "A", "POST", "sessions/s1/messages/list", {}),
    ("list messages of s2 (p1 is not)", "A", "POST", "sessions/s2/messages/list", {}),
    ("update own peer p1", "A", "PUT", "peers/p1", {"metadata": {"probe": "q1"}}),
    ("queue status", "A", "GET", "queue/status", None),
    ("list conclusions", "A", "POST", "conclusions/list", {}),
    ("list peers", "B", "POST", "peers/list", {}),
    ("list workspaces (admin route)", "-", "POST", "/v3/workspaces/list", {}),
    ("mint a key for B (admin route)", "-", "POST", "/v3/keys", None),
)
EXPECTED: dict[str, tuple[str, ...]] = {
    "admin": ("2xx",) * 10,
    "workspace": ("2xx",) * 7 + ("401",) * 3,
    "peer": ("401", "401", "2xx", "401", "2xx", "401", "401", "401", "401", "401"),
    "session": ("401", "2xx", "2xx", "401", "401", "401", "401", "401", "401", "401"),
}


def _message_body(text: str) -> dict[str, Any]:
    return {"messages": [{"peer_id": "p1", "content": text}]}


def _class(status: int | None) -> str:
    if status is not None and 200 <= status < 300:
        return "2xx"
    return fmt_status(status) if status is not None else "no answer"


def probe_auth(target: Target, prefix: str) -> Finding:
    """Run the whole Q1 probe; see the module docstring."""
    finding = Finding(question="Q1 authentication and key scopes")
    trace = finding.trace
    try:
        with target.scratch(prefix + "-a") as a, target.scratch(prefix + "-b") as b:
            _setup(a, b)
            raw_a = target.raw(a.workspace)
            raw_b = target.raw(b.workspace)
            path = raw_a.ws_path("peers", "list")
            no_key = trace.raw("no key: list peers in A", raw_a, "POST", path, {}, api_key=None)
            wrong = trace.raw(
                "wrong key: list peers in A", raw_a, "POST", path, {}, api_key=WRONG_KEY
            )
            keys = _mint(finding, raw_a, a.workspace)
            if keys and target.api_key:
                keys = {"admin": target.api_key, **keys}
            for kind, key in keys.items():
                _matrix(finding, kind, key, raw_a, raw_b, b.workspace)
            finding.answer = _answer(finding, no_key, wrong, keys)
    except UnauthorizedError as exc:
        finding.answer = (
            f"Authentication is on and the key given cannot create a workspace "
            f"({exc.status} {exc.detail!r}); run again with an admin key."
        )
    return finding


def _setup(a: Any, b: Any) -> None:
    a.get_or_create_peer("p1")
    a.get_or_create_session("s1", peers={"p1": {}, "p2": {}})
    a.get_or_create_session("s2", peers={"p2": {}})
    a.add_messages("s1", [MessageCreate("p1", "hello from p1")])
    b.get_or_create_session("s1", peers={"p1": {}})


def _mint(finding: Finding, raw_a: RawClient, workspace: str) -> dict[str, str]:
    """Mint the three scoped keys with the run's key; empty when the server refuses.

    Sent raw so the evidence keeps the exact status; the trace never records the key.
    """
    keys: dict[str, str] = {}
    asks = {
        "workspace": {"workspace_id": workspace},
        "peer": {"workspace_id": workspace, "peer_id": "p1"},
        "session": {"workspace_id": workspace, "session_id": "s1"},
    }
    for kind, scope in asks.items():
        reply = finding.trace.raw(
            f"mint a {kind} key", raw_a, "POST", "/v3/keys", None, query=scope
        )
        data = reply.json if reply is not None and 200 <= reply.status < 300 else None
        if isinstance(data, dict) and isinstance(data.get("key"), str):
            keys[kind] = data["key"]
    return keys


def _matrix(
    finding: Finding, kind: str, key: str, raw_a: RawClient, raw_b: RawClient, b_ws: str
) -> None:
    rows = finding.table("scopes")
    for index, (action, where, method, rel, body) in enumerate(ACTIONS):
        raw = raw_b if where == "B" else raw_a
        query = None
        if rel.startswith("/"):
            path = rel
            if rel == "/v3/keys":
                query = {"workspace_id": b_ws}
        else:
            path = raw.ws_path(*rel.split("/"))
        if body is None and method == "POST" and rel.endswith("/messages"):
            body = _message_body(f"written with a {kind} key")
        reply = finding.trace.raw(
            f"{kind} key: {action} in {where}", raw, method, path, body, api_key=key, query=query
        )
        seen = _class(reply.status if reply else None)
        expected = EXPECTED[kind][index]
        rows.append(
            {
                "key": kind,
                "action": action,
                "workspace": where,
                "expected (source)": expected,
                "status": reply.status if reply else None,
                "agrees": seen == expected,
                # A minted key in a body would be a secret; only details are kept.
                "detail": "" if reply is None or seen == "2xx" else str(reply.detail),
            }
        )


def _answer(finding: Finding, no_key: Any, wrong: Any, keys: dict[str, str]) -> str:
    first = next((c for c in finding.trace.calls if c.step.startswith("mint")), None)
    if not keys:
        refused = f"{first.status} {first.body}" if first else "no answer"
        no_key_status = no_key.status if no_key else None
        return (
            f"Authentication is OFF: a request with no key answered {no_key_status}, and "
            f"POST /v3/keys answered {refused} (minting keys is disabled)."
        )
    rows = finding.tables.get("scopes", [])
    agree = sum(1 for r in rows if r["agrees"])
    statuses = {r["status"] for r in rows if r["status"] is not None and r["status"] >= 400}
    never_403 = 403 not in statuses and all(
        c.status != 403 for c in finding.trace.calls if c.status is not None
    )
    return (
        f"Authentication is ON: no key -> {said(no_key, quoted=True)}, "
        f"wrong key -> {said(wrong, quoted=True)}; scoped keys reached as the source says in "
        f"{agree}/{len(rows)} tries; refusals were "
        f"{', '.join(map(str, sorted(statuses))) or 'none'}"
        f"{' (never 403)' if never_403 else ' (403 seen)'}."
    )
