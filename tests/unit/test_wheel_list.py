"""The wheel's file list check (scripts/wheel_smoke.py, run by scripts/check_wheel.sh on the
built wheel) refuses a wheel with a file too many or a file missing.

The build takes a minute and needs a package index, so check_wheel.sh is not part of the
unit tests; these hold the rule it applies, on made-up file lists.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import wheel_smoke  # noqa: E402

import roncho  # noqa: E402

LIBRARY = frozenset(
    {"roncho/__init__.py", "roncho/py.typed", "roncho/_client.py", "roncho/testing/__init__.py"}
)
INFO = f"roncho-{roncho.__version__}.dist-info"


def _wheel(*extra: str, without: str = "") -> list[str]:
    names = sorted(LIBRARY) + [f"{INFO}/{name}" for name in sorted(wheel_smoke.DIST_INFO_FILES)]
    return [name for name in names if name != without] + list(extra)


def test_the_library_and_its_metadata_pass() -> None:
    assert wheel_smoke.wheel_list_errors(_wheel(), LIBRARY) == []


def test_a_workbook_file_in_the_wheel_fails() -> None:
    errors = wheel_smoke.wheel_list_errors(_wheel("roncho_workbook/__init__.py"), LIBRARY)
    assert errors == ["unexpected in the wheel: roncho_workbook/__init__.py"]


def test_anything_else_unexpected_fails() -> None:
    for stray in ("roncho/notes.txt", "tests/test_x.py", f"{INFO}/extra.txt", "roncho/x.pyc"):
        assert wheel_smoke.wheel_list_errors(_wheel(stray), LIBRARY) == [
            f"unexpected in the wheel: {stray}"
        ]


def test_a_missing_library_file_fails() -> None:
    errors = wheel_smoke.wheel_list_errors(_wheel(without="roncho/_client.py"), LIBRARY)
    assert errors == ["missing from the wheel: roncho/_client.py"]


def test_missing_metadata_fails() -> None:
    errors = wheel_smoke.wheel_list_errors(_wheel(without=f"{INFO}/licenses/LICENSE"), LIBRARY)
    assert errors == [f"missing from the wheel: {INFO}/licenses/LICENSE"]


def test_two_dist_info_folders_fail() -> None:
    errors = wheel_smoke.wheel_list_errors(_wheel("other-1.0.dist-info/METADATA"), LIBRARY)
    assert errors[0] == (
        f"expected one roncho-*.dist-info/, found ['other-1.0.dist-info', '{INFO}']"
    )


def test_a_file_listed_twice_fails() -> None:
    errors = wheel_smoke.wheel_list_errors(_wheel("roncho/_client.py"), LIBRARY)
    assert errors == ["a file is in the wheel twice"]
