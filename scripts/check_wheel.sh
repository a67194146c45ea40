#!/usr/bin/env bash
# Builds roncho's sdist and wheel (the wheel from the sdist, so the sdist is shown complete)
# and checks the wheel as memoryd will use it: installed with no package index into a clean
# virtual environment outside the checkout, then scripts/wheel_smoke.py run from there. The
# smoke test compares the wheel's file list with the library's files (every file under
# roncho/ that git tracks, the emulator included) and fails on one too many (the workbook's
# code, roncho_workbook/, stays out) or one missing.
# Fails if the build prints a deprecation (setuptools warns when the license is not an SPDX
# expression; such a warning becomes an error in a later setuptools).
# Needs python3 (>= 3.11), git, and package-index access for the build tools; writes only to
# a temporary directory (and pip's cache), removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD
PYTHON=${PYTHON:-python3}

work=$(mktemp -d "${TMPDIR:-/tmp}/roncho-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== build the sdist, then the wheel from it"
"$PYTHON" -m venv "$work/build-env"
"$work/build-env/bin/python" -m pip install --quiet --disable-pip-version-check build
"$work/build-env/bin/python" -m build --outdir "$work/dist" "$checkout" > "$work/build.log" 2>&1 ||
    { cat "$work/build.log"; echo "check_wheel.sh: the build failed" >&2; exit 1; }
if grep -n -i -E 'deprecat|SetuptoolsWarning' "$work/build.log"; then
    echo "check_wheel.sh: the build printed the warnings above" >&2
    exit 1
fi
ls -l "$work/dist"
wheels=("$work"/dist/roncho-*.whl)
[ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ] ||
    { echo "check_wheel.sh: expected exactly one wheel, found: ${wheels[*]}" >&2; exit 1; }

echo "== install the wheel into a clean venv (no index: roncho has no dependencies)"
"$PYTHON" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index \
    "${wheels[0]}"

echo "== smoke test, run from outside the checkout"
cp scripts/wheel_smoke.py "$work/wheel_smoke.py"
git ls-files -- roncho > "$work/library-files.txt"
cd "$work"
# -I: no PYTHON* variables, no user site, and the script's folder is not put on sys.path.
"$work/venv/bin/python" -I "$work/wheel_smoke.py" "${wheels[0]}" "$work/library-files.txt"
