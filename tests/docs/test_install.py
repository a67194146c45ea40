"""The install the README's commands make: a script beside a clone named `roncho` imports it.

A clone is usually a folder named `roncho`. A script in the folder that holds it has that
folder on sys.path first, where `roncho/` (the checkout, no __init__.py) is a namespace
package. An editable install by an import hook (setuptools' default for a flat layout, which
runs after the path search) then loses to it: `import roncho` gives an empty namespace.
pyproject.toml names the checkout as the package root (`package-dir`), for which setuptools'
default mode writes a plain path entry instead: searched before the namespace wins, with no
`editable_mode=compat` (and its "will be removed" banner). A wheel install is a regular
package in site-packages: either imports roncho.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import roncho

ROOT = Path(__file__).resolve().parents[2]


def test_a_script_beside_a_clone_named_roncho_imports_the_package(tmp_path: Path) -> None:
    (tmp_path / "roncho").symlink_to(Path(roncho.__file__).resolve().parent.parent)
    (tmp_path / "sync.py").write_text("import roncho\nprint(roncho.MessageCreate.__name__)\n")
    done = subprocess.run(
        [sys.executable, "sync.py"], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 0 and done.stdout == "MessageCreate\n", (
        "a script beside a clone named roncho cannot import it; install with "
        "`pip install -e <clone> --config-settings editable_mode=compat`:\n" + done.stderr
    )


def test_every_editable_install_in_the_scripts_is_plain() -> None:
    seen = 0
    for script in sorted((ROOT / "scripts").glob("*.sh")):
        text = script.read_text(encoding="utf-8").replace("\\\n", " ")
        for line in text.splitlines():
            if re.search(r"pip install\b.*\s-e\s", line) or "INSTALL=(-e" in line:
                seen += 1
                assert "editable_mode" not in line, f"{script.name}: {line.strip()}"
    assert seen >= 4  # test.sh (twice), investigate.sh, test-real.sh, mutation.sh's advice


def test_a_plain_editable_install_is_a_path_entry_that_beats_the_namespace(
    tmp_path: Path,
) -> None:
    """Build the editable wheel `pip install -e` would (setuptools' PEP 660 hook, no index)
    from a copy of the checkout, then import through its .pth from beside a folder named
    `roncho`, with no other site-packages."""
    # The test extra brings this setuptools (pyproject.toml); scripts/test.sh's venvs for the
    # newer interpreters install only the test runners, and Python 3.12 has none of its own.
    pytest.importorskip("setuptools", minversion="77.0.3", reason="needs the test extra")
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, clone / name)
    shutil.copytree(ROOT / "roncho", clone / "roncho", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(
        ROOT / "roncho_workbook",
        clone / "roncho_workbook",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    build = subprocess.run(
        [
            sys.executable,
            "-W",
            "error::DeprecationWarning:setuptools.command.editable_wheel",
            "-c",
            "import sys; from setuptools import build_meta; "
            "print(build_meta.build_editable(sys.argv[1]))",
            str(wheels),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=clone,
    )
    output = build.stdout + build.stderr
    assert build.returncode == 0, output
    assert "will be removed" not in output and "compat" not in output.lower()
    (wheel,) = wheels.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        assert not [n for n in names if n.endswith("_finder.py")], names  # no import hook
        (pth,) = [n for n in names if n.endswith(".pth")]
        entry = archive.read(pth).decode("utf-8").strip()
    assert Path(entry).resolve() == clone.resolve()

    site_dir = tmp_path / "site"
    site_dir.mkdir()
    (site_dir / "roncho.pth").write_text(entry + "\n", encoding="utf-8")
    beside = tmp_path / "beside"
    beside.mkdir()
    (beside / "roncho").symlink_to(clone)
    (beside / "sync.py").write_text(
        f"import site\nsite.addsitedir({str(site_dir)!r})\n"
        "import roncho, roncho_workbook\n"
        "print(roncho.MessageCreate.__name__, roncho.__file__, roncho_workbook.__file__)\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "sync.py"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=beside,
    )
    assert done.returncode == 0, done.stderr
    name, package, workbook = done.stdout.split()
    assert name == "MessageCreate"
    assert Path(package).parent.resolve() == (clone / "roncho").resolve()
    assert Path(workbook).parent.resolve() == (clone / "roncho_workbook").resolve()
