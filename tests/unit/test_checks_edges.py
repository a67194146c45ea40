"""Argument and configuration checks at their edges: each refusal is a ConfigError that
names the parameter (the library's promise), before anything is sent; each value just
inside a bound goes out.

No socket is opened: test_client_args' ``no_network`` (autouse) replaces the client's
connect().
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone, tzinfo
from types import MappingProxyType
from typing import Any

import pytest
from test_client_args import WS, NoConnection, no_network, refused, sent  # noqa: F401

import roncho
from roncho import MessageCreate


@pytest.fixture
def client() -> roncho.Client:
    # Port 9 on loopback, and no_network stops every connection before it is made.
    return roncho.Client("http://127.0.0.1:9", WS)


def goes_out(call: Any) -> None:
    """The call passes every check and reaches the connection (each time counted alone)."""
    NoConnection.built = 0
    sent(call)


# -- the base URL -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("base_url", "kept"),
    [
        ("http://127.0.0.1:9/proxX", "http://127.0.0.1:9/proxX"),
        ("http://127.0.0.1:9/honcho-X/", "http://127.0.0.1:9/honcho-X"),
        ("http://127.0.0.1:9/a/XX//", "http://127.0.0.1:9/a/XX"),
    ],
)
def test_a_base_url_prefix_loses_only_its_trailing_slashes(base_url: str, kept: str) -> None:
    """A proxy's prefix is where every request goes: only trailing slashes are cut from it,
    never a last letter of its own (a request to /prox instead of /proxX is a 404)."""
    assert roncho.Client(base_url, WS).base_url == kept


def test_a_base_url_holding_a_route_names_the_route_and_the_url_meant() -> None:
    """The refusal says which of Honcho's routes the prefix already holds, so the caller
    sees what to cut, and gives the base URL that was meant."""
    with pytest.raises(roncho.ConfigError) as info:
        roncho.Client("http://127.0.0.1:9/honcho/v3/workspaces", WS)
    text = str(info.value)
    assert "already holds Honcho's route '/v3';" in text
    assert text.endswith("use 'http://127.0.0.1:9/honcho'")


@pytest.mark.parametrize(
    ("base_url", "meant"),
    [
        ("localhost:8000", "http://localhost:8000"),
        ("10.0.0.5:8000/honcho", "http://10.0.0.5:8000/honcho"),
    ],
)
def test_a_base_url_without_a_scheme_is_refused_with_the_url_meant(
    base_url: str, meant: str
) -> None:
    """A bare host and port is the commonest mistake: the refusal writes the right URL."""
    with pytest.raises(roncho.ConfigError) as info:
        roncho.Client(base_url, WS)
    assert str(info.value) == (
        f"base_url {base_url!r} has no scheme: write {meant!r} (or https:// for TLS)"
    )


# -- JSON depth ---------------------------------------------------------------------------
def nested(depth: int, innermost: object) -> dict[str, Any]:
    """An object ``depth`` objects deep around ``innermost``."""
    value: Any = innermost
    for i in range(depth):
        value = {f"k{i}": value}
    return value  # type: ignore[no-any-return]


def test_an_empty_array_counts_as_one_level_of_metadata(client: roncho.Client) -> None:
    """Five objects around an empty array are six levels: refused, naming metadata. Four
    are five, the server's limit: sent."""
    exc = refused(lambda: client.get_or_create_peer("a", metadata=nested(5, [])))
    assert str(exc) == "metadata nests deeper than 5 levels"
    goes_out(lambda: client.get_or_create_peer("a", metadata=nested(4, [])))


def test_an_array_of_empty_arrays_counts_as_two_levels(client: roncho.Client) -> None:
    """Depth counts every array on the deepest path, an empty one too."""
    refused(lambda: client.get_or_create_peer("a", metadata=nested(4, [[]])))
    goes_out(lambda: client.get_or_create_peer("a", metadata=nested(3, [[]])))


# -- metadata and other JSON objects ------------------------------------------------------
def test_metadata_may_be_any_mapping(client: roncho.Client) -> None:
    """A read-only Mapping (MappingProxyType) is metadata as a dict is: it is copied, then
    sent."""
    goes_out(lambda: client.get_or_create_peer("a", metadata=MappingProxyType({"k": 1})))
    goes_out(lambda: client.update_peer("a", metadata=MappingProxyType({"k": 1})))


@pytest.mark.parametrize(
    ("what", "call"),
    [
        (
            "configuration",
            lambda c: c.get_or_create_peer("a", configuration={"x": float("nan")}),
        ),
        (
            "configuration",
            lambda c: c.get_or_create_session("s", configuration={1: True}),
        ),
        ("response_format", lambda c: c.chat("a", "q", response_format={"x": float("inf")})),
        ("filters", lambda c: c.list_peers(filters={"x": float("nan")})),
        ("filters", lambda c: c.list_sessions(filters={"x": object()})),
        ("filters", lambda c: c.list_peers(filters=["x"])),
        ("filters", lambda c: c.search("q", filters={"x": float("nan")})),
    ],
    ids=[
        "configuration-nan",
        "configuration-key",
        "response_format",
        "list-filters-nan",
        "list-filters-type",
        "list-filters-not-a-dict",
        "search-filters",
    ],
)
def test_a_json_object_that_cannot_be_sent_is_refused_naming_its_parameter(
    client: roncho.Client, what: str, call: Any
) -> None:
    """The ConfigError names the parameter itself, first, so the caller knows which
    argument to fix."""
    exc = refused(lambda: call(client))
    assert str(exc).startswith(f"{what} "), str(exc)


# -- text UTF-8 cannot carry --------------------------------------------------------------
LONE = "\ud800"


@pytest.mark.parametrize(
    ("what", "call"),
    [
        ("query", lambda c: c.chat("a", "where? " + LONE)),
        ("query", lambda c: c.search("where? " + LONE)),
        ("search_query", lambda c: c.get_peer_context("a", search_query=LONE)),
        ("filename", lambda c: c.upload_file("s", "a", b"x", LONE + ".txt", "text/plain")),
        ("the webhook url", lambda c: c.get_or_create_webhook("http://localhost:9/" + LONE)),
    ],
    ids=["chat", "search", "search_query", "filename", "webhook"],
)
def test_a_lone_surrogate_is_refused_naming_the_field(
    client: roncho.Client, what: str, call: Any
) -> None:
    """A string left broken by a bad decode upstream is refused before it is sent, and the
    error says which argument holds it."""
    exc = refused(lambda: call(client))
    assert str(exc) == f"{what} holds a lone surrogate, which UTF-8 cannot carry"


# -- timestamps ---------------------------------------------------------------------------
class NoOffset(tzinfo):
    """A tzinfo that knows no offset: a datetime with it is as ambiguous as a naive one."""

    def utcoffset(self, dt: datetime | None) -> timedelta | None:
        return None

    def dst(self, dt: datetime | None) -> timedelta | None:
        return None

    def tzname(self, dt: datetime | None) -> str | None:
        return None


def test_a_datetime_whose_tzinfo_gives_no_offset_is_refused_as_naive(
    client: roncho.Client,
) -> None:
    """isoformat() of such a datetime has no offset, and the server would read it in its own
    zone: it is refused like a naive one, naming the field."""
    when = datetime(2026, 11, 30, 12, 0, tzinfo=NoOffset())
    assert when.utcoffset() is None
    exc = refused(lambda: client.add_messages("s", [MessageCreate("a", "x", created_at=when)]))
    assert str(exc).startswith("messages[0].created_at must be timezone-aware")
    exc = refused(lambda: client.create_key(expires_at=when))  # type: ignore[arg-type]
    assert str(exc).startswith("expires_at must be timezone-aware")


def test_an_aware_datetime_goes_out(client: roncho.Client) -> None:
    """The right side of the same check: a datetime with a real offset is sent."""
    when = datetime(2026, 11, 30, 12, 0, tzinfo=timezone(timedelta(hours=1)))
    goes_out(lambda: client.add_messages("s", [MessageCreate("a", "x", created_at=when)]))
