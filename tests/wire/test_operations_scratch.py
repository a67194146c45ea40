"""roncho.scratch_workspace: a fresh workspace, never an adopted one, always cleaned up.

The RawServer scripts pin the exact sequence of calls; two tests at the end run the same
promises against the emulator, where the state is real. Blocking only: the helper is.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from rawserver import SERVER_WAIT, Conn, RawServer, Request, response_bytes

import roncho
import roncho._scratch
from roncho import RonchoError, ScratchCleanupError, scratch_workspace

# scratch_workspace is a blocking helper (AsyncClient has none): an asyncio run of these
# tests would test the same blocking code again and claim it for the async client.
pytestmark = pytest.mark.blocking_only("scratch_workspace exists for the blocking client only")

READ_TIMEOUT = 5.0  # seconds
TS = "2026-11-30T12:00:00Z"

Answer = Callable[[Request], tuple[int, Any]]


def page(items: list[Any]) -> dict[str, Any]:
    return {"items": items, "total": len(items), "page": 1, "size": 100, "pages": 1 if items else 0}


def routed(answer: Answer, count: int) -> list[Callable[[Conn], None]]:
    """``count`` connections, each answered by ``answer(request)`` -> (status, json); a
    status of 0 closes the connection without an answer."""

    def handler(conn: Conn) -> None:
        request = conn.read_request()
        status, body = answer(request)
        if status:
            conn.send(response_bytes(status, body))

    return [handler] * count


def workspace_of(request: Request) -> str:
    match = re.search(r"/v3/workspaces/([A-Za-z0-9_-]+)", request.request_line)
    if match and match.group(1) != "list":
        return match.group(1)
    return str(request.json["id"])


def honcho(
    *,
    sessions: list[str] = (),  # type: ignore[assignment]
    created: bool = True,
    listed: bool = False,
    busy: int = 0,
    list_status: int = 200,
    session_delete_status: int = 202,
) -> Answer:
    """A scripted server: ``busy`` workspace deletes answer 409 before one answers 202."""
    state = {"busy": busy, "sessions": list(sessions)}

    def answer(request: Request) -> tuple[int, Any]:
        line = request.request_line
        if line.startswith("POST /v3/workspaces/list"):
            if list_status != 200:
                return list_status, {"detail": "Resource requires admin privileges"}
            wid = request.json["filters"]["id"]
            return 200, page([{"id": wid, "metadata": {}, "configuration": {}}] if listed else [])
        if line.startswith("POST /v3/workspaces "):
            wid = request.json["id"]
            return (201 if created else 200), {"id": wid, "metadata": {}, "configuration": {}}
        if "/sessions/list" in line:
            return 200, page(
                [{"id": s, "is_active": True, "metadata": {}} for s in state["sessions"]]
            )
        if line.startswith("DELETE") and "/sessions/" in line:
            if session_delete_status == 202:
                sid = line.split("/sessions/")[1].split()[0]
                state["sessions"].remove(sid)
                return 202, {"message": "Session deleted successfully"}
            return session_delete_status, {"detail": "An unexpected error occurred"}
        if line.startswith("DELETE /v3/workspaces/"):
            if state["busy"]:
                state["busy"] -= 1
                wid = workspace_of(request)
                return 409, {
                    "detail": f"Cannot delete workspace '{wid}': active session(s) remain. "
                    "Delete all sessions first."
                }
            return 202, {"message": "Workspace deletion accepted"}
        return 500, {"detail": f"unexpected {line}"}

    return answer


def lines(server: RawServer, wid: str) -> list[str]:
    return [r.request_line.replace(wid, "W").removesuffix(" HTTP/1.1") for r in server.requests]


def test_body_exception_cleans_sessions_then_workspace() -> None:
    with (
        RawServer(routed(honcho(sessions=["s1", "s2"]), 6)) as server,
        pytest.raises(ValueError, match="boom") as info,
        scratch_workspace(server.url, "rt", read_timeout=READ_TIMEOUT) as client,
    ):
        wid = client.workspace
        raise ValueError("boom")
    assert re.fullmatch(r"rt-\d{8}-\d{6}-[0-9a-f]{8}", wid)
    assert lines(server, wid) == [
        "POST /v3/workspaces/list?page=1&size=1&reverse=false",
        "POST /v3/workspaces",
        "POST /v3/workspaces/W/sessions/list?page=1&size=100&reverse=false",
        "DELETE /v3/workspaces/W/sessions/s1",
        "DELETE /v3/workspaces/W/sessions/s2",
        "DELETE /v3/workspaces/W",
    ]
    assert server.requests[0].json == {"filters": {"id": wid}}
    assert server.requests[1].json == {"id": wid}
    assert not getattr(info.value, "__notes__", None)  # nothing was left behind


@pytest.mark.skipif(not hasattr(time, "tzset"), reason="needs time.tzset to set a local zone")
def test_the_ids_stamp_is_utc_whatever_the_local_zone() -> None:
    """The stamp sorts runs by when they started on any machine: UTC, not local time."""
    zone = os.environ.get("TZ")
    os.environ["TZ"] = "IST-5:30"  # five and a half hours east of UTC
    time.tzset()
    try:
        before = datetime.now(UTC).replace(microsecond=0, tzinfo=None)
        with (
            RawServer(routed(honcho(), 4)) as server,
            scratch_workspace(server.url, "rt", read_timeout=READ_TIMEOUT) as client,
        ):
            pass
        after = datetime.now(UTC).replace(tzinfo=None)
    finally:
        if zone is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = zone
        time.tzset()
    stamp = datetime.strptime(client.workspace.split("-", 1)[1][:15], "%Y%m%d-%H%M%S")
    assert before <= stamp <= after


def test_a_prefix_that_cannot_make_an_id_is_refused_before_any_request() -> None:
    with (
        pytest.raises(roncho.ConfigError, match=r"^scratch workspace id must be 1 to 512 "),
        scratch_workspace("http://127.0.0.1:9", "no spaces"),
    ):
        pytest.fail("the body must not run")


def test_clean_exit_deletes_the_workspace_and_closes_the_client() -> None:
    with (
        RawServer(routed(honcho(), 4)) as server,
        scratch_workspace(server.url, api_key="k3y", read_timeout=READ_TIMEOUT) as client,
    ):
        pass
    assert lines(server, client.workspace)[-1] == "DELETE /v3/workspaces/W"
    assert client.closed
    assert client._key is not None and set(client._key) == {0}


def test_body_closing_its_client_does_not_stop_cleanup() -> None:
    with (
        RawServer(routed(honcho(sessions=["s1"]), 5)) as server,
        scratch_workspace(server.url, api_key="k3y", read_timeout=READ_TIMEOUT) as client,
    ):
        client.close()  # as ``with client:`` inside the body would
    assert lines(server, client.workspace)[-2:] == [
        "DELETE /v3/workspaces/W/sessions/s1",
        "DELETE /v3/workspaces/W",
    ]
    assert server.requests[-1].headers["authorization"] == "Bearer k3y"


def test_refuses_a_workspace_that_answered_200() -> None:
    with (
        RawServer(routed(honcho(created=False), 4)) as server,
        pytest.raises(RonchoError, match="already existed") as info,
        scratch_workspace(server.url, read_timeout=READ_TIMEOUT),
    ):
        pytest.fail("the body must not run")
    assert info.value.request_sent is True
    assert [r.request_line.split()[0] for r in server.requests] == ["POST", "POST"]
    assert server.connections == 2  # no delete of what it did not make


def test_refuses_a_workspace_the_list_shows() -> None:
    with (
        RawServer(routed(honcho(listed=True), 4)) as server,
        pytest.raises(RonchoError, match="already exists"),
        scratch_workspace(server.url, read_timeout=READ_TIMEOUT),
    ):
        pytest.fail("the body must not run")
    assert server.connections == 1
    assert server.requests[0].request_line.startswith("POST /v3/workspaces/list?")


def test_a_key_that_cannot_list_still_gets_a_scratch_workspace() -> None:
    """A workspace key gets 401 on the admin-only list; the 201 check still guards."""
    with (
        RawServer(routed(honcho(list_status=401), 4)) as server,
        scratch_workspace(server.url, api_key="wskey", read_timeout=READ_TIMEOUT),
    ):
        pass
    assert [r.request_line.split()[0] for r in server.requests] == [
        "POST",
        "POST",
        "POST",
        "DELETE",
    ]


def test_workspace_delete_409_is_retried_within_its_bound() -> None:
    sleeps: list[float] = []
    with (
        RawServer(routed(honcho(busy=2), 10)) as server,
        scratch_workspace(
            server.url, read_timeout=READ_TIMEOUT, cleanup_wait=5.0, sleep=sleeps.append
        ) as client,
    ):
        pass
    got = lines(server, client.workspace)
    assert got.count("DELETE /v3/workspaces/W") == 3
    assert got[-1] == "DELETE /v3/workspaces/W"
    assert sleeps == [roncho._scratch._POLL] * 2


def test_workspace_busy_past_the_bound_is_reported() -> None:
    """The body succeeded, so the leftover is a ScratchCleanupError naming it."""
    sleeps: list[float] = []
    with (
        RawServer(routed(honcho(busy=100), 30)) as server,
        pytest.raises(ScratchCleanupError) as info,
        scratch_workspace(
            server.url, read_timeout=READ_TIMEOUT, cleanup_wait=1.0, sleep=sleeps.append
        ) as client,
    ):
        pass
    wid = client.workspace
    assert info.value.leftovers == [f"workspace {wid!r} (active sessions remain)"]
    assert wid in str(info.value) and "by hand" in str(info.value)
    # 1.0 s of 0.25 s polls: bounded by the sleeps asked for, whatever the clock says.
    assert len(sleeps) == 4
    assert lines(server, wid).count("DELETE /v3/workspaces/W") == 5


def test_workspace_already_gone_counts_as_cleaned() -> None:
    """A second delete answers 202 for a while, then 404: gone is what cleanup wants."""
    base = honcho()

    def answer(request: Request) -> tuple[int, Any]:
        if request.request_line.startswith("DELETE /v3/workspaces/"):
            return 404, {"detail": f"Workspace {workspace_of(request)} not found"}
        return base(request)

    with (
        RawServer(routed(answer, 4)) as server,
        scratch_workspace(server.url, read_timeout=READ_TIMEOUT) as client,
    ):
        pass
    assert lines(server, client.workspace)[-1] == "DELETE /v3/workspaces/W"


def test_workspace_delete_failing_otherwise_is_reported_with_its_status() -> None:
    base = honcho()

    def answer(request: Request) -> tuple[int, Any]:
        if request.request_line.startswith("DELETE /v3/workspaces/"):
            return 500, {"detail": "An unexpected error occurred"}
        return base(request)

    with (
        RawServer(routed(answer, 4)) as server,
        pytest.raises(ScratchCleanupError) as info,
        scratch_workspace(server.url, read_timeout=READ_TIMEOUT) as client,
    ):
        pass
    assert info.value.leftovers == [f"workspace {client.workspace!r} (500)"]
    assert server.connections == 4  # a 500 is not retried


WORKSPACE_DELETE = re.compile(r"DELETE /v3/workspaces/[^/ ]+ ")


@pytest.mark.parametrize(
    ("session_delete", "workspace_delete", "left"),
    [
        # A session already gone (404) is not left over; the busy workspace is.
        (404, 409, ["workspace W (active sessions remain)"]),
        # A session delete or a workspace delete without an answer names the error's kind.
        (0, 409, ["session 's1' (ProtocolError)", "workspace W (active sessions remain)"]),
        (202, 0, ["workspace W (ProtocolError)"]),
    ],
)
def test_cleanup_names_each_leftover_and_why(
    session_delete: int, workspace_delete: int, left: list[str]
) -> None:
    base = honcho(sessions=["s1"], busy=100, session_delete_status=session_delete)

    def answer(request: Request) -> tuple[int, Any]:
        if workspace_delete == 0 and WORKSPACE_DELETE.match(request.request_line):
            return 0, None
        return base(request)

    with (
        RawServer(routed(answer, 12)) as server,
        pytest.raises(ScratchCleanupError) as info,
        scratch_workspace(
            server.url, read_timeout=READ_TIMEOUT, cleanup_wait=0.25, sleep=lambda _: None
        ) as client,
    ):
        pass
    wid = repr(client.workspace)
    assert info.value.leftovers == [item.replace("W", wid) for item in left]
    assert info.value.request_sent is True  # the deletes were sent: what remains is known


def test_cleanup_gives_up_when_the_clock_reaches_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """cleanup_wait is kept on the monotonic clock too: a delete refused when the clock
    reads exactly the bound is the last one, even with sleeps left to ask for."""
    readings = iter([100.0])  # the start; every later reading is the bound, 101.0

    class Clock:
        @staticmethod
        def monotonic() -> float:
            return next(readings, 101.0)

    monkeypatch.setattr(roncho._scratch, "time", Clock)
    sleeps: list[float] = []
    with (
        RawServer(routed(honcho(busy=100), 10)) as server,
        pytest.raises(ScratchCleanupError),
        scratch_workspace(
            server.url, read_timeout=READ_TIMEOUT, cleanup_wait=1.0, sleep=sleeps.append
        ) as client,
    ):
        pass
    assert sleeps == []
    assert lines(server, client.workspace).count("DELETE /v3/workspaces/W") == 1


def test_leftovers_become_a_note_on_the_body_exception() -> None:
    with (
        RawServer(routed(honcho(sessions=["s1"], busy=100, session_delete_status=500), 30)) as s,
        pytest.raises(KeyError) as info,
        scratch_workspace(
            s.url, read_timeout=READ_TIMEOUT, cleanup_wait=0.25, sleep=lambda _: None
        ),
    ):
        raise KeyError("body failed")
    notes = info.value.__notes__
    assert len(notes) == 1
    assert "session 's1' (500)" in notes[0] and "active sessions remain" in notes[0]


def test_a_lost_create_answer_notes_the_possible_workspace() -> None:
    def handler(conn: Conn) -> None:
        conn.read_request()
        conn.send(response_bytes(200, page([])))

    def no_answer(conn: Conn) -> None:
        conn.read_request()  # and close without a word

    with (
        RawServer([handler, no_answer]) as server,
        pytest.raises(roncho.ProtocolError) as info,
        scratch_workspace(server.url, read_timeout=READ_TIMEOUT),
    ):
        pytest.fail("the body must not run")
    wid = server.requests[1].json["id"]
    assert any(wid in note and "may have been created" in note for note in info.value.__notes__)


# -- against the emulator -------------------------------------------------------------------
def test_emulator_scratch_removes_everything_after_a_failing_body() -> None:
    from roncho.testing import FakeHoncho

    with FakeHoncho(purge_delay=0.0) as fake:
        try:
            with scratch_workspace(fake.url, read_timeout=READ_TIMEOUT, sleep=lambda _: None) as c:
                c.add_messages("s1", [roncho.MessageCreate("alice", "hi")])
                c.get_or_create_session("s2", peers={"bob": None})
                raise RuntimeError("body failed")
        except RuntimeError as exc:
            assert not getattr(exc, "__notes__", None)
        else:
            pytest.fail("the body's error must come out")
        admin = roncho.Client(fake.url, "observer", read_timeout=READ_TIMEOUT)
        # The emulator purges on its deriver thread, even with purge_delay 0: a list made at
        # once may still see the workspace, so look again for a bounded while.
        give_up = time.monotonic() + SERVER_WAIT
        while True:
            names = [w.id for w in admin.list_workspaces(filters={"id": c.workspace}).items]
            if c.workspace not in names or time.monotonic() > give_up:
                break
            time.sleep(0.01)
        deletes = [r.path for r in fake.requests if r.method == "DELETE"]
    assert c.workspace not in names
    assert sorted(deletes[:2]) == [
        f"/v3/workspaces/{c.workspace}/sessions/s1",
        f"/v3/workspaces/{c.workspace}/sessions/s2",
    ]
    assert deletes[-1] == f"/v3/workspaces/{c.workspace}"


def test_emulator_scratch_never_touches_an_existing_workspace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from roncho.testing import FakeHoncho

    with FakeHoncho() as fake:
        owner = roncho.Client(fake.url, "taken-ws", read_timeout=READ_TIMEOUT)
        owner.get_or_create_session("keep", peers={"alice": None})
        monkeypatch.setattr(roncho._scratch, "scratch_id", lambda prefix="": "taken-ws")
        before = len(fake.requests)
        with (
            pytest.raises(RonchoError, match="already exists"),
            scratch_workspace(fake.url, read_timeout=READ_TIMEOUT),
        ):
            pytest.fail("the body must not run")
        after = fake.requests[before:]
        assert [s.id for s in owner.list_sessions().items] == ["keep"]
    assert [(r.method, r.path) for r in after] == [("POST", "/v3/workspaces/list")]
    assert after[0].json == {"filters": {"id": "taken-ws"}}
