#!/usr/bin/env bash
# Runs every check and test roncho has: lint, types, unit, wire, emulator, live-against-
# emulator, the code examples of the README, docs/ and docstrings, and every notebook under
# nbval. Installs what it needs into .venv first.
# Needs python3 (>= 3.11) and access to a package index (PyPI or a mirror) for '.[test]'
# (the workbook's tools, pytest, the linters; the library itself needs nothing). The install
# is editable: the checkout is a plain sys.path entry (pyproject.toml's package-dir says why),
# which is how the tests and the notebooks import roncho_workbook/, the workbook's code (not
# in the wheel).
# Optional, each a SKIP line when absent: python3.12 / python3.13 (the library's tests run
# again on each), node and npm (the TypeScript SDK check), the kit ../shared/real-honcho (Honcho's
# own route tests). Touches nothing outside the checkout except pip's cache, and leaves the
# working tree unchanged.
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
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]' ||
    { echo "test.sh: installing into .venv failed (it needs package-index access)" >&2; exit 1; }

# shellcheck source=scripts/stages.sh
source scripts/stages.sh

stage "ruff" .venv/bin/ruff check roncho roncho_workbook tests scripts benchmarks notebooks/*.py
stage "mypy (strict on roncho/ and roncho_workbook/)" .venv/bin/mypy
stage "docs/compatibility.md is up to date with docs/observations" \
    .venv/bin/python scripts/render_compat.py --check docs/observations/*.json
stage "docs/answers.md is up to date with results/" .venv/bin/python scripts/render_answers.py --check
stage "docs/api.md's models are up to date with the code" \
    .venv/bin/python scripts/render_api.py --check
stage "Client's and AsyncClient's methods are up to date with roncho/_operations/" \
    .venv/bin/python scripts/render_clients.py --check
stage "the records' __slots__ and __init__ are up to date with their fields (roncho/_models/)" \
    .venv/bin/python scripts/render_records.py --check
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
        -e . pytest pytest-timeout pytest-xdist hypothesis
}

# Every pytest run goes in several processes (pytest-xdist): most tests wait on sockets,
# servers and child processes rather than compute, so more processes than cores fill the
# time one process spends waiting. Each library run gets two, beside the other stages.
library_tests_on() { # version
    ".venv-$1/bin/python" -m pytest tests/unit tests/wire tests/aio tests/emulator \
        tests/live tests/fuzz tests/docs -q -p no:cacheprovider -n 2
}

# The newer interpreters' runs start here, one beside the other, and go on in the background
# beside every stage below (SDK conformance, the route tests, the last pytest run): their
# tests mostly wait on sockets, servers and sleeps (a profile of them: 180 of 300 s spent
# waiting), so the two cores are full only when several runs share them. Their venvs are
# installed first, one after the other: both editable installs write the same build metadata
# into the checkout. Each run's output is kept and shown whole at the end, in its own stage,
# with its exit and time. Ctrl-C (or any exit) stops them.
library_pids=() library_logs=() library_names=() library_dir=""
start_library_tests() { # version interpreter [version interpreter ...]
    local version interpreter
    library_dir=$(mktemp -d "${TMPDIR:-/tmp}/roncho-library-tests.XXXXXX") || return
    while [ $# -gt 0 ]; do
        version=$1 interpreter=$2
        shift 2
        if ! library_venv_for "$version" "$interpreter"; then
            echo "-- could not install .venv-$version"
            return 1
        fi
        library_names+=("$("$interpreter" --version 2>&1)")
        library_logs+=("$library_dir/$version.log")
        (
            started=$SECONDS
            library_tests_on "$version"
            rc=$?
            echo "-- exit $rc ($((SECONDS - started)) s)"
            exit "$rc"
        ) > "$library_dir/$version.log" 2>&1 &
        library_pids+=($!)
    done
}
stop_library_tests() {
    [ "${#library_pids[@]}" -gt 0 ] && kill "${library_pids[@]}" 2>/dev/null
    [ -n "$library_dir" ] && rm -rf "$library_dir"
}
trap 'stop_library_tests; exit 130' INT TERM
trap stop_library_tests EXIT

# Waits for the runs started above and keeps each one's exit; says how long each took (its
# log's last line, "-- exit N (T s)"): the stage that shows them starts only after they
# ended, so its own time says nothing of theirs.
library_rcs=()
library_tests_wait() {
    local i
    for i in "${!library_pids[@]}"; do
        wait "${library_pids[$i]}"; library_rcs[$i]=$?
    done
    library_pids=()
}
library_tests_took() {
    local i took text=""
    for i in "${!library_logs[@]}"; do
        took=$(sed -n 's/^-- exit [0-9]* (\([0-9]*\) s)$/\1/p' "${library_logs[$i]}" | tail -n 1)
        text+=", ${library_names[$i]} ${took:-?} s"
    done
    echo "${text#, }"
}
# Shows each run's output whole; fails if any failed.
library_tests_results() {
    local i status=0
    for i in "${!library_logs[@]}"; do
        echo "-- pytest on ${library_names[$i]}:"
        cat "${library_logs[$i]}"
        [ "${library_rcs[$i]}" -eq 0 ] || status=${library_rcs[$i]}
    done
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
library_started=0
if [ "${#newer[@]}" -gt 0 ]; then
    if start_library_tests "${newer[@]}"; then
        library_started=1
    else
        stage "install the newer interpreters' venvs" false
    fi
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

if [ "$library_started" -eq 1 ]; then
    names_text=$(printf ' and %s' "${newer_names[@]}")
    library_tests_wait
    stage "pytest on ${names_text# and } (library tests, beside the stages above: $(library_tests_took))" \
        library_tests_results
fi

finish stages
