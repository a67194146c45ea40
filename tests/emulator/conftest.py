"""Fixtures for the emulator tests: a fresh `FakeHoncho` per test and a raw HTTP helper."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from emu_http import Api

from roncho.testing import FakeHoncho


@pytest.fixture
def fake_honcho() -> Iterator[FakeHoncho]:
    """A default emulator (auth off, gate on with 512 tokens), closed after the test."""
    with FakeHoncho() as fake:
        yield fake


@pytest.fixture
def api(fake_honcho: FakeHoncho) -> Api:
    return Api(fake_honcho.port)
