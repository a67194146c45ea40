"""Honcho's own route tests, run over HTTP against a real server or the emulator.

    python tests/honcho_routes/run_routes.py --target real --url U --auth-url A \\
        --admin-key-file F --jwt-secret-file S [--record]
    python tests/honcho_routes/run_routes.py --target emulator [--compare]

The tests are AGPL code of Honcho 3.0.12: they are unpacked from the kit's tarball
(`../shared/real-honcho/honcho-3.0.12-tests.tar.gz`) into a temporary folder for the run and
removed after it, never copied into this project. They run in `.venv-routes/` (git-ignored): a
venv with Honcho's pinned pytest that sees the kit's installed Honcho (its `src` package and
its dependencies, which the tests import), with `plugin.py` standing in for Honcho's conftest.

`--record` writes the real server's outcomes to `recorded/<version>.json` (or `--outcomes F`);
`--compare` checks
the emulator against them: every test that passes on the real server must pass on the
emulator (the webhook routes are counted apart). Exit 1 on a difference; with no kit (no
tarball or no installed Honcho) one line says so and the exit is 77 (SKIPPED): the test
runners' verdict for this stage is then SKIP with that line, never a pass.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
VENV = HERE / ".venv-routes"
RECORDED = HERE / "recorded"
VERSION = "3.0.12"
# Honcho's dev pins (its uv.lock) for the test runner itself.
PINS = ["pytest==9.0.3", "pytest-asyncio==1.3.0", "pytest-timeout==2.4.0"]
PER_TEST_TIMEOUT = "60"
# The exit status of a run that could not happen here (scripts/stages.sh: a SKIP verdict).
SKIPPED = 77
RUN_TIMEOUT = 1800.0
WEBHOOKS = "tests/routes/test_webhooks.py"

PYTEST_INI = """[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
pythonpath = .
"""


def kit_paths(kit: Path, rh_dir: Path) -> tuple[Path, Path, Path] | None:
    tarball = kit / f"honcho-{VERSION}-tests.tar.gz"
    site = next(iter(sorted((rh_dir / "venv" / "lib").glob("python3*/site-packages"))), None)
    src = rh_dir / "src"
    if not tarball.is_file() or site is None or not (src / "src").is_dir():
        return None
    return tarball, site, src


def ensure_venv(site: Path, src: Path) -> Path:
    python = VENV / "bin" / "python"
    ok = python.exists() and (
        subprocess.run(
            [str(python), "-c", "import pytest, pytest_asyncio, pytest_timeout, src"],
            capture_output=True,
            check=False,
            cwd="/",
        ).returncode
        == 0
    )
    if not ok:
        kit_python = site.parents[2] / "bin" / "python"
        subprocess.run([str(kit_python), "-m", "venv", str(VENV)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *PINS],
            check=True,
        )
        lib = next(iter((VENV / "lib").glob("python3*/site-packages")))
        # The venv sees the kit's Honcho (read only): its dependencies, then its source.
        (lib / "honcho-kit.pth").write_text(f"{site}\n{src}\n", encoding="utf-8")
    return python


def unpack(tarball: Path, into: Path) -> None:
    with tarfile.open(tarball) as archive:
        members = [
            m
            for m in archive.getmembers()
            if m.isfile() and "/tests/routes/" in m.name and m.name.endswith(".py")
        ]
        for member in members:
            member.name = member.name.split("/", 1)[1]  # drop honcho-3.0.12/
        archive.extractall(into, members=members, filter="data")
    (into / "tests" / "__init__.py").write_text("", encoding="utf-8")
    # `from tests.conftest import AuthClient` in two files: the harness's class.
    (into / "tests" / "conftest.py").write_text("from plugin import AuthClient\n", encoding="utf-8")
    (into / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")


def run(
    python: Path, args: argparse.Namespace, tarball: Path, rh_dir: Path
) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="roncho-honcho-routes-") as tmp:
        where = Path(tmp)
        unpack(tarball, where)
        results = where / "results.jsonl"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HONCHO_", "AUTH_"))}
        env.update(
            PYTHONPATH=f"{HERE}{os.pathsep}{ROOT}",
            HONCHO_ROUTES_TARGET=args.target,
            HONCHO_ROUTES_RESULTS=str(results),
            # Honcho's settings in the test process: defaults only (as the kit's server has
            # for every limit the tests read), its tokenizer files from the kit.
            PYTHON_DOTENV_DISABLED="1",
            HONCHO_CONFIG_TOML_DISABLED="1",
            TIKTOKEN_CACHE_DIR=str(rh_dir / "tiktoken_cache"),
            AUTH_JWT_SECRET="unused-by-the-emulator",
            NO_PROXY="127.0.0.1,localhost",
        )
        if args.target == "real":
            env.update(
                HONCHO_ROUTES_URL=args.url,
                HONCHO_ROUTES_AUTH_URL=args.auth_url,
                HONCHO_ROUTES_ADMIN_KEY_FILE=args.admin_key_file,
                AUTH_JWT_SECRET=Path(args.jwt_secret_file).read_text(encoding="utf-8").strip(),
            )
        command = [
            str(python),
            "-m",
            "pytest",
            "tests/routes",
            "-p",
            "plugin",
            "-p",
            "no:cacheprovider",
            "-q",
            "--no-header",
            "-rN",
            "--timeout",
            PER_TEST_TIMEOUT,
            *args.pytest_args,
        ]
        subprocess.run(
            command,
            cwd=where,
            env=env,
            timeout=RUN_TIMEOUT,
            check=False,
            stdout=subprocess.DEVNULL if not args.verbose else None,
        )
        if not results.exists():
            raise SystemExit("honcho-routes: the test run produced no outcomes")
        outcomes: dict[str, dict[str, Any]] = {}
        for line in results.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            outcomes[entry["test"]] = entry  # a failing teardown after a pass overrides it
        return list(outcomes.values())


def summary(label: str, outcomes: list[dict[str, Any]]) -> None:
    counts = Counter(o["outcome"] for o in outcomes)
    skipped = Counter(o["why"] for o in outcomes if o["outcome"] == "skipped")
    print(
        f"{label}: {len(outcomes)} collected, {counts['passed']} passed, "
        f"{counts['failed']} failed, {counts['skipped']} skipped"
    )
    for why, n in skipped.most_common():
        print(f"    skipped {n:3d}: {why}")


def compare(real: list[dict[str, Any]], emu: list[dict[str, Any]]) -> int:
    have = {o["test"]: o for o in emu}
    judged = [o for o in real if o["outcome"] == "passed"]
    apart = [o for o in judged if o["test"].startswith(WEBHOOKS) or "webhook" in o["test"]]
    judged = [o for o in judged if o not in apart]
    missing = [o for o in judged if have.get(o["test"], {}).get("outcome") != "passed"]
    hooks = sum(1 for o in apart if have.get(o["test"], {}).get("outcome") == "passed")
    print(f"route tests passing on the real {VERSION}: {len(judged)} (+{len(apart)} webhook)")
    print(
        f"  of those, passing on the emulator: {len(judged) - len(missing)} "
        f"(webhook routes: {hooks} of {len(apart)}, counted apart)"
    )
    for o in missing:
        got = have.get(o["test"], {"outcome": "absent", "why": ""})
        print(f"  DIFFERENT {o['test']}: {got['outcome']} {got['why'][:160]}")
    return 1 if missing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=("real", "emulator"), required=True)
    parser.add_argument("--url")
    parser.add_argument("--auth-url")
    parser.add_argument("--admin-key-file")
    parser.add_argument("--jwt-secret-file")
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--compare", action="store_true")
    parser.add_argument(
        "--outcomes",
        type=Path,
        default=RECORDED / f"{VERSION}.json",
        help="the real server's outcomes that --record writes and --compare reads",
    )
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument(
        "--kit",
        type=Path,
        default=Path(os.environ.get("REAL_HONCHO_KIT", ROOT.parent / "shared" / "real-honcho")),
    )
    parser.add_argument(
        "--rh-dir",
        type=Path,
        default=Path(
            os.environ.get(
                "REAL_HONCHO_DIR",
                Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
                / "roncho-real-honcho",
            )
        ),
    )
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    found = kit_paths(args.kit.resolve(), args.rh_dir)
    if found is None:
        print(
            f"honcho-routes: no kit tarball at {args.kit} or no installed Honcho in "
            f"{args.rh_dir} (the kit's setup.sh makes it); skipped"
        )
        return SKIPPED
    tarball, site, src = found
    python = ensure_venv(site, src)
    outcomes = sorted(run(python, args, tarball, args.rh_dir), key=lambda o: o["test"])
    summary(f"Honcho {VERSION} route tests on the {args.target}", outcomes)
    recorded: Path = args.outcomes
    if args.record:
        recorded.parent.mkdir(parents=True, exist_ok=True)
        # Outcomes and the harness's skip reasons only (no text of the tests themselves).
        kept = [dict(o, why=o["why"] if o["outcome"] == "skipped" else "") for o in outcomes]
        recorded.write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")
        print(f"recorded {recorded}")
    if args.compare:
        real = json.loads(recorded.read_text(encoding="utf-8"))
        return compare(real, outcomes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
