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
.venv/bin/ruff check roncho tests scripts benchmarks notebooks/_lab.py
echo "== mypy (strict on roncho/)"
.venv/bin/mypy
echo "== docs/compatibility.md is up to date with docs/observations"
.venv/bin/python scripts/render_compat.py --check docs/observations/*.json
echo "== benchmarks, smoke mode (one short round: checks the benchmark runs, asserts no speed)"
.venv/bin/python benchmarks/run.py --smoke --no-sdk > /dev/null
# The library claims Python 3.11 and newer: where this machine has newer interpreters, the
# library's own tests (not the notebooks) run on each of them too.
for extra in python3.12 python3.13; do
    if command -v "$extra" >/dev/null 2>&1 && "$extra" -c pass >/dev/null 2>&1; then
        echo "== pytest on $("$extra" --version) (library tests)"
        if [ ! -x ".venv-$extra/bin/python" ]; then
            "$extra" -m venv ".venv-$extra"
        fi
        ".venv-$extra/bin/python" -m pip install --quiet --disable-pip-version-check \
            -e . pytest pytest-timeout hypothesis
        ".venv-$extra/bin/python" -m pytest tests/unit tests/wire tests/emulator tests/live \
            tests/fuzz -q -p no:cacheprovider
    fi
done
echo "== pytest (tests and notebooks)"
exec .venv/bin/python -m pytest tests \
    --nbval-lax --nbval-sanitize-with tests/notebooks/sanitize.cfg notebooks \
    -p no:cacheprovider "$@"
