"""pytest plugin (entry point `pytest11`): the `fake_honcho` fixtures, with no conftest code.

Installing roncho is enough: pytest loads this module at start-up, so it is kept cheap. It
imports only pytest (already loaded) and the small `roncho` package; the emulator itself
(`roncho.testing`) is imported the first time a test asks for one of the fixtures.

- `fake_honcho`: a fresh `FakeHoncho` for the test, closed afterwards. Options come from a
  `@pytest.mark.fake_honcho(auth=True, flush=True, ...)` marker (any `FakeHoncho` keyword).
- `fake_honcho_factory`: call it with `FakeHoncho` keywords as many times as the test needs;
  every emulator it made is closed afterwards.

Both are synchronous and thread-safe; an async test uses them the same way (the emulator
serves on its own threads, so `asyncio` code can talk to `fake_honcho.url` at once).
A `fake_honcho` fixture defined in a project's own conftest.py takes precedence, as pytest's
fixture lookup always does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

# pytest is not a dependency of roncho: only pytest itself loads this module (through the
# entry point), so pytest is always there when it runs; `import roncho` never imports it.
import pytest

if TYPE_CHECKING:
    from roncho.testing import FakeHoncho

MARKER = "fake_honcho"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(**options): FakeHoncho keyword options for the fake_honcho fixture "
        "(roncho's pytest plugin)",
    )


@pytest.fixture
def fake_honcho_factory() -> Iterator[Callable[..., FakeHoncho]]:
    """Makes `FakeHoncho(**options)` on each call; closes them all after the test."""
    from roncho.testing import FakeHoncho

    made: list[FakeHoncho] = []

    def make(**options: Any) -> FakeHoncho:
        fake = FakeHoncho(**options)
        made.append(fake)
        return fake

    yield make
    for fake in reversed(made):
        fake.close()


@pytest.fixture
def fake_honcho(
    request: pytest.FixtureRequest, fake_honcho_factory: Callable[..., FakeHoncho]
) -> FakeHoncho:
    """A fresh emulator on a loopback port for this test (options from the marker)."""
    marker = request.node.get_closest_marker(MARKER)
    if marker is not None and marker.args:
        raise pytest.UsageError(
            f"@pytest.mark.{MARKER} takes keyword options only, e.g. (auth=True)"
        )
    options = dict(marker.kwargs) if marker is not None else {}
    return fake_honcho_factory(**options)
