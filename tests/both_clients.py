"""One body of test code for both clients: ``AsyncClient`` seen through a blocking facade.

``BlockingAsync`` has ``roncho.Client``'s constructor and methods; each call runs the
AsyncClient coroutine on one event loop owned by the test (in a thread of the test, so
calls may come from several threads, as with Client). A stream is driven the same way.
The ``client_kind`` fixture (tests/wire/conftest.py) puts it in place of ``roncho.Client``
for the "asyncio" run of each test, so the assertions are the same code for both.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import roncho
from roncho.aio import AsyncChatStream, AsyncClient

CALL_LIMIT = 60.0  # no call in these tests waits longer: the tests' own timeouts are shorter


class Loop:
    """An event loop on its own thread, for the length of one test."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Any) -> Any:
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(CALL_LIMIT)
        finally:
            del future  # a failed future keeps its traceback: let the test's own frames own it

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(CALL_LIMIT)
        self.loop.close()


class BlockingStream:
    """AsyncChatStream, pulled one chunk at a time from the blocking side."""

    def __init__(self, loop: Loop, stream: AsyncChatStream) -> None:
        self._loop = loop
        self._stream = stream

    def __iter__(self) -> BlockingStream:
        return self

    def __next__(self) -> roncho.ChatChunk:
        try:
            return self._loop.run(self._stream.__anext__())  # type: ignore[no-any-return]
        except StopAsyncIteration:
            raise StopIteration from None

    def read_all(self) -> roncho.ChatAnswer:
        return self._loop.run(self._stream.read_all())  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def __enter__(self) -> BlockingStream:
        return self

    def close(self) -> None:
        self._loop.run(self._stream.aclose())  # on the loop's thread, as asyncio requires

    def __exit__(self, *exc: object) -> None:
        self.close()


class BlockingAsync:
    """roncho.Client's surface, served by an AsyncClient."""

    loop: Loop  # set by the fixture (or by on_loop)

    @classmethod
    def on_loop(cls, loop: Loop) -> type[BlockingAsync]:
        """This facade bound to ``loop``: a class that stands in for roncho.Client."""
        return type(cls.__name__, (cls,), {"loop": loop})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kind = AsyncClient
        new_socket = getattr(type(self), "_new_socket", None)
        if new_socket is not None:  # a test's socket factory (tests/seams.py), as Client takes it
            kind = type(
                "SeamAsyncClient", (AsyncClient,), {"__slots__": (), "_new_socket": new_socket}
            )
        object.__setattr__(self, "_client", kind(*args, **kwargs))

    @classmethod
    def _wrap(cls, client: AsyncClient) -> BlockingAsync:
        facade = object.__new__(cls)
        object.__setattr__(facade, "_client", client)
        return facade

    def __setattr__(self, name: str, value: object) -> None:
        setattr(self._client, name, value)

    def __delattr__(self, name: str) -> None:
        delattr(self._client, name)

    def __reduce__(self) -> Any:
        return self._client.__reduce__()

    def __repr__(self) -> str:
        return repr(self._client)

    def __enter__(self) -> BlockingAsync:
        return self

    def __exit__(self, *exc: object) -> None:
        self._client.close()

    def _walk(self, walk: Any) -> Iterator[Any]:
        """An async iterator (an ``iter_*`` walk), pulled one item at a time."""
        while True:
            try:
                yield self.loop.run(walk.__anext__())
            except StopAsyncIteration:
                return

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if inspect.isasyncgenfunction(attr):
            return lambda *a, **k: self._walk(attr(*a, **k))
        if not callable(attr) or not inspect.iscoroutinefunction(attr):
            if name in ("with_workspace", "with_options"):
                return lambda *a, **k: self._wrap(attr(*a, **k))
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            result = self.loop.run(attr(*args, **kwargs))
            if isinstance(result, AsyncChatStream):
                return BlockingStream(self.loop, result)
            return result

        return call
