"""Interpreters, the SDK's own venv, the worker subprocess and the machine description."""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORKER = HERE / "worker.py"
SDK_VENV = HERE / ".venv-sdk"
# An empty venv of the plain interpreter: no site-packages .pth file runs at start-up, as on
# a clean deployment (the machine-wide site-packages may hold .pth hooks of its own).
PLAIN_VENV = HERE / ".venv-plain"
SDK_PACKAGE = "honcho-ai"
SDK_PIN = "2.7.0"
# pip may take a while on a cold cache; a worker round never takes this long.
INSTALL_TIMEOUT = 600.0
WORKER_TIMEOUT = 300.0


def base_python() -> str:
    """The interpreter behind this one, outside any venv."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    return os.path.realpath(base)


def plain_python() -> str:
    """The plain interpreter in an empty venv (made here, without pip, when missing).

    roncho runs from the repo via PYTHONPATH; nothing is installed into this venv.
    """
    python = PLAIN_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run(
            [base_python(), "-m", "venv", "--without-pip", str(PLAIN_VENV)],
            check=True,
            timeout=INSTALL_TIMEOUT,
        )
    return str(python)


def clean_env(**extra: str) -> dict[str, str]:
    """PATH and locale only: no PYTHON* variable and no HONCHO_* one leaks into a child."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "HOME")}
    env.update(extra)
    return env


# --compare DIR: the contenders that run the roncho in DIR, and the worker contender each is.
ALT = {"roncho-alt": "roncho", "roncho-async-alt": "roncho-async"}


@dataclass
class Interpreters:
    python: str
    env: dict[str, str]
    sdk_python: str | None
    sdk_env: dict[str, str]
    sdk_version: str | None
    sdk_note: str
    alt_env: dict[str, str] | None = None  # --compare DIR: a second roncho, "roncho-alt"

    def for_contender(self, name: str) -> tuple[str, dict[str, str]]:
        if name in ("sdk", "sdk-async"):
            assert self.sdk_python is not None
            return self.sdk_python, self.sdk_env
        if name in ALT:
            assert self.alt_env is not None
            return self.python, self.alt_env
        return self.python, self.env

    def contenders(self, *names: str) -> list[str]:
        """The named contenders that run here, with roncho-alt after roncho if asked for."""
        out = []
        for name in names:
            if name in ("sdk", "sdk-async") and self.sdk_python is None:
                continue
            out.append(name)
            if self.alt_env is not None and f"{name}-alt" in ALT:
                out.append(f"{name}-alt")
        return out


def _sdk_version(python: Path) -> str | None:
    try:
        out = subprocess.run(
            [str(python), "-c", "import honcho; print(honcho.__version__)"],
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def ensure_sdk(install: bool) -> tuple[Path | None, str | None, str]:
    """The SDK venv's interpreter, creating the venv and installing the SDK if allowed."""
    venv_python = SDK_VENV / "bin" / "python"
    if venv_python.exists():
        version = _sdk_version(venv_python)
        if version is not None:
            return venv_python, version, f"{SDK_PACKAGE} {version} from {SDK_VENV.name}/"
    if not install:
        return None, None, "not run (smoke mode does not install it; run without --smoke)"
    print(f"creating {SDK_VENV} and installing {SDK_PACKAGE}=={SDK_PIN} into it ...", flush=True)
    try:
        subprocess.run(
            [base_python(), "-m", "venv", str(SDK_VENV)], check=True, timeout=INSTALL_TIMEOUT
        )
        pip = [str(venv_python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        pinned = subprocess.run(
            [*pip, f"{SDK_PACKAGE}=={SDK_PIN}"], timeout=INSTALL_TIMEOUT, env=clean_env()
        )
        if pinned.returncode != 0:
            print(f"{SDK_PACKAGE}=={SDK_PIN} is not installable; trying the newest", flush=True)
            subprocess.run([*pip, SDK_PACKAGE], check=True, timeout=INSTALL_TIMEOUT)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, None, f"not run: installing it failed ({exc})"
    version = _sdk_version(venv_python)
    if version is None:
        return None, None, "not run: installed, but `import honcho` fails"
    return venv_python, version, f"{SDK_PACKAGE} {version} (installed now into {SDK_VENV.name}/)"


def interpreters(
    use_sdk: bool, install_sdk: bool, roncho_path: Path = REPO, alt_path: Path | None = None
) -> Interpreters:
    """``roncho_path``: the directory holding the ``roncho`` package (default: this repo);
    ``alt_path``: another one, run side by side as contender ``roncho-alt``."""
    python = plain_python()
    sdk_python, version, note = (None, None, "not run (--no-sdk)")
    if use_sdk:
        sdk_python, version, note = ensure_sdk(install_sdk)
    return Interpreters(
        python=python,
        env=clean_env(PYTHONPATH=str(roncho_path)),
        sdk_python=None if sdk_python is None else str(sdk_python),
        sdk_env=clean_env(),
        sdk_version=version,
        sdk_note=note,
        alt_env=None if alt_path is None else clean_env(PYTHONPATH=str(alt_path)),
    )


# contender -> operation -> metric -> one figure per round
Samples = dict[str, dict[str, dict[str, list[float]]]]


def rotating_rounds(
    interp: Interpreters, contenders: list[str], spec: dict[str, Any], rounds: int
) -> Samples:
    """``rounds`` rounds of one worker per contender, the order rotating each round so the
    same background load falls on each; every figure a worker returns is kept."""
    samples: Samples = {c: {} for c in contenders}
    for r in range(rounds):
        order = contenders[r % len(contenders) :] + contenders[: r % len(contenders)]
        for contender in order:
            for op, figures in run_worker(interp, contender, spec).items():
                per_op = samples[contender].setdefault(op, {})
                for metric, value in figures.items():
                    per_op.setdefault(metric, []).append(value)
    return samples


def run_worker(interp: Interpreters, contender: str, spec: dict[str, Any]) -> Any:
    """One worker process for one contender; its JSON answer."""
    python, env = interp.for_contender(contender)
    spec = {**spec, "contender": ALT.get(contender, contender)}
    out = subprocess.run(
        [python, str(WORKER), json.dumps(spec)],
        env=env,
        cwd="/",  # nothing in the working directory may shadow the package under test
        capture_output=True,
        text=True,
        timeout=WORKER_TIMEOUT,
    )
    if out.returncode != 0 or not out.stdout.strip():
        raise RuntimeError(f"worker {contender} {spec['kind']} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)


def _revision() -> str:
    """The commit roncho/ was measured at, marked when the tree's roncho/ differs from it."""
    try:
        head = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--", "roncho"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "an unknown commit"
    return f"{head or 'an unknown commit'}{' + uncommitted changes in roncho/' if dirty else ''}"


def machine(interp: Interpreters) -> list[str]:
    roncho_from = interp.env["PYTHONPATH"]
    where = roncho_from
    if Path(roncho_from) == REPO:
        where = f"the repo at {_revision()}"
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    version = subprocess.run(
        [interp.python, "-c", "import sys; print(sys.version.split()[0])"],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.strip()
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    alt = [] if interp.alt_env is None else [f"roncho-alt: {interp.alt_env['PYTHONPATH']}"]
    return [
        f"date: {now}",
        f"CPU: {cpu}, {os.cpu_count()} cores; {platform.system()} {platform.release()}",
        f"Python {version} ({base_python()}, run from an empty venv); "
        f"roncho from {where} via PYTHONPATH",
        f"SDK: {interp.sdk_note}",
        *alt,
    ]
