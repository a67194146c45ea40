"""Closing and AsyncClosing: leaving a ``with`` (or ``async with``) block calls close().

The clients and the chat streams close the same way in both halves; these two mixins are
where the halves really differ (``async with``, ``aclose()``, and a plain ``with`` on an
asyncio object refused with the form to write), so they are written by hand, each once.
"""

from __future__ import annotations

from typing import NoReturn, Self


class Closing:
    """Closes on leaving ``with``."""

    __slots__ = ()

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClosing:
    """Closes on leaving ``async with``; ``aclose()`` is close() for asyncio's habits."""

    __slots__ = ()

    def close(self) -> None:
        raise NotImplementedError

    async def aclose(self) -> None:
        """The same as close(), which never waits."""
        self.close()

    async def __aenter__(self) -> Self:
        return self

    # A plain `with` would otherwise end in Python's generic protocol error.
    def __enter__(self) -> NoReturn:
        raise TypeError(
            f"{type(self).__name__} is an asynchronous context manager: write `async with`, "
            "inside an async function, not `with`"
        )

    def __exit__(self, *exc: object) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        self.close()
