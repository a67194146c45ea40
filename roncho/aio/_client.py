"""AsyncClient: the asyncio executor of the operation catalogue, ``Client``'s twin.

The operations (checks, requests, decoders), the configuration, the key handling and the
errors are the blocking client's own; only the I/O differs. One connection per call, no
retry, no redirect, the response cap enforced while reading, the key in a bytearray
wiped on close and the request bytes holding it wiped once sent. A cancelled call aborts
its connection at once.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from .. import _operations as ops
from .._base import ClientCore, encode_json, method_from
from .._checks import MAX_PAGE_SIZE
from .._deadline import Deadline
from .._errors import RonchoError
from .._exchange import Call, Exchange
from ._stream import AsyncChatStream
from ._transport import AsyncConnection

if TYPE_CHECKING:
    from .._models import Message

P = ParamSpec("P")
T = TypeVar("T")


def _op(
    build: Callable[Concatenate[ops.Scope, P], Call[T]],
) -> Callable[Concatenate[AsyncClient, P], Coroutine[Any, Any, T]]:
    async def method(self: AsyncClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(build(self._scope, *args, **kwargs))

    return method_from(build, method)


def _stream(
    build: Callable[Concatenate[ops.Scope, P], Call[None]],
) -> Callable[Concatenate[AsyncClient, P], Coroutine[Any, Any, AsyncChatStream]]:
    async def method(self: AsyncClient, /, *args: P.args, **kwargs: P.kwargs) -> AsyncChatStream:
        connection, exchange = await self._exchange(build(self._scope, *args, **kwargs))
        if exchange.chat is None:  # not a 2xx answer: the error it means
            connection.close()
            exchange.result()
        return AsyncChatStream(connection, exchange)

    return method_from(build, method, "AsyncChatStream")


class AsyncClient(ClientCore):
    """An asyncio Honcho v3 client for one workspace: ``Client``'s methods as coroutines.

    Immutable; share one instance between tasks. Each call opens its own connection, so
    calls never wait on each other. Use ``async with`` (or close()) so the key is wiped.
    The arguments are Client's, with the same meaning and checks.
    """

    __slots__ = ()
    _public_name = "roncho.aio.AsyncClient"

    def close(self) -> None:
        """Overwrite the key in memory; the client refuses calls afterwards."""
        self._wipe()

    async def aclose(self) -> None:
        self._wipe()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    get_or_create_workspace = _op(ops.get_or_create_workspace)
    update_workspace = _op(ops.update_workspace)
    list_workspaces = _op(ops.list_workspaces)
    delete_workspace = _op(ops.delete_workspace)
    get_or_create_peer = _op(ops.get_or_create_peer)
    update_peer = _op(ops.update_peer)
    list_peers = _op(ops.list_peers)
    get_or_create_session = _op(ops.get_or_create_session)
    update_session = _op(ops.update_session)
    list_sessions = _op(ops.list_sessions)
    list_session_peers = _op(ops.list_session_peers)
    get_session_peer_config = _op(ops.get_session_peer_config)
    set_session_peer_config = _op(ops.set_session_peer_config)
    delete_session = _op(ops.delete_session)
    add_messages = _op(ops.add_messages)
    list_messages = _op(ops.list_messages)
    get_message = _op(ops.get_message)
    update_message_metadata = _op(ops.update_message_metadata)
    create_conclusions = _op(ops.create_conclusions)
    list_conclusions = _op(ops.list_conclusions)
    query_conclusions = _op(ops.query_conclusions)
    delete_conclusion = _op(ops.delete_conclusion)
    search = _op(ops.search)
    search_peer = _op(ops.search_peer)
    search_session = _op(ops.search_session)
    chat = _op(ops.chat)
    chat_stream = _stream(ops.chat_stream)
    chat_workspace = _op(ops.chat_workspace)
    chat_workspace_stream = _stream(ops.chat_workspace_stream)
    probe = _op(ops.probe)
    server_version = _op(ops.server_version)
    queue_status = _op(ops.queue_status)
    create_key = _op(ops.create_key)

    async def iter_messages(
        self,
        session_id: str,
        *,
        size: int = MAX_PAGE_SIZE,
        reverse: bool = False,
        filters: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> AsyncIterator[Message]:
        """Every message of a session, page by page (each page is one call)."""
        page = 1
        while True:
            result = await self.list_messages(
                session_id,
                page=page,
                size=size,
                reverse=reverse,
                filters=filters,
                deadline=deadline,
            )
            for message in result.items:
                yield message
            if page >= result.pages or not result.items:
                return
            page += 1

    async def _run(self, call: Call[T]) -> T:
        """One whole call: its result, or the error its answer means."""
        connection, exchange = await self._exchange(call)
        connection.close()
        return exchange.result()

    async def _exchange(self, call: Call[T]) -> tuple[AsyncConnection, Exchange[T]]:
        """Connect, send, and read until the exchange needs no more (a stream: its head)."""
        total = self._admit(call)
        deadline = Deadline(self._limits.read_timeout, total, time.monotonic())
        exchange = Exchange(call, self._key, self._limits.max_response_bytes)
        connection = AsyncConnection(self._limits, deadline, call.what)
        try:
            await connection.connect(self._endpoint, self._tls, type(self)._new_socket)
            wire = exchange.request(self._endpoint, encode_json)
            try:
                await connection.send(wire)
            finally:
                if isinstance(wire, bytearray):
                    wire[:] = bytes(len(wire))
            try:
                while exchange.needs_more:
                    room = exchange.room()
                    if room is None:
                        exchange.feed(await connection.recv())
                    else:
                        exchange.filled(await connection.recv_into(room))
                        del room
            except RonchoError:
                if not exchange.failing:
                    raise
        except BaseException:
            connection.close()
            raise
        return connection, exchange
