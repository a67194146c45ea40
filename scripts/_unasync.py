"""The blocking half from the asyncio half: the text of a module with ``async`` and ``await``
taken out and the asyncio names replaced by the blocking ones, by one table, in order.

As httpcore writes its ``_sync`` package from ``_async`` (its scripts/unasync.py): the
asyncio module is the one written by hand, and whatever differs between the halves beyond
these words (the transports, ``Closing`` and ``AsyncClosing``) is not in a module this
reads. Used by render_clients.py, which writes roncho/_client.py and roncho/_stream.py with
it and checks them with ``--check``. Standard library only.
"""

from __future__ import annotations

# (asyncio text, blocking text), replaced in this order, each as plain text (no patterns):
# the whole phrases first, then the names, then the keywords.
SUBSTITUTIONS = (
    # what only the asyncio half imports or calls
    ("import asyncio\n", ""),
    ("await asyncio.sleep(", "time.sleep("),
    # an asynchronous generator cannot ``yield from``; a blocking one says it so
    ("for item in answer.items:\n                yield item\n", "yield from answer.items\n"),
    # prose and names that say which half this is
    ("the asyncio Honcho client", "the blocking Honcho client"),
    ("An asyncio Honcho v3 client", "A blocking Honcho v3 client"),
    ('"roncho.aio.AsyncClient"', '"roncho.Client"'),
    ("AsyncClient", "Client"),
    ("AsyncChatStream", "ChatStream"),
    ("AsyncConnection", "Connection"),
    ("AsyncClosing", "Closing"),
    ("AsyncIterator", "Iterator"),
    ("StopAsyncIteration", "StopIteration"),
    ("__aiter__", "__iter__"),
    ("__anext__", "__next__"),
    # the keywords
    ("async def ", "def "),
    ("async for", "for"),
    ("async with", "with"),
    ("await ", ""),
    # roncho/aio/x.py imports roncho/y.py as ``..y``; roncho/x.py as ``.y``
    ("from ..", "from ."),
)

# What may not be left in the blocking text: a word the table missed.
LEFT_OVER = ("async ", "await ", "asyncio.", "Async", "aiter", "anext", "aenter", "aexit")


def unasync(text: str, source: str) -> str:
    """``text`` (the module at ``source``, for the messages) as its blocking twin."""
    for old, new in SUBSTITUTIONS:
        text = text.replace(old, new)
    left = [word for word in LEFT_OVER if word in text]
    if left:
        raise SystemExit(f"{source}: the unasync table leaves {left}: add them to its table")
    return text


def unused(sources: list[str]) -> list[str]:
    """The table's asyncio texts that none of ``sources`` holds at its turn: a stale entry."""
    stale = []
    texts = list(sources)
    for old, new in SUBSTITUTIONS:
        if not any(old in text for text in texts):
            stale.append(old)
        texts = [text.replace(old, new) for text in texts]
    return stale


def generated_from(source: str, script: str) -> str:
    """The first lines of a module written whole from ``source``."""
    return (
        f"# GENERATED WHOLE from {source} by {script}\n"
        "# (scripts/_unasync.py takes async and await out): edit that module, not this one.\n"
    )
