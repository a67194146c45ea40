"""The catalogue as both clients' methods, declared once.

``ClientCore`` names every operation once: ``operation`` for a call, ``stream`` for a
call whose answer is read as chat chunks, ``page_walk`` for a walk over every page of a
list. When a client class is made, ``install`` replaces each declaration with that
class's own method, made by its executor (``_method``), so at run time a method is a plain
function with the operation's name, signature and docstring (``method_from``), and no
per-call indirection. Type checkers read the declaration's ``__get__``: the operation's
parameters, with the result a ``Client`` gives (``S``) and the one an ``AsyncClient``
gives (``A``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from ._exchange import Call
from ._ops_shapes import Pages, Scope

if TYPE_CHECKING:
    from typing import Self

    from ._client import Client
    from ._stream import ChatStream
    from .aio._client import AsyncClient
    from .aio._stream import AsyncChatStream

P = ParamSpec("P")
T = TypeVar("T")
S = TypeVar("S")
A = TypeVar("A")

CALL, STREAM, WALK = "call", "stream", "walk"


class Declared(Generic[P, S, A]):
    """One operation of the catalogue, as a method of both clients."""

    __slots__ = ("build", "finisher", "kind")

    def __init__(self, build: Callable[..., Any], kind: str) -> None:
        self.build = build
        self.kind = kind
        # The executor's method that turns what ``build`` returns into the result.
        self.finisher = {CALL: "_run", STREAM: "_open_stream", WALK: "_walk"}[kind]

    if TYPE_CHECKING:

        @overload
        def __get__(self, client: None, owner: type[Any]) -> Self: ...
        @overload
        def __get__(
            self, client: AsyncClient, owner: type[Any] | None = None
        ) -> Callable[P, A]: ...
        @overload
        def __get__(self, client: Client, owner: Any = None) -> Callable[P, S]: ...
        def __get__(self, client: Any, owner: Any = None) -> Any: ...


def operation(
    build: Callable[Concatenate[Scope, P], Call[T]],
) -> Declared[P, T, Coroutine[Any, Any, T]]:
    return Declared(build, CALL)


def stream(
    build: Callable[Concatenate[Scope, P], Call[None]],
) -> Declared[P, ChatStream, Coroutine[Any, Any, AsyncChatStream]]:
    return Declared(build, STREAM)


def page_walk(
    build: Callable[Concatenate[Scope, P], Pages[T]],
) -> Declared[P, Iterator[T], AsyncIterator[T]]:
    return Declared(build, WALK)


def install(cls: type[Any], declared: Mapping[str, Declared[Any, Any, Any]]) -> None:
    """Give ``cls`` its executor's method for every declaration it still inherits (a
    subclass of a client, or one that defines a method itself, keeps what it has)."""
    for name, declaration in declared.items():
        if getattr(cls, name) is declaration:
            setattr(cls, name, cls._method(declaration))


def declarations(namespace: Mapping[str, Any]) -> dict[str, Declared[Any, Any, Any]]:
    return {name: value for name, value in namespace.items() if isinstance(value, Declared)}
