"""``async with`` and ``aclose()`` for the asyncio objects whose close() is immediate."""

from __future__ import annotations

from typing import Self


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

    async def __aexit__(self, *exc: object) -> None:
        self.close()
