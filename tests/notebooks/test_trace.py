"""The evidence's request lines are the ones the client sends.

`Trace.call` takes a call's method and path from the workbook's table of request lines
(`REQUEST_LINES`: roncho has no public way to ask a method for its own). Each entry is
held here against the emulator's record of the request it received, so a line typed wrong,
or one the catalogue changes, fails here rather than showing in a results table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import roncho
from roncho import MessageCreate, SessionPeerConfig
from roncho.testing import FakeHoncho
from roncho_workbook import Trace
from roncho_workbook._trace import REQUEST_LINES, request_line

TIMEOUT = 10.0


def test_every_request_line_is_the_one_the_emulator_receives() -> None:
    with (
        FakeHoncho(flush=True) as fake,
        roncho.Client(fake.url, "wb-trace", connect_timeout=TIMEOUT, read_timeout=TIMEOUT) as c,
    ):
        c.get_or_create_workspace()
        trace = Trace()

        def traced(method: Callable[..., object], *args: Any, **kwargs: Any) -> None:
            fake.clear_requests()
            trace.call(method.__name__, method, *args, **kwargs)
            [sent] = fake.requests
            assert (trace.calls[-1].method, trace.calls[-1].path) == (sent.method, sent.path)

        traced(c.probe)
        traced(c.server_version)
        traced(c.get_or_create_peer, "owner")
        traced(c.get_or_create_session, "s1", peers={"owner": SessionPeerConfig()})
        traced(c.add_messages, "s1", [MessageCreate("owner", "I keep bees.")])
        message = c.list_messages("s1").items[0]
        traced(c.update_message_metadata, "s1", message.id, {"edited": True})
        traced(c.get_session_summaries, "s1")
        traced(c.get_session_context, session_id="s1", tokens=100, summary=False)
        traced(c.set_peer_card, "owner", ["keeps bees"])
        traced(c.get_peer_card, "owner")
        traced(c.get_peer_representation, "owner", max_conclusions=3)
        traced(c.schedule_dream, "owner")
    steps = [call.step for call in trace.calls]
    assert sorted(steps) == sorted(REQUEST_LINES), "every request line is checked, once"
    assert all(call.outcome == "ok" for call in trace.calls), trace.rows()


def test_a_request_line_needs_a_client_method_it_knows() -> None:
    with roncho.Client("http://127.0.0.1:9", "wb-trace") as client:
        assert request_line(client.get_peer_card, "p") == (
            "GET",
            "/v3/workspaces/wb-trace/peers/p/card",
        )
        with pytest.raises(KeyError):
            request_line(client.list_peers)
        with pytest.raises(TypeError):
            request_line(client.get_peer_card)  # its peer_id is missing
    with pytest.raises(TypeError):
        request_line(print, "not a client method")
