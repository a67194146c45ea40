"""A connection's ``read``, as both transports promise it: given room, the bytes land there
and the answer is their count; without room, the answer is the bytes; once the server has
closed, 0 or ``b""``. In the clear and over TLS, on the blocking and the asyncio transport,
with a TLS server that closes with close_notify and one that just closes its socket.

The exchange above takes bytes where a count belongs (``Exchange.received`` accepts both),
so no call through a client notices a read that ignores its room: the body still parses,
only through one more copy, and past the buffer the exchange sized for it. The whole-library
mutation run found eleven such changes held by no test (docs/mutation.md); this holds the
contract where it is made."""

from __future__ import annotations

import asyncio
import shutil
import ssl
from pathlib import Path

import pytest
from rawserver import Conn, Handler, RawServer
from test_tls_stalls_and_cuts import make_certificate

from roncho import _transport
from roncho._checks import parse_base_url
from roncho._network import Timeouts
from roncho.aio import _transport as aio_transport

pytestmark = [
    pytest.mark.timeout(20),
    pytest.mark.blocking_only("drives both transports itself, below the clients"),
]
PAYLOAD = b"0123456789" * 10
ROOM = 4096  # more than PAYLOAD: a read may take all that has come
TIMEOUTS = Timeouts(5.0, 5.0)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command")
    return make_certificate(tmp_path_factory.mktemp("room"), "127.0.0.1")


def send_then_close(close_notify: bool) -> Handler:
    def handler(conn: Conn) -> None:
        conn.send(PAYLOAD)
        if close_notify:
            conn.sock.unwrap()  # type: ignore[attr-defined]  # an SSLSocket: close_notify
        # else the server closes its socket when the handler returns (a ragged end on TLS)

    return handler


def read_all(
    server: RawServer, client_tls: ssl.SSLContext | None, kind: str, room: bool
) -> list[bytes | int]:
    """What each read answered, up to and including the one after the server closed; and
    with room, the bytes checked to be where the counts say."""
    endpoint = parse_base_url(server.url)
    buffer = bytearray(ROOM)
    answers: list[bytes | int] = []
    got = bytearray()

    def take(answer: bytes | int, view: memoryview | None) -> bool:
        answers.append(answer)
        if isinstance(answer, int):
            assert view is not None, "a count where the bytes were asked for"
            got.extend(view[:answer])
        else:
            got.extend(answer)
        assert len(got) <= len(PAYLOAD), "more bytes than the server sent"
        return bool(answer)

    if kind == "blocking":
        connection = _transport.connect(endpoint, TIMEOUTS, client_tls, "GET /room")
        try:
            while True:
                view = memoryview(buffer) if room else None
                if not take(connection.read(view), view):
                    break
        finally:
            connection.close()
    else:

        async def run() -> None:
            connection = await aio_transport.connect(endpoint, TIMEOUTS, client_tls, "GET /room")
            try:
                while True:
                    view = memoryview(buffer) if room else None
                    if not take(await connection.read(view), view):
                        break
            finally:
                connection.close()

        asyncio.run(run())
    assert bytes(got) == PAYLOAD
    return answers


CASES = [
    pytest.param("blocking", False, False, id="blocking-plain"),
    pytest.param("asyncio", False, False, id="asyncio-plain"),
    pytest.param("blocking", True, False, id="blocking-tls-ragged-end"),
    pytest.param("asyncio", True, False, id="asyncio-tls-ragged-end"),
    pytest.param("blocking", True, True, id="blocking-tls-close-notify"),
    pytest.param("asyncio", True, True, id="asyncio-tls-close-notify"),
]


def contexts(
    certificate: tuple[Path, Path] | None,
) -> tuple[ssl.SSLContext | None, ssl.SSLContext | None]:
    """The server's context and the client's (trusting the throwaway certificate), or none."""
    if certificate is None:
        return None, None
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(*certificate)
    return server, ssl.create_default_context(cafile=str(certificate[0]))


@pytest.mark.parametrize(
    ("room", "kind_of_answer", "at_the_close"),
    [(True, int, 0), (False, bytes, b"")],
    ids=["into-room", "as-bytes"],
)
@pytest.mark.parametrize(("kind", "tls", "close_notify"), CASES)
def test_a_read_answers_as_asked_and_says_when_the_server_closed(
    request: pytest.FixtureRequest,
    kind: str,
    tls: bool,
    close_notify: bool,
    room: bool,
    kind_of_answer: type,
    at_the_close: bytes | int,
) -> None:
    """Given room, each read answers a count (the bytes are where it says); without, the
    bytes; the read after the server closed answers 0 or b"" and is the last."""
    cert = request.getfixturevalue("certificate") if tls else None
    server_tls, client_tls = contexts(cert)
    with RawServer([send_then_close(close_notify)], tls=server_tls) as server:
        answers = read_all(server, client_tls, kind, room=room)
    assert all(type(a) is kind_of_answer for a in answers), answers
    assert answers[-1] == at_the_close and all(answers[:-1])
    assert server.errors == []
