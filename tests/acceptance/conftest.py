"""The acceptance run's own stage: `pytest tests/acceptance --acceptance-run` (in .ci/run).

Without the flag the whole-command test is skipped, so `scripts/test.sh` (which has its
notebooks and live suite already) stays within its time; the request-log reading it rests on
(test_request_log.py) always runs.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("roncho-acceptance").addoption(
        "--acceptance-run",
        action="store_true",
        default=False,
        help="run scripts/test-real.sh whole against fake-honcho and check its request log",
    )
