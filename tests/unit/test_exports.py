"""``roncho.__all__`` is complete and every name in it is importable (as httpx's
``tests/test_exported_members.py``). Checked in a fresh interpreter, so submodules other
tests imported (roncho.testing, roncho_workbook) do not show up as attributes. The names
are the module's ``dir()``, which lists those it loads on first use too."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import roncho

SUBPROCESS_TIMEOUT = 30  # seconds; a fresh interpreter importing roncho takes well under 1 s

# The checkout under test comes first on the path: -I ignores PYTHONPATH, and the venv's
# editable install may point at another checkout.
_LIST_PUBLIC = """
import json, sys
sys.path.insert(0, %r)
import roncho
public = sorted(name for name in dir(roncho) if not name.startswith("_"))
print(json.dumps({"public": public, "all": roncho.__all__}))
"""


def _fresh_names() -> dict[str, list[str]]:
    result = subprocess.run(
        [sys.executable, "-I", "-c", _LIST_PUBLIC % str(Path(roncho.__file__).parents[1])],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
        check=True,
    )
    names: dict[str, list[str]] = json.loads(result.stdout)
    return names


def test_exports_all_is_complete_and_sorted() -> None:
    names = _fresh_names()
    assert set(names["public"]) | {"__version__"} == set(names["all"])
    assert len(names["all"]) == len(set(names["all"]))
    assert names["all"] == sorted(names["all"])


def test_exports_every_name_importable_and_from_roncho() -> None:
    for name in roncho.__all__:
        value = getattr(roncho, name)
        if name == "__version__":
            assert isinstance(value, str) and value.count(".") == 2
            continue
        assert value.__module__.startswith("roncho"), name
        assert not value.__module__.startswith(("roncho.testing", "roncho_workbook")), name


def test_exports_star_import_gives_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from roncho import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(roncho.__all__)


def test_exports_public_classes_have_docstrings() -> None:
    for name in roncho.__all__:
        value = getattr(roncho, name)
        if isinstance(value, type) or callable(value):
            assert (value.__doc__ or "").strip(), f"{name} has no docstring"


_TRACEBACK = """
import roncho
roncho.Client("localhost:8000", "ws")
"""


def test_exports_public_names_report_the_public_module() -> None:
    """Tracebacks and reprs name roncho.ConfigError, which is what a
    caller catches, not the private roncho._errors.ConfigError."""
    import roncho.testing

    for package in (roncho, roncho.testing):
        for name in package.__all__:
            value = getattr(package, name)
            if isinstance(value, type) or callable(value):
                assert value.__module__ == package.__name__, name
    assert repr(roncho.Page) == "<class 'roncho.Page'>"
    out = subprocess.run(
        [sys.executable, "-I", "-c", _TRACEBACK],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
    )
    assert out.returncode == 1
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("roncho.ConfigError: base_url 'localhost:8000' has no scheme"), last


def test_exports_public_module_keeps_pickling_by_reference() -> None:
    """Pickle finds a class by __module__ and __qualname__, so both must lead back to it."""
    import pickle

    error = roncho.StatusError(404, "GET", "/v3/x", b'{"detail": "nope"}')
    workspace = roncho.Workspace(id="w", metadata={"k": [1]})
    for value in (
        error,
        workspace,
        roncho.Page(items=(workspace,), total=1, page=1, size=1, pages=1),
    ):
        clone = pickle.loads(pickle.dumps(value))
        assert type(clone) is type(value)
        assert repr(clone) == repr(value)


# The lazy exports (PEP 562), called in this process: once a name has loaded, Python no
# longer asks the module's ``__getattr__`` for it, so only a direct call holds what it does
# on first use (the fresh interpreter above sees the outcome, and mutation runs fork from a
# process that has already loaded every name).
@pytest.mark.parametrize("name", sorted(roncho._LAZY))
def test_a_lazy_name_loads_from_its_module_under_the_public_name(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = importlib.import_module(f"roncho.{roncho._LAZY[name]}")
    monkeypatch.delitem(vars(roncho), name, raising=False)  # as before its first use
    value = roncho.__getattr__(name)
    assert value is getattr(home, name)
    assert value.__module__ == "roncho"
    assert vars(roncho)[name] is value  # kept: the next use does not come back here


def test_an_unknown_name_is_the_usual_attribute_error() -> None:
    with pytest.raises(AttributeError) as info:
        roncho.__getattr__("no_such_name")
    assert str(info.value) == "module 'roncho' has no attribute 'no_such_name'"


def test_dir_names_the_lazy_exports_before_they_load() -> None:
    names = roncho.__dir__()
    assert names == sorted(set(names)) and set(roncho._LAZY) <= set(names)
    assert set(vars(roncho)) <= set(names)
