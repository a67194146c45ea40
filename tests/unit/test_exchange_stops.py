"""When the exchange stops reading an error's body, and which clock a tie names.

An error's body is kept up to MAX_ERROR_BODY_BYTES: the exchange reads until it has that
many bytes and no further, so a server that sends a long error slowly (or stalls after the
kept part) costs no wait beyond it, and one that stalls before it is waited for.
"""

from __future__ import annotations

from roncho import Peer
from roncho import _operations as ops
from roncho._checks import parse_base_url
from roncho._errors import MAX_ERROR_BODY_BYTES
from roncho._exchange import Exchange
from roncho._network import Timeouts

PATHS = ops.Paths(parse_base_url("http://127.0.0.1:8000").prefix, "ws")
LONG = MAX_ERROR_BODY_BYTES * 4  # what the server announces: more than is ever kept


def error_exchange_after(body_bytes: int) -> Exchange[Peer]:
    exchange: Exchange[Peer] = Exchange(ops.peers.get_or_create_peer(PATHS, "alice"), None, LONG)
    exchange.received(f"HTTP/1.1 500 X\r\nContent-Length: {LONG}\r\n\r\n".encode())
    if body_bytes:
        exchange.received(b"e" * body_bytes)
    return exchange


def test_an_error_body_one_byte_short_of_the_kept_part_is_still_read() -> None:
    assert error_exchange_after(MAX_ERROR_BODY_BYTES - 1).needs_more


def test_an_error_body_is_read_no_further_than_the_kept_part() -> None:
    assert not error_exchange_after(MAX_ERROR_BODY_BYTES).needs_more


def test_an_error_body_read_in_pieces_stops_at_the_kept_part() -> None:
    exchange = error_exchange_after(0)
    for _ in range(MAX_ERROR_BODY_BYTES // 512):
        assert exchange.needs_more
        exchange.received(b"e" * 512)
    assert not exchange.needs_more


def test_when_the_read_timeout_and_the_deadline_end_together_the_read_timeout_is_named() -> None:
    """A tie is the idle timeout's: only a deadline strictly nearer binds the wait."""
    timeouts = Timeouts(connect=1.0, read=5.0, total=5.0, started=0.0)
    assert timeouts.read_wait(0.0) == (5.0, False)
    assert timeouts.read_wait(0.5) == (4.5, True)
