"""A server that echoes the API key in its answer's headers: nothing a traceback keeps
alive holds the key, however deep a debugger or a crash reporter looks.

tests/wire/test_leaks.py checks what gets printed (the reprs of a traceback's locals); this
walks every object reachable from the roncho frames of the error's traceback (what
``pdb.post_mortem`` can reach) and looks for the key in each str and bytes. The one object
allowed to hold it is the client's own key buffer.
"""

from __future__ import annotations

import asyncio
import gc
import types
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from rawserver import Conn, Handler, RawServer, response_bytes

import roncho
from roncho.aio import AsyncClient

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


def echoing_then(status: int, head: bytes, then: bytes, *, stall: bool = False) -> Handler:
    """An answer whose head echoes the key, its other lines and body as given; with
    ``stall`` the server then says nothing until the client gives up."""

    def handler(conn: Conn) -> None:
        auth = conn.read_request().headers["authorization"].encode()
        conn.send(b"HTTP/1.1 %d X\r\nX-Echo: %s\r\n%s\r\n%s" % (status, auth, head, then))
        if stall:
            conn.wait_closed()

    return handler


# Every kind of error a call can end in after its request (and the key) went out, each
# from an answer that echoes the key in a header.
KINDS = [
    ("error-status", lambda: echoing(500, b"oops"), roncho.StatusError, {}),
    ("undecodable-2xx", lambda: echoing(200, b"not json"), roncho.DecodeError, {}),
    ("every-header-holds-it", lambda: echoing_only(500, b"oops"), roncho.StatusError, {}),
    ("unauthorized", lambda: echoing(401, b"no"), roncho.UnauthorizedError, {}),
    (
        "redirect",
        lambda: echoing_then(302, b"Location: http://127.0.0.1:9/\r\nContent-Length: 0\r\n", b""),
        roncho.RedirectError,
        {},
    ),
    (
        "broken-framing",
        lambda: echoing_then(200, b"Transfer-Encoding: chunked\r\n", b"zz\r\n"),
        roncho.ProtocolError,
        {},
    ),
    (
        "too-large",
        lambda: echoing_then(200, b"Content-Length: 100000\r\n", b"x" * 100_000),
        roncho.ResponseTooLargeError,
        {"max_response_bytes": 1024},
    ),
    (
        "read-timeout",
        lambda: echoing_then(200, b"Content-Length: 10\r\n", b"{", stall=True),
        roncho.ReadTimeout,
        {"read_timeout": 0.5},
    ),
]


def roncho_frames(error: BaseException) -> list[types.FrameType]:
    """The library's frames in the error's traceback, told by the package's own folder (a
    checkout is itself often in a folder named roncho, so a "/roncho/" in the file name
    would take the test's too)."""
    package = Path(roncho.__file__).resolve().parent
    frames = []
    trace = error.__traceback__
    while trace is not None:
        if Path(trace.tb_frame.f_code.co_filename).resolve().is_relative_to(package):
            frames.append(trace.tb_frame)
        trace = trace.tb_next
    return frames


async def _async_probe(url: str, options: dict[str, float]) -> tuple[BaseException, object]:
    client = AsyncClient(url, "w", api_key=KEY, **{"read_timeout": 10.0, **options})
    try:
        await client.probe()
    except roncho.RonchoError as error:
        return error, client._key
    finally:
        await client.aclose()
    raise AssertionError("the call did not fail")


@pytest.mark.blocking_only("runs both clients itself, each error from inside its own call")
@pytest.mark.parametrize("client_kind_", ["blocking", "asyncio"], ids=["Client", "AsyncClient"])
@pytest.mark.parametrize(
    ("handler", "kind", "options"),
    [kind[1:] for kind in KINDS],
    ids=[kind[0] for kind in KINDS],
)
def test_a_key_echoed_in_a_header_is_held_by_nothing_the_traceback_keeps(
    handler: Callable[[], Handler],
    kind: type[roncho.RonchoError],
    options: dict[str, float],
    client_kind_: str,
) -> None:
    with RawServer([handler()]) as server:
        if client_kind_ == "blocking":
            client = roncho.Client(
                server.url, "w", api_key=KEY, **{"read_timeout": 10.0, **options}
            )
            with pytest.raises(kind) as info:
                client.probe()
            error: BaseException = info.value
            key_buffer: object = client._key  # the one holder allowed: the client's key itself
        else:
            error, key_buffer = asyncio.run(_async_probe(server.url, options))
    assert isinstance(error, kind), repr(error)
    frames = roncho_frames(error)
    assert frames, "the error comes from roncho's own frames"
    if client_kind_ == "asyncio":
        assert any("/aio/" in f.f_code.co_filename for f in frames), "the asyncio client's"
    assert holders([f.f_locals for f in frames] + [error], key_buffer) == []
