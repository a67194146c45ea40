#!/usr/bin/env bash
# Mutation testing of roncho's safety modules with mutmut (a contributor tool: it takes
# minutes to hours, so it is not part of scripts/test.sh). Writes a dated score per module
# to mutation/RESULTS.md. See docs/mutation.md.
#
#   scripts/mutation.sh                     a seeded sample of 800 (seed 20261201)
#   scripts/mutation.sh --sample 200 --seed 7
#   scripts/mutation.sh --all               every mutant (2,187: about an hour on 2 cores)
#   scripts/mutation.sh 'roncho._http.*'    only these mutants; prints, writes nothing
#   scripts/mutation.sh --again ...         same sample, mutants/ kept: re-test survivors only
#
# mutmut works in mutants/, a copy of the tree (git-ignored; kept after a run, for
# `.venv/bin/mutmut show NAME`). A run that was interrupted leaves it half-made, and mutmut
# would trust its stale results, so every run starts by removing it.
# Needs .venv with the test extras; installs mutmut 3.8.1 into it if missing.
set -euo pipefail
cd "$(dirname "$0")/.."

MUTMUT_VERSION=3.8.1
if [ ! -x .venv/bin/python ]; then
    echo "mutation.sh: make .venv first (python3 -m venv .venv && .venv/bin/pip install -e '.[test]')" >&2
    exit 1
fi
if [ "$(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("mutmut"))' 2>/dev/null)" != "$MUTMUT_VERSION" ]; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check "mutmut==$MUTMUT_VERSION"
fi

case " $* " in
    *" --again "*) [ -d mutants ] || { echo "mutation.sh: --again needs the mutants/ of a finished run" >&2; exit 1; } ;;
    *) rm -rf mutants ;;
esac
.venv/bin/python scripts/mutation.py --mutmut ".venv/bin/python scripts/_mutmut.py" "$@"
