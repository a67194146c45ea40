"""Suite-wide settings: hypothesis keeps no example database (the tree stays unchanged)
and has no per-example deadline (CI machines are slow and shared); each test module
bounds its own example counts."""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("roncho", database=None, deadline=None)
settings.load_profile("roncho")
