"""The catalogue as both clients' methods, declared once.

``ClientCore`` names every operation once, as an ``Operation`` (a streamed answer: a
``StreamOperation``; a walk over every page: a ``PageWalk``). When a client class is made,
``install`` replaces each declaration with that class's own method, made by its executor
(``_method``, ``_stream_method``, ``_walk_method``), so at run time a method is a plain
function with the operation's name, signature and docstring (``method_from``), and no
per-call indirection. Type checkers read the declarations' ``__get__``: the operation's
parameters, answering its result on a ``Client`` and an awaitable of it on an
``AsyncClient``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from ._exchange import Call
from ._ops_store import Pages, Scope

if TYPE_CHECKING:
    from typing import Self

    from ._client import Client
    from ._stream import ChatStream
    from .aio._client import AsyncClient
    from .aio._stream import AsyncChatStream

P = ParamSpec("P")
T = TypeVar("T")


class PageWalk(Generic[P, T]):
    """Declares a walk over every page of a list (``iter_messages``)."""

    __slots__ = ("build",)

    def __init__(self, build: Callable[Concatenate[Scope, P], Pages[T]]) -> None:
        self.build = build

    if TYPE_CHECKING:

        @overload
        def __get__(self, client: None, owner: type[Any]) -> Self: ...
        @overload
        def __get__(
            self, client: AsyncClient, owner: type[Any] | None = None
        ) -> Callable[P, AsyncIterator[T]]: ...
        @overload
        def __get__(
            self, client: Client, owner: type[Any] | None = None
        ) -> Callable[P, Iterator[T]]: ...
        def __get__(self, client: Any, owner: Any = None) -> Any: ...


class Operation(Generic[P, T]):
    """Declares one call of the catalogue as a method of both clients."""

    __slots__ = ("build",)

    def __init__(self, build: Callable[Concatenate[Scope, P], Call[T]]) -> None:
        self.build = build

    if TYPE_CHECKING:

        @overload
        def __get__(self, client: None, owner: type[Any]) -> Self: ...
        @overload
        def __get__(
            self, client: AsyncClient, owner: type[Any] | None = None
        ) -> Callable[P, Coroutine[Any, Any, T]]: ...
        @overload
        def __get__(self, client: Client, owner: type[Any] | None = None) -> Callable[P, T]: ...
        def __get__(self, client: Any, owner: Any = None) -> Any: ...


class StreamOperation(Generic[P]):
    """Declares a call whose answer is read as a stream of chat chunks."""

    __slots__ = ("build",)

    def __init__(self, build: Callable[Concatenate[Scope, P], Call[None]]) -> None:
        self.build = build

    if TYPE_CHECKING:

        @overload
        def __get__(self, client: None, owner: type[Any]) -> Self: ...
        @overload
        def __get__(
            self, client: AsyncClient, owner: type[Any] | None = None
        ) -> Callable[P, Coroutine[Any, Any, AsyncChatStream]]: ...
        @overload
        def __get__(
            self, client: Client, owner: type[Any] | None = None
        ) -> Callable[P, ChatStream]: ...
        def __get__(self, client: Any, owner: Any = None) -> Any: ...


def install(cls: type[Any], declared: dict[str, Any]) -> None:
    """Give ``cls`` its executor's method for every declaration it still inherits (a
    subclass of a client, or one that defines a method itself, keeps what it has)."""
    for name, declaration in declared.items():
        if getattr(cls, name) is not declaration:
            continue
        if isinstance(declaration, Operation):
            method = cls._method(declaration.build)
        elif isinstance(declaration, StreamOperation):
            method = cls._stream_method(declaration.build)
        else:
            method = cls._walk_method(declaration.build)
        setattr(cls, name, method)


def declarations(namespace: Mapping[str, Any]) -> dict[str, Any]:
    kinds = (Operation, StreamOperation, PageWalk)
    return {name: value for name, value in namespace.items() if isinstance(value, kinds)}
