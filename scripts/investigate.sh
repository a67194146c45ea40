#!/usr/bin/env bash
# Runs every investigation notebook with papermill and writes a results folder per run.
# With no options it runs against the embedded emulator (roncho.testing), a demonstration
# written to results/demo/ (ignored by git); pass --base-url http://host:8000
# [--api-key-file FILE] [--deriver-flush on|off --age-gate SECONDS] to run against a real
# Honcho and record the run in results/. `--help` lists every flag with its default and
# answers at once, before anything is installed.
# Installs what it needs into .venv first; again only when pyproject.toml has changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
for arg in "$@"; do
    case $arg in
        -h | --help)
            # investigate.py parses its flags with the standard library alone.
            if [ -x .venv/bin/python ]; then exec .venv/bin/python scripts/investigate.py --help; fi
            exec "$PYTHON" scripts/investigate.py --help
            ;;
    esac
done

if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
# Editable: the checkout goes on sys.path as a plain path entry (pyproject.toml's package-dir
# says why), so a script in the folder that holds a clone named `roncho` still imports the
# package, not that folder as an empty namespace package; and the notebooks import the
# workbook's code, roncho_workbook/, from there (the wheel leaves it out).
INSTALL=(-e '.[workbook]')
stamp=.venv/.roncho-workbook-installed
wanted="$(cat pyproject.toml) ${INSTALL[*]}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
    .venv/bin/python -m pip install --quiet --disable-pip-version-check "${INSTALL[@]}"
    printf '%s' "$wanted" > "$stamp"
fi
exec .venv/bin/python scripts/investigate.py "$@"
