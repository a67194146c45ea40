"""``queue_status().sessions`` is keyed by the server's internal session ids (Honcho 3.0.12's
``QueueItem.session_id``; seen on kit 2 on 2026-12-07: a nanoid, not the name ``q1``), which
no other answer carries. The docs say so where ``queue_status`` is listed, and the caller's
way to its own session is ``queue_status(session_id=name)``: that session's counts in the
totals. The emulator keys the map as the server does."""

from __future__ import annotations

import re
from pathlib import Path

import roncho
from roncho.testing import FakeHoncho

API_DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def test_queue_status_is_documented_as_keyed_by_internal_ids_with_the_way_to_one_session() -> None:
    row = next(
        line
        for line in API_DOC.read_text(encoding="utf-8").splitlines()
        if line.startswith("| `queue_status(")
    )
    assert "keyed by the server's internal session ids" in row
    assert "pass its name as `session_id`" in row
    doc = roncho.Client.queue_status.__doc__ or ""
    assert "internal session ids" in doc.split("\n\n")[0]
    assert "internal session id" in (roncho.QueueStatus.__doc__ or "")


def test_queue_status_by_name_gives_the_session_s_counts() -> None:
    # The default emulator batches (512-token gate): one short message's work stays pending.
    with FakeHoncho() as fake, roncho.Client(fake.url, "w", read_timeout=5.0) as client:
        client.get_or_create_workspace()
        client.get_or_create_session("q1", peers={"a": None})
        client.get_or_create_session("q2", peers={"a": None})
        client.add_messages("q1", [roncho.MessageCreate("a", "I like green tea")])
        client.add_messages("q2", [roncho.MessageCreate("a", "and black coffee")])
        client.add_messages("q2", [roncho.MessageCreate("a", "in the evening")])
        whole = client.queue_status()
        one = client.queue_status(session_id="q1")
        other = client.queue_status(session_id="q2")
    assert len(whole.sessions) == 2
    assert not {"q1", "q2"} & set(whole.sessions)  # internal ids, not the names
    for key, counts in whole.sessions.items():
        assert counts.session_id == key and re.fullmatch(r"[A-Za-z0-9_-]{21}", key)
    assert one.sessions == {} and other.sessions == {}
    assert one.total_work_units >= 1 and other.total_work_units > one.total_work_units
    by_total = sorted(s.total_work_units for s in whole.sessions.values())
    assert by_total == [one.total_work_units, other.total_work_units]
