"""What both clients share apart from I/O: configuration, the key, copies and lifetime.

``Client`` and ``AsyncClient`` subclass ``ClientCore`` and add only their executor. The
public methods are made from the operation catalogue by ``method_from``, which gives
each the operation's own signature and docstring, with ``self`` in place of the scope.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from types import FunctionType
from typing import Any, ClassVar, Final, TypeVar

from . import _checks as check
from . import _operations as ops
from ._config import Endpoint
from ._deadline import Deadline, Limits
from ._errors import ConfigError, ReadOnlyError
from ._exchange import Call, Exchange
from ._methods import declarations, install, operation, page_walk, stream
from ._operations import Scope
from ._transport import SocketFactory, tls_context

C = TypeVar("C", bound="ClientCore")
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_MAX_RESPONSE_BYTES: Final = 8 * 1024 * 1024
_UNSET: Final[Any] = object()


class _Closed:
    def __repr__(self) -> str:
        return "<closed>"


CLOSED: Final = _Closed()


class ClientCore:
    """Immutable configuration for one workspace, and the key it wipes on close()."""

    __slots__ = ("_endpoint", "_key", "_limits", "_read_only", "_scope", "_tls")
    _endpoint: Endpoint
    _key: bytearray | None
    _limits: Limits
    _read_only: bool
    _scope: Scope
    _tls: Any
    _public_name: str = "roncho.Client"
    # The connection seam (see _transport.SocketFactory): how each client makes its
    # sockets. A subclass (a test's) may set its own; nothing else changes it.
    _new_socket: ClassVar[SocketFactory] = socket.socket

    def __init__(
        self,
        base_url: str,
        workspace: str,
        *,
        api_key: str | None = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 120.0,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        read_only: bool = False,
    ) -> None:
        endpoint = check.parse_base_url(base_url)
        limits = Limits(
            connect_timeout=check.check_seconds(connect_timeout, "connect_timeout"),
            read_timeout=check.check_seconds(read_timeout, "read_timeout"),
            max_response_bytes=check.check_positive_int(max_response_bytes, "max_response_bytes"),
        )
        check.check_flag(read_only, "read_only")
        self._init(
            endpoint,
            check.check_id(workspace, "workspace"),
            check.check_api_key(api_key),
            limits,
            read_only,
            tls_context() if endpoint.scheme == "https" else None,
        )

    def _init(
        self,
        endpoint: Endpoint,
        workspace: str,
        key: bytearray | None,
        limits: Limits,
        read_only: bool,
        tls: Any,
    ) -> None:
        set_ = object.__setattr__
        set_(self, "_endpoint", endpoint)
        set_(self, "_scope", Scope(endpoint.prefix, workspace))
        set_(self, "_key", key)
        set_(self, "_limits", limits)
        set_(self, "_read_only", read_only)
        set_(self, "_tls", tls)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(
            f"{self._public_name} is immutable; use with_workspace() or with_options()"
        )

    def __delattr__(self, name: str) -> None:
        raise AttributeError(
            f"{self._public_name} is immutable; use with_workspace() or with_options()"
        )

    def __repr__(self) -> str:
        key = "set" if self._key is not None else "none"
        mode = ", read_only" if self._read_only else ""
        return (
            f"<{self._public_name} {self._endpoint} workspace={self.workspace!r} key={key}{mode}>"
        )

    __str__ = __repr__

    def __reduce__(self) -> Any:
        raise TypeError(f"a {self._public_name} cannot be pickled (it would carry its key)")

    # -- the operations, in the catalogue's order: each client class gets its executor's
    # method for each when it is made (``_methods.install``) -----------------------------------
    get_or_create_workspace = operation(ops.get_or_create_workspace)
    update_workspace = operation(ops.update_workspace)
    list_workspaces = operation(ops.list_workspaces)
    delete_workspace = operation(ops.delete_workspace)
    get_or_create_peer = operation(ops.get_or_create_peer)
    update_peer = operation(ops.update_peer)
    list_peers = operation(ops.list_peers)
    get_or_create_session = operation(ops.get_or_create_session)
    update_session = operation(ops.update_session)
    list_sessions = operation(ops.list_sessions)
    list_session_peers = operation(ops.list_session_peers)
    get_session_peer_config = operation(ops.get_session_peer_config)
    set_session_peer_config = operation(ops.set_session_peer_config)
    delete_session = operation(ops.delete_session)
    add_messages = operation(ops.add_messages)
    list_messages = operation(ops.list_messages)
    iter_messages = page_walk(ops.iter_messages)
    get_message = operation(ops.get_message)
    update_message_metadata = operation(ops.update_message_metadata)
    create_conclusions = operation(ops.create_conclusions)
    list_conclusions = operation(ops.list_conclusions)
    query_conclusions = operation(ops.query_conclusions)
    delete_conclusion = operation(ops.delete_conclusion)
    search = operation(ops.search)
    search_peer = operation(ops.search_peer)
    search_session = operation(ops.search_session)
    chat = operation(ops.chat)
    chat_stream = stream(ops.chat_stream)
    chat_workspace = operation(ops.chat_workspace)
    chat_workspace_stream = stream(ops.chat_workspace_stream)
    probe = operation(ops.probe)
    server_version = operation(ops.server_version)
    queue_status = operation(ops.queue_status)
    create_key = operation(ops.create_key)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        install(cls, _DECLARED)

    # -- properties and copies -------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return str(self._endpoint)

    @property
    def workspace(self) -> str:
        return self._scope.workspace

    @property
    def read_only(self) -> bool:
        return self._read_only

    @property
    def has_key(self) -> bool:
        return self._key is not None

    @property
    def closed(self) -> bool:
        return self._tls is CLOSED

    def with_workspace(
        self: C, workspace: str, *, api_key: Any = _UNSET, read_only: bool | None = None
    ) -> C:
        """A client for another workspace. Without ``api_key`` it keeps this key (a copy)."""
        key = check.check_api_key(api_key) if api_key is not _UNSET else self._copy_key()
        return self._copy(
            workspace=check.check_id(workspace, "workspace"),
            key=key,
            read_only=self._read_only if read_only is None else read_only,
        )

    def with_options(
        self: C,
        *,
        connect_timeout: float | None = None,
        read_timeout: float | None = None,
        max_response_bytes: int | None = None,
    ) -> C:
        """The same client with other limits, e.g. a long read timeout for the dialectic."""
        old = self._limits
        limits = Limits(
            connect_timeout=old.connect_timeout
            if connect_timeout is None
            else check.check_seconds(connect_timeout, "connect_timeout"),
            read_timeout=old.read_timeout
            if read_timeout is None
            else check.check_seconds(read_timeout, "read_timeout"),
            max_response_bytes=old.max_response_bytes
            if max_response_bytes is None
            else check.check_positive_int(max_response_bytes, "max_response_bytes"),
        )
        return self._copy(limits=limits, key=self._copy_key())

    def _copy_key(self) -> bytearray | None:
        self._check_open()
        return None if self._key is None else bytearray(self._key)

    def _copy(self: C, **changes: Any) -> C:
        self._check_open()  # a copy of a closed client would be closed too: say so now
        check.check_flag(changes.get("read_only", False), "read_only")
        clone = object.__new__(type(self))
        clone._init(
            self._endpoint,
            changes.get("workspace", self.workspace),
            changes["key"],
            changes.get("limits", self._limits),
            changes.get("read_only", self._read_only),
            self._tls,
        )
        return clone

    # -- lifetime --------------------------------------------------------------------------
    def _wipe(self) -> None:
        """Overwrite the key in memory; the client refuses calls afterwards.

        Python cannot promise the key left no other copy (the caller's own string, the
        bytes of a request already sent); this wipes the one roncho keeps.
        """
        if self._key is not None:
            for i in range(len(self._key)):
                self._key[i] = 0
        object.__setattr__(self, "_tls", CLOSED)

    def __del__(self) -> None:
        try:
            key = self._key
        except AttributeError:
            return
        if key is not None:
            for i in range(len(key)):
                key[i] = 0

    def _check_open(self) -> None:
        if self._tls is CLOSED:
            raise ConfigError(f"this {self._public_name} is closed")

    def _start(self, call: Call[T]) -> tuple[Exchange[T], Deadline]:
        """What every call checks before it connects, and the state it starts with."""
        if call.write and self._read_only:
            raise ReadOnlyError(f"{call.op} changes server state and this client is read-only")
        self._check_open()
        total = check.check_seconds(call.deadline, "deadline", True)
        deadline = Deadline(self._limits.read_timeout, total, time.monotonic())
        return Exchange(call, self._key, self._limits.max_response_bytes), deadline


_DECLARED: Final = declarations(vars(ClientCore))

_UTF8_JSON: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
_ASCII_JSON: Final = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def encode_json(body: object, ascii_only: bool = False) -> bytes:
    """Compact UTF-8 JSON. ``ascii_only``: the caller knows every string in ``body`` is
    ASCII without DEL, for which CPython's ASCII encoder writes the same bytes, faster
    (about 180 instead of 250 us for 100 KiB of messages on 3.11)."""
    encoder = _ASCII_JSON if ascii_only else _UTF8_JSON
    return encoder.encode(body).encode("utf-8")


def method_from(build: Callable[..., Any], method: F, returns: str = "{}") -> F:
    """Give ``method`` the name and docstring of the operation ``build``, and a
    ``__wrapped__`` that ``inspect.signature`` (and so ``help()``) reads: the operation's
    parameters, its scope dropped as ``self`` is, and its result, ``returns`` with ``{}``
    standing for what the operation answers (``Call[Peer]`` and ``Pages[Peer]`` give
    ``Peer``). Nothing is compiled at import: the shown function shares the operation's code.
    """
    # A derived operation (a streamed twin) shows the parameters of the one it derives from.
    source = getattr(build, "__signature_from__", build)
    code = source.__code__  # never run through ``shown``: only its names are read
    names = ("self", *code.co_varnames[1:])
    shown = FunctionType(
        code.replace(co_varnames=names), source.__globals__, build.__name__, source.__defaults__
    )
    shown.__kwdefaults__ = source.__kwdefaults__
    notes = {k: v for k, v in source.__annotations__.items() if k != code.co_varnames[0]}
    notes["return"] = build.__annotations__.get("return", notes.get("return", ""))
    result = str(notes.get("return", ""))
    if result.startswith(("Call[", "Pages[")) and result.endswith("]"):
        result = result[result.index("[") + 1 : -1]
    shown.__annotations__ = {**notes, "return": returns.format(result)}
    shown.__doc__ = build.__doc__
    method.__name__ = method.__qualname__ = build.__name__
    method.__doc__ = build.__doc__
    method.__wrapped__ = shown  # type: ignore[attr-defined]
    return method
