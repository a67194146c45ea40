"""Benchmark 1: import cost. Wall time and peak RSS of short-lived interpreters.

Contenders, each a fresh ``python -c``:
    bare          ``pass`` with the plain interpreter (PYTHONPATH = the repo)
    stdlib-deps   imports exactly the standard-library modules that ``import roncho`` loads
    roncho        ``import roncho``

Also, per roncho contender, ``import roncho`` timed inside the child after its stdlib
modules are imported (wall and CPU clocks): the same "own cost" without the start-up of
a whole interpreter, so it stays readable on a loaded machine where the difference of
two process wall times drowns in noise.
    sdk-bare      ``pass`` with the SDK venv's interpreter (its site-packages .pth files)
    sdk           ``import honcho`` in the SDK venv

The stdlib list is derived, not written down: a child imports roncho and prints the
modules it added to ``sys.modules``; those whose top-level name is in
``sys.stdlib_module_names`` are kept. Each child runs to completion under
``subprocess.run`` and reports its own peak RSS (VmHWM from /proc/self/status, read
as its last act). Wall time is measured around the whole child, start-up included.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, field

from harness import Interpreters
from stats import Summary, ratio, table, verdict

# A child that takes longer than this is broken, not slow.
CHILD_TIMEOUT = 60.0
# Children run here: ``python -c`` puts its working directory first on sys.path, and the
# repo's own directory would shadow the roncho that PYTHONPATH names.
NEUTRAL_CWD = "/"

_DIFF = (
    "import sys\n"
    "before = set(sys.modules)\n"
    "import roncho\n"
    "print(roncho.__file__)\n"
    "print('\\n'.join(sorted(set(sys.modules) - before)))\n"
)


@dataclass
class ImportResult:
    modules: list[str]
    wall_ms: dict[str, list[float]] = field(default_factory=dict)
    rss_kib: dict[str, list[float]] = field(default_factory=dict)
    # Inside the child, stdlib modules already imported: contender -> [(wall ms, CPU ms)].
    inside_ms: dict[str, list[tuple[float, float]]] = field(default_factory=dict)


_INSIDE = (
    "import time\n"
    "t0, c0 = time.perf_counter(), time.process_time()\n"
    "import roncho\n"
    "print((time.perf_counter() - t0) * 1e3, (time.process_time() - c0) * 1e3)\n"
)


def inside(python: str, env: dict[str, str], modules: list[str]) -> tuple[float, float]:
    """``import roncho`` timed by the child itself, its stdlib modules imported first."""
    code = "import " + ", ".join(modules) + "\n" + _INSIDE
    out = subprocess.run(
        [python, "-c", code],
        env=env,
        cwd=NEUTRAL_CWD,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
    )
    out.check_returncode()
    wall, cpu = out.stdout.split()
    return float(wall), float(cpu)


def stdlib_modules(python: str, env: dict[str, str]) -> list[str]:
    """The standard-library modules ``import roncho`` adds to a bare interpreter."""
    out = subprocess.run(
        [python, "-c", _DIFF],
        env=env,
        cwd=NEUTRAL_CWD,
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
    )
    out.check_returncode()
    where, *loaded = out.stdout.split()
    expected = env["PYTHONPATH"]
    if not where.startswith(expected):
        raise RuntimeError(f"roncho was imported from {where}, not from {expected}")
    names = subprocess.run(
        [python, "-c", "import sys; print('\\n'.join(sorted(sys.stdlib_module_names)))"],
        env=env,
        cwd=NEUTRAL_CWD,
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
    ).stdout.split()
    stdlib = set(names)
    return [m for m in loaded if m.split(".")[0] in stdlib]


# Appended to every child's code: its own peak RSS (VmHWM, KiB) from /proc. The parent's
# rusage cannot be used: a child started by vfork/posix_spawn is charged the parent's
# RSS until it execs, which hides a small interpreter's peak behind the benchmark's own.
_PEAK = (
    "\nfor _line in open('/proc/self/status'):\n"
    "    if _line.startswith('VmHWM:'):\n"
    "        print(_line.split()[1])\n"
)


def spawn(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Run one child to completion: (wall seconds, peak RSS in KiB)."""
    argv = [*argv[:-1], argv[-1] + _PEAK]
    start = time.perf_counter()
    out = subprocess.run(
        argv,
        env=env,
        cwd=NEUTRAL_CWD,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=CHILD_TIMEOUT,
    )
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(f"{argv} exited with {out.returncode}: {out.stderr[-2000:]!r}")
    return wall, int(out.stdout.split()[-1])


def run(interp: Interpreters, rounds: int, repeats: int) -> ImportResult:
    python, env = interp.python, interp.env
    modules = stdlib_modules(python, env)
    contenders: dict[str, tuple[list[str], dict[str, str]]] = {
        "bare": ([python, "-c", "pass"], env),
        "stdlib-deps": ([python, "-c", "import " + ", ".join(modules)], env),
        "roncho": ([python, "-c", "import roncho"], env),
    }
    if interp.alt_env is not None:
        stdlib_modules(python, interp.alt_env)  # checks where roncho-alt is imported from
        contenders["roncho-alt"] = ([python, "-c", "import roncho"], interp.alt_env)
    if interp.sdk_python is not None:
        contenders["sdk-bare"] = ([interp.sdk_python, "-c", "pass"], interp.sdk_env)
        contenders["sdk"] = ([interp.sdk_python, "-c", "import honcho"], interp.sdk_env)
    result = ImportResult(modules)
    names = list(contenders)
    for argv, child_env in contenders.values():  # compile .pyc files, fill the page cache
        spawn(argv, child_env)
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for _ in range(repeats):
            for name in order:
                argv, child_env = contenders[name]
                wall, rss = spawn(argv, child_env)
                result.wall_ms.setdefault(name, []).append(wall * 1e3)
                result.rss_kib.setdefault(name, []).append(float(rss))
                if name.startswith("roncho"):
                    timed = inside(python, child_env, modules)
                    result.inside_ms.setdefault(name, []).append(timed)
    return result


def report(result: ImportResult) -> tuple[str, list[str]]:
    wall = {k: Summary.of(v) for k, v in result.wall_ms.items()}
    rss = {k: Summary.of(v) for k, v in result.rss_kib.items()}
    rows = [
        [name, wall[name].show(1, " ms"), rss[name].show(0, " KiB"), str(wall[name].n)]
        for name in result.wall_ms
    ]
    text = [
        table(["interpreter running", "wall (median [min-max])", "peak RSS", "runs"], rows),
        "",
        f"stdlib modules roncho loads ({len(result.modules)}): {', '.join(result.modules)}",
        "",
    ]
    m = {k: s.median for k, s in wall.items()}
    r = {k: s.median for k, s in rss.items()}
    own_ms = m["roncho"] - m["stdlib-deps"]
    own_mb = (r["roncho"] - r["stdlib-deps"]) / 1024
    over_bare = m["roncho"] - m["bare"]
    text += [
        f"roncho vs bare interpreter: {m['roncho']:.1f} ms / {m['bare']:.1f} ms = "
        f"{ratio(m['roncho'], m['bare'])}; import roncho adds {over_bare:.1f} ms and "
        f"{(r['roncho'] - r['bare']) / 1024:.2f} MiB over a bare interpreter",
        f"roncho's own cost over its stdlib modules: {own_ms:+.1f} ms, {own_mb:+.2f} MiB",
    ]
    for name, samples in result.inside_ms.items():
        wall_in = Summary.of([w for w, _ in samples])
        cpu_in = Summary.of([c for _, c in samples])
        text.append(
            f"{name}: import roncho timed inside the child, stdlib modules already imported: "
            f"wall {wall_in.show(1, ' ms')}, CPU {cpu_in.show(1, ' ms')}"
        )
    if "roncho-alt" in m:
        text.append(
            f"roncho-alt: {m['roncho-alt'] - m['stdlib-deps']:+.1f} ms, "
            f"{(r['roncho-alt'] - r['stdlib-deps']) / 1024:+.2f} MiB over roncho's stdlib "
            f"modules; {m['roncho-alt'] - m['bare']:.1f} ms and "
            f"{(r['roncho-alt'] - r['bare']) / 1024:.2f} MiB over a bare interpreter "
            f"(its own stdlib modules may differ)"
        )
    goals = [
        f"import: roncho adds {own_ms:.1f} ms over its stdlib modules (goal <= 15 ms): "
        f"{verdict(own_ms <= 15)}",
        f"import: roncho adds {own_mb:.2f} MiB over its stdlib modules (goal < 3 MB): "
        f"{verdict(own_mb * 1.048576 < 3)}",
    ]
    if "sdk" in m:
        sdk_over = m["sdk"] - m["sdk-bare"]
        speedup = sdk_over / over_bare if over_bare > 0 else float("inf")
        text.append(
            f"SDK: import honcho adds {sdk_over:.1f} ms and "
            f"{(r['sdk'] - r['sdk-bare']) / 1024:.2f} MiB over its own bare interpreter; "
            f"that is {speedup:.1f}x roncho's {over_bare:.1f} ms "
            f"(whole process: {ratio(m['sdk'], m['roncho'])})"
        )
        goals.append(
            f"import: SDK import cost / roncho import cost = {speedup:.1f}x (goal >= 10x): "
            f"{verdict(speedup >= 10)}"
        )
    else:
        goals.append("import: >= 10x faster than the SDK: n/a (SDK not run)")
    return "\n".join(text), goals
