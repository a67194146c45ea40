"""mutmut 3.8.1's command line, with its test map made safe from the tests' own threads.

While mutmut maps which tests reach which function, each call of a mutated function adds its
name to one set, and after each test mutmut walks that set. Over the whole library, code that
runs during the walk (a finalizer run by a garbage collection, a thread a test left running)
calls mutated functions too, and the walk failed with "Set changed size during iteration",
stopping the run. Here the walk takes a copy first; nothing else changes. Used by
scripts/mutation.sh; pinned to the mutmut it installs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

from mutmut.__main__ import cli
from mutmut.core import MutmutCallStack
from mutmut.state import MutmutState


class _CopiedSet(set[str]):
    def __iter__(self) -> Iterator[str]:
        # set.copy allocates before it reads, and fills without running Python code; a
        # list() of the set's own iterator can collect garbage midway, and a finalizer that
        # calls a mutated function (closing a connection) then adds to the set under it.
        return set.__iter__(set.copy(self))


_init = MutmutState.__init__


def _init_with_copied_set(self: MutmutState, *args: Any, **kwargs: Any) -> None:
    _init(self, *args, **kwargs)
    self._stats = _CopiedSet()


MutmutState.__init__ = _init_with_copied_set  # type: ignore[method-assign]


# The trampolines keep the caller's name in a ContextVar for each call, only for mutmut's
# map of which function calls which (track_dependencies, off in pyproject.toml). With the
# tests of the iter_* walks (generators left suspended after next()) CPython 3.11.7
# segfaulted in ContextVar.set during the stats run, every time. Nothing reads that name
# here: the stack stays at its default (no caller, depth 0) and the hits are recorded still.
def _no_set(cls: type[MutmutCallStack], value: tuple[str, int]) -> None:
    return None


def _no_reset(cls: type[MutmutCallStack], token: object) -> None:
    return None


MutmutCallStack.set = classmethod(_no_set)  # type: ignore[method-assign,assignment]
MutmutCallStack.reset = classmethod(_no_reset)  # type: ignore[method-assign,assignment]

if __name__ == "__main__":
    sys.exit(cli())
