"""ClientCore: what Client and AsyncClient share apart from I/O: construction (every
argument checked once, in one place) and the defaults their signatures hold, the key,
copies, close(), and what every call checks before it connects. Immutable after
construction, except the key wiped by close().
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Final, TypeVar

from ._call import Call
from ._checks import (
    Endpoint,
    check_api_key,
    check_flag,
    check_id,
    check_positive_int,
    check_timeout,
    parse_base_url,
)
from ._errors import ConfigError, ReadOnlyError
from ._exchange import Exchange
from ._network import SocketFactory, Timeouts, tls_context
from ._operations import Paths

if TYPE_CHECKING:
    from ._reports import CallReport

C = TypeVar("C", bound="ClientCore")
T = TypeVar("T")

DEFAULT_MAX_RESPONSE_BYTES: Final = 8 * 1024 * 1024
DEFAULT_CONNECT_TIMEOUT: Final = 10.0
DEFAULT_READ_TIMEOUT: Final = 120.0
# wait_for_derivation's (its logic is _derivation's, loaded on the first wait): the queue
# shows a sync's items 0.07 to 0.25 s after add_messages returned (the kit's Honcho 3.0.12,
# 20 syncs; up to 0.5 s seen before): they are written after the answer. The default grace
# is several times that, so a slow moment is not taken for "nothing".
DEFAULT_GRACE: Final = 2.0
DEFAULT_INTERVAL: Final = 0.25
DEFAULT_BOUND: Final = 60.0
_UNSET: Final[Any] = object()


class ClientCore:
    """Immutable configuration for one workspace, and the key it wipes on close()."""

    __slots__ = (
        "_closed",
        "_endpoint",
        "_key",
        "_max_body",
        "_on_call",
        "_paths",
        "_read_only",
        "_timeouts",
        "_tls",
    )
    _closed: bool
    _endpoint: Endpoint
    _key: bytearray | None
    _max_body: int
    _on_call: Callable[[CallReport], object] | None
    _read_only: bool
    _timeouts: Timeouts
    _paths: Paths
    _tls: Any
    _public_name: str = "roncho.Client"
    # The connection seam (see _network.SocketFactory): how each client makes its
    # sockets. A subclass (a test's) may set its own; nothing else changes it.
    _new_socket: ClassVar[SocketFactory] = socket.socket

    def _configure(
        self,
        base_url: str,
        workspace: str,
        api_key: str | None,
        connect_timeout: float,
        read_timeout: float,
        max_response_bytes: int,
        read_only: bool,
        on_call: Callable[[CallReport], object] | None,
    ) -> None:
        """Construction: every argument checked, once for both clients. Their ``__init__``
        (written once, in aio/_client.py) holds the signature and the defaults above, so
        that a call without a workspace fails naming the public class."""
        endpoint = parse_base_url(base_url)
        timeouts = Timeouts(
            connect=check_timeout(connect_timeout, "connect_timeout"),
            read=check_timeout(read_timeout, "read_timeout"),
        )
        max_body = check_positive_int(max_response_bytes, "max_response_bytes")
        check_flag(read_only, "read_only")
        if on_call is not None and not callable(on_call):
            raise ConfigError("on_call must be a function of one CallReport, or None")
        _store(
            self,
            _endpoint=endpoint,
            _paths=Paths(endpoint.prefix, check_id(workspace, "workspace")),
            _key=check_api_key(api_key),
            _timeouts=timeouts,
            _max_body=max_body,
            _read_only=read_only,
            _tls=tls_context() if endpoint.scheme == "https" else None,
            _on_call=on_call,
            _closed=False,
        )

    def __setattr__(self, name: str, value: object = None) -> None:
        raise AttributeError(
            f"{self._public_name} is immutable; use with_workspace() or with_options()"
        )

    __delattr__ = __setattr__  # deleting is refused in the same words

    def __repr__(self) -> str:
        # After close() the key is zeros: "closed" says it is gone, not that one is sent.
        key = "none" if self._key is None else "closed" if self._closed else "set"
        mode = ", read_only" if self._read_only else ""
        if self._closed and self._key is None:
            mode += ", closed"
        return (
            f"<{self._public_name} {self._endpoint} workspace={self.workspace!r} key={key}{mode}>"
        )

    __str__ = __repr__

    def __reduce__(self) -> Any:
        raise TypeError(f"a {self._public_name} cannot be pickled (it would carry its key)")

    # -- properties and copies -------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return str(self._endpoint)

    @property
    def workspace(self) -> str:
        return self._paths.workspace

    @property
    def read_only(self) -> bool:
        return self._read_only

    @property
    def has_key(self) -> bool:
        """Whether calls send a key: false after close(), which overwrote it."""
        return self._key is not None and not self._closed

    @property
    def closed(self) -> bool:
        return self._closed

    def with_workspace(
        self: C, workspace: str, *, api_key: str | None = _UNSET, read_only: bool | None = None
    ) -> C:
        """A client for another workspace. Without ``api_key`` it keeps this key (a copy)."""
        key = check_api_key(api_key) if api_key is not _UNSET else self._copy_key()
        return self._copy(
            key,
            _paths=Paths(self._endpoint.prefix, check_id(workspace, "workspace")),
            _read_only=self._read_only if read_only is None else read_only,
        )

    def with_options(
        self: C,
        *,
        connect_timeout: float | None = None,
        read_timeout: float | None = None,
        max_response_bytes: int | None = None,
    ) -> C:
        """The same client with other limits, e.g. a long read timeout for the dialectic."""
        # None keeps this client's value, already checked; a new one is checked here.
        connect, read, max_body = self._timeouts.connect, self._timeouts.read, self._max_body
        if connect_timeout is not None:
            connect = check_timeout(connect_timeout, "connect_timeout")
        if read_timeout is not None:
            read = check_timeout(read_timeout, "read_timeout")
        if max_response_bytes is not None:
            max_body = check_positive_int(max_response_bytes, "max_response_bytes")
        timeouts = Timeouts(connect=connect, read=read)
        return self._copy(self._copy_key(), _timeouts=timeouts, _max_body=max_body)

    def _copy_key(self) -> bytearray | None:
        self._check_open()
        return None if self._key is None else bytearray(self._key)

    def _copy(self: C, key: bytearray | None, **changes: Any) -> C:
        """This client with its own ``key`` and the slots in ``changes``, already checked."""
        self._check_open()  # a copy of a closed client would be closed too: say so now
        check_flag(changes.get("_read_only", False), "read_only")
        clone = object.__new__(type(self))
        kept = {name: getattr(self, name) for name in ClientCore.__slots__ if name != "_key"}
        _store(clone, **{**kept, **changes}, _key=key)
        return clone

    # -- lifetime --------------------------------------------------------------------------
    def close(self) -> None:
        """Overwrite the key in memory; the client refuses calls afterwards.

        Python cannot promise the key left no other copy (the caller's own string, the
        bytes of a request already sent); this wipes the one roncho keeps.
        """
        _wipe(self._key)
        object.__setattr__(self, "_closed", True)

    def __del__(self) -> None:
        _wipe(getattr(self, "_key", None))  # None too if __init__ failed before setting it

    def _check_open(self) -> None:
        if self._closed:
            raise ConfigError(f"this {self._public_name} is closed")

    def _start(self, call: Call[T], deadline: float | None) -> tuple[Exchange[T], Timeouts]:
        """What every call checks before it connects, and the state it starts with."""
        if call.write and self._read_only:
            raise ReadOnlyError(f"{call.op} changes server state and this client is read-only")
        self._check_open()
        total = check_timeout(deadline, "deadline", allow_none=True)
        timeouts = self._timeouts.for_call(total, time.monotonic())
        return Exchange(call, self._key, self._max_body), timeouts

    def _ended(
        self, call: Call[Any], exchange: Exchange[Any] | None, started: float, error: Any
    ) -> None:
        """Hand on_call the report of a call that has just ended with ``error`` (or None).
        What the hook raises goes to the caller, the call's own error as its context."""
        if self._on_call is not None:
            from ._reports import report  # an add-on: loaded by the first report

            self._on_call(report(call, exchange, self._endpoint.prefix, started, error))

    def _result(self, exchange: Exchange[T], started: float) -> T:
        """A closed call's result, or the error its answer means; on_call hears of either."""
        try:
            result = exchange.result()
        except BaseException as error:
            self._ended(exchange.call, exchange, started, error)
            raise
        self._ended(exchange.call, exchange, started, None)
        return result


def _store(client: ClientCore, **slots: Any) -> None:
    """Set slots of a client under construction (its ``__setattr__`` refuses every store)."""
    for name, value in slots.items():
        object.__setattr__(client, name, value)


def _wipe(key: bytearray | None) -> None:
    """Overwrite the key in place, keeping its length (no new copy is made)."""
    if key is not None:
        key[:] = bytes(len(key))
