"""roncho's pytest plugin registers its marker, as this very test session shows.

Registration is what lets a project that runs with ``--strict-markers`` write
``@pytest.mark.fake_honcho(...)``, and its text is what ``pytest --markers`` shows a user
(the fixtures themselves are tried in tests/emulator/test_pytest_plugin.py, in a subprocess).
"""

from __future__ import annotations

import pytest

import roncho.pytest_plugin


def test_the_plugin_registers_the_fake_honcho_marker_with_its_help(
    pytestconfig: pytest.Config,
) -> None:
    if not pytestconfig.pluginmanager.is_registered(roncho.pytest_plugin):
        pytest.skip("roncho is not installed with its entry points (pip install -e .)")
    ours = [line for line in pytestconfig.getini("markers") if line.startswith("fake_honcho")]
    assert ours == [
        "fake_honcho(**options): FakeHoncho keyword options for the fake_honcho fixture "
        "(roncho's pytest plugin)"
    ]


class _Config:
    """What pytest_configure uses of a pytest.Config: the ini lines it is given."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def addinivalue_line(self, name: str, line: str) -> None:
        self.lines.append((name, line))


def test_the_hook_itself_gives_the_marker_line() -> None:
    """Called here, not through the session above: a mutation run loads the plugin from the
    installed tree before it swaps a function, so only a direct call reaches the hook."""
    config = _Config()
    roncho.pytest_plugin.pytest_configure(config)  # type: ignore[arg-type]
    assert config.lines == [
        (
            "markers",
            "fake_honcho(**options): FakeHoncho keyword options for the fake_honcho fixture "
            "(roncho's pytest plugin)",
        )
    ]
