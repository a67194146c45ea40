"""docs/compatibility.md's "Server defects" says, for each defect, which routes it is in and
which roncho method calls each (or that roncho calls none); this holds each such line to the
catalogue, so the page cannot say again that roncho calls none of them while
``clone_session`` calls one.

The catalogue's route for each method is tests/wire/test_every_server_route.py's ``METHODS``
(each checked there on the wire, with both clients).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import roncho

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "compatibility.md"
ROUTES_TEST = ROOT / "tests" / "wire" / "test_every_server_route.py"
BULLET = "- **Routes and roncho's calls**:"
PAIR = re.compile(
    r"`(GET|POST|PUT|PATCH|DELETE) (/v3/[^`]*)`\s*(?:is called )?"
    r"(?:by `(\w+)`|\((roncho calls none)\))"
)


def _catalogue_routes() -> dict[str, str]:
    """Each server route a roncho method calls, to that method's name."""
    spec = importlib.util.spec_from_file_location("every_server_route_for_docs", ROUTES_TEST)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    methods: dict[str, tuple[str, Any]] = module.METHODS
    return {route: name for route, (name, _call) in methods.items()}


def _defects() -> dict[str, str]:
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("\n## Server defects\n", 1)[1].split("\n## ", 1)[0]
    parts = section.split("\n### ")[1:]
    return {part.split("\n", 1)[0]: part for part in parts}


def test_every_server_defect_names_its_routes_and_roncho_s_calls() -> None:
    calls = _catalogue_routes()
    defects = _defects()
    assert len(defects) >= 2
    for title, body in defects.items():
        bullets = [b for b in body.split("\n- ") if ("- " + b).startswith(BULLET)]
        assert len(bullets) == 1, f"{title!r} has no {BULLET!r} line"
        line = " ".join(bullets[0].split())
        pairs = PAIR.findall(line)
        assert pairs, (title, line)
        assert len(pairs) == line.count(" /v3/"), (title, line)  # every route paired
        for verb, path, method, none in pairs:
            route = f"{verb} {path}"
            if none:
                assert route not in calls, f"{title!r}: {calls.get(route)} calls {route}"
            else:
                assert calls.get(route) == method, (title, route, method)
                assert callable(getattr(roncho.Client, method))


def test_the_clone_defect_says_clone_session_calls_its_route() -> None:
    (clone,) = [body for title, body in _defects().items() if "clone" in title]
    assert (
        "`POST /v3/workspaces/{workspace_id}/sessions/{session_id}/clone`\n  is called by "
        "`clone_session`"
    ) in clone
    assert "calls none of these routes" not in PAGE.read_text(encoding="utf-8")
