#!/usr/bin/env bash
# TypeScript SDK conformance: Honcho's @honcho-ai/sdk (pinned by tests/sdk_ts/package-lock.json)
# driven over its whole surface against roncho's FakeHoncho and, with --base-url, a real Honcho,
# compared step by step and by value (ids and timestamps masked).
#
#   bash scripts/sdk-ts-conformance.sh                       # emulator vs the recorded real 3.0.12 run
#   bash scripts/sdk-ts-conformance.sh --base-url http://127.0.0.1:8000 [--key-file F] [--record]
#
# Needs Node 20+ and npm. The SDK is installed only into tests/sdk_ts/node_modules/ (git-ignored,
# `npm ci` from the lockfile, reused when it matches); it is never a dependency of roncho.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
# Without them this check cannot run here: exit 77, which the test runners show as SKIP with
# this line (scripts/stages.sh), not as a pass and not as a failure of roncho.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "sdk-ts-conformance: no node and npm on PATH (it needs Node 20 or newer)"
    exit 77
fi
# npm ci again only when the installed tree is not the one the lockfile pins.
if ! cmp -s tests/sdk_ts/package-lock.json tests/sdk_ts/node_modules/.package-lock.json 2>/dev/null &&
   ! node -e 'const a=require("./tests/sdk_ts/package-lock.json").packages, b=require("./tests/sdk_ts/node_modules/.package-lock.json").packages;
              for (const k of Object.keys(a)) if (k && (!b[k] || b[k].version !== a[k].version)) process.exit(1)' 2>/dev/null; then
    echo "installing @honcho-ai/sdk into tests/sdk_ts/node_modules/ (npm ci, test-only)"
    (cd tests/sdk_ts && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

PY=".venv/bin/python"
[[ -x "$PY" ]] || PY="python3"
PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" exec "$PY" tests/sdk_ts/sdk_ts_conformance.py "$@"
