"""`python -m roncho.testing`: serve the emulator (see `roncho.testing._cli`)."""

from __future__ import annotations

from ._cli import main

raise SystemExit(main())
