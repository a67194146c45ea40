"""Connecting: each resolved address in turn, connect_timeout per address, errors told apart.

The resolver is patched (``roncho._network.resolve``) to hand out loopback addresses in a
chosen order; "unreachable" is a refusing loopback port, a real full-backlog listener (when
this kernel drops SYNs for it), or a client given sockets whose connect() waits out its
timeout (tests/seams.py, through the connection seam).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from rawserver import SERVER_WAIT, RawServer, RefusingPort, reply
from seams import blackholed, client_class

import roncho
from roncho import ConnectError, ConnectTimeout, DeadlineExceeded

KEY = "KEY-must-not-leak-1234"
CONNECT_TIMEOUT = 0.3
READ_TIMEOUT = 5.0
DEADLINE = 0.2
# How long the probe of a full-backlog listener may wait before calling it blackholed.
BACKLOG_PROBE = 0.3
# A name the patched resolver answers for; .invalid never resolves for real (RFC 2606).
HOST = "honcho.invalid"


def entry(host: str, port: int) -> tuple[Any, ...]:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    address: tuple[Any, ...] = (host, port, 0, 0) if family == socket.AF_INET6 else (host, port)
    return (family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", address)


def resolve_to(monkeypatch: pytest.MonkeyPatch, *entries: tuple[Any, ...]) -> list[str]:
    """Patch the resolver; returns the list of names it was asked for."""
    asked: list[str] = []

    def fake(host: str, port: int) -> list[tuple[Any, ...]]:
        asked.append(host)
        return list(entries)

    monkeypatch.setattr(roncho._network, "resolve", fake)
    return asked


def client(
    url: str = f"http://{HOST}:8000", kind: type[roncho.Client] | None = None, **options: Any
) -> roncho.Client:
    settings: dict[str, Any] = {
        "api_key": KEY,
        "connect_timeout": CONNECT_TIMEOUT,
        "read_timeout": READ_TIMEOUT,
        **options,
    }
    return (kind or roncho.Client)(url, "w", **settings)


class Blackhole:
    """A client class whose connect() to these ports waits out its timeout and fails;
    others connect normally. ``attempts``: the addresses connect() was called with."""

    def __init__(self, *ports: int) -> None:
        self.attempts: list[tuple[Any, ...]] = []
        self.kind = client_class(blackholed(*ports, attempts=self.attempts))

    def client(self, **options: Any) -> roncho.Client:
        return client(kind=self.kind, **options)


@pytest.fixture
def refusing() -> Iterator[RefusingPort]:
    with RefusingPort() as port:
        yield port


def test_connect_skips_a_refused_first_address(
    monkeypatch: pytest.MonkeyPatch, refusing: RefusingPort
) -> None:
    with RawServer([reply(200, {"status": "ok"})]) as server:
        asked = resolve_to(
            monkeypatch, entry("127.0.0.1", refusing.port), entry("127.0.0.1", server.port)
        )
        assert client().probe().ok
    assert asked == [HOST]
    assert server.connections == 1
    # The Host header names what the caller configured, not the address used.
    assert server.requests[0].headers["host"] == f"{HOST}:8000"


def test_connect_skips_a_blackholed_first_address(
    monkeypatch: pytest.MonkeyPatch, refusing: RefusingPort
) -> None:
    """connect_timeout is per address: the first one's timeout does not fail the call."""
    with RawServer([reply(200, {"status": "ok"})]) as server:
        resolve_to(monkeypatch, entry("127.0.0.1", refusing.port), entry("127.0.0.1", server.port))
        hole = Blackhole(refusing.port)
        assert hole.client().probe().ok
    assert [a[1] for a in hole.attempts] == [refusing.port, server.port]


@pytest.mark.blocking_only("the asyncio client connects a non-blocking socket under its own wait")
def test_with_options_connect_timeout_is_what_each_connect_is_given() -> None:
    """A copy's connect_timeout reaches its connects; the original keeps its own."""
    given: list[float | None] = []

    class Recording(socket.socket):
        def connect(self, address: Any) -> None:
            given.append(self.gettimeout())
            super().connect(address)

    ok = reply(200, {"status": "ok"})
    with RawServer([ok, ok]) as server:
        base = client(server.url, kind=client_class(Recording), connect_timeout=4.0)
        assert base.with_options(connect_timeout=0.75).probe().ok
        assert base.probe().ok
    assert given == [0.75, 4.0]


def test_connect_all_addresses_refused(
    monkeypatch: pytest.MonkeyPatch, refusing: RefusingPort
) -> None:
    with RefusingPort() as other:
        resolve_to(monkeypatch, entry("127.0.0.1", refusing.port), entry("127.0.0.1", other.port))
        with pytest.raises(ConnectError) as caught:
            client().probe()
    assert type(caught.value) is ConnectError
    assert caught.value.request_sent is False
    message = str(caught.value)
    assert f"127.0.0.1:{refusing.port}" in message and f"127.0.0.1:{other.port}" in message
    assert KEY not in message


def test_connect_every_address_times_out_is_connect_timeout(
    monkeypatch: pytest.MonkeyPatch, refusing: RefusingPort
) -> None:
    resolve_to(monkeypatch, entry("127.0.0.1", refusing.port), entry("127.0.0.1", refusing.port))
    hole = Blackhole(refusing.port)
    with pytest.raises(ConnectTimeout) as caught:
        hole.client().probe()
    assert len(hole.attempts) == 2, "each address gets its own connect_timeout"
    assert caught.value.request_sent is False
    assert isinstance(caught.value, ConnectError) and isinstance(caught.value, roncho.Timeout)
    each = f"127.0.0.1:{refusing.port}: timed out after {CONNECT_TIMEOUT} s"
    assert str(caught.value) == f"GET /health: cannot connect to {HOST}:8000 ({each}; {each})"


def test_connect_refused_and_timed_out_mixed_is_connect_error(
    monkeypatch: pytest.MonkeyPatch, refusing: RefusingPort
) -> None:
    """Only a call where every address timed out is a ConnectTimeout."""
    with RefusingPort() as slow:
        resolve_to(monkeypatch, entry("127.0.0.1", slow.port), entry("127.0.0.1", refusing.port))
        hole = Blackhole(slow.port)
        with pytest.raises(ConnectError) as caught:
            hole.client().probe()
    assert type(caught.value) is ConnectError
    assert "timed out" in str(caught.value)


def test_connect_deadline_binds_before_connect_timeout(
    monkeypatch: pytest.MonkeyPatch, refusing: RefusingPort
) -> None:
    """The connect is given what is left of the deadline, not the longer connect_timeout:
    read from the bound each address's connect is handed (both clients take it from
    Attempts.each), with no clock in the test."""
    bounds: list[float] = []
    each = roncho._network.Attempts.each

    def recorded(self: Any, addresses: list[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
        for attempt in each(self, addresses):
            bounds.append(attempt[-1])
            yield attempt

    monkeypatch.setattr(roncho._network.Attempts, "each", recorded)
    resolve_to(monkeypatch, entry("127.0.0.1", refusing.port))
    hole = Blackhole(refusing.port)
    with pytest.raises(DeadlineExceeded) as caught:
        hole.client(connect_timeout=SERVER_WAIT).probe(deadline=DEADLINE)
    assert len(bounds) == 1 and 0 < bounds[0] <= DEADLINE, bounds
    assert caught.value.request_sent is False


def test_a_deadline_that_passes_while_resolving_names_the_call(
    monkeypatch: pytest.MonkeyPatch, refusing: RefusingPort
) -> None:
    """A slow resolver uses up the deadline before the first connect: the error is the one
    any deadline gives while connecting (naming the call), not the clock's bare text."""

    def slow(host: str, port: int) -> list[tuple[Any, ...]]:
        time.sleep(DEADLINE * 1.5)
        return [entry("127.0.0.1", refusing.port)]

    monkeypatch.setattr(roncho._network, "resolve", slow)
    with pytest.raises(DeadlineExceeded) as caught:
        client().probe(deadline=DEADLINE)
    assert caught.value.request_sent is False
    assert str(caught.value) == (
        f"GET /health: the call's deadline of {DEADLINE} s passed while connecting"
    )


def test_connect_name_not_resolved(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(host: str, port: int) -> list[tuple[Any, ...]]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(roncho._network, "resolve", fail)
    with pytest.raises(ConnectError) as caught:
        client().probe()
    assert type(caught.value) is ConnectError
    assert caught.value.request_sent is False
    assert HOST in str(caught.value) and "Name or service not known" in str(caught.value)


def test_connect_name_resolves_to_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    resolve_to(monkeypatch)
    with pytest.raises(ConnectError) as caught:
        client().probe()
    assert type(caught.value) is ConnectError
    assert caught.value.request_sent is False


def _ipv6_loopback() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_connect_ipv6_loopback_literal() -> None:
    with RawServer([reply(200, {"status": "ok"})], host="::1") as server:
        assert client(server.url).probe().ok
    assert server.requests[0].headers["host"] == f"[::1]:{server.port}"


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_connect_falls_back_from_ipv6_to_ipv4(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name giving ::1 first (nothing listening there) and 127.0.0.1 second still works."""
    with RefusingPort(host="::1") as v6, RawServer([reply(200, {"status": "ok"})]) as server:
        resolve_to(monkeypatch, entry("::1", v6.port), entry("127.0.0.1", server.port))
        assert client().probe().ok


def _full_backlog_listener() -> tuple[socket.socket, list[socket.socket]] | None:
    """A listener whose accept queue is full, if this kernel then drops new SYNs."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    fillers: list[socket.socket] = []
    for _ in range(8):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.settimeout(BACKLOG_PROBE)
        fillers.append(sock)
        try:
            sock.connect(listener.getsockname())
        except TimeoutError:
            return listener, fillers  # this SYN went unanswered: the listener blackholes
    for sock in fillers:
        sock.close()
    listener.close()
    return None


def test_connect_to_full_backlog_listener_times_out() -> None:
    """The real socket-level blackhole (no patching), where the kernel provides one."""
    found = _full_backlog_listener()
    if found is None:
        pytest.skip("this kernel completes handshakes for a full-backlog listener")
    listener, fillers = found
    try:
        port = listener.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(ConnectTimeout) as caught:
            client(f"http://127.0.0.1:{port}").probe()
        assert time.monotonic() - started < SERVER_WAIT
        assert caught.value.request_sent is False
    finally:
        for sock in fillers:
            sock.close()
        listener.close()
