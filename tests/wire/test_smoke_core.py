"""The core round trip, end to end over a real loopback socket."""

from __future__ import annotations

from rawserver import RawServer, reply

import roncho


def test_probe_round_trip_sends_exact_get() -> None:
    with RawServer([reply(200, {"status": "ok"})]) as server:
        health = roncho.Client(server.url, "w", read_timeout=5).probe()
    assert health.ok
    assert server.requests[0].raw == (
        b"GET /health HTTP/1.1\r\n"
        b"Host: 127.0.0.1:%d\r\n"
        b"Accept: application/json\r\n"
        b"User-Agent: roncho/%s\r\n"
        b"Connection: close\r\n\r\n" % (server.port, roncho.__version__.encode())
    )
