"""roncho's pytest plugin (entry point `pytest11`), run the way a user's project would run it.

Each test writes a tiny test suite into a temporary directory and runs pytest on it in a
subprocess: only the installed entry point provides the fixtures (there is no conftest code).
The subprocess has a time limit, and the inner tests have their own socket timeouts.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import pytest

# Upper bound for one inner pytest run on a loaded machine.
RUN_TIMEOUT = 120.0
# The whole test's bound is the inner run's and then some: the suite's default (60 s) cut an
# inner run that was still within its own bound, with the test command's processes sharing
# the cores.
pytestmark = pytest.mark.timeout(RUN_TIMEOUT + 30)

USER_TESTS = """
import asyncio
import socket

import pytest
import roncho
from roncho.testing import FakeHoncho

seen = []


def test_fixture_gives_a_running_emulator(fake_honcho):
    assert isinstance(fake_honcho, FakeHoncho)
    client = roncho.Client(fake_honcho.url, "ws", connect_timeout=5, read_timeout=5)
    client.add_messages("s1", [roncho.MessageCreate("alice", "hi")])
    assert fake_honcho.requests[-1].path == "/v3/workspaces/ws/sessions/s1/messages"
    seen.append(fake_honcho)


def test_each_test_gets_a_fresh_one_and_the_last_is_closed(fake_honcho):
    assert seen and seen[0] is not fake_honcho
    assert "closed" in repr(seen[0])
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", seen[0].port), timeout=1).close()
    assert fake_honcho.requests == []


@pytest.mark.fake_honcho(auth=True, flush=True)
def test_marker_sets_options(fake_honcho):
    assert fake_honcho.options.auth and fake_honcho.options.flush
    anonymous = roncho.Client(fake_honcho.url, "ws", connect_timeout=5, read_timeout=5)
    with pytest.raises(roncho.UnauthorizedError):
        anonymous.get_or_create_workspace()
    admin = roncho.Client(
        fake_honcho.url, "ws", api_key=fake_honcho.admin_key, connect_timeout=5, read_timeout=5
    )
    admin.get_or_create_workspace()


def test_factory_makes_independent_emulators(fake_honcho_factory):
    first = fake_honcho_factory()
    second = fake_honcho_factory(workspace_chat=False, purge_delay=0.0)
    assert first.port != second.port
    assert second.options.workspace_chat is False
    roncho.Client(first.url, "ws", connect_timeout=5, read_timeout=5).get_or_create_workspace()
    assert len(first.requests) == 1 and second.requests == []
    seen.extend([first, second])


def test_factory_closed_what_it_made():
    assert all("closed" in repr(fake) for fake in seen[-2:])


def test_async_test_uses_the_sync_fixture(fake_honcho):
    async def scenario():
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", fake_honcho.port), 5
        )
        writer.write(b"GET /health HTTP/1.1\\r\\nHost: test\\r\\n\\r\\n")
        await writer.drain()
        status_line = await asyncio.wait_for(reader.readline(), 5)
        writer.close()
        await writer.wait_closed()
        client = roncho.Client(fake_honcho.url, "ws", connect_timeout=5, read_timeout=5)
        await asyncio.to_thread(
            client.add_messages, "s", [roncho.MessageCreate("alice", "from a coroutine")]
        )
        return status_line

    assert asyncio.run(scenario()).startswith(b"HTTP/1.1 200")
    assert fake_honcho.requests[-1].json["messages"][0]["content"] == "from a coroutine"
"""

OWN_CONFTEST = """
import pytest


@pytest.fixture
def fake_honcho():
    return "the project's own"
"""

OWN_TESTS = """
def test_own_fixture_wins(fake_honcho, fake_honcho_factory):
    assert fake_honcho == "the project's own"
    assert fake_honcho_factory().url.startswith("http://127.0.0.1:")
"""


def _pytest_in(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (directory / "pytest.ini").write_text("[pytest]\n")  # keep this project's config out
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )


def test_entry_point_is_registered() -> None:
    names = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    if "roncho" not in names:
        pytest.skip("roncho is not installed with its entry points (pip install -e .)")
    assert names["roncho"] == "roncho.pytest_plugin"


def test_fixtures_work_without_conftest(tmp_path: Path) -> None:
    (tmp_path / "test_user.py").write_text(textwrap.dedent(USER_TESTS))
    result = _pytest_in(tmp_path, "-W", "error::pytest.PytestUnknownMarkWarning")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "6 passed" in result.stdout


def test_a_projects_own_fixture_takes_precedence(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(OWN_CONFTEST)
    (tmp_path / "test_own.py").write_text(OWN_TESTS)
    result = _pytest_in(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_disabling_the_plugin_removes_the_fixtures(tmp_path: Path) -> None:
    (tmp_path / "test_user.py").write_text("def test_x(fake_honcho):\n    pass\n")
    result = _pytest_in(tmp_path, "-p", "no:roncho")
    assert result.returncode == 1
    assert "fixture 'fake_honcho' not found" in result.stdout


def test_plugin_import_leaves_the_emulator_unimported() -> None:
    probe = (
        "import sys, roncho.pytest_plugin; "
        "print(sorted(m for m in sys.modules if m.startswith('roncho.testing')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=RUN_TIMEOUT
    )
    assert (result.returncode, result.stdout.strip()) == (0, "[]"), result.stderr
