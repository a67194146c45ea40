"""Server mode, driven from another process: `python -m roncho.testing` / `fake-honcho`.

Each test starts the emulator as a subprocess on a free loopback port, reads its ready line,
talks to it with a raw http.client, and stops it with a signal. Every wait is bounded: the
ready line, each request (socket timeout) and the exit.
"""

from __future__ import annotations

import http.client
import json
import os
import selectors
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from emu_http import Api, wait_for

# Upper bound for the emulator to start (a loaded 2-core machine imports slowly) and to stop.
START_TIMEOUT = 20.0
STOP_TIMEOUT = 10.0


def _read_line(proc: subprocess.Popen[bytes], timeout: float) -> bytes:
    """One line from the child's stdout, or AssertionError after `timeout` seconds."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    data = b""
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while not data.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                raise AssertionError(f"no ready line within {timeout}s (got {data!r})")
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                return data  # the child closed stdout (it exited)
            data += chunk
    return data


class Served:
    """A running `python -m roncho.testing` child and what its ready line said."""

    def __init__(self, *flags: str, cwd: Path | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "roncho.testing", "--port", "0", *flags],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
        )
        try:
            line = _read_line(self.proc, START_TIMEOUT)
            self.ready: dict[str, Any] = json.loads(line)
        except BaseException:
            self.kill()
            raise
        self.port: int = self.ready["port"]

    def api(self, key: str | None = None) -> Api:
        return Api(self.port, key)

    def stop(self, signum: int = signal.SIGTERM) -> tuple[int, bytes, bytes]:
        """Send `signum`, wait for the exit; returns (status, rest of stdout, stderr)."""
        self.proc.send_signal(signum)
        try:
            out, err = self.proc.communicate(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("the emulator did not stop within the limit") from None
        return self.proc.returncode, out, err

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate(timeout=STOP_TIMEOUT)


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    """A server-mode emulator with the flags of `@pytest.mark.parametrize("served", [...])`."""
    flags = getattr(request, "param", ("--control",))
    server = Served(*flags)
    yield server
    server.kill()


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return True
    return False


def _run(*flags: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "roncho.testing", *flags],
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


def test_start_call_sigterm_writes_nothing(tmp_path: Path) -> None:
    server = Served(cwd=tmp_path)
    try:
        ready = server.ready
        assert ready["url"] == f"http://127.0.0.1:{server.port}"
        assert (ready["host"], ready["auth"], ready["control"]) == ("127.0.0.1", False, False)
        assert ready["pid"] == server.proc.pid
        assert "admin_key" not in ready
        api = server.api()
        assert api.get("/health").status == 200
        assert api.post("/v3/workspaces", {"id": "w"}).status == 201
        assert api.post("/v3/workspaces", {"id": "w"}).status == 200
        assert api.add_messages("w", "s", ("alice", "hello")).status == 201
        assert api.get("/_fake/requests").status == 404  # control is off by default
    finally:
        status, out, err = server.stop(signal.SIGTERM)
    assert (status, out, err) == (0, b"", b"")
    assert _refused(server.port)
    assert list(tmp_path.iterdir()) == []


def test_sigint_stops_cleanly() -> None:
    server = Served("--flush")
    assert server.api().get("/health").status == 200
    assert server.stop(signal.SIGINT) == (0, b"", b"")


@pytest.mark.parametrize(
    "served", [("--control", "--flush", "--deriver-delay", "0")], indirect=True
)
def test_control_surface_from_another_process(served: Served) -> None:
    api = served.api()
    # fail next with a status
    assert api.post("/_fake/faults/fail_next", {"status": 503}).status == 200
    assert api.get("/health").status == 503
    assert api.get("/health").status == 200
    # slow next
    assert api.post("/_fake/faults/slow_next", {"seconds": 0.3}).status == 200
    started = time.monotonic()
    assert api.get("/health").status == 200
    assert time.monotonic() - started >= 0.3
    # close mid-body
    assert api.post("/_fake/faults/close_mid_body_next").status == 200
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=5)
    try:
        conn.request("POST", "/v3/workspaces", body=json.dumps({"id": "w"}))
        with pytest.raises(http.client.IncompleteRead):
            conn.getresponse().read()
    finally:
        conn.close()
    # stall a stream
    assert api.post("/_fake/faults/stall_stream_next", {"seconds": 0.3}).status == 200
    started = time.monotonic()
    streamed = api.post("/v3/workspaces/w/peers/p/chat", {"query": "tea?", "stream": True})
    assert streamed.status == 200 and time.monotonic() - started >= 0.3
    # request log and deriver log
    assert api.add_messages("w", "s", ("alice", "I like tea")).status == 201
    paths = [entry["path"] for entry in api.get("/_fake/requests").json]
    assert paths == ["/health"] * 3 + ["/v3/workspaces", "/v3/workspaces/w/peers/p/chat"] + [
        "/v3/workspaces/w/sessions/s/messages"
    ]
    log = wait_for(lambda: api.get("/_fake/deriver").json, what="a deriver record")
    assert (log[0]["sender_id"], log[0]["gate"]) == ("alice", "flush")
    # reset
    assert api.post("/_fake/reset").status == 200
    assert api.post("/v3/workspaces/list", {}).json["items"] == []
    assert api.get("/_fake/deriver").json == []


def test_sigterm_does_not_wait_for_a_slowed_request() -> None:
    server = Served("--control")
    assert server.api().post("/_fake/faults/slow_next", {"seconds": 120}).status == 200
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=STOP_TIMEOUT)
    try:
        conn.request("GET", "/health")
        wait_for(lambda: _recorded(server.port), what="the slowed request to arrive")
        assert server.stop()[0] == 0  # stop() fails if it takes over STOP_TIMEOUT
    finally:
        conn.close()


def _recorded(port: int) -> bool:
    """Whether the emulator has received a request (it cannot be asked once it is stopped)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", "/_fake/requests")
        return bool(json.loads(conn.getresponse().read()))
    finally:
        conn.close()


@pytest.mark.parametrize("served", [("--auth", "--control")], indirect=True)
def test_auth_prints_the_admin_key_and_the_log_hides_it(served: Served) -> None:
    key = served.ready["admin_key"]
    assert served.ready["auth"] is True
    assert served.api().post("/v3/workspaces", {"id": "w"}).status == 401
    assert served.api(key).post("/v3/workspaces", {"id": "w"}).status == 201
    assert served.api().get("/_fake/requests").status == 401
    log = served.api(key).get("/_fake/requests")
    assert log.status == 200
    assert key not in log.body.decode()
    sent = [entry["headers"].get("Authorization") for entry in log.json]
    assert sent == [None, "[redacted]"]  # the request without a key, then the one with it


def test_key_file_gets_the_key_and_the_ready_line_does_not(tmp_path: Path) -> None:
    key_file = tmp_path / "admin.key"
    server = Served("--auth", "--key-file", str(key_file))
    try:
        assert server.ready["key_file"] == str(key_file)
        assert "admin_key" not in server.ready
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        key = key_file.read_text().strip()
        assert server.api(key).post("/v3/workspaces/list", {}).status == 200
        assert server.api().post("/v3/workspaces/list", {}).status == 401
    finally:
        assert server.stop()[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["admin.key"]


def test_unwritable_key_file_is_one_line_and_exit_1(tmp_path: Path) -> None:
    result = _run("--port", "0", "--auth", "--key-file", str(tmp_path / "no" / "such" / "key"))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("fake-honcho: error: cannot write --key-file")
    assert list(tmp_path.iterdir()) == []


def test_behaviour_flags_reach_the_emulator() -> None:
    server = Served(
        "--control",
        "--no-workspace-chat",
        "--batch-tokens=7",
        "--batch-max-age=3",
        "--deriver-delay=0.5",
        "--enqueue-delay=0.25",
        "--purge-delay=2",
        "--chat-delay=0.01",
        "--stream-chunk-delay=0.02",
    )
    try:
        api = server.api()
        options = api.get("/_fake/info").json["options"]
        assert options == {
            "auth": False,
            "deriver_delay": 0.5,
            "enqueue_delay": 0.25,
            "batch_tokens": 7,
            "batch_max_age": 3.0,
            "flush": False,
            "purge_delay": 2.0,
            "chat_delay": 0.01,
            "stream_chunk_delay": 0.02,
            "workspace_chat": False,
            "version": "3.2.0",
        } | {k: v for k, v in options.items() if k not in _CLI_OPTIONS}
        assert api.post("/v3/workspaces/w/chat", {"query": "q"}).status == 404
    finally:
        assert server.stop()[0] == 0


@pytest.mark.parametrize(
    ("flags", "version", "workspace_chat"),
    [
        ((), "3.2.0", 200),
        (("--honcho-version", "3.0.12"), "3.0.12", 404),
        (("--honcho-version=3.0.12", "--workspace-chat"), "3.0.12", 200),
    ],
)
def test_honcho_version(flags: tuple[str, ...], version: str, workspace_chat: int) -> None:
    server = Served("--control", *flags)
    try:
        assert server.ready["version"] == version
        api = server.api()
        assert api.get("/_fake/info").json["version"] == version
        assert api.post("/v3/workspaces/w/chat", {"query": "q"}).status == workspace_chat
    finally:
        assert server.stop()[0] == 0


# The Options fields the command line sets; fields added later are compared as they are.
_CLI_OPTIONS = {
    "auth",
    "deriver_delay",
    "enqueue_delay",
    "batch_tokens",
    "batch_max_age",
    "flush",
    "purge_delay",
    "chat_delay",
    "stream_chunk_delay",
    "workspace_chat",
    "version",
}


def test_port_in_use_is_one_line_and_exit_1() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _run("--port", str(port))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"fake-honcho: error: cannot listen on 127.0.0.1:{port}")


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--port", "http"], "--port"),
        (["--port", "70000"], "--port"),
        (["--deriver-delay", "-1"], "--deriver-delay"),
        (["--purge-delay", "nan"], "--purge-delay"),
        (["--batch-tokens", "1.5"], "--batch-tokens"),
        (["--no-such-flag"], "--no-such-flag"),
        (["--host", "0.0.0.0"], "--allow-remote"),
        (["--host", "::"], "--allow-remote"),
        (["--host", "honcho.example"], "--host"),
        (["--port"], "--port"),
        (["--honcho-version", "2.0"], "--honcho-version"),
    ],
)
def test_bad_flags_are_one_line_and_exit_2(flags: list[str], says: str) -> None:
    result = _run(*flags)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("fake-honcho: error: ")
    assert says in result.stderr


def test_help_lists_every_flag() -> None:
    result = _run("--help")
    assert result.returncode == 0
    for flag in (
        "--host",
        "--port",
        "--allow-remote",
        "--auth",
        "--key-file",
        "--honcho-version",
        "--workspace-chat",
        "--no-workspace-chat",
        "--flush",
        "--batch-tokens",
        "--batch-max-age",
        "--deriver-delay",
        "--enqueue-delay",
        "--purge-delay",
        "--chat-delay",
        "--stream-chunk-delay",
        "--control",
    ):
        assert flag in result.stdout


def test_ipv6_loopback(tmp_path: Path) -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("::1 cannot be bound here")
    server = Served("--host", "::1")
    try:
        assert server.ready["url"] == f"http://[::1]:{server.port}"
        conn = http.client.HTTPConnection("::1", server.port, timeout=5)
        try:
            conn.request("GET", "/health")
            assert conn.getresponse().status == 200
        finally:
            conn.close()
    finally:
        assert server.stop()[0] == 0


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "fake-honcho"
    if not script.exists():
        pytest.skip("fake-honcho is not installed next to this interpreter (pip install -e .)")
    result = subprocess.run(
        [str(script), "--port", "x"], capture_output=True, text=True, timeout=START_TIMEOUT
    )
    assert result.returncode == 2
    assert result.stderr.startswith("fake-honcho: error: argument --port")


def test_importing_the_main_module_starts_nothing() -> None:
    """Doc tools and pkgutil.walk_packages import every module; this one must only define."""
    import importlib

    module = importlib.import_module("roncho.testing.__main__")
    assert callable(module.main)
