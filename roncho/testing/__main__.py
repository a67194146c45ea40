"""`python -m roncho.testing`: serve the emulator (see `roncho.testing._cli`).

Guarded so that importing it (pkgutil.walk_packages, doc tools) starts nothing.
"""

from __future__ import annotations

from ._cli import main

if __name__ == "__main__":
    raise SystemExit(main())
