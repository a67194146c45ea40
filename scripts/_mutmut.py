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

if __name__ == "__main__":
    sys.exit(cli())
