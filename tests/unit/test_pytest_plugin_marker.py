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
