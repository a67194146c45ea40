#!/usr/bin/env bash
# Runs every investigation notebook with papermill and writes a dated results folder.
# With no options it runs against the embedded emulator (roncho.testing), a demonstration
# written to results/demo/ (ignored by git); pass --base-url http://host:8000 [--api-key KEY]
# [--deriver-flush on|off --age-gate SECONDS] to run against a real Honcho and record the
# run in results/. See scripts/investigate.py --help.
# Installs what it needs into .venv first.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[workbook]'
exec .venv/bin/python scripts/investigate.py "$@"
