"""The comparisons' reading of the told deriver settings, and when their wait may stop."""

from __future__ import annotations

import pytest
from deriver_told import EMULATOR_LOOK, HONCHO_LOOK, Deriver, Watch, told


def test_no_variable_is_the_kits_flushing_deriver() -> None:
    assert told({}) == Deriver() and Deriver().flush
    assert told({"RONCHO_LIVE_DERIVER": "flush=on"}).emulator_options() == {"flush": True}


def test_a_batching_deriver_starts_the_emulator_batching_alike() -> None:
    deriver = told({"RONCHO_LIVE_DERIVER": "flush=off age=1800 tokens=512 look=3"})
    assert (deriver.flush, deriver.age_gate, deriver.token_gate, deriver.look) == (
        False, 1800.0, 512, 3.0,
    )  # fmt: skip
    assert deriver.emulator_options() == {
        "flush": False,
        "batch_tokens": 512,
        "batch_max_age": 1800.0,
    }
    assert told({"RONCHO_LIVE_DERIVER": "flush=off"}).look == HONCHO_LOOK
    no_age_gate = told({"RONCHO_LIVE_DERIVER": "flush=off age=0"})
    assert no_age_gate.emulator_options()["batch_max_age"] is None


@pytest.mark.parametrize("text", ["flush=maybe", "age=30", "flush=off gate=3", "flush"])
def test_a_bad_setting_is_an_error(text: str) -> None:
    with pytest.raises(ValueError, match="RONCHO_LIVE_DERIVER"):
        told({"RONCHO_LIVE_DERIVER": text})


def test_drained_at_once_and_held_only_after_a_whole_quiet_look() -> None:
    watch = Watch(3.0)
    assert watch.see(0, 0, 0, 0.0) is None  # nothing queued yet
    assert watch.see(2, 2, 0, 1.0) is None  # pending: the look starts
    assert watch.see(2, 1, 1, 2.0) is None  # in progress: not held, the look starts again
    assert watch.see(2, 1, 0, 3.0) is None
    assert watch.see(2, 1, 0, 5.9) is None
    assert watch.see(2, 1, 0, 6.0) == "held"
    assert Watch(3.0).see(2, 0, 0, 0.0) == "drained"


def test_a_flushing_server_is_never_held() -> None:
    watch = Watch(0.0)
    assert all(watch.see(1, 1, 0, float(t)) is None for t in range(100))
    assert EMULATOR_LOOK > 0
