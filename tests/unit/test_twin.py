"""The blocking client and chat stream are written whole from their asyncio twins
(scripts/render_clients.py with the table of scripts/_unasync.py): one text for both halves,
so a fix cannot land in one half only. What a caller sees stays the blocking client's own."""

from __future__ import annotations

import importlib.util
import inspect
import io
import sys
import tokenize
from pathlib import Path
from types import ModuleType

import pytest

import roncho
from roncho.aio import AsyncChatStream, AsyncClient

ROOT = Path(__file__).resolve().parents[2]
TWINS = {
    "roncho/_client.py": "roncho/aio/_client.py",
    "roncho/_stream.py": "roncho/aio/_stream.py",
    "roncho/delivery.py": "roncho/aio/delivery.py",
    "roncho/_derivation_wait.py": "roncho/aio/_derivation_wait.py",
}


def script(name: str) -> ModuleType:
    """A module of scripts/, loaded by path (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # render_clients' dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("blocking", "source"), TWINS.items())
def test_each_blocking_module_says_it_is_written_from_its_twin(blocking: str, source: str) -> None:
    text = (ROOT / blocking).read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert first == f"# GENERATED WHOLE from {source} by scripts/render_clients.py"
    names = {t.string for t in tokenize.generate_tokens(io.StringIO(text).readline)}
    assert names & {"async", "await", "asyncio", "AsyncIterator", "StopAsyncIteration"} == set()
    assert not (ROOT / source).read_text(encoding="utf-8").startswith("# GENERATED")


def test_the_blocking_modules_are_what_the_script_writes_from_the_twins() -> None:
    render = script("render_clients")
    written = render.written(render.catalogue())
    for blocking in TWINS:
        assert written[ROOT / blocking] == (ROOT / blocking).read_text(encoding="utf-8")


def test_unasync_takes_async_and_await_out_and_names_the_blocking_types() -> None:
    unasync = script("_unasync").unasync
    source = (
        "import asyncio\n"
        "from .._closing import AsyncClosing\n"
        "class AsyncChatStream(AsyncClosing):\n"
        "    async def __anext__(self) -> ChatChunk:\n"
        "        await asyncio.sleep(1)\n"
        "        async for x in self:\n"
        "            data = await self._connection.read()\n"
        "        raise StopAsyncIteration\n"
    )
    assert unasync(source, "x.py") == (
        "from ._closing import Closing\n"
        "class ChatStream(Closing):\n"
        "    def __next__(self) -> ChatChunk:\n"
        "        time.sleep(1)\n"
        "        for x in self:\n"
        "            data = self._connection.read()\n"
        "        raise StopIteration\n"
    )


def test_unasync_refuses_an_asyncio_word_its_table_does_not_know() -> None:
    unasync = script("_unasync").unasync
    with pytest.raises(SystemExit, match=r"x\.py: the unasync table leaves \['async '\]"):
        unasync("async with_a_new_form()\nx = async lambda: 1\n", "x.py")


def test_every_entry_of_the_table_is_used_by_an_asyncio_module() -> None:
    unasync = script("_unasync")
    sources = [(ROOT / s).read_text(encoding="utf-8") for s in TWINS.values()]
    assert unasync.unused(sources) == []
    assert unasync.unused(["nothing asynchronous here"]) == [
        old for old, _ in unasync.SUBSTITUTIONS
    ]


def test_the_two_clients_have_the_same_construction_and_the_same_methods() -> None:
    """Construction and its defaults are ClientCore's, written once; each client's
    ``__init__`` only names its class in a TypeError."""
    assert inspect.signature(roncho.Client) == inspect.signature(AsyncClient)
    public = lambda cls: sorted(n for n in vars(cls) if not n.startswith("_"))  # noqa: E731
    assert public(roncho.Client) == public(AsyncClient)
    for name in public(roncho.Client):
        blocking, asynchronous = getattr(roncho.Client, name), getattr(AsyncClient, name)
        assert inspect.signature(blocking).parameters.keys() == (
            inspect.signature(asynchronous).parameters.keys()
        ), name
        assert inspect.getdoc(blocking) == inspect.getdoc(asynchronous), name
        assert inspect.iscoroutinefunction(asynchronous) or inspect.isasyncgenfunction(
            asynchronous
        ), name
        assert not inspect.iscoroutinefunction(blocking), name
    assert roncho.Client.close is AsyncClient.close  # ClientCore's, once
    assert roncho.ChatStream.close is not AsyncChatStream.close  # each its own class
    assert inspect.getdoc(roncho.ChatStream.read_all) == inspect.getdoc(AsyncChatStream.read_all)


def test_core_size_counts_a_module_written_whole_as_generated() -> None:
    """The engine's count (scripts/core_size.py) holds only hand-written lines: all of the
    blocking client and stream, and the asyncio client's methods, are generated."""
    size = script("core_size")
    for blocking, source in TWINS.items():
        assert size.generated(ROOT / blocking) == size.lines(ROOT / blocking) > 0
        assert size.generated(ROOT / source) < size.lines(ROOT / source)
    assert size.generated(ROOT / "roncho/aio/_stream.py") == 0
    assert size.generated(ROOT / "roncho/aio/_client.py") > 0  # its methods, by markers


def test_the_two_delivery_functions_have_the_same_shape() -> None:
    """roncho.delivery.sync_batch is written from roncho.aio.delivery's: the same
    parameters, defaults and docstring, one awaited, the records and errors shared."""
    from roncho import delivery
    from roncho.aio import delivery as aio_delivery

    blocking, asynchronous = delivery.sync_batch, aio_delivery.sync_batch
    assert str(inspect.signature(blocking)) == str(inspect.signature(asynchronous)).replace(
        "AsyncClient", "Client"
    )
    assert inspect.getdoc(blocking) == inspect.getdoc(asynchronous)
    assert inspect.iscoroutinefunction(asynchronous)
    assert not inspect.iscoroutinefunction(blocking)
    assert delivery.__all__ == aio_delivery.__all__
    for name in delivery.__all__:
        if name != "sync_batch":
            assert getattr(delivery, name) is getattr(aio_delivery, name), name
