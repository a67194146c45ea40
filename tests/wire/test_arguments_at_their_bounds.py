"""Arguments at the edge of what the client accepts: the value just inside a bound is sent
as given, the value just outside is refused with a ConfigError that names the argument and
says what is allowed, and nothing reaches any server (a ``Trap`` counts connections).

Accepted values are checked on the wire: the request a loopback server received.
"""

from __future__ import annotations

import enum
import types
from collections.abc import Callable
from typing import Any

import pytest
from rawserver import RawServer, Request, Trap, reply

import roncho
from roncho import ConfigError

TS = "2026-01-01T00:00:00Z"
PEER = {"id": "p", "workspace_id": "w", "created_at": TS, "metadata": {}, "configuration": {}}
SESSION = {
    "id": "s",
    "is_active": True,
    "workspace_id": "w",
    "metadata": {},
    "configuration": {},
    "created_at": TS,
}
SURROGATE_REFUSED = (
    "metadata is not JSON-serialisable: a string holds a lone surrogate, which UTF-8 cannot carry"
)


class Text(str):
    """A str subclass, as json.dumps takes it (an enum's value, a library's own string)."""


class Real(float):
    """A float subclass."""


class Level(enum.IntEnum):
    HIGH = 2


def sent(answer: object, call: Callable[[roncho.Client], Any]) -> Request:
    """The request ``call`` made, against a server that answers ``answer``."""
    with RawServer([reply(200, answer)]) as server:
        call(roncho.Client(server.url, "w", read_timeout=10.0))
    (request,) = server.requests
    return request


def refused(call: Callable[[roncho.Client], Any]) -> str:
    """The ConfigError ``call`` raises, before anything is sent."""
    with Trap() as trap:
        client = roncho.Client(trap.url, "w", connect_timeout=1.0, read_timeout=1.0)
        with pytest.raises(ConfigError) as info:
            call(client)
        assert trap.connections() == 0
    err = info.value
    assert type(err) is ConfigError
    assert err.request_sent is False
    return str(err)


# -- metadata -----------------------------------------------------------------------------
def test_a_str_subclass_holding_a_lone_surrogate_is_refused_in_metadata() -> None:
    text = refused(lambda c: c.get_or_create_peer("p", metadata={"k": Text("a\ud800")}))
    assert text == SURROGATE_REFUSED
    text = refused(lambda c: c.get_or_create_peer("p", metadata={"k": [Text("\udfff")]}))
    assert text == SURROGATE_REFUSED
    text = refused(lambda c: c.get_or_create_peer("p", metadata={Text("\ud800"): 1}))
    assert text == SURROGATE_REFUSED


def test_a_str_subclass_in_metadata_is_sent_as_its_text() -> None:
    request = sent(PEER, lambda c: c.get_or_create_peer("p", metadata={"k": Text("tea")}))
    assert request.json["metadata"] == {"k": "tea"}


def test_scalars_at_the_fifth_level_of_metadata_are_accepted() -> None:
    """A scalar is not a level, whatever its class (an IntEnum, a float subclass, a str
    subclass): five objects deep is the server's limit."""
    leaves = {"e": Level.HIGH, "f": True, "g": 1.5, "h": "tea", "i": None, "j": 3}
    leaves |= {"k": Real(2.5), "m": Text("cup")}
    deepest = {"a": {"b": {"c": {"d": leaves}}}}
    request = sent(PEER, lambda c: c.get_or_create_peer("p", metadata=deepest))
    plain = {"e": 2, "f": True, "g": 1.5, "h": "tea", "i": None, "j": 3, "k": 2.5, "m": "cup"}
    assert request.json["metadata"] == {"a": {"b": {"c": {"d": plain}}}}
    text = refused(lambda c: c.get_or_create_peer("p", metadata={"x": deepest}))
    assert text == "metadata nests deeper than 5 levels"


# -- session peers ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "config",
    [
        {"observe_others": True},
        {"observe_me": False},
        {"observe_me": True, "observe_others": False},
    ],
)
def test_a_session_peer_config_given_as_a_dict_with_known_keys_is_sent(
    config: dict[str, bool],
) -> None:
    request = sent(SESSION, lambda c: c.get_or_create_session("s", peers={"p": config}))
    expected = roncho.SessionPeerConfig(**config).to_json()
    assert request.json["peers"] == {"p": expected}
    for key, value in config.items():
        assert request.json["peers"]["p"][key] is value


def test_a_session_peer_config_with_an_unknown_key_is_refused_and_named() -> None:
    text = refused(lambda c: c.get_or_create_session("s", peers={"p": {"observe_all": True}}))
    assert text == "peers['p'] has unknown keys ['observe_all']"


# -- numbers with bounds ------------------------------------------------------------------
@pytest.mark.parametrize("distance", [0.0, 0, 1.0, 0.5])
def test_distance_from_zero_to_one_inclusive_is_sent(distance: float) -> None:
    request = sent([], lambda c: c.query_conclusions("tea", "alice", "alice", distance=distance))
    assert request.json["distance"] == distance
    assert type(request.json["distance"]) is float


@pytest.mark.parametrize("distance", [-0.0001, 1.0001, -1.0])
def test_distance_outside_zero_to_one_is_refused(distance: float) -> None:
    text = refused(lambda c: c.query_conclusions("tea", "alice", "alice", distance=distance))
    assert text == "distance must be between 0.0 and 1.0"


# -- sizes at their edge -------------------------------------------------------------------
SCOPE_ANSWER = {"id": "x", "workspace_id": "w", "metadata": {}, "created_at": TS}


def test_a_scope_takes_100_sessions_in_one_call() -> None:
    names = [f"s{i}" for i in range(100)]
    request = sent(None, lambda c: c.add_scope_sessions("x", names))
    assert request.json == {"session_ids": names}


def test_a_scope_name_of_506_characters_is_sent() -> None:
    """A scope is a peer named ``scope.<name>``: 506 characters make a 512-character id."""
    name = "s" * 506
    request = sent(SCOPE_ANSWER, lambda c: c.get_scope(name))
    assert request.request_line == f"GET /v3/workspaces/w/scopes/{name} HTTP/1.1"


def test_a_conclusion_query_of_a_million_characters_is_sent() -> None:
    """query_conclusions takes up to 100 times the dialectic's 10,000 characters; one more
    is refused (tests/unit/test_refusals_name_the_parameter.py)."""
    query = "q" * 1_000_000
    request = sent([], lambda c: c.query_conclusions(query, "alice", "bob"))
    assert request.json["query"] == query


@pytest.mark.parametrize("how", ["search", "search_peer", "search_session"])
def test_an_empty_search_query_is_sent(how: str) -> None:
    """The client refuses no search text, the empty one included: it leaves that to the
    server."""
    calls: dict[str, Callable[[roncho.Client], Any]] = {
        "search": lambda c: c.search(""),
        "search_peer": lambda c: c.search_peer("p", ""),
        "search_session": lambda c: c.search_session("s", ""),
    }
    request = sent([], calls[how])
    assert request.json["query"] == ""


def test_message_metadata_given_as_any_mapping_is_sent_as_its_items() -> None:
    """update_message_metadata takes a Mapping, as its signature says, not only a dict."""
    message = {
        "id": "m",
        "content": "hi",
        "peer_id": "p",
        "session_id": "s",
        "workspace_id": "w",
        "metadata": {"k": "v"},
        "created_at": TS,
        "token_count": 1,
    }
    metadata = types.MappingProxyType({"k": "v"})
    request = sent(message, lambda c: c.update_message_metadata("s", "m", metadata))
    assert request.json == {"metadata": {"k": "v"}}


# -- base URLs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "path", ["/a!b", "/~x", "/a-b_c.d", "/$&'()*+,;=:@"], ids=["bang", "tilde", "dots", "subdelims"]
)
def test_a_base_url_path_of_plain_segments_is_kept_as_given(path: str) -> None:
    with RawServer([reply(200, {"status": "ok"})]) as server:
        roncho.Client(server.url + path, "w", read_timeout=10.0).probe()
    assert server.requests[0].request_line == f"GET {path}/health HTTP/1.1"


@pytest.mark.parametrize(
    "base",
    ["http://127.0.0.1:1/a b", "http://127.0.0.1:1/a\x7f", "http://127.0.0.1:1/a\x00"],
    ids=["space", "del", "nul"],
)
def test_a_base_url_with_a_space_or_control_character_is_refused(base: str) -> None:
    with pytest.raises(ConfigError) as info:
        roncho.Client(base, "w")
    assert str(info.value) == "base_url must be plain ASCII without spaces or control characters"


@pytest.mark.parametrize("path", ["/api/.", "/api/..", "/./api", "/../api", "/a/./b", "/a/../b"])
def test_a_base_url_path_with_a_dot_segment_is_refused(path: str) -> None:
    with pytest.raises(ConfigError) as info:
        roncho.Client("http://127.0.0.1:1" + path, "w")
    assert str(info.value) == "base_url path prefix may hold only plain path segments"


@pytest.mark.parametrize("path", ["/api/.x", "/api/..x", "/.well", "/v..1"])
def test_a_base_url_path_segment_that_only_starts_with_dots_is_accepted(path: str) -> None:
    with RawServer([reply(200, {"status": "ok"})]) as server:
        roncho.Client(server.url + path, "w", read_timeout=10.0).probe()
    assert server.requests[0].request_line == f"GET {path}/health HTTP/1.1"
