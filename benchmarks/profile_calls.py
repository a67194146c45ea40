"""Where roncho's client-side time goes: cProfile over the benchmark operations.

    python benchmarks/profile_calls.py [OP ...]      (default: add:100 list:p50c1024 list:m8)

Runs the loopback server in this process and roncho's calls under cProfile, then prints
the functions with the most own time. Run it with the plain interpreter and
PYTHONPATH=. so roncho comes from the repo (the server's threads are not profiled:
cProfile follows only the calling thread).
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys

from server import Server
from worker import RonchoOps, op_function

CALLS = {"add:100": 200, "list:p50c1024": 300, "list:m8": 5}
TOP = 18


def main(argv: list[str]) -> int:
    names = argv or list(CALLS)
    with Server() as server:
        server.warm(*(f"/v3/workspaces/bench/sessions/{n[5:]}/messages/list" for n in names))
        ops = RonchoOps(server.url)
        for name in names:
            call = op_function(ops, name)
            for _ in range(3):
                call()
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(CALLS.get(name, 100)):
                call()
            profile.disable()
            out = io.StringIO()
            stats = pstats.Stats(profile, stream=out)
            stats.strip_dirs().sort_stats("tottime").print_stats(TOP)
            print(f"===== {name} x {CALLS.get(name, 100)} =====")
            print(out.getvalue().split("\n", 4)[-1].strip("\n"))
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
