"""The install the README's commands make: a script beside a clone named `roncho` imports it.

A clone is usually a folder named `roncho`. A script in the folder that holds it has that
folder on sys.path first, where `roncho/` (the checkout, no __init__.py) is a namespace
package. A default editable install (setuptools' import hook, which runs after the path
search) then loses to it: `import roncho` gives an empty namespace. The scripts install in
`editable_mode=compat` (the checkout as a plain path entry, searched before the namespace
wins), and a wheel install is a regular package in site-packages: either imports roncho.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

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


def test_every_editable_install_in_the_scripts_uses_compat_mode() -> None:
    for script in sorted((ROOT / "scripts").glob("*.sh")):
        text = script.read_text(encoding="utf-8").replace("\\\n", " ")
        for line in text.splitlines():
            if re.search(r"pip install\b.*\s-e\s", line) or "INSTALL=(-e" in line:
                assert "editable_mode=compat" in line, f"{script.name}: {line.strip()}"
