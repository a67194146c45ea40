"""Version profiles: `FakeHoncho(version=...)` and the docs table that must match the code."""

from __future__ import annotations

from pathlib import Path

import pytest
from emu_http import Api

from roncho.testing import PROFILES, FakeHoncho
from roncho.testing._profiles import profile_table

W = "/v3/workspaces"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "emulator-profiles.md"
TABLE_START = "<!-- profiles:start -->\n"
TABLE_END = "<!-- profiles:end -->"


def _conclusion(api: Api) -> dict[str, object]:
    body = {"conclusions": [{"content": "x", "observer_id": "a", "observed_id": "b"}]}
    api.post(f"{W}/w/peers", {"id": "a"})
    api.post(f"{W}/w/peers", {"id": "b"})
    reply = api.post(f"{W}/w/conclusions", body)
    assert reply.status == 201, reply
    result: dict[str, object] = reply.json[0]
    return result


def test_default_profile_is_the_observed_3_2_0() -> None:
    with FakeHoncho() as fake:
        api = Api(fake.port)
        assert fake.options.version == "3.2.0"
        assert "source_ids" in _conclusion(api) and _conclusion(api)["source_ids"] is None
        assert api.post(f"{W}/w/chat", {"query": "hi"}).status == 200
        chat = api.post(f"{W}/w/peers/a/chat", {"query": "hi", "include_evidence": True})
        assert set(chat.json) == {"content", "evidence"}
        assert api.get("/openapi.json").json["info"]["version"] == "3.2.0-emulator"
        assert "version=3.2.0" in repr(fake)


def test_3_0_12_profile() -> None:
    with FakeHoncho(version="3.0.12") as fake:
        api = Api(fake.port)
        assert "source_ids" not in _conclusion(api)
        listed = api.post(f"{W}/w/conclusions/list").json["items"]
        assert listed and all("source_ids" not in c for c in listed)
        assert api.post(f"{W}/w/chat", {"query": "hi"}).status == 404
        chat = api.post(f"{W}/w/peers/a/chat", {"query": "hi", "include_evidence": True})
        assert chat.status == 200 and set(chat.json) == {"content"}
        stream = api.post(
            f"{W}/w/peers/a/chat", {"query": "hi", "include_evidence": True, "stream": True}
        )
        assert b'"evidence"' not in stream.body and stream.body.endswith(b'{"done": true}\n\n')
        assert api.get("/openapi.json").json["info"]["version"] == "3.0.12-emulator"


def test_workspace_chat_switch_overrides_the_profile() -> None:
    with FakeHoncho(version="3.0.12", workspace_chat=True) as fake:
        assert Api(fake.port).post(f"{W}/w/chat", {"query": "hi"}).status == 200
    with FakeHoncho(workspace_chat=False) as fake:
        assert Api(fake.port).post(f"{W}/w/chat", {"query": "hi"}).status == 404


@pytest.mark.parametrize("version", ["3.1.0", "", "latest", None, 3])
def test_unknown_version_is_a_clear_error(version: object) -> None:
    with pytest.raises(
        ValueError, match=r"unknown Honcho version .*known versions: 3\.0\.12, 3\.2\.0"
    ):
        FakeHoncho(version=version)  # type: ignore[arg-type]


def test_profiles_cover_both_versions() -> None:
    assert set(PROFILES) == {"3.0.12", "3.2.0"}


def test_docs_table_matches_the_code() -> None:
    """docs/emulator-profiles.md holds the table rendered from PROFILES, byte for byte."""
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(TABLE_START) + len(TABLE_START)
    end = text.index(TABLE_END)
    assert text[start:end] == profile_table(), (
        "docs/emulator-profiles.md is stale; paste roncho.testing._profiles.profile_table()"
    )
