"""Public names report the module users import them from (issue 11 item 9).

A traceback prints ``type.__module__`` and ``__qualname__``: without this, a caller who
catches ``roncho.ConfigError`` reads ``roncho._errors.ConfigError``, a private path. Pickle
finds each class by the same two attributes, so the public module must (and does) export it.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import FunctionType
from typing import Any


def publish(namespace: dict[str, Any], names: Iterable[str]) -> None:
    """Set ``__module__`` of each class and function in ``names`` to the namespace's module."""
    module = namespace["__name__"]
    for name in names:
        value = namespace[name]
        if isinstance(value, (type, FunctionType)):
            value.__module__ = module
