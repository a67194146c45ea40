#!/usr/bin/env bash
# SDK conformance: the official Python SDK (honcho-ai) driven over its whole surface against
# roncho's FakeHoncho and, with --base-url, against a real Honcho, compared step by step.
#
#   bash scripts/sdk-conformance.sh                       # emulator vs the recorded real 3.0.12 run
#   bash scripts/sdk-conformance.sh --base-url http://127.0.0.1:8000 [--key-file F] [--record]
#   bash scripts/sdk-conformance.sh --install-only        # only make the SDK's venv
#
# Prints a table (one row per step), then the method table (every SDK method on FakeHoncho
# 3.2.0 and 3.0.12, docs/sdk-conformance.md); exits non-zero on an unexpected difference. The
# SDK is installed only into tests/sdk/.venv-sdk/ (git-ignored, reused when warm); it is never
# a dependency of roncho. Runs with roncho's .venv (made by scripts/test.sh) when present.
set -euo pipefail
cd "$(dirname "$0")/.."

SDK_PIN="2.7.0"   # honcho-ai: the newest on PyPI when this was written (2026-12-01)
SDK_VENV="tests/sdk/.venv-sdk"
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi

if ! "$SDK_VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('honcho-ai') != '$SDK_PIN')" 2>/dev/null; then
    echo "installing honcho-ai==$SDK_PIN into $SDK_VENV/ (test-only)"
    python3 -m venv "$SDK_VENV"
    "$SDK_VENV/bin/python" -m pip install --quiet --disable-pip-version-check "honcho-ai==$SDK_PIN"
fi
# scripts/test.sh makes the venv before its pytest run (whose SDK tests use it), and runs the
# comparison beside that run.
[[ "${1:-}" == "--install-only" ]] && exit 0

PY=".venv/bin/python"
[[ -x "$PY" ]] || PY="python3"
PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$PY" tests/sdk/sdk_conformance.py \
    --sdk-python "$SDK_VENV/bin/python" "$@"
# Then every public method of the SDK against FakeHoncho 3.2.0, and 3.0.12 against the
# recorded real 3.0.12 (re-record: tests/sdk/sdk_method_table.py --base-url URL --record).
PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" exec "$PY" tests/sdk/sdk_method_table.py \
    --sdk-python "$SDK_VENV/bin/python"
