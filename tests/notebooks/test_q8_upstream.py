"""Q8's "against upstream 3.2": each endpoint of a 3.2.x server held against what upstream 3.2
is known to send (roncho_workbook._upstream32), each difference named with its source.

Why: Q8 asked whether the owner's 3.2.0 image differs from upstream 3.2 and could only say "not
answerable". The emulator's 3.2.0 profile is upstream 3.2 as the SDK and the release notes
describe it, so it must show none; the same profile with one answer altered (a key dropped, a
route failing) must show exactly that, with its source; and 3.0.12 is not held to it at all.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import roncho_workbook as workbook
from roncho.testing import _profiles
from roncho_workbook import _upstream32
from roncho_workbook._differences import hold_upstream, summarise, summarise_upstream

pytestmark = pytest.mark.timeout(120)
CALL_TIMEOUT = 20.0
ROOT = Path(__file__).resolve().parents[2]
SDK_PYTHON = ROOT / "tests" / "sdk" / ".venv-sdk" / "bin" / "python"
CONCLUSION_ROUTES = {
    "POST …/conclusions",
    "POST …/conclusions/list",
    "POST …/conclusions/query",
    "GET …/conclusions/{id}",
}


def _probe(version: str, arrange: Any = None) -> workbook.Finding:
    with workbook.open_target(
        "",
        connect_timeout=CALL_TIMEOUT,
        read_timeout=CALL_TIMEOUT,
        emulator_options={"version": version},
    ) as target:
        if arrange is not None:
            arrange(target.fake)
        return workbook.probe_differences(target, "wb-q8u")


def _differing(finding: workbook.Finding) -> dict[str, str]:
    rows = finding.tables["upstream_3_2"]
    return {r["endpoint"]: r["differences"] for r in rows if r["differences"] != "none"}


def test_the_emulators_3_2_0_shows_no_difference_and_says_how_far_that_reaches() -> None:
    finding = _probe("3.2.0")
    rows = finding.tables["upstream_3_2"]
    assert [r["endpoint"] for r in rows] == [e.name for e in _upstream32.ENDPOINTS]
    assert len(rows) == 21
    assert _differing(finding) == {}
    assert all(r["objects held"] >= 1 for r in rows)  # every endpoint showed an object
    assert workbook.upstream_answer(finding) == (
        "Against upstream 3.2 (server reports 3.2.0-emulator): none found in the 21 endpoints "
        "held; a shape check (status 2xx, each key the SDK's model requires or the release "
        "notes add, its JSON type, no undeclared key), not behaviour. Where 3.2.0 and 3.2.1 "
        "differ (3.2.1's release notes, reference honcho-v3.md section 8): an explicit "
        "conclusion's source_ids null, as 3.2.0; evidence conclusions without "
        "observer/observed ids, as 3.2.0."
    )


def test_a_3_2_0_without_times_derived_shows_that_key_with_its_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    altered = dataclasses.replace(_profiles.PROFILES["3.2.0"], conclusion_times_derived=False)
    monkeypatch.setitem(_profiles.PROFILES, "3.2.0", altered)
    finding = _probe("3.2.0")
    differing = _differing(finding)
    assert set(differing) == CONCLUSION_ROUTES
    source = "3.2.0 release notes (conclusion attribution, PR 952); honcho-ai 2.7.0 api_types"
    assert differing["GET …/conclusions/{id}"] == f"`times_derived` absent [{source} (default 1)]"
    assert differing["POST …/conclusions"] == f"`[0].times_derived` absent [{source} (default 1)]"
    assert differing["POST …/conclusions/list"].startswith("`items[0].times_derived` absent")
    assert "4 of 21 endpoints differ: POST …/conclusions: `[0].times_derived` absent" in (
        finding.answer
    )


def test_a_3_2_0_whose_get_conclusion_fails_shows_the_status_with_its_source() -> None:
    def fail_get(fake: Any) -> None:
        fake.faults.add(method="GET", route="/v3/workspaces/{w}/conclusions/{c}", status=404)

    finding = _probe("3.2.0", fail_get)
    assert _differing(finding) == {
        "GET …/conclusions/{id}": "status 404 (expected 2xx) [3.2.0 release notes "
        "(conclusion attribution, PR 952); honcho-ai 2.7.0 api_types]"
    }
    assert "1 of 21 endpoints differ: GET …/conclusions/{id}: status 404" in finding.answer


def test_3_0_12_is_not_held_to_upstream_3_2_and_the_rest_of_q8_is_unchanged() -> None:
    finding = _probe("3.0.12")
    assert "upstream_3_2" not in finding.tables
    topics, upstream = finding.answer.split(" Against upstream 3.2: ")
    assert topics == summarise(finding.tables["differences"])
    assert topics.startswith("14/14 topics match")
    assert upstream == (
        "does not apply, the server reports 3.0.12-emulator; the expectations are of upstream "
        "3.2 (docs/emulator.md), so only a 3.2.x server is held to them."
    )
    assert not any(c.step.startswith("upstream 3.2") for c in finding.trace.calls)


def test_a_server_that_reveals_no_version_is_not_held_either() -> None:
    assert hold_upstream(None, {}) == []
    assert summarise_upstream(None, []).startswith(
        "Against upstream 3.2: does not apply, the server reveals no version;"
    )


@pytest.mark.parametrize(
    ("body", "found"),
    [
        ({"peer_id": "a", "target_id": "b", "extra": 1}, "`extra` not declared"),
        ({"peer_id": "a", "target_id": 7}, "`target_id` is integer, not string"),
        ({"peer_id": "a"}, "`target_id` absent"),
        ([], "body is array, not an object"),
    ],
)
def test_each_kind_of_difference_names_the_models_source(body: object, found: str) -> None:
    endpoint = next(e for e in _upstream32.ENDPOINTS if e.name == "GET …/peers/{p}/context")
    differences, _ = _upstream32.check(endpoint, 200, body)
    assert differences == [f"{found} [honcho-ai 2.7.0 api_types PeerContextResponse]"]


@pytest.mark.parametrize(
    ("conclusion", "evidence", "said"),
    [
        (
            {"source_ids": []},
            {"conclusions": [{"observer_id": "a", "observed_id": "b"}]},
            [
                "an explicit conclusion's source_ids [], as 3.2.1",
                "evidence conclusions with observer/observed ids, as 3.2.1",
            ],
        ),
        ({"source_ids": ["x"]}, None, ['an explicit conclusion\'s source_ids ["x"], as neither']),
        ({}, {"conclusions": []}, []),
    ],
)
def test_where_3_2_0_and_3_2_1_differ_the_answer_names_the_one_matched(
    conclusion: object, evidence: object, said: list[str]
) -> None:
    assert _upstream32.which_release(conclusion, evidence) == said


def test_a_date_must_be_one() -> None:
    message = dict.fromkeys(("id", "content", "peer_id", "session_id", "workspace_id"), "x")
    message.update(token_count=3, created_at="2026-12-07T10:00:00Z")
    assert _upstream32.check_model(_upstream32.MESSAGE, message) == []
    message["created_at"] = "yesterday"
    assert _upstream32.check_model(_upstream32.MESSAGE, message) == [
        "`created_at` is string, not datetime [honcho-ai 2.7.0 api_types MessageResponse]"
    ]


_DUMP = """
import json, sys
from honcho import api_types
out = {}
for name in sys.argv[1:]:
    model = getattr(api_types, name)
    out[name] = {k: f.is_required() for k, f in model.model_fields.items()}
print(json.dumps(out))
"""


def _models() -> dict[str, _upstream32.Model]:
    found: dict[str, _upstream32.Model] = {}

    def walk(model: _upstream32.Model) -> None:
        found[model.name.split("[")[0]] = model
        for key in model.keys:
            if key.inner is not None:
                walk(key.inner)

    for endpoint in _upstream32.ENDPOINTS:
        walk(endpoint.model)
    found["DialecticResponse"] = _upstream32.DIALECTIC  # the plain one, not include_evidence's
    return found


def test_the_written_out_models_are_the_sdks_own() -> None:
    """Each model's keys, and which it requires, as honcho-ai 2.7.0 declares them; a key is
    required beyond the SDK only where the release notes say 3.2.0 sends it."""
    if not SDK_PYTHON.exists():
        pytest.skip("no SDK venv: run `bash scripts/sdk-conformance.sh` once to make it")
    models = _models()
    done = subprocess.run(
        [str(SDK_PYTHON), "-c", _DUMP, *sorted(models)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd="/",
    )
    sdk = json.loads(done.stdout)
    for name, model in models.items():
        ours = {key.name: key for key in model.keys}
        assert set(ours) == set(sdk[name]), name
        for key_name, required in sdk[name].items():
            key = ours[key_name]
            if key.required and not required:
                assert "release notes" in key.source, (name, key_name)
            else:
                assert key.required == required, (name, key_name)
