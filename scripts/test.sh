#!/usr/bin/env bash
# Runs every check and test roncho has: lint, types, unit, wire, emulator, live-against-
# emulator, and every notebook under nbval. Installs what it needs into .venv first.
# Needs only python3 (>= 3.11) and access to PyPI; touches nothing outside the checkout
# except pip's cache, and leaves the working tree unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'

echo "== ruff"
.venv/bin/ruff check roncho tests scripts benchmarks notebooks/_lab.py notebooks/_figures.py
echo "== mypy (strict on roncho/)"
.venv/bin/mypy
echo "== docs/compatibility.md is up to date with docs/observations"
.venv/bin/python scripts/render_compat.py --check docs/observations/*.json
echo "== benchmarks, smoke mode (one short round: checks the benchmark runs, asserts no speed)"
.venv/bin/python benchmarks/run.py --smoke --no-sdk > /dev/null
# The library claims Python 3.11 and newer: where this machine has newer interpreters (on
# PATH, or installed by pyenv without being selected), the library's own tests (not the
# notebooks) run on each of them too.
for version in 3.12 3.13; do
    interpreter=""
    if command -v "python$version" >/dev/null 2>&1 && "python$version" -c pass >/dev/null 2>&1; then
        interpreter=$(command -v "python$version")
    else
        for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version".*/bin/"python$version"; do
            if [ -x "$candidate" ]; then interpreter=$candidate; break; fi
        done
    fi
    [ -n "$interpreter" ] || continue
    echo "== pytest on $("$interpreter" --version) (library tests)"
    if [ ! -x ".venv-$version/bin/python" ]; then
        "$interpreter" -m venv ".venv-$version"
    fi
    ".venv-$version/bin/python" -m pip install --quiet --disable-pip-version-check \
        -e . pytest pytest-timeout hypothesis
    ".venv-$version/bin/python" -m pytest tests/unit tests/wire tests/aio tests/emulator tests/live \
        tests/fuzz -q -p no:cacheprovider
done
echo "== pytest (tests and notebooks)"
exec .venv/bin/python -m pytest tests \
    --nbval-lax --nbval-sanitize-with tests/notebooks/sanitize.cfg notebooks \
    -p no:cacheprovider "$@"
