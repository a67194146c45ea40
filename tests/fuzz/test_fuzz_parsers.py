"""The fuzz targets of fuzz_parsers.py, each for CI_EXAMPLES examples (see that module)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fuzz_parsers import CI_EXAMPLES, TARGETS, check_http, check_sse, main, with_examples

SUBPROCESS_TIMEOUT = 60  # seconds for the command-line smoke run below


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_fuzz_target(name: str) -> None:
    with_examples(name, CI_EXAMPLES)()


# Inputs that once broke (or nearly broke) split-independence, kept as fixed regressions.
@pytest.mark.parametrize(
    ("data", "cuts"),
    [
        # head of exactly the cap: CR of the terminator arrived before its LF
        (b"HTTP/1.1 200 OK\r\nX: " + b"a" * 108 + b"\r\n\r\n", list(range(140))),
        # trailers over the cap, complete in one read
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: "
            + b"t" * 200
            + b"\r\n\r\n",
            list(range(300)),
        ),
        # a chunk-size line of exactly MAX_CHUNK_LINE_BYTES, its CR in one read
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;"
            + b"e" * 4094
            + b"\r\nx\r\n0\r\n\r\n",
            [4144],
        ),
    ],
)
def test_fuzz_http_regressions(data: bytes, cuts: list[int]) -> None:
    check_http(data, cuts, "GET")


def test_fuzz_sse_regression_bom_split() -> None:
    check_sse(b"\xef\xbb\xbfdata: x\n\n", [1, 2])


def test_fuzz_main_runs_every_target(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--examples", "5"]) == 0
    out = capsys.readouterr().out
    for name in TARGETS:
        assert f"{name}: 5 examples passed" in out


def test_fuzz_command_line() -> None:
    script = Path(__file__).with_name("fuzz_parsers.py")
    result = subprocess.run(
        [sys.executable, str(script), "--examples", "3", "--target", "sse"],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
    )
    assert result.returncode == 0, result.stderr
    assert "sse: 3 examples passed" in result.stdout
