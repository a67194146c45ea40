#!/usr/bin/env bash
# Runs every check and test roncho has: lint, types, unit, wire, emulator, live-against-
# emulator, the code examples of the README, docs/ and docstrings, and every notebook under
# nbval. Installs what it needs into .venv first.
# Needs only python3 (>= 3.11) and access to PyPI; touches nothing outside the checkout
# except pip's cache, and leaves the working tree unchanged.
#
# Every stage runs even when an earlier one failed; the end prints one verdict line per
# stage and the exit status is non-zero if any stage failed. Arguments go to the last
# pytest run (tests and notebooks).
set -uo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
# Without these nothing else can run, so a failure here stops the script at once.
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv || { echo "test.sh: could not create .venv with $PYTHON" >&2; exit 1; }
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip &&
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]' \
        --config-settings editable_mode=compat ||
    { echo "test.sh: installing into .venv failed (it needs package-index access)" >&2; exit 1; }

# shellcheck source=scripts/stages.sh
source scripts/stages.sh

stage "ruff" .venv/bin/ruff check roncho tests scripts benchmarks notebooks/*.py
stage "mypy (strict on roncho/)" .venv/bin/mypy
stage "docs/compatibility.md is up to date with docs/observations" \
    .venv/bin/python scripts/render_compat.py --check docs/observations/*.json
stage "docs/api.md's models are up to date with the code" \
    .venv/bin/python scripts/render_api.py --check
stage "Client's and AsyncClient's methods are up to date with roncho/_operations/" \
    .venv/bin/python scripts/render_clients.py --check
stage "benchmarks, smoke mode (one short round: checks the benchmark runs, asserts no speed)" \
    bash -c '.venv/bin/python benchmarks/run.py --smoke --no-sdk > /dev/null'

# The library claims Python 3.11 and newer: where this machine has newer interpreters (on
# PATH, or installed by pyenv without being selected), the library's own tests (not the
# notebooks) run on each of them too.
find_interpreter() {
    local version=$1 candidate
    if command -v "python$version" >/dev/null 2>&1 && "python$version" -c pass >/dev/null 2>&1
    then
        command -v "python$version"
        return
    fi
    for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version".*/bin/"python$version"; do
        if [ -x "$candidate" ]; then echo "$candidate"; return; fi
    done
}

library_venv_for() { # version interpreter
    local version=$1 interpreter=$2
    if [ ! -x ".venv-$version/bin/python" ]; then
        "$interpreter" -m venv ".venv-$version" || return
    fi
    ".venv-$version/bin/python" -m pip install --quiet --disable-pip-version-check \
        -e . --config-settings editable_mode=compat pytest pytest-timeout pytest-xdist hypothesis
}

# Every pytest run goes in several processes (pytest-xdist): most tests wait on sockets,
# servers and child processes rather than compute, so more processes than cores fill the
# time one process spends waiting. Each library run gets two, side by side with the other.
library_tests_on() { # version
    ".venv-$1/bin/python" -m pytest tests/unit tests/wire tests/aio tests/emulator \
        tests/live tests/fuzz tests/docs -q -p no:cacheprovider -n 2
}

# The newer interpreters' runs go side by side, one core each on CI's two (they took 150 s
# each in turn, and the test command has 10 minutes); each one's output is shown whole after
# both end, then one line per interpreter with its exit and time. Ctrl-C stops both. Their
# venvs are installed first, one after the other: both editable installs write the same
# build metadata into the checkout.
library_tests_side_by_side() { # version interpreter [version interpreter ...]
    local pids=() logs=() names=() starts=() versions=() status=0 i rc
    while [ $# -gt 0 ]; do
        library_venv_for "$1" "$2" || { echo "-- could not install .venv-$1"; return 1; }
        versions+=("$1"); names+=("$("$2" --version 2>&1)")
        shift 2
    done
    local dir; dir=$(mktemp -d "${TMPDIR:-/tmp}/roncho-library-tests.XXXXXX") || return
    trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$dir"; exit 130' INT TERM
    for i in "${!versions[@]}"; do
        logs+=("$dir/${versions[$i]}.log"); starts+=("$SECONDS")
        library_tests_on "${versions[$i]}" > "${logs[$i]}" 2>&1 &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}"; rc=$?
        echo "-- pytest on ${names[$i]}:"
        cat "${logs[$i]}"
        echo "-- pytest on ${names[$i]}: exit $rc ($((SECONDS - starts[i])) s)"
        [ "$rc" -eq 0 ] || status=$rc
    done
    trap - INT TERM
    rm -rf "$dir"
    return "$status"
}
newer=() newer_names=()
for version in 3.12 3.13; do
    interpreter=$(find_interpreter "$version")
    if [ -z "$interpreter" ]; then
        skip "pytest on Python $version (library tests)" "no python$version on PATH or in pyenv"
        continue
    fi
    newer+=("$version" "$interpreter")
    newer_names+=("$("$interpreter" --version 2>&1)")
done
if [ "${#newer[@]}" -gt 0 ]; then
    names_text=$(printf ' and %s' "${newer_names[@]}")
    stage "pytest on ${names_text# and } side by side (library tests)" \
        library_tests_side_by_side "${newer[@]}"
fi

stage "SDK conformance (honcho-ai in tests/sdk/.venv-sdk; emulator vs recorded real 3.0.12)" \
    bash scripts/sdk-conformance.sh

# These two exit 77 where they cannot run (no node; no kit): their verdict is then SKIP and
# the line that says why (scripts/stages.sh).
stage "TypeScript SDK conformance (@honcho-ai/sdk in tests/sdk_ts; emulator vs recorded real 3.0.12)" \
    bash scripts/sdk-ts-conformance.sh

stage "Honcho's own route tests over HTTP (emulator vs recorded real 3.0.12; needs the kit)" \
    .venv/bin/python tests/honcho_routes/run_routes.py --target emulator --compare

# Four processes on CI's two cores; a file's tests stay in one process (--dist loadfile): a
# notebook's cells run in order in one kernel, and a module's shared fixture (a server, a
# workbook run) is made once.
stage "pytest (tests and notebooks)" .venv/bin/python -m pytest tests \
    --nbval-lax --nbval-sanitize-with tests/notebooks/sanitize.cfg notebooks \
    -p no:cacheprovider -n 4 --dist loadfile "$@"

finish stages
