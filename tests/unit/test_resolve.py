"""An IP literal is resolved without getaddrinfo, to exactly what getaddrinfo would say."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from roncho._network import numeric_family
from roncho._network import resolve as _resolve


def canonical(entries: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """getaddrinfo may print an IPv6 literal in its shortest form; compare the addresses."""
    out = []
    for family, kind, proto, canon, address in entries:
        packed = socket.inet_pton(family, address[0])
        out.append((int(family), int(kind), proto, canon, (packed, *address[1:])))
    return out


@pytest.mark.parametrize("host", ["127.0.0.1", "10.1.2.3", "::1", "0:0:0:0:0:0:0:1", "fd00::5"])
def test_a_literal_resolves_as_getaddrinfo_would(host: str) -> None:
    mine = _resolve(host, 8000)
    theirs = socket.getaddrinfo(host, 8000, type=socket.SOCK_STREAM)
    assert canonical(mine) == canonical(theirs)


@pytest.mark.parametrize("host", ["localhost", "honcho.internal", "127.1", "fe80::1%lo", "1.2.3"])
def test_anything_else_is_left_to_getaddrinfo(host: str) -> None:
    assert numeric_family(host) is None


def test_families() -> None:
    assert numeric_family("127.0.0.1") == socket.AF_INET
    assert numeric_family("::1") == socket.AF_INET6
