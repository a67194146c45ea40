"""The version, written only here: pyproject.toml reads it (``[tool.setuptools.dynamic]``),
and the top entry of CHANGELOG.md must name it (tests/unit/test_release.py). It lives apart
from the package __init__ so the core never imports back up."""

__version__ = "0.5.0"
