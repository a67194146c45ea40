"""Mutation testing of roncho's hand-written modules, and the dated score it writes.

Run through ``scripts/mutation.sh`` (which clears ``mutants/`` and picks the venv). Steps:

1. ``mutmut run`` with a filter that matches nothing: mutmut copies the tree into
   ``mutants/``, writes every mutant, and runs the fast tests once to learn which tests
   reach which function (``[tool.mutmut]`` in pyproject.toml says which modules and tests).
2. The mutants to test: all of them (``--all``), a seeded sample (``--sample N --seed S``),
   drawn from the sorted list of names, so a seed names the same sample on the same code, or
   those that match patterns (``'roncho.webhooks.*'``). The mutants of generated methods
   (between a module's ``BEGIN GENERATED`` and ``END GENERATED`` markers; their generator's
   ``--check`` holds that text) are left out of all three.
3. ``mutmut run NAME...`` on those; each result is read back from mutmut's ``.meta`` files.
4. Each survivor is sorted into one of three kinds:
   - *equivalent*: listed in ``mutation/judged.txt`` as ``equivalent`` with why;
   - *message-only*: listed there as ``message`` with why, or a change to text literals
     only, each of them prose (it holds a space) or on a line that builds an error (or an
     error's message made None);
   - *behavioural*: every other survivor. The goal is none: a behavioural survivor is a
     behaviour no test holds, so add the test (or, if it truly changes nothing, list it as
     equivalent; one no test here can reach may be listed as behavioural with why).
5. A dated section is added to the top of ``mutation/RESULTS.md``: per module, the mutants
   tested, killed (a timeout counts: the tests noticed), and the three kinds of survivor, then
   the survivors by name with their one-line change, and how long the run took. Patterns
   write a section only with ``--part``, and a part must take whole modules.
6. The table at the top of ``mutation/RESULTS.md`` is written again from every section: per
   module, its newest whole-module row (of a run of all mutants or of a part), marked stale
   when the module changed since, and the modules no such run has covered yet, with their
   mutants and an estimate of the time at the measured rate. The whole set is too long
   for one sitting on 2 cores, so it is run in parts and read here as one.
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import random
import re
import shlex
import subprocess
import sys
import time
import tokenize
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
RESULTS = ROOT / "mutation" / "RESULTS.md"
JUDGED = ROOT / "mutation" / "judged.txt"
NOTHING = "no-mutant-has-this-name"  # the filter of step 1
HEADER = "# Mutation scores\n"
LATEST_BEGIN = "<!-- BEGIN newest whole-module rows (scripts/mutation.py) -->"
LATEST_END = "<!-- END newest whole-module rows -->"
INTRO = (
    "Written by `scripts/mutation.sh` (newest first); how to read it: `docs/mutation.md`.\n"
    "Killed includes timeouts. Survivors are equivalent (changes nothing observable, listed\n"
    "with why in `mutation/judged.txt`), message-only (changes an error's text only), or\n"
    "behavioural (a behaviour no test holds: the goal is none).\n"
)
KILLED = {1, 3, 24, -24, 36, 152, 255, -9, -11}  # mutmut's exit codes for caught
SURVIVED = {0}
NO_TESTS = {5, 33}


@dataclass(frozen=True)
class Judged:
    kind: str  # "equivalent", "message", or "behavioural" (no test here can tell it: why)
    why: str


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--all", action="store_true", help="test every mutant")
    parser.add_argument("--sample", type=int, default=800, help="mutants in the sample")
    parser.add_argument("--seed", type=int, default=20261201, help="seed of the sample")
    parser.add_argument("--jobs", type=int, default=None, help="mutmut's --max-children")
    parser.add_argument("--mutmut", default="mutmut", help="the mutmut command")
    parser.add_argument("--no-write", action="store_true", help="print, do not write RESULTS")
    parser.add_argument(
        "--again",
        action="store_true",
        help="keep mutants/ and re-test only the sample's survivors (after adding tests)",
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="with --again: test nothing, report what mutants/ holds for the sample",
    )
    parser.add_argument(
        "--tested-only",
        action="store_true",
        help="with --again: keep to the mutants of the sample that have a result (a run "
        "stopped before its end)",
    )
    parser.add_argument(
        "--part",
        action="store_true",
        help="with patterns: write their section as a part of the whole set (whole modules only)",
    )
    parser.add_argument(
        "names", nargs="*", help="test only these mutants (no RESULTS entry without --part)"
    )
    args = parser.parse_args(argv)
    if args.part and not args.names:
        parser.error("--part needs the patterns of the part, e.g. 'roncho.webhooks.*'")

    started = time.monotonic()
    if not args.again:
        generate(args.mutmut)
    generated = time.monotonic() - started
    every = sorted(n for n in read_codes() if not is_generated(n))
    if args.names:
        chosen = [n for n in every if any(re.fullmatch(_glob(p), n) for p in args.names)]
        partial = split_modules(chosen, every)
        if args.part and partial:
            print(
                "mutation.py: a part takes whole modules; these patterns take only some "
                f"mutants of {', '.join(partial)}",
                file=sys.stderr,
            )
            return 2
    elif args.all:
        chosen = every
    else:
        chosen = sorted(random.Random(args.seed).sample(every, min(args.sample, len(every))))
    if not chosen:
        print("mutation.py: no mutant matches", file=sys.stderr)
        return 2
    print(f"mutation.py: testing {len(chosen)} of {len(every)} mutants", flush=True)
    command = [*shlex.split(args.mutmut), "run"]
    if args.jobs:
        command += ["--max-children", str(args.jobs)]
    codes = read_codes()
    if args.again and args.tested_only:
        sample = len(chosen)
        chosen = [n for n in chosen if codes.get(n) is not None]
        print(f"mutation.py: {len(chosen)} of the sample's {sample} have a result", flush=True)
    if args.again and args.report_only:
        chosen_now = []
    elif args.again:
        chosen_now = [n for n in chosen if codes.get(n) is None or codes[n] not in KILLED]
        print(f"mutation.py: re-testing {len(chosen_now)} survivors", flush=True)
    else:
        chosen_now = chosen
    if chosen_now:
        ran = subprocess.run(command + chosen_now, cwd=ROOT, check=False, stdout=subprocess.DEVNULL)
        if ran.returncode != 0:
            # With --again the survivors keep their old result when mutmut stops before
            # testing them (its clean run failed, say): a section then would claim a re-test
            # that never happened.
            print(
                f"mutation.py: mutmut stopped (exit {ran.returncode}); nothing written",
                file=sys.stderr,
            )
            return 1
    before, codes = codes, read_codes()
    if args.again:  # a kill stands when tests are only added (mutmut may forget it)
        codes |= {n: before[n] for n in chosen if codes.get(n) is None and before.get(n) in KILLED}
    untested = [n for n in chosen if codes.get(n) is None]
    if untested:
        print(
            f"mutation.py: {len(untested)} mutants have no result (interrupted?)", file=sys.stderr
        )
        return 1
    rows, survivors = classify({n: codes[n] for n in chosen}, args.mutmut)
    label = "all mutants" if args.all else f"seeded sample of {len(chosen)} (seed {args.seed})"
    if args.again and args.tested_only and not args.all:
        label = (
            f"the {len(chosen)} tested of a seeded sample of {args.sample} (seed {args.seed}; "
            "the run was stopped before its end)"
        )
    if args.names:
        label = f"{len(chosen)} named mutants"
        if args.part:
            label = "part " + ", ".join(f"`{p}`" for p in args.names)
    took = time.monotonic() - started
    timing = (
        f"Took {took / 60:.1f} min wall ({generated / 60:.1f} min of it making the mutants and "
        f"mapping the tests), {len(chosen_now)} mutants tested now"
        + (f" of the {len(chosen)} reported" if len(chosen_now) != len(chosen) else "")
        + "."
    )
    section = report(rows, survivors, label, len(every), timing)
    print(section)
    if (args.part or not args.names) and not args.no_write:
        write(section, mutants_by_module(every))
        print(f"mutation.py: wrote {RESULTS.relative_to(ROOT)}")
    return 0


def _glob(pattern: str) -> str:
    return ".*".join(re.escape(part) for part in pattern.split("*"))


def generated_functions() -> set[str]:
    """The mutant-name prefixes of the functions between a module's ``BEGIN GENERATED`` and
    ``END GENERATED`` markers (``roncho.aio._client.xǁAsyncClientǁget_peer__mutmut_``)."""
    prefixes: set[str] = set()
    for path in sorted((ROOT / "roncho").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "BEGIN GENERATED" not in text:
            continue
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        cls = None
        inside = False
        for line in text.splitlines():
            if found := re.match(r"class (\w+)", line):
                cls = found[1]
            elif re.match(r"\S", line):
                cls = None if not line.startswith(("#", "@", ")")) else cls
            if "# BEGIN GENERATED" in line:
                inside = True
            elif "# END GENERATED" in line:
                inside = False
            elif inside and (found := re.match(r"(\s*)(?:async )?def (\w+)\(", line)):
                owner = f"ǁ{cls}ǁ" if found[1] and cls else "_"
                prefixes.add(f"{module}.x{owner}{found[2]}__mutmut_")
    return prefixes


_GENERATED: set[str] | None = None


def is_generated(name: str) -> bool:
    global _GENERATED
    if _GENERATED is None:
        _GENERATED = generated_functions()
    return name.rsplit("__mutmut_", 1)[0] + "__mutmut_" in _GENERATED


def mutants_by_module(names: list[str]) -> Counter[str]:
    return Counter(module_of(n) for n in names)


def split_modules(chosen: list[str], every: list[str]) -> list[str]:
    """The modules of which ``chosen`` takes some mutants but not all."""
    have, whole = mutants_by_module(chosen), mutants_by_module(every)
    return sorted(m for m in have if have[m] != whole[m])


def generate(mutmut: str) -> None:
    """mutmut writes the mutants and the test map; the empty filter then stops it (its
    exit status says "nothing matches", which is what step 1 asks for)."""
    run = subprocess.run(
        [*shlex.split(mutmut), "run", NOTHING],
        cwd=ROOT,
        check=False,
        capture_output=True,
        text=True,
    )
    if not (MUTANTS / "mutmut-stats.json").exists() or "nothing matches" not in run.stderr:
        sys.stdout.write(run.stdout[-4000:])
        sys.stderr.write(run.stderr[-4000:])
        raise SystemExit("mutation.py: mutmut could not make the mutants or run the tests")


def read_codes() -> dict[str, int | None]:
    codes: dict[str, int | None] = {}
    for meta in sorted(MUTANTS.glob("roncho/**/*.py.meta")):
        codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    return codes


def module_of(name: str) -> str:
    """``roncho._http.x_build_request__mutmut_3`` -> ``roncho/_http.py``."""
    dotted = name.split(".x", 1)[0] if ".x_" in name or ".xǁ" in name else name
    path = dotted.replace(".", "/")
    return path + "/__init__.py" if (ROOT / path).is_dir() else path + ".py"


def read_judged() -> dict[str, Judged]:
    judged: dict[str, Judged] = {}
    if not JUDGED.exists():
        return judged
    for line in JUDGED.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, kind, why = (part.strip() for part in line.split("|", 2))
        if kind not in ("equivalent", "message", "behavioural"):
            raise SystemExit(f"mutation.py: {JUDGED.name}: unknown kind {kind!r} for {name}")
        judged[name] = Judged(kind, why)
    return judged


def show(mutmut: str, name: str) -> tuple[list[str], list[str]]:
    """The lines the mutant removes and adds (mutmut's own diff)."""
    out = subprocess.run(
        [*shlex.split(mutmut), "show", name], cwd=ROOT, check=False, capture_output=True, text=True
    ).stdout
    lines = out.splitlines()
    removed = [x[1:] for x in lines if x.startswith("-") and not x.startswith("---")]
    added = [x[1:] for x in lines if x.startswith("+") and not x.startswith("+++")]
    return removed, added


def _tokens(lines: list[str]) -> list[tuple[int, str]]:
    text = "\n".join(line.strip() for line in lines)
    try:
        return [
            (t.type, t.string)
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER)
        ]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []


def is_message_only(removed: list[str], added: list[str]) -> bool:
    """Only an error's text changes: string literals only, each original either prose (it
    holds a space) or on a line that builds an error; or an error's message made None."""
    before, after = _tokens(removed), _tokens(added)
    if not before:
        return False
    builds_error = any(re.search(r"\w(Error|Exceeded|Timeout)\(", line) for line in removed)
    if len(before) != len(after):
        # ``SomeError("text")`` -> ``SomeError(None)``: the message only.
        strings = [t for t in before if t[0] == tokenize.STRING]
        without = [t for t in before if t[0] != tokenize.STRING]
        nones = [t for t in after if t == (tokenize.NAME, "None")]
        rest = [t for t in after if t != (tokenize.NAME, "None")]
        return builds_error and bool(strings) and len(nones) == 1 and rest == without
    changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    return bool(changed) and all(
        b[0] == tokenize.STRING
        and (a[0] == tokenize.STRING or (builds_error and a == (tokenize.NAME, "None")))
        and (" " in b[1] or builds_error)
        and not b[1].startswith(("b", "B", "rb", "br"))
        for b, a in changed
    )


def classify(
    codes: dict[str, int | None], mutmut: str
) -> tuple[dict[str, Counter[str]], list[tuple[str, str, str]]]:
    judged = read_judged()
    rows: dict[str, Counter[str]] = {}
    survivors: list[tuple[str, str, str]] = []  # (name, kind, change or why)
    for name, code in sorted(codes.items()):
        row = rows.setdefault(module_of(name), Counter())
        row["tested"] += 1
        if code in KILLED:
            row["killed"] += 1
            continue
        if code in NO_TESTS:
            kind, what = "behavioural", "no test reaches this code"
        elif code not in SURVIVED:
            kind, what = "behavioural", f"mutmut status {code}"
        else:
            removed, added = show(mutmut, name)
            change = (
                f"{' '.join(x.strip() for x in removed)} -> {' '.join(x.strip() for x in added)}"
            )
            if name in judged:
                kind = judged[name].kind
                what = f"{change} ({judged[name].why})"
            elif is_message_only(removed, added):
                kind, what = "message", change
            else:
                kind, what = "behavioural", change
        row[kind] += 1
        survivors.append((name, kind, what))
    return rows, survivors


def report(
    rows: dict[str, Counter[str]],
    survivors: list[tuple[str, str, str]],
    label: str,
    total: int,
    timing: str,
) -> str:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "roncho", "tests"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    out = [
        f"## {when}, {commit}{' (uncommitted changes)' if dirty else ''}: {label}\n",
        f"{total} mutants in the mutated modules (generated methods left out). {timing}\n",
        "| module | tested | killed | equivalent | message-only | behavioural |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    sums: Counter[str] = Counter()
    for module, row in sorted(rows.items()):
        sums.update(row)
        out.append(_row(module, row))
    out.append(_row("**all**", sums))
    tested = sums["tested"] or 1
    out.append(
        f"\nKilled {sums['killed'] / tested:.1%}; message-only {sums['message'] / tested:.1%}; "
        f"behavioural {sums['behavioural']}.\n"
    )
    for kind, title in (
        ("behavioural", "Behavioural survivors"),
        ("equivalent", "Equivalent"),
        ("message", "Message-only"),
    ):
        listed = [(n, w) for n, k, w in survivors if k == kind]
        if listed:
            out.append(f"{title}:\n")
            out.extend(f"- `{n}`: `{w}`" for n, w in listed)
            out.append("")
    return "\n".join(out) + "\n"


def _row(module: str, row: Counter[str]) -> str:
    cells = [row[k] for k in ("tested", "killed", "equivalent", "message", "behavioural")]
    return f"| {module} | " + " | ".join(str(c) for c in cells) + " |"


def write(section: str, mutants: Counter[str]) -> None:
    """The new section goes on top of the old ones (all kept), and the table of the newest
    whole-module rows is written again from all of them."""
    RESULTS.parent.mkdir(exist_ok=True)
    old = RESULTS.read_text() if RESULTS.exists() else ""
    if LATEST_BEGIN in old and LATEST_END in old:
        old = old.split(LATEST_BEGIN, 1)[0] + old.split(LATEST_END, 1)[1]
    body = old.split("\n## ", 1)
    rest = "## " + body[1] if len(body) == 2 else ""
    sections = section + ("\n" + rest if rest else "")
    RESULTS.write_text(HEADER + "\n" + INTRO + "\n" + latest(sections, mutants) + "\n" + sections)


_SECTION = re.compile(r"^## (?P<when>[^,]+), (?P<commit>[0-9a-f]+)[^:]*: (?P<label>.*)$", re.M)
_ROW = re.compile(r"^\| (?P<module>roncho/\S+\.py) \| (?P<cells>[\d |]+)\|$", re.M)
_TOOK = re.compile(r"Took (?P<minutes>[\d.]+) min wall .*?, (?P<tested>\d+) mutants tested now")


def latest(sections: str, mutants: Counter[str]) -> str:
    """Per module, the newest row of a run that took it whole (all mutants, or a part), with
    its date and commit, marked stale if the module changed since; then the modules of
    ``mutants`` (this run's count per module) that no such run took, with an estimate."""
    newest: dict[str, tuple[str, str, list[str]]] = {}
    minutes = tested = 0.0
    for match in reversed(list(_SECTION.finditer(sections))):  # oldest first; newer win
        if not match["label"].startswith(("all mutants", "part ")):
            continue
        end = sections.find("\n## ", match.end())
        text = sections[match.end() : end if end != -1 else len(sections)]
        for row in _ROW.finditer(text):
            cells = [c.strip() for c in row["cells"].split("|") if c.strip()]
            newest[row["module"]] = (match["when"], match["commit"], cells)
        if took := _TOOK.search(text):
            minutes += float(took["minutes"])
            tested += int(took["tested"])
    out = [
        LATEST_BEGIN,
        "## Newest whole-module rows\n",
        "Per module, its newest row from a run of all mutants or of a part (the whole set is run",
        "in parts: `scripts/mutation.sh --part 'roncho.webhooks.*'`). *stale*: the module changed",
        "since that commit.\n",
        "| module | run | tested | killed | equivalent | message-only | behavioural |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    left: list[str] = []
    for module in sorted(set(newest) | set(mutants)):
        if module not in newest:
            left.append(module)
            continue
        when, commit, cells = newest[module]
        stale = _changed_since(commit, module)
        if stale and module in mutants:
            left.append(module)
        run = f"{when}, {commit}{' *stale*' if stale else ''}"
        out.append(f"| {module} | {run} | " + " | ".join(cells) + " |")
    rate = minutes / tested if tested else None
    if left:
        count = sum(mutants[m] for m in left)
        guess = f", about {count * rate / 60:.1f} h at {rate * 60:.1f} s a mutant" if rate else ""
        out.append(f"\nNot run yet, or stale ({count} mutants{guess}):\n")
        out.extend(f"- {m}: {mutants[m]} mutants" for m in left)
    out.append(LATEST_END)
    return "\n".join(out) + "\n"


def _changed_since(commit: str, module: str) -> bool:
    diff = subprocess.run(
        ["git", "diff", "--quiet", commit, "HEAD", "--", module], cwd=ROOT, check=False
    )
    return diff.returncode != 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
