"""The live suite's fixtures: one scratch workspace per target, recorded at one seam.

Every test here runs once per *target*:

- ``live``: the server named by ``RONCHO_LIVE_URL`` (with ``RONCHO_LIVE_KEY`` when it has
  authentication on). Skipped, with the reason, when the URL is not set. These two
  variables, and ``RONCHO_LIVE_WEBHOOK_SECRET`` (the secret the server signs webhook
  deliveries with; test_live_webhooks.py), are the only environment this suite reads;
  roncho itself reads none.
- ``emulator``: an in-process ``roncho.testing.FakeHoncho`` (auth off, workspace chat on).
- ``emulator-auth``: a FakeHoncho with authentication on, driven with its admin key, and
  without workspace chat (as a 3.0.x server), so both chat branches run in CI.

``--live-target NAME`` (repeatable) picks targets. ``--record DIR`` writes each target's
observations to ``DIR/<YYYY-MM-DD>-<label>.json`` (label: the target name for the emulator,
``--server-label``, default ``live``, for a real server, whose host is never written;
``--server-note`` says in the file what that server was).

Per target the suite makes ONE workspace through ``roncho.scratch_workspace`` (plus, only
when the key is an admin key, a second scratch workspace for the key-reach checks) and
deletes its session and then the workspace at the end, also when a test failed.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from both_clients import BlockingAsync, Loop
from live_data import (
    ASSISTANT,
    CONNECT_TIMEOUT,
    READ_TIMEOUT,
    SESSION_PREFIX,
    TURNS,
    USER,
    Target,
    World,
)
from live_recorder import Recorder, check_label

import roncho
from roncho.testing import FakeHoncho

LIVE_URL_ENV = "RONCHO_LIVE_URL"
LIVE_KEY_ENV = "RONCHO_LIVE_KEY"
TARGETS = ("live", "emulator", "emulator-auth")
CLIENT_KINDS = ("blocking", "asyncio")
# The emulator as the suite drives it: the deriver releases work at once (as the loopback
# 3.0.12 server of reference §7 was set up), deletes purge quickly.
# Webhooks are signed with test_live_webhooks.EMULATOR_SECRET.
_WEBHOOKS = {"webhook_secret": "roncho-live-emulator-webhook-secret"}
EMULATOR_OPTIONS: dict[str, dict[str, Any]] = {
    "emulator": {
        "auth": False, "flush": True, "purge_delay": 0.2, "workspace_chat": True, **_WEBHOOKS
    },
    "emulator-auth": {
        "auth": True, "flush": True, "purge_delay": 0.2, "workspace_chat": False, **_WEBHOOKS
    },
}  # fmt: skip
SKIP_NO_URL = f"real-server variant: {LIVE_URL_ENV} is not set (the emulator variants ran)"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("roncho-live", "roncho live suite (tests/live)")
    group.addoption(
        "--record",
        metavar="DIR",
        default=None,
        help="write each target's observations to DIR/<YYYY-MM-DD>-<label>.json",
    )
    group.addoption(
        "--server-label",
        default="live",
        help="label that replaces a real server's host in recorded files (default: live)",
    )
    group.addoption(
        "--server-note",
        default="",
        help="what the real server was (build, LLM, deriver settings), kept in recorded files",
    )
    group.addoption(
        "--live-target",
        action="append",
        choices=TARGETS,
        default=None,
        help="run only these targets (repeatable; default: all three)",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "target" in metafunc.fixturenames:
        chosen = metafunc.config.getoption("--live-target", default=None) or list(TARGETS)
        metafunc.parametrize("target", chosen, indirect=True, scope="session")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).parent == here:
            item.add_marker(pytest.mark.live)


@pytest.fixture(scope="session")
def target(request: pytest.FixtureRequest) -> Iterator[Target]:
    name = request.param
    if name == "live":
        url = os.environ.get(LIVE_URL_ENV, "").strip()
        if not url:
            pytest.skip(SKIP_NO_URL)
        key = os.environ.get(LIVE_KEY_ENV) or None
        label = check_label(request.config.getoption("--server-label", default="live"))
        yield Target(name=name, kind="live", url=url, key=key, label=label, auth=None)
        return
    options = EMULATOR_OPTIONS[name]
    with FakeHoncho(**options) as fake:
        yield Target(
            name=name,
            kind="emulator",
            url=fake.url,
            key=fake.admin_key if options["auth"] else None,
            label=name,
            auth=options["auth"],
            fake=fake,
            options=dict(options),
        )


@pytest.fixture(scope="session", params=CLIENT_KINDS)
def client_kind(request: pytest.FixtureRequest) -> Iterator[type[Any]]:
    """Every live test runs for both clients. For "asyncio" this is the blocking facade
    over ``roncho.aio.AsyncClient`` (tests/both_clients.py), which stands in for
    ``roncho.Client`` in the tests that use the scratch workspace (``_as_client_kind``), so
    the same test code drives the async client against the same server."""
    if request.param == "blocking":
        yield roncho.Client
        return
    loop = Loop()
    try:
        yield BlockingAsync.on_loop(loop)
    finally:
        loop.close()


@pytest.fixture(autouse=True)
def _as_client_kind(request: pytest.FixtureRequest) -> Iterator[None]:
    """Only tests of a target get the facade; the recorder's own tests see roncho.Client."""
    if "client_kind" not in request.fixturenames:
        yield
        return
    kind = request.getfixturevalue("client_kind")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(roncho, "Client", kind)
        yield


@pytest.fixture(scope="session")
def recorder(
    target: Target, client_kind: type[Any], request: pytest.FixtureRequest
) -> Iterator[Recorder]:
    """Records every call of this target; writes the file after the workspace is gone."""
    rec = Recorder()
    with rec.install():
        probe = target.client("roncho-probe")
        try:
            probe.probe()
            rec.version = probe.server_version()
        finally:
            probe.close()
        rec.health = rec.last("probe").response  # the raw answer, e.g. {"status": "ok"}
        yield rec
    directory = request.config.getoption("--record", default=None)
    if directory:
        extra: dict[str, Any] = {"target": target.name}
        if target.kind == "emulator":
            extra["emulator_options"] = target.options
            extra["note"] = "roncho.testing.FakeHoncho: an emulator, not evidence about Honcho"
        elif request.config.getoption("--server-note", default=""):
            extra["note"] = request.config.getoption("--server-note")
        document = rec.observation(
            label=target.label,
            base_url=target.url,
            kind=target.kind,
            health=rec.health,
            version=rec.version,
            extra=extra,
        )
        if client_kind is roncho.Client:  # one file per target: the async run shows the same
            rec.write(Path(directory), document)


@pytest.fixture(scope="session")
def scratch(target: Target, recorder: Recorder, client_kind: type[Any]) -> Iterator[roncho.Client]:
    """The run's one scratch workspace; removed afterwards (sessions first), even on failure.

    It is made and removed by the blocking client (scratch_workspace); with the "asyncio"
    kind the tests drive it through an AsyncClient for the same workspace and key."""
    with ExitStack() as stack:
        try:
            client = stack.enter_context(
                roncho.scratch_workspace(
                    target.url,
                    "roncho-live",
                    api_key=target.key,
                    connect_timeout=CONNECT_TIMEOUT,
                    read_timeout=READ_TIMEOUT,
                )
            )
        except roncho.UnauthorizedError as exc:
            pytest.fail(
                f"the server refused to create a scratch workspace ({exc.status}): the live "
                f"suite needs an admin key in {LIVE_KEY_ENV} when authentication is on"
            )
        recorder.name(client.workspace, "{workspace}")
        if client_kind is roncho.Client:
            yield client
        else:
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(roncho, "Client", client_kind)
                driver = target.client(client.workspace)
            stack.callback(driver.close)
            yield driver
        # scratch_workspace's exit deletes every active session, then the workspace; its
        # calls are recorded too. A failed cleanup raises ScratchCleanupError here.


@pytest.fixture(scope="session")
def world(scratch: roncho.Client, recorder: Recorder) -> Iterator[World]:
    """Peers, a session and a synced conversation, as memoryd would make them."""
    session = f"{SESSION_PREFIX}-{secrets.token_hex(4)}"
    recorder.name(USER, "{user_peer}")
    recorder.name(ASSISTANT, "{assistant_peer}")
    recorder.name(session, "{session}")
    w = World(client=scratch, session=session)
    scratch.get_or_create_peer(
        USER, metadata={"kind": "human", "source": "memoryd"}, configuration={"observe_me": True}
    )
    w.raw["peer_created"] = recorder.last("get_or_create_peer")
    scratch.get_or_create_peer(
        ASSISTANT,
        metadata={"kind": "agent", "source": "memoryd"},
        configuration={"observe_me": False},
    )
    scratch.get_or_create_session(
        session,
        peers={
            USER: {"observe_me": True, "observe_others": False},
            ASSISTANT: {"observe_me": False, "observe_others": True},
        },
        metadata={"source": "memoryd", "channel": "cli"},
    )
    w.raw["session_created"] = recorder.last("get_or_create_session")
    w.messages = scratch.add_messages(
        session,
        [
            roncho.MessageCreate(peer_id=speaker, content=content, metadata=metadata)
            for speaker, content, metadata in TURNS
        ],
    )
    w.raw["messages_added"] = recorder.last("add_messages")
    for message in w.messages:
        recorder.name(message.id, "{message}")
    yield w
    # The session first (O6), then scratch_workspace removes the workspace (O7).
    try:
        accepted = scratch.delete_session(session)
        recorder.note("teardown_session_delete", {"message_present": accepted.message is not None})
    except roncho.StatusError as exc:
        if exc.status != 404:  # a test may already have deleted it
            raise


@pytest.fixture(scope="session")
def auth_on(target: Target, scratch: roncho.Client, recorder: Recorder) -> bool:
    """Whether the server wants a key: known for the emulator, probed on a real server
    by a read of the scratch workspace without a key (nothing is written)."""
    if target.auth is None:
        anonymous = target.client(scratch.workspace, api_key=None)
        try:
            anonymous.list_sessions(size=1)
            target.auth = False
        except roncho.UnauthorizedError:
            target.auth = True
        finally:
            anonymous.close()
    recorder.note("auth", "on" if target.auth else "off")
    return bool(target.auth)
