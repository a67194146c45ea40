"""The catalogue declared once as both clients' methods (roncho/_methods.py): what runs is
a plain function per operation, what type checkers see is the operation's signature, and
a walk over pages is pure data."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import pytest

import roncho
from roncho import _operations as ops
from roncho._base import ClientCore
from roncho._methods import Declared
from roncho._models import Page
from roncho.aio import AsyncClient

SCOPE = ops.Scope("", "ws")


def test_each_client_holds_a_plain_function_for_every_declared_operation() -> None:
    declared = [
        name
        for name, value in vars(ClientCore).items()
        if isinstance(value, Declared)
    ]
    assert len(declared) == len(ops.__all__) - 1  # every operation but Scope
    for cls in (roncho.Client, AsyncClient):
        for name in declared:
            method = vars(cls)[name]
            assert callable(method) and method.__name__ == name, (cls, name)
            assert method.__doc__ == getattr(ops, name).__doc__


def test_a_subclass_keeps_its_own_method_and_inherits_the_rest() -> None:
    class Mine(roncho.Client):
        __slots__ = ()

        def probe(self, *, deadline: float | None = None) -> Any:
            return "mine"

    class Deeper(Mine):
        __slots__ = ()

    assert Deeper("http://127.0.0.1:9", "ws").probe() == "mine"
    assert "search" not in vars(Mine) and Mine.search is roncho.Client.search


def page(number: int, pages: int, items: int = 1) -> Page[str]:
    return Page(items=tuple("x" * items), total=pages, page=number, size=1, pages=pages)


def test_pages_walks_until_the_last_page_or_an_empty_one() -> None:
    walk = ops.iter_messages(SCOPE, "s", size=1)
    first = walk.first()
    assert first.what == "POST /v3/workspaces/ws/sessions/s/messages/list"
    assert dict(first.query)["page"] == "1"
    second = walk.after(page(1, 3))
    assert second is not None and dict(second.query)["page"] == "2"
    third = walk.after(page(2, 3))
    assert third is not None and dict(third.query)["page"] == "3"
    assert walk.after(page(3, 3)) is None
    assert ops.iter_messages(SCOPE, "s").after(page(1, 5, items=0)) is None


_TYPED_USE = textwrap.dedent(
    """
    from __future__ import annotations
    import roncho
    from roncho.aio import AsyncClient

    def blocking(c: roncho.Client) -> None:
        reveal_type(c.get_or_create_peer("alice"))
        reveal_type(c.iter_messages("s"))
        reveal_type(c.chat_stream("alice", "q"))
        c.list_peers(pagee=2)

    async def asynchronous(c: AsyncClient) -> None:
        reveal_type(await c.get_or_create_peer("alice"))
        reveal_type(c.iter_messages("s"))
        reveal_type(await c.chat_stream("alice", "q"))
        await c.add_messages("s", ["not a MessageCreate"])
    """
)


def test_type_checkers_see_each_operation_with_its_own_signature(tmp_path: Any) -> None:
    pytest.importorskip("mypy")
    snippet = tmp_path / "use.py"
    snippet.write_text(_TYPED_USE)
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
         "--cache-dir", str(tmp_path / "cache"), str(snippet)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    lines = [line.split(": ", 1)[1] for line in out.stdout.splitlines() if ": " in line]
    assert lines[:3] == [
        'note: Revealed type is "roncho._models.Peer"',
        'note: Revealed type is "typing.Iterator[roncho._models.Message]"',
        'note: Revealed type is "roncho._stream.ChatStream"',
    ]
    assert 'Unexpected keyword argument "pagee"' in lines[3]
    assert lines[4:7] == [
        'note: Revealed type is "roncho._models.Peer"',
        'note: Revealed type is "typing.AsyncIterator[roncho._models.Message]"',
        'note: Revealed type is "roncho.aio._stream.AsyncChatStream"',
    ]
    assert 'incompatible type "str"; expected "MessageCreate"' in lines[7]
