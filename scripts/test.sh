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
echo "== pytest (tests and notebooks)"
exec .venv/bin/python -m pytest tests \
    --nbval-lax --nbval-sanitize-with tests/notebooks/sanitize.cfg notebooks \
    -p no:cacheprovider "$@"
