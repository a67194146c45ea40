"""The route a CallReport names: a filled-in path back to the server's route, ids taken out.

Held against every route of the server's own list (tests/wire/data/server_routes.txt, from
the Honcho 3.0.12 source) and the routes roncho calls beyond it, with every id spelt as
each word a route uses (an id may be "list", "test" or "sessions"): the template comes back
the same, so a report never names an id, however it is spelt.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import roncho
from roncho._reports import CallReport, path_template

ROUTE_LIST = Path(__file__).parents[1] / "wire" / "data" / "server_routes.txt"
# Called by roncho, not in 3.0.12's route list: the health check, the OpenAPI document
# (server_version), and 3.2's workspace chat and conclusion read.
BEYOND = [
    "GET /health",
    "GET /openapi.json",
    "POST /v3/workspaces/{workspace_id}/chat",
    "GET /v3/workspaces/{workspace_id}/conclusions/{conclusion_id}",
]


def routes() -> list[str]:
    lines = ROUTE_LIST.read_text(encoding="utf-8").splitlines()
    listed = [line.split("#")[0].strip() for line in lines if line and not line.startswith("#")]
    return [route for route in listed if not route.endswith("/")] + BEYOND  # not the twin


def words() -> list[str]:
    """Every word of every route: an id spelt as one must still read as an id."""
    found = {w for r in routes() for w in re.split(r"[ /]", r) if w and not w.startswith("{")}
    return [*sorted(found - {"GET", "POST", "PUT", "DELETE"}), "a", "x-1"]


@pytest.mark.parametrize("route", routes())
def test_every_route_comes_back_whatever_its_ids_are_called(route: str) -> None:
    method, template = route.split(" ")
    for word in words():
        filled = re.sub(r"\{\w+\}", word, template)
        assert path_template(method, filled) == template, (route, word)
        assert path_template(method, "/honcho/api" + filled, "/honcho/api") == template


def test_the_route_list_is_the_servers() -> None:
    assert len(routes()) == 52 + len(BEYOND)


def test_a_report_is_a_plain_frozen_record() -> None:
    report = CallReport(
        op="probe",
        method="GET",
        path="/health",
        status=200,
        seconds=0.01,
        bytes_sent=80,
        bytes_received=120,
        request_sent=True,
        error=None,
    )
    with pytest.raises(AttributeError):
        report.status = 500  # type: ignore[misc]
    assert report == report.replace() and hash(report) == hash(report.replace())
    assert report.replace(error=roncho.ReadTimeout).error is roncho.ReadTimeout
    assert repr(report).startswith("CallReport(op='probe', method='GET', path='/health'")
