"""``streamed()`` makes the streamed twin of a dialectic call: the same request with
``"stream": true`` added to its body, its answer read as chat chunks, under the twin's own
name and docstring (which scripts/render_clients.py writes into both clients' methods).

The catalogue's twins (``chat_stream``, ``chat_workspace_stream``) are made once, when
the module is imported; tests/wire/test_every_option.py holds the requests they make.
Here the twin is made inside the test, so that a mutation run (which imports the package
before it picks the mutant) sees a change to ``streamed()`` itself.
"""

from __future__ import annotations

from typing import Any

import pytest

from roncho._call import NO_BODY, nothing
from roncho._chat import ChatDecoder
from roncho._operations import Paths, chat

PATHS = Paths("/base", "w1")
DOC = "the twin's own docstring"

# Each dialectic call, with positional and keyword arguments that change its request.
ASKS: list[tuple[str, Any, tuple[Any, ...], dict[str, Any]]] = [
    (
        "chat",
        chat.chat,
        ("alice", "what does alice like?"),
        {"target": "bob", "session_id": "s1", "reasoning_level": "high"},
    ),
    (
        "chat_workspace",
        chat.chat_workspace,
        ("what happened?",),
        {"session_id": "s1", "include_evidence": True},
    ),
]


@pytest.mark.parametrize(("name", "ask", "args", "kwargs"), ASKS, ids=[a[0] for a in ASKS])
def test_the_streamed_twin_is_the_same_request_with_stream_true(
    name: str, ask: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    twin = chat.streamed(ask, f"{name}_stream", DOC)
    plain = ask(PATHS, *args, **kwargs)
    call = twin(PATHS, *args, **kwargs)
    assert call.op == f"{name}_stream"
    assert (call.method, call.path, call.query) == (plain.method, plain.path, plain.query)
    assert plain.body is not NO_BODY and "stream" not in plain.body
    assert call.body == {**plain.body, "stream": True}
    assert list(call.body)[-1] == "stream"
    assert call.decode is nothing
    assert call.stream is ChatDecoder
    assert (call.write, call.on_status) == (plain.write, plain.on_status)
    assert twin.__name__ == twin.__qualname__ == f"{name}_stream"
    assert twin.__doc__ == DOC


def test_the_catalogues_twins_are_made_by_streamed() -> None:
    """The twins the clients call are streamed()'s, named for the clients' methods."""
    for name in ("chat_stream", "chat_workspace_stream"):
        twin = getattr(chat, name)
        assert twin.__name__ == twin.__qualname__ == name
        assert twin.__doc__ and "ChatChunk" in twin.__doc__
