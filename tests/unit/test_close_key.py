"""After close() the key is overwritten: ``has_key`` says no key is sent and ``repr``
says the key is gone, for both clients."""

from __future__ import annotations

import asyncio
import gc

import pytest

import roncho
from roncho.aio import AsyncClient

SECRET = "close-key-secret-9c41"
CLIENTS = [roncho.Client, AsyncClient]


@pytest.mark.parametrize("cls", CLIENTS)
def test_close_has_key_false_and_repr_says_closed(cls: type[roncho.Client]) -> None:
    client = cls("http://127.0.0.1:9", "ws", api_key=SECRET)
    assert client.has_key is True
    assert client.closed is False  # a bool, as typed: not merely falsy
    assert "key=set" in repr(client)
    client.close()
    assert client.has_key is False
    assert client.closed is True
    assert "key=closed" in repr(client) and "key=set" not in repr(client)
    assert str(client) == repr(client)
    assert SECRET not in repr(client)


@pytest.mark.parametrize("cls", CLIENTS)
def test_close_without_key_repr_says_none_and_closed(cls: type[roncho.Client]) -> None:
    client = cls("http://127.0.0.1:9", "ws")
    client.close()
    assert client.has_key is False
    assert repr(client).endswith("key=none, closed>")


def test_close_async_with_leaves_no_key() -> None:
    async def use() -> AsyncClient:
        async with AsyncClient("http://127.0.0.1:9", "ws", api_key=SECRET) as client:
            assert client.has_key
        return client

    client = asyncio.run(use())
    assert client.has_key is False and "key=closed" in repr(client)


def test_close_copies_keep_their_own_key() -> None:
    client = roncho.Client("http://127.0.0.1:9", "ws", api_key=SECRET)
    other = client.with_workspace("ws2")
    client.close()
    assert other.has_key is True and "key=set" in repr(other)


@pytest.mark.parametrize("cls", CLIENTS)
@pytest.mark.parametrize(
    ("api_key", "closed", "ending"),
    [
        (None, False, "key=none, read_only>"),
        (SECRET, False, "key=set, read_only>"),
        (SECRET, True, "key=closed, read_only>"),
        (None, True, "key=none, read_only, closed>"),
    ],
)
def test_repr_says_key_read_only_and_closed_each_in_its_place(
    cls: type[roncho.Client], api_key: str | None, closed: bool, ending: str
) -> None:
    client = cls("http://127.0.0.1:9", "ws", api_key=api_key, read_only=True)
    writable = client.with_workspace("ws", read_only=False)
    if closed:
        client.close()
    name = "roncho.Client" if cls is roncho.Client else "roncho.aio.AsyncClient"
    assert repr(client) == f"<{name} http://127.0.0.1:9 workspace='ws' {ending}"
    # Without read_only the same ends straight after the key (an open client's).
    assert repr(writable).endswith(" key=none>" if api_key is None else " key=set>")
    writable.close()
    if not closed:
        client.close()


@pytest.mark.parametrize("cls", CLIENTS)
def test_a_client_dropped_without_close_wipes_its_key(cls: type[roncho.Client]) -> None:
    """close() forgotten: the key the client kept is overwritten when it is collected."""
    client = cls("http://127.0.0.1:9", "ws", api_key=SECRET)
    kept = client._key  # the client's own copy, as bytes in memory
    assert kept is not None and bytes(kept) == SECRET.encode()
    del client
    gc.collect()
    assert bytes(kept) == bytes(len(SECRET))
