"""The Client object: immutable, copies that keep or replace the key, close() wipes it,
no key in repr or errors or a traceback's frames, not picklable, shareable by threads."""

from __future__ import annotations

import copy
import json
import pickle
import threading
import traceback
from pathlib import Path
from typing import Any

import pytest
from rawserver import SERVER_WAIT, Conn, RawServer, RefusingPort, reply, response_bytes

import roncho
from roncho import ConfigError, ReadOnlyError

WS = "w1"
KEY = "sk-Secret.Key_0123456789"
READ_TIMEOUT = 5.0  # seconds
STALL_TIMEOUT = 0.2  # seconds
THREADS = 8

PEER = {"id": "alice", "workspace_id": WS, "metadata": {}, "configuration": {}}
PAGE: dict[str, Any] = {"items": [], "total": 0, "page": 1, "size": 50, "pages": 0}


def test_client_is_immutable() -> None:
    client = roncho.Client("http://127.0.0.1:9", WS, api_key=KEY)
    for name in ("_key", "_workspace", "_read_only", "workspace", "anything"):
        with pytest.raises(AttributeError):
            setattr(client, name, None)
        with pytest.raises(AttributeError):
            delattr(client, name)
    assert client.workspace == WS and client.has_key and not client.read_only


def test_repr_and_str_show_no_key() -> None:
    client = roncho.Client("http://127.0.0.1:9/honcho", WS, api_key=KEY, read_only=True)
    for text in (repr(client), str(client), f"{client}", f"{client!r}"):
        assert KEY not in text and "Secret" not in text
        assert "w1" in text and "key=set" in text and "read_only" in text
    assert "key=none" in repr(roncho.Client("http://127.0.0.1:9", WS))


def test_client_is_not_picklable_or_copyable() -> None:
    client = roncho.Client("http://127.0.0.1:9", WS, api_key=KEY)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        with pytest.raises(TypeError) as info:
            pickle.dumps(client, protocol)
        assert KEY not in str(info.value)
    with pytest.raises(TypeError):
        copy.copy(client)
    with pytest.raises(TypeError):
        copy.deepcopy(client)


def test_close_wipes_the_key_and_refuses_later_calls() -> None:
    with RawServer([reply(200, {"status": "ok"})]) as server:
        client = roncho.Client(server.url, WS, api_key=KEY, read_timeout=READ_TIMEOUT)
        key_buffer = client._key
        assert key_buffer is not None and bytes(key_buffer) == KEY.encode()
        client.close()
        assert client.closed
        assert bytes(key_buffer) == bytes(len(KEY))  # overwritten in place, all zero
        with pytest.raises(ConfigError) as info:
            client.probe()
        assert info.value.request_sent is False
        for copy_call in (
            lambda: client.with_workspace("w2"),
            lambda: client.with_workspace("w2", api_key="other"),
            lambda: client.with_options(read_timeout=1),
        ):
            with pytest.raises(ConfigError):
                copy_call()
        client.close()  # twice is fine
    assert server.connections == 0


def test_client_as_context_manager_closes() -> None:
    with roncho.Client("http://127.0.0.1:9", WS, api_key=KEY) as client:
        buffer = client._key
    assert client.closed and buffer is not None and not any(buffer)


def test_with_workspace_keeps_a_copy_of_the_key_or_takes_a_new_one() -> None:
    answers = [reply(201, {**PEER}) for _ in range(4)]
    with RawServer(answers) as server:
        base = roncho.Client(server.url, WS, api_key=KEY, read_timeout=READ_TIMEOUT)
        same_key = base.with_workspace("w2")
        new_key = base.with_workspace("w3", api_key="other-key")
        no_key = base.with_workspace("w4", api_key=None)
        assert same_key._key is not base._key  # a copy, so closing one spares the other
        base.close()
        for client in (same_key, new_key, no_key):
            client.get_or_create_peer("alice")
        with pytest.raises(ConfigError):
            base.with_workspace("w5", api_key="")  # empty is refused, None means no header
    sent = [(r.request_line, r.headers.get("authorization")) for r in server.requests]
    assert sent == [
        ("POST /v3/workspaces/w2/peers HTTP/1.1", f"Bearer {KEY}"),
        ("POST /v3/workspaces/w3/peers HTTP/1.1", "Bearer other-key"),
        ("POST /v3/workspaces/w4/peers HTTP/1.1", None),
    ]


def test_with_workspace_read_only_propagates_and_can_be_set() -> None:
    writable = roncho.Client("http://127.0.0.1:9", WS)
    read_only = writable.with_workspace("w2", read_only=True)
    assert read_only.read_only and not writable.read_only
    assert read_only.with_workspace("w3").read_only
    assert read_only.with_options(read_timeout=3).read_only
    assert not read_only.with_workspace("w3", read_only=False).read_only
    with pytest.raises(ReadOnlyError):
        read_only.with_workspace("w3").delete_workspace()
    with pytest.raises(ConfigError, match=r"^read_only must be True or False$"):
        writable.with_workspace("w2", read_only="yes")  # type: ignore[arg-type]


def test_with_options_changes_limits_only() -> None:
    def stall(conn: Conn) -> None:
        conn.read_request()
        conn.wait_closed()

    big = reply(200, {"status": "ok", "padding": "x" * 100})
    with RawServer([stall, reply(200, {"status": "ok"}), big, big]) as server:
        base = roncho.Client(server.url, WS, api_key=KEY, read_timeout=READ_TIMEOUT)
        quick = base.with_options(read_timeout=STALL_TIMEOUT, max_response_bytes=64)
        assert (quick.workspace, quick.base_url, quick.has_key) == (WS, base.base_url, True)
        with pytest.raises(roncho.ReadTimeout):
            quick.probe()
        assert base.probe().ok  # the original keeps its own limits
        with pytest.raises(roncho.ResponseTooLargeError):
            quick.probe()  # an answer over 64 bytes
        assert base.probe().ok
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    with pytest.raises(ConfigError, match=r"^read_timeout must be a positive finite number"):
        base.with_options(read_timeout=0)
    with pytest.raises(ConfigError, match=r"^connect_timeout must be a positive finite number"):
        base.with_options(connect_timeout=-1.0)
    with pytest.raises(ConfigError, match=r"^max_response_bytes must be "):
        base.with_options(max_response_bytes=-1)


def test_threads_share_one_client() -> None:
    """Eight threads, one client, eight connections: each gets its own answer."""

    def echo(conn: Conn) -> None:
        request = conn.read_request()
        peer = json.loads(request.body)["id"]
        conn.send(response_bytes(201, {**PEER, "id": peer, "metadata": {"n": peer}}))

    results: dict[int, roncho.Peer] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS, timeout=SERVER_WAIT)

    with RawServer([echo] * THREADS) as server:
        client = roncho.Client(server.url, WS, api_key=KEY, read_timeout=READ_TIMEOUT)

        def work(i: int) -> None:
            try:
                start.wait()
                results[i] = client.get_or_create_peer(f"peer{i}")
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(SERVER_WAIT)
    assert not errors
    assert {i: (p.id, p.metadata["n"], p.created) for i, p in results.items()} == {
        i: (f"peer{i}", f"peer{i}", True) for i in range(THREADS)
    }
    assert server.connections == THREADS
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in server.requests)


# -- the key never leaks into errors ---------------------------------------------------------
def _frames_hold_key(exc: BaseException) -> list[str]:
    """roncho's traceback-frame locals whose repr shows the key: what an error reporter
    that records locals would capture."""
    found = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if _is_library_file(code.co_filename):
            for name, value in tb.tb_frame.f_locals.items():
                if _holds_key(value):
                    found.append(f"{code.co_name}.{name}")
        tb = tb.tb_next
    return found


def _is_library_file(filename: str) -> bool:
    """True for roncho's own source files, judged by where the package really is, so a
    checkout folder that happens to be named ``roncho`` does not count its tests."""
    return Path(filename).resolve().is_relative_to(_LIBRARY_DIR)


_LIBRARY_DIR = Path(roncho.__file__).resolve().parent


def _holds_key(value: object) -> bool:
    if isinstance(value, (bytes, bytearray)):
        return KEY.encode() in value
    return KEY in repr(value)


def _check_no_key(exc: BaseException) -> None:
    text = "".join(traceback.format_exception(exc))
    assert KEY not in text and KEY not in repr(exc) and KEY not in str(exc.args)
    assert _frames_hold_key(exc) == []
    restored = pickle.loads(pickle.dumps(exc))
    assert KEY not in repr(restored) and KEY not in str(restored)


def test_connect_error_holds_no_key() -> None:
    with RefusingPort() as refusing:  # held: no other process can take the port meanwhile
        client = roncho.Client(refusing.url, WS, api_key=KEY)
        with pytest.raises(roncho.ConnectError) as info:
            client.add_messages("s1", [roncho.MessageCreate("alice", "hi")])
    _check_no_key(info.value)


def test_read_timeout_after_sending_holds_no_key() -> None:
    def stall(conn: Conn) -> None:
        conn.read_request()
        conn.wait_closed()

    with RawServer([stall]) as server:
        client = roncho.Client(server.url, WS, api_key=KEY, read_timeout=STALL_TIMEOUT)
        with pytest.raises(roncho.ReadTimeout) as info:
            client.chat("alice", "q")
    assert info.value.request_sent is True
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    _check_no_key(info.value)


def test_a_server_echoing_the_key_does_not_put_it_in_the_error() -> None:
    echo = {"detail": f"bad token: Bearer {KEY}"}
    redirect = response_bytes(302, echo, headers=[("Location", f"http://evil/?k={KEY}")])
    with RawServer(
        [
            reply(422, echo),
            lambda c: (c.read_request(), c.send(redirect)),
            reply(401, echo),
        ]
    ) as server:
        client = roncho.Client(server.url, WS, api_key=KEY, read_timeout=READ_TIMEOUT)
        with pytest.raises(roncho.StatusError) as status:
            client.get_or_create_peer("alice")
        with pytest.raises(roncho.RedirectError) as redirected:
            client.probe()
        with pytest.raises(roncho.UnauthorizedError) as unauthorized:
            client.chat_stream("alice", "q")
    for exc in (status.value, redirected.value, unauthorized.value):
        _check_no_key(exc)
        assert KEY.encode() not in exc.body and KEY not in str(exc.detail)
        assert "[redacted]" in str(exc.detail)
    assert redirected.value.location is not None and KEY not in redirected.value.location


@pytest.mark.parametrize("stream", [False, True])
def test_a_2xx_answer_echoing_the_key_leaves_no_trace_in_a_decode_error(stream: bool) -> None:
    """A 200 that echoes the key and does not decode: the DecodeError's frames (which an
    error reporter may record) hold the answer only with the key redacted."""
    echo = {"content": 5, "echo": f"Bearer {KEY}"}
    headers = [("X-Echo", f"Bearer {KEY}")]
    with RawServer([reply(200, echo, headers=headers)]) as server:
        client = roncho.Client(server.url, WS, api_key=KEY, read_timeout=READ_TIMEOUT)
        with pytest.raises(roncho.DecodeError) as info:
            if stream:
                client.chat_stream("alice", "q").read_all()
            else:
                client.chat("alice", "q")
    _check_no_key(info.value)
