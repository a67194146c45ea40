"""Each operation of roncho/_operations.py is a method written out in both clients
(scripts/render_clients.py): a plain function a reader, a debugger and a type checker all
find, with the operation's signature, and a walk over pages is pure data."""

from __future__ import annotations

import importlib.util
import inspect
import pydoc
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import roncho
from roncho import _operations as ops
from roncho._models import Page
from roncho._request_checks import MAX_PAGE_SIZE
from roncho.aio import AsyncClient

PATHS = ops.Paths("", "ws")
RENDER = Path(__file__).resolve().parents[2] / "scripts" / "render_clients.py"


def catalogue() -> list[str]:
    """The operations, as the generator reads them from the source."""
    spec = importlib.util.spec_from_file_location("render_clients", RENDER)
    assert spec is not None and spec.loader is not None
    render = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = render  # its dataclass looks its module up there
    spec.loader.exec_module(render)
    return [op.name for op in render.catalogue()]


def operation(name: str) -> Any:
    """The catalogue's function for an operation, in whichever resource module holds it."""
    (found,) = [vars(m)[name] for m in ops.RESOURCES if name in vars(m)]
    return found


def test_each_client_holds_a_plain_function_for_every_operation() -> None:
    names = catalogue()
    # 34 + the four webhook operations + the rest of the v3 API + get_conclusion (3.2.0)
    # + a walk (iter_*) for each of the nine paged lists that had none
    assert len(names) == 68
    for cls in (roncho.Client, AsyncClient):
        for name in names:
            method = vars(cls)[name]
            assert inspect.isfunction(method) and method.__name__ == name, (cls, name)
            assert inspect.getdoc(method) == inspect.getdoc(operation(name))


def test_every_paged_list_has_its_walk_with_the_same_parameters_but_page() -> None:
    """list_x gives one page; iter_x walks them all, taking what list_x takes but ``page``,
    in the same order, with the same defaults but the largest page the server gives."""
    names = catalogue()
    lists = [n for n in names if n.startswith("list_")]
    paged = [
        n for n in lists if "Page[" in str(inspect.signature(operation(n)).return_annotation)
    ]
    assert len(paged) == 10
    assert sorted(n for n in names if n.startswith("iter_")) == sorted(
        "iter_" + n.removeprefix("list_") for n in paged
    )
    for name in paged:
        one = inspect.signature(operation(name)).parameters
        walk = inspect.signature(operation("iter_" + name.removeprefix("list_"))).parameters
        assert [p for p in one if p != "page"] == list(walk), name
        for parameter in walk.values():
            expected = one[parameter.name].replace(
                default=MAX_PAGE_SIZE if parameter.name == "size" else one[parameter.name].default
            )
            assert parameter == expected, (name, parameter)
        assert names.index("iter_" + name.removeprefix("list_")) == names.index(name) + 1


def test_the_source_of_a_method_is_the_method_that_runs() -> None:
    """go-to-definition, inspect.getsource, help() and tracebacks land on the method."""
    for cls, keyword in ((roncho.Client, "def"), (AsyncClient, "async def")):
        source = inspect.getsource(cls.get_or_create_peer)
        assert source.lstrip().startswith(f"{keyword} get_or_create_peer(")
        assert "ops.peers.get_or_create_peer(" in source
        assert "self._paths, peer_id, metadata, configuration)" in source
        assert "self._run(call, deadline)" in source
        assert cls.get_or_create_peer.__code__.co_name == "get_or_create_peer"
        shown = str(inspect.signature(cls.get_or_create_peer))
        assert shown.startswith("(self, peer_id: 'str', metadata: ")
        page = pydoc.render_doc(cls.get_or_create_peer, renderer=pydoc.plaintext)
        assert "get_or_create_peer(" in page and "peer_id: 'str'" in page
        assert "Given metadata or configuration replace the stored ones" in page


def test_the_generated_methods_are_up_to_date() -> None:
    out = subprocess.run(
        [sys.executable, str(RENDER), "--check"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr


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
    walk = ops.messages.iter_messages(PATHS, "s", size=1)
    first = walk.first()
    assert first.what == "POST /v3/workspaces/ws/sessions/s/messages/list"
    assert dict(first.query)["page"] == "1"
    second = walk.after(page(1, 3))
    assert second is not None and dict(second.query)["page"] == "2"
    third = walk.after(page(2, 3))
    assert third is not None and dict(third.query)["page"] == "3"
    assert walk.after(page(3, 3)) is None
    assert ops.messages.iter_messages(PATHS, "s").after(page(1, 5, items=0)) is None


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


@pytest.mark.timeout(150)  # mypy's own bound below, not the suite's 60 s
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
    # A real method now has a place: mypy points at it after an error ("defined in").
    lines = [line for line in lines if not line.endswith('defined in "roncho._client"')]
    assert lines[:3] == [
        'note: Revealed type is "roncho._models.entities.Peer"',
        'note: Revealed type is "typing.Iterator[roncho._models.messages.Message]"',
        'note: Revealed type is "roncho._stream.ChatStream"',
    ]
    assert 'Unexpected keyword argument "pagee"' in lines[3]
    assert lines[4:7] == [
        'note: Revealed type is "roncho._models.entities.Peer"',
        'note: Revealed type is "typing.AsyncIterator[roncho._models.messages.Message]"',
        'note: Revealed type is "roncho.aio._stream.AsyncChatStream"',
    ]
    assert 'incompatible type "str"; expected "MessageCreate"' in lines[7]
