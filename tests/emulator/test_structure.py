"""The emulator's layout holds: small modules, state rules apart from HTTP glue, every
route module served, and each option declared once (its flag is made from it)."""

from __future__ import annotations

import pkgutil
from dataclasses import fields
from pathlib import Path

import roncho.testing
from roncho.testing import FakeHoncho, Options, _backends, _cli, _routes

PACKAGE = Path(roncho.testing.__file__).parent
# "About 500 lines": a module past this is doing more than one job.
MAX_MODULE_LINES = 500


def test_no_emulator_module_is_long() -> None:
    long = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_backends_hold_no_http() -> None:
    for path in Path(_backends.__file__).parent.glob("*.py"):
        imports = [
            line for line in path.read_text().splitlines() if line.startswith(("from ", "import "))
        ]
        for line in imports:
            assert "_web" not in line and "_routes" not in line and "http" not in line, line


def test_every_route_module_is_served() -> None:
    names = {info.name for info in pkgutil.iter_modules(_routes.__path__)}
    served = {module.__name__.rsplit(".", 1)[1] for module in _routes.ROUTE_MODULES}
    assert names == served


def test_route_modules_only_parse_and_render() -> None:
    """A route module imports no other (what two share is a backend's or _web's), and no
    handler looks its workspace up: `App.dispatch` resolves it once (`ctx.ws`)."""
    routes = Path(_routes.__file__).parent
    for path in routes.glob("*.py"):
        if path.name == "__init__.py":
            continue
        text = path.read_text()
        siblings = [
            line
            for line in text.splitlines()
            if line.startswith("from .") and not line.startswith("from ..")
        ]
        assert siblings == [], path.name
        assert "workspaces.find" not in text, path.name


def test_every_option_has_one_flag_and_a_keyword() -> None:
    parser = _cli.build_parser()
    dests = {action.dest for action in parser._actions}
    options = {spec.name for spec in fields(Options)}
    assert options <= dests
    args = parser.parse_args([])
    assert _cli._options(args) == {spec.name: spec.default for spec in fields(Options)}
    with FakeHoncho(**_cli._options(args)) as fake:
        assert fake.options == Options()
