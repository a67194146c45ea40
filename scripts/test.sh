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
# Python keeps the bytecode it compiles (in __pycache__/, git-ignored) for the many Python
# processes of this run: with PYTHONDONTWRITEBYTECODE set, every pytest worker rewrites and
# compiles every test module again (a collection of the library tests: 7.3 s of CPU, 2.7 s
# once the cache is there), and every Python process the tests start compiles roncho again.
unset PYTHONDONTWRITEBYTECODE

# shellcheck source=scripts/stages.sh
source scripts/stages.sh

# Stages that run beside the others: the newer interpreters' library tests, the two SDK
# conformance checks. They spend most of their time waiting (on sockets, servers, sleeps, and
# package installs), so they go on while .venv is installed, the checks run and the main
# pytest run uses the cores. Each one's output is kept, and shown whole in its own stage once
# it has ended (beside_stage), with how long it took. Each runs in a process group of its
# own, so that Ctrl-C (or any exit) stops it with everything it started (stop_beside).
beside_dir=$(mktemp -d "${TMPDIR:-/tmp}/roncho-beside.XXXXXX") || exit 1
beside_pids=()
beside() { # ID COMMAND...: start COMMAND; its output, exit and seconds go to $beside_dir/ID.*
    local id=$1
    shift
    : > "$beside_dir/$id.log" # started: the waits below wait only for a started ID
    set -m # job control for this one start: the subshell leads a process group of its own
    (
        set +m
        started=$SECONDS
        "$@" < /dev/null > "$beside_dir/$id.log" 2>&1
        rc=$?
        echo "$((SECONDS - started))" > "$beside_dir/$id.took"
        echo "$rc" > "$beside_dir/$id.rc"
    ) &
    beside_pids+=($!)
    set +m
}
stop_beside() {
    local pid
    for pid in "${beside_pids[@]}"; do
        kill -TERM -- "-$pid" 2>/dev/null
    done
    rm -rf "$beside_dir"
}
trap 'stop_beside; exit 130' INT TERM
trap stop_beside EXIT
beside_wait() { # ID: until it has ended
    while [ -e "$beside_dir/$1.log" ] && [ ! -e "$beside_dir/$1.rc" ]; do sleep 0.2; done
}
beside_took() { # ID
    cat "$beside_dir/$1.took" 2>/dev/null || echo "?"
}
# Waits for ID, then shows its output whole as a stage of its own; the stage's exit is ID's
# (77, "cannot run here", is a SKIP with the last line it printed, as for any stage).
beside_stage() { # ID NAME
    beside_wait "$1"
    stage "$2 (beside the stages above: $(beside_took "$1") s)" beside_show "$1"
}
beside_show() { # ID
    cat "$beside_dir/$1.log"
    return "$(cat "$beside_dir/$1.rc")"
}
# Until FILE exists or ID has ended, whichever comes first.
beside_wait_for() { # ID FILE
    while [ -e "$beside_dir/$1.log" ] && [ ! -e "$2" ] && [ ! -e "$beside_dir/$1.rc" ]; do
        sleep 0.2
    done
}
# In a background stage: until .venv is installed (the script ends it if that fails).
wait_for_venv() {
    while [ ! -e "$beside_dir/venv-installed" ]; do sleep 0.2; done
}

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

# The venv and its test runners: nothing is written into the checkout.
library_venv_for() { # version interpreter
    local version=$1 interpreter=$2
    if [ ! -x ".venv-$version/bin/python" ]; then
        "$interpreter" -m venv ".venv-$version" || return
    fi
    ".venv-$version/bin/python" -m pip install --quiet --disable-pip-version-check \
        pytest pytest-timeout pytest-xdist hypothesis
}
# roncho itself, editable: this writes roncho.egg-info into the checkout, so it runs only
# after .venv's install and before the main pytest run, never beside another such install.
library_install_in() { # version
    ".venv-$1/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -e .
}

# Every pytest run goes in several processes (pytest-xdist): most tests wait on sockets,
# servers and child processes rather than compute, so more processes than cores fill the
# time one process spends waiting. Each library run gets two, beside the other stages.
library_test_dirs=(tests/unit tests/wire tests/aio tests/emulator tests/live tests/fuzz tests/docs)
library_tests_on() { # version
    ".venv-$1/bin/python" -m pytest "${library_test_dirs[@]}" -q -p no:cacheprovider -n 2
}

# The newer interpreters' runs, one beside the other, beside every stage from the start
# (their tests mostly wait on sockets, servers and sleeps: a profile of one run on 3.12, 87 s
# of CPU in 193 s). Their venvs and test runners are installed at once, roncho into them
# once .venv is in; then the main pytest run may start ("library-installed"). Prints each
# install's and each run's output whole, with the run's exit and time.
library_tests() { # version interpreter [version interpreter ...]
    local args=("$@") version interpreter i status=0 pids=() logs=() names=() ready=()
    while [ $# -gt 0 ]; do
        version=$1 interpreter=$2
        shift 2
        library_venv_for "$version" "$interpreter" > "$beside_dir/library-$version.install" 2>&1 &
        pids+=($!)
    done
    set -- "${args[@]}"
    i=0
    while [ $# -gt 0 ]; do
        version=$1 interpreter=$2
        shift 2
        if wait "${pids[$i]}"; then ready+=("$version" "$interpreter"); else
            cat "$beside_dir/library-$version.install"
            echo "-- could not install .venv-$version"
            status=1
        fi
        i=$((i + 1))
    done
    # While .venv installs: each interpreter collects the tests once, so that its two
    # workers find them compiled (bytecode and pytest's assertion rewriting, kept in
    # __pycache__/): 2.4 s of CPU each instead of 8 s, in the busiest part of the run.
    # Nothing is checked here: the runs collect again. Not once .venv is in (a warm
    # checkout's caches are warm already), so that the main pytest run never waits for it.
    set -- "${ready[@]}"
    while [ $# -gt 0 ] && [ ! -e "$beside_dir/venv-installed" ]; do
        ".venv-$1/bin/python" -m pytest "${library_test_dirs[@]}" -q -p no:cacheprovider \
            --collect-only > /dev/null 2>&1
        shift 2
    done
    wait_for_venv
    pids=()
    set -- "${ready[@]}"
    while [ $# -gt 0 ]; do
        version=$1 interpreter=$2
        shift 2
        if ! library_install_in "$version" >> "$beside_dir/library-$version.install" 2>&1; then
            cat "$beside_dir/library-$version.install"
            echo "-- could not install roncho into .venv-$version"
            status=1
            continue
        fi
        names+=("$("$interpreter" --version 2>&1)")
        logs+=("$beside_dir/library-$version.log")
        (
            started=$SECONDS
            cat "$beside_dir/library-$version.install" # pip's warnings, if any
            library_tests_on "$version"
            rc=$?
            echo "-- exit $rc ($((SECONDS - started)) s)"
            exit "$rc"
        ) > "$beside_dir/library-$version.log" 2>&1 &
        pids+=($!)
    done
    touch "$beside_dir/library-installed"
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || status=1
        echo "-- pytest on ${names[$i]}:"
        cat "${logs[$i]}"
    done
    return "$status"
}
# How long each run took: its log's "-- exit N (T s)" line.
library_tests_took() {
    local name took text=""
    for name in "${newer_names[@]}"; do
        took=$(sed -n "/^-- pytest on $name:\$/,/^-- exit/s/^-- exit [0-9]* (\([0-9]*\) s)\$/\1/p" \
            "$beside_dir/library.log" 2>/dev/null | head -n 1)
        text+=", $name ${took:-?} s"
    done
    echo "${text#, }"
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
[ "${#newer[@]}" -gt 0 ] && beside library library_tests "${newer[@]}"

# The SDK's venv is made first, beside .venv's install (the main pytest run's SDK tests use
# it once it is there); the comparison, which runs on .venv, goes on beside the stages below.
beside sdk bash -c 'bash scripts/sdk-conformance.sh --install-only && touch "$0/sdk-installed" &&
    until [ -e "$0/venv-installed" ]; do sleep 0.2; done && bash scripts/sdk-conformance.sh' \
    "$beside_dir"

PYTHON=${PYTHON:-python3}
# Without these nothing else can run, so a failure here stops the script at once.
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv || { echo "test.sh: could not create .venv with $PYTHON" >&2; exit 1; }
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip &&
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]' ||
    { echo "test.sh: installing into .venv failed (it needs package-index access)" >&2; exit 1; }
touch "$beside_dir/venv-installed"

# This one exits 77 where it cannot run (no node): its verdict is then SKIP and the line that
# says why (scripts/stages.sh).
beside sdk_ts bash scripts/sdk-ts-conformance.sh
# The checks (lint, types, the generated files, the benchmark's smoke round, Honcho's own
# route tests) go beside the main pytest run too: together about 30 s that would otherwise
# come before it. Each is a stage of its own, shown once the main run has ended.
beside ruff .venv/bin/ruff check roncho roncho_workbook tests scripts benchmarks notebooks/*.py
beside mypy .venv/bin/mypy
beside compat .venv/bin/python scripts/render_compat.py --check docs/observations/*.json
beside answers .venv/bin/python scripts/render_answers.py --check
beside api .venv/bin/python scripts/render_api.py --check
beside clients .venv/bin/python scripts/render_clients.py --check
beside records .venv/bin/python scripts/render_records.py --check
beside bench bash -c '.venv/bin/python benchmarks/run.py --smoke --no-sdk > /dev/null'
# This one exits 77 where it cannot run (no kit): SKIP, as above.
beside routes .venv/bin/python tests/honcho_routes/run_routes.py --target emulator --compare

# Four processes on CI's two cores; a file's tests stay in one process (--dist loadfile): a
# notebook's cells run in order in one kernel, and a module's shared fixture (a server, a
# workbook run) is made once. It starts once the venvs above are in (its SDK tests use the
# SDK's; the newer interpreters' editable installs write into the checkout).
beside_wait_for library "$beside_dir/library-installed"
beside_wait_for sdk "$beside_dir/sdk-installed"
stage "pytest (tests and notebooks)" .venv/bin/python -m pytest tests \
    --nbval-lax --nbval-sanitize-with tests/notebooks/sanitize.cfg notebooks \
    -p no:cacheprovider -n 4 --dist loadfile "$@"

beside_stage ruff "ruff"
beside_stage mypy "mypy (strict on roncho/ and roncho_workbook/)"
beside_stage compat "docs/compatibility.md is up to date with docs/observations"
beside_stage answers "docs/answers.md is up to date with results/"
beside_stage api "docs/api.md's models are up to date with the code"
beside_stage clients "Client's and AsyncClient's methods are up to date with roncho/_operations/"
beside_stage records \
    "the records' __slots__ and __init__ are up to date with their fields (roncho/_models/)"
beside_stage bench \
    "benchmarks, smoke mode (one short round: checks the benchmark runs, asserts no speed)"
beside_stage routes \
    "Honcho's own route tests over HTTP (emulator vs recorded real 3.0.12; needs the kit)"
beside_stage sdk "SDK conformance (honcho-ai in tests/sdk/.venv-sdk; emulator vs recorded real 3.0.12)"
beside_stage sdk_ts \
    "TypeScript SDK conformance (@honcho-ai/sdk in tests/sdk_ts; emulator vs recorded real 3.0.12)"
if [ "${#newer[@]}" -gt 0 ]; then
    beside_wait library
    names_text=$(printf ' and %s' "${newer_names[@]}")
    stage "pytest on ${names_text# and } (library tests, beside the stages above: $(library_tests_took))" \
        beside_show library
fi

finish stages
