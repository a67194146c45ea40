"""`deriver="manual"`: nothing is derived until a step, from Python or over HTTP."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from emu_http import Api, wait_for

from roncho.testing import FakeHoncho

W = "/v3/workspaces"
# How long a "nothing happens" check watches: many deriver ticks and a deriver_delay.
QUIET = 0.25


@pytest.fixture
def manual() -> Iterator[FakeHoncho]:
    with FakeHoncho(deriver="manual", flush=True, deriver_delay=0.01) as fake:
        fake.control_enabled = True
        yield fake


def _say(api: Api, session: str, peer: str, content: str) -> None:
    body = {"messages": [{"peer_id": peer, "content": content}]}
    assert api.post(f"{W}/w/sessions/{session}/messages", body).status == 201


def _conclusions(api: Api) -> list[str]:
    return [c["content"] for c in api.post(f"{W}/w/conclusions/list", {}).json["items"]]


def test_nothing_is_derived_until_a_step(manual: FakeHoncho) -> None:
    api = Api(manual.port)
    _say(api, "s1", "alice", "I like tea")
    time.sleep(QUIET)  # the thread would have derived by now, were it not manual
    assert manual.deriver_log() == []
    assert _conclusions(api) == []
    assert api.queue("w")["pending_work_units"] == 1
    done = manual.deriver.step()
    assert [(r.session_id, r.sender_id, r.gate) for r in done] == [("s1", "alice", "flush")]
    assert _conclusions(api) == ["alice said: I like tea"]
    assert api.queue("w")["completed_work_units"] == 1
    assert manual.deriver.step() == []  # nothing left


def test_a_step_takes_as_many_batches_as_asked(manual: FakeHoncho) -> None:
    api = Api(manual.port)
    _say(api, "s1", "alice", "one")
    _say(api, "s2", "bob", "two")
    first = manual.deriver.step(batches=1)
    assert [r.session_id for r in first] == ["s1"]
    assert [r.session_id for r in manual.deriver.step(batches=1)] == ["s2"]
    with pytest.raises(ValueError, match="batches"):
        manual.deriver.step(batches=0)


def test_a_closed_gate_opens_as_manual() -> None:
    with FakeHoncho(deriver="manual", batch_tokens=10_000) as fake:
        api = Api(fake.port)
        _say(api, "s1", "alice", "short")
        [record] = fake.deriver.step()
        assert record.gate == "manual"  # neither tokens nor age would have opened it


def test_purges_still_run_on_their_own(manual: FakeHoncho) -> None:
    api = Api(manual.port)
    _say(api, "s1", "alice", "bye")
    assert api.delete(f"{W}/w/sessions/s1").status == 202
    listed = f"{W}/w/sessions/s1/messages/list"
    wait_for(lambda: not api.post(listed, {}).json["items"], what="the session purge")
    assert manual.deriver_log() == []


def test_step_over_http(manual: FakeHoncho) -> None:
    api = Api(manual.port)
    _say(api, "s1", "alice", "I like tea")
    _say(api, "s2", "bob", "I like coffee")
    stepped = api.post("/_fake/deriver/step", {"batches": 1})
    assert stepped.status == 200
    assert [(r["session_id"], r["gate"]) for r in stepped.json] == [("s1", "flush")]
    rest = api.post("/_fake/deriver/step")
    assert [r["sender_id"] for r in rest.json] == ["bob"]
    assert api.post("/_fake/deriver/step", {"batches": 0}).status == 422
    assert api.post("/_fake/deriver/step", {"batches": "1"}).status == 422
    assert len(api.get("/_fake/deriver").json) == 2


def test_unknown_deriver_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="deriver must be one of 'auto', 'manual'"):
        FakeHoncho(deriver="sometimes")
