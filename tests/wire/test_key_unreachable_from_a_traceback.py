"""A server that echoes the API key in its answer's headers: nothing a traceback keeps
alive holds the key, however deep a debugger or a crash reporter looks.

tests/wire/test_leaks.py checks what gets printed (the reprs of a traceback's locals); this
walks every object reachable from the roncho frames of the error's traceback (what
``pdb.post_mortem`` can reach) and looks for the key in each str and bytes. The one object
allowed to hold it is the client's own key buffer.
"""

from __future__ import annotations

import gc
import types
from collections.abc import Iterable
from pathlib import Path

import pytest
from rawserver import Conn, Handler, RawServer, response_bytes

import roncho

KEY = "KEY-echoed-back-5678"


def echoing(status: int, body: bytes) -> Handler:
    def handler(conn: Conn) -> None:
        request = conn.read_request()
        echo = [("X-Echo", request.headers["authorization"])]
        conn.send(response_bytes(status, raw_body=body, headers=echo, content_type="text/plain"))

    return handler


def echoing_only(status: int, body: bytes) -> Handler:
    """Every header of the answer holds the key (its body runs to the close)."""

    def handler(conn: Conn) -> None:
        auth = conn.read_request().headers["authorization"].encode()
        conn.send(b"HTTP/1.1 %d X\r\nX-Echo: %s\r\n\r\n%s" % (status, auth, body))

    return handler


def holders(roots: Iterable[object], allowed: object) -> list[str]:
    """Every str or bytes-like object reachable from ``roots`` that holds the key."""
    needle = KEY.encode()
    seen: set[int] = set()
    todo = list(roots)
    found = []
    while todo:
        item = todo.pop()
        if id(item) in seen or item is allowed:
            continue
        seen.add(id(item))
        if isinstance(item, str):
            if KEY in item:
                found.append(repr(item)[:60])
        elif isinstance(item, (bytes, bytearray, memoryview)):
            if needle in bytes(item):
                found.append(repr(bytes(item))[:60])
        elif isinstance(item, types.FunctionType):
            # Its closure and defaults; not its module's globals (the whole program).
            todo.extend(cell.cell_contents for cell in item.__closure__ or ())
            todo.extend(item.__defaults__ or ())
            todo.extend((item.__kwdefaults__ or {}).values())
        elif not isinstance(item, (types.ModuleType, type, types.FrameType, types.TracebackType)):
            todo.extend(gc.get_referents(item))
    return found


@pytest.mark.blocking_only("walks the frames of the blocking client's call")
@pytest.mark.parametrize(
    ("status", "body", "kind", "only"),
    [
        (500, b"oops", roncho.StatusError, False),
        (200, b"not json", roncho.DecodeError, False),
        (500, b"oops", roncho.StatusError, True),
    ],
    ids=["error-status", "undecodable-2xx", "every-header-holds-it"],
)
def test_a_key_echoed_in_a_header_is_held_by_nothing_the_traceback_keeps(
    status: int, body: bytes, kind: type[roncho.RonchoError], only: bool
) -> None:
    handler = echoing_only(status, body) if only else echoing(status, body)
    with RawServer([handler]) as server:
        client = roncho.Client(server.url, "w", api_key=KEY, read_timeout=10.0)
        with pytest.raises(kind) as info:
            client.probe()
    # The library's frames, told by the package's own folder (a checkout is itself often
    # in a folder named roncho, so a "/roncho/" in the file name would take the test's too).
    package = Path(roncho.__file__).resolve().parent
    frames = []
    trace = info.value.__traceback__
    while trace is not None:
        if Path(trace.tb_frame.f_code.co_filename).resolve().is_relative_to(package):
            frames.append(trace.tb_frame)
        trace = trace.tb_next
    assert frames, "the error comes from roncho's own frames"
    key_buffer = client._key  # the one holder allowed: the client's key itself
    assert holders([f.f_locals for f in frames] + [info.value], key_buffer) == []
