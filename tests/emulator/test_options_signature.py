"""``FakeHoncho``'s keywords are real parameters, the fields of ``Options`` with their
defaults (so editors and type checkers see them); a wrong keyword is refused by name with
the options there are, a wrong type of switch (``auth="yes"``) is refused, and a half-built
emulator's repr does not fail (pytest shows ``self`` in a failed constructor's frame)."""

from __future__ import annotations

import inspect
import traceback
from dataclasses import MISSING, fields
from typing import Any

import pytest

from roncho.testing import FakeHoncho, Options
from roncho.testing._options import option_names


def test_every_option_is_a_keyword_with_its_default_and_type() -> None:
    parameters = list(inspect.signature(FakeHoncho.__init__).parameters.values())
    assert parameters[0].name == "self"
    assert parameters[-1].kind is inspect.Parameter.VAR_KEYWORD
    assert parameters[-1].annotation == "Never"
    named = parameters[1:-1]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in named)
    declared = [(f.name, f.default, f.type) for f in fields(Options)]
    assert all(f.default is not MISSING for f in fields(Options))
    assert [(p.name, p.default, p.annotation) for p in named] == declared
    assert [p.name for p in named] == option_names()


def test_the_defaults_make_the_default_options() -> None:
    with FakeHoncho() as fake:
        assert fake.options == Options()


def test_every_option_reaches_options() -> None:
    given: dict[str, Any] = {
        "auth": True,
        "refuse_expiring_keys": True,
        "version": "3.0.12",
        "workspace_chat": True,
        "tokens": "estimate",
        "deriver": "manual",
        "flush": True,
        "batch_tokens": 7,
        "batch_max_age": 3.0,
        "deriver_delay": 0.01,
        "enqueue_delay": 0.02,
        "purge_delay": 0.03,
        "chat_delay": 0.04,
        "stream_chunk_delay": 0.05,
        "webhook_secret": "s",
    }
    assert set(given) == set(option_names()) - {"allow_remote"}
    with FakeHoncho(**given) as fake:
        assert fake.options == Options(**given)


def test_a_misspelt_option_is_refused_by_name_with_the_options_there_are() -> None:
    with pytest.raises(TypeError) as caught:
        FakeHoncho(flsuh=True)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "FakeHoncho has no option 'flsuh'; its options are: " + ", ".join(option_names())
    )


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("auth", "yes", "auth must be True or False, got 'yes'"),
        ("flush", 1, "flush must be True or False, got 1"),
        ("allow_remote", None, "allow_remote must be True or False, got None"),
        ("workspace_chat", "no", "workspace_chat must be True, False or None, got 'no'"),
    ],
)
def test_a_switch_takes_only_a_bool(option: str, value: object, words: str) -> None:
    with pytest.raises(ValueError) as caught:
        FakeHoncho(**{option: value})
    assert str(caught.value) == words
    with pytest.raises(ValueError):
        Options(**{option: value})


def test_a_half_built_emulator_has_a_repr() -> None:
    with pytest.raises(ValueError) as caught:
        FakeHoncho(deriver_delay=-1)
    frames = [frame for frame, _ in traceback.walk_tb(caught.value.__traceback__)]
    (half_built,) = [
        f.f_locals["self"] for f in frames if isinstance(f.f_locals.get("self"), FakeHoncho)
    ]
    assert repr(half_built) == "<FakeHoncho not started>"


def test_a_started_and_a_closed_emulator_say_so() -> None:
    fake = FakeHoncho(auth=True)
    assert repr(fake) == f"<FakeHoncho {fake.url} version={fake.options.version} auth=True>"
    fake.close()
    assert repr(fake) == f"<FakeHoncho closed version={fake.options.version} auth=True>"
