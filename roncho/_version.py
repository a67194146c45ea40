"""The version, apart from the package __init__ so the core never imports back up."""

__version__ = "0.2.0"
