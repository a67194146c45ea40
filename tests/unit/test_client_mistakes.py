"""Mistakes a newcomer makes building a client, and errors that name the right form.

Through the public API only: the blocking client and the asyncio one, with no server.
"""

from __future__ import annotations

import asyncio
import gc
import pickle
import re
import sys

import pytest

import roncho
from roncho.aio import AsyncClient

URL = "http://127.0.0.1:9"


@pytest.mark.parametrize("kind", [roncho.Client, AsyncClient])
def test_a_client_without_a_workspace_names_the_public_class(kind: type) -> None:
    with pytest.raises(TypeError, match=rf"^{kind.__name__}\.__init__\(\) missing .*'workspace'"):
        kind(URL)


@pytest.mark.parametrize("kind", [roncho.Client, AsyncClient])
@pytest.mark.parametrize("key", [b"abc", bytearray(b"abc")])
def test_a_key_that_is_not_a_str_is_refused(kind: type, key: object) -> None:
    with pytest.raises(roncho.ConfigError, match=r"api_key must be a str or None, not byte"):
        kind(URL, "ws", api_key=key)


def test_with_on_the_asyncio_client_says_async_with() -> None:
    client = AsyncClient(URL, "ws")
    expected = (
        r"^AsyncClient is an asynchronous context manager: write `async with`, "
        r"inside an async function, not `with`$"
    )
    with pytest.raises(TypeError, match=expected), client:  # type: ignore[attr-defined]
        pass
    client.close()


def test_async_with_still_works() -> None:
    async def main() -> bool:
        async with AsyncClient(URL, "ws", api_key="sk-x") as client:
            return client.has_key

    assert asyncio.run(main()) is True


@pytest.mark.parametrize(
    ("kind", "name"), [(roncho.Client, "roncho.Client"), (AsyncClient, "roncho.aio.AsyncClient")]
)
def test_a_client_refuses_pickling_and_says_why(kind: type, name: str) -> None:
    client = kind(URL, "ws", api_key="sk-x")
    expected = rf"^a {re.escape(name)} cannot be pickled \(it would carry its key\)$"
    with pytest.raises(TypeError, match=expected):
        pickle.dumps(client)
    client.close()


@pytest.mark.parametrize("kind", [roncho.Client, AsyncClient])
def test_a_bad_workspace_id_is_refused_by_its_name(kind: type) -> None:
    """The same words from the constructor and from with_workspace: the parameter's name."""
    expected = r"^workspace must be 1 to 512 characters of A-Z"
    with pytest.raises(roncho.ConfigError, match=expected):
        kind(URL, "no spaces")
    client = kind(URL, "ws")
    with pytest.raises(roncho.ConfigError, match=expected):
        client.with_workspace("no spaces")
    client.close()


@pytest.mark.parametrize("kind", [roncho.Client, AsyncClient])
@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("connect_timeout", 0, "connect_timeout must be a positive finite number of seconds"),
        ("read_timeout", "5", "read_timeout must be a number of seconds, not str"),
        ("max_response_bytes", 0, "max_response_bytes must be "),
        ("read_only", "yes", "read_only must be True or False"),
        ("on_call", 5, "on_call must be a function of one CallReport, or None"),
    ],
)
def test_a_bad_option_is_refused_by_its_name_and_leaves_nothing_behind(
    kind: type, option: str, value: object, words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The half-made client is collected quietly: its finaliser finds no key to wipe."""
    unraisable: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with pytest.raises(roncho.ConfigError) as info:
        kind(URL, "ws", **{option: value})
    assert str(info.value).startswith(words)
    del info
    gc.collect()
    assert unraisable == []


@pytest.mark.parametrize("kind", [roncho.Client, AsyncClient])
def test_a_bad_deadline_is_refused_by_its_name(kind: type) -> None:
    client = kind(URL, "ws")
    with pytest.raises(roncho.ConfigError, match=r"^deadline must be a positive finite number"):
        call = client.probe(deadline=-1)
        if asyncio.iscoroutine(call):
            asyncio.run(call)
    client.close()
