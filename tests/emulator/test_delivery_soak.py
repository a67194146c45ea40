"""The delivery soak's short form on the emulator: ``sync_batch`` with both clients at once,
each through its own fault proxy with seeded faults of every kind, and what the emulator
holds at the end (tests/delivery_soak.py; scripts/test-real.sh runs it against the kit).
"""

from __future__ import annotations

import pytest
from delivery_soak import soak, verdict
from faultproxy import KINDS, FaultPlan

from roncho.testing import FakeHoncho

TURNS = 20
SEED = 3  # its two plans (seeds 3 and 4) draw every kind within their first 14 writes


@pytest.mark.timeout(180)
def test_every_turn_is_held_once_in_order_under_seeded_faults() -> None:
    with FakeHoncho(deriver_delay=0.0) as fake:
        figures = soak(fake.url, TURNS, SEED, read_timeout=1.0, rate=0.5, refuse_for=0.5)
    both = (figures["blocking"], figures["asyncio"])
    for part in both:
        assert part["turns_once"] == TURNS, part
        assert (part["turns_lost"], part["turns_doubled"], part["turns_partial"]) == (0, 0, 0)
        assert part["in_order"] and part["foreign_messages"] == 0
        assert part["mismatch_errors"] == 0 and part["turns_given_up"] == 0
        assert part["proxy_errors"] == []
        assert part["messages_held"] == part["messages_sent_once_expected"]
        assert sum(part["outcomes"].values()) == TURNS
    assert verdict(figures)
    injected = {kind for part in both for kind, n in part["faults"].items() if n}
    assert injected == set(KINDS), "the seed no longer draws every kind: pick another"
    assert {"sent", "found", "resent"} <= {o for part in both for o in part["outcomes"]}


def test_a_plan_draws_the_same_faults_for_the_same_seed() -> None:
    plans = [FaultPlan(seed, rate=0.5) for seed in (3, 3, 4)]
    draws = [[plan.next() for _ in range(200)] for plan in plans]
    assert draws[0] == draws[1] != draws[2]
    assert set(draws[0]) == {"pass", *KINDS}
    scripted = FaultPlan(script=["cut", "pass", "hold"])
    assert [scripted.next() for _ in range(5)] == ["cut", "pass", "hold", "pass", "pass"]
    with pytest.raises(ValueError, match="unknown fault kinds"):
        FaultPlan(kinds=["explode"])
