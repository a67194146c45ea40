"""Configuration checks: base URL, ids, API key, timeouts. Pure functions, no sockets.

Each refusal is a ConfigError (also a ValueError) raised before anything is sent; the
Client constructor is checked too, since it is what callers actually use.
"""

from __future__ import annotations

import math

import pytest

from roncho import Client, ConfigError
from roncho._checks import (
    Endpoint,
    check_api_key,
    check_id,
    check_positive_int,
    check_timeout,
    parse_base_url,
)

SECRET = "sk-Secret.Token_123"


# -- base URL -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "scheme", "host", "port", "prefix", "text"),
    [
        ("http://127.0.0.1:8000", "http", "127.0.0.1", 8000, "", "http://127.0.0.1:8000"),
        ("http://127.0.0.1:8000/", "http", "127.0.0.1", 8000, "", "http://127.0.0.1:8000"),
        ("http://localhost", "http", "localhost", 80, "", "http://localhost"),
        ("http://localhost:80", "http", "localhost", 80, "", "http://localhost"),
        ("https://honcho.example", "https", "honcho.example", 443, "", "https://honcho.example"),
        ("https://h.example:8443", "https", "h.example", 8443, "", "https://h.example:8443"),
        ("HTTP://Host.Example:81", "http", "host.example", 81, "", "http://host.example:81"),
        ("http://[::1]:8000", "http", "::1", 8000, "", "http://[::1]:8000"),
        ("http://[::1]", "http", "::1", 80, "", "http://[::1]"),
        ("http://[fd00::1:2]:9/", "http", "fd00::1:2", 9, "", "http://[fd00::1:2]:9"),
        ("http://h:8000/honcho", "http", "h", 8000, "/honcho", "http://h:8000/honcho"),
        ("http://h/api/v/", "http", "h", 80, "/api/v", "http://h/api/v"),
        ("http://h/a-b_c.d~e", "http", "h", 80, "/a-b_c.d~e", "http://h/a-b_c.d~e"),
        ("http://honcho_api:8000", "http", "honcho_api", 8000, "", "http://honcho_api:8000"),
        ("http://h:65535", "http", "h", 65535, "", "http://h:65535"),
    ],
)
def test_config_base_url_accepted(
    url: str, scheme: str, host: str, port: int, prefix: str, text: str
) -> None:
    endpoint = parse_base_url(url)
    assert endpoint == Endpoint(scheme, host, port, prefix)
    assert str(endpoint) == text
    assert Client(url, "ws").base_url == text


@pytest.mark.parametrize(
    ("endpoint", "host_header"),
    [
        (Endpoint("http", "h", 80, ""), "h"),
        (Endpoint("http", "h", 443, ""), "h:443"),
        (Endpoint("https", "h", 443, ""), "h"),
        (Endpoint("https", "h", 80, ""), "h:80"),
        (Endpoint("http", "::1", 8000, ""), "[::1]:8000"),
        (Endpoint("http", "::1", 80, ""), "[::1]"),
    ],
)
def test_config_host_header(endpoint: Endpoint, host_header: str) -> None:
    assert endpoint.host_header == host_header


@pytest.mark.parametrize(
    "url",
    [
        None,
        "",
        8000,
        b"http://h",
        "127.0.0.1:8000",  # no scheme
        "h",
        "//h:8000",
        "ftp://h",
        "ws://h",
        "file:///etc/passwd",
        "unix:///run/honcho.sock",
        "http://",
        "http:///path",
        "http://:8000",
        "http://user:pass@h",
        "http://user@h",
        "http://:secret@h",
        "http://h?x=1",
        "http://h/?",
        "http://h#frag",
        "http://h/#",
        "http://h /",
        " http://h",
        "http://h\t",
        "http://h\r\nX-Injected: 1",
        "http://h\n",
        "http://h\x00",
        "http://h\x7f",
        "http://hé.example",
        "http://h/pré",
        "http://h:0",
        "http://h:65536",
        "http://h:-1",
        "http://h:port",
        "http://h:80:81",
        "http://[::1",
        "http://::1/",
        "http://[v1.fe]/",
        "http://[fe80::1%25eth0]/",
        "http://h/a b",
        "http://h/%2F",
        "http://h/a/../b",
        "http://h/..",
        "http://h/./a",
        "http://h//a",
        "http://h/a//b",
        "http://h\\@evil/",
        "http://h/a\\b",
    ],
)
def test_config_base_url_refused(url: object) -> None:
    with pytest.raises(ConfigError):
        parse_base_url(url)
    with pytest.raises(ConfigError):
        Client(url, "ws")  # type: ignore[arg-type]


def test_config_base_url_refusals_are_value_errors() -> None:
    with pytest.raises(ValueError, match="no default server"):
        parse_base_url(None)


EXAMPLE = "http://127.0.0.1:8000"  # what the error shows when it cannot guess


@pytest.mark.parametrize(
    ("url", "right"),
    [
        ("localhost:8000", "http://localhost:8000"),
        ("127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("honcho.internal", "http://honcho.internal"),
        ("honcho_api:8000/", "http://honcho_api:8000"),
        ("localhost:8000/v3", "http://localhost:8000"),
        ("ftp://h", EXAMPLE),
        ("//h:8000", EXAMPLE),
        ("localhost:99999", EXAMPLE),
        ("user:pw@h:80", EXAMPLE),
    ],
)
def test_config_base_url_without_http_says_what_and_shows_a_right_one(url: str, right: str) -> None:
    """The refusal names the problem and gives a URL that would work."""
    with pytest.raises(ConfigError, match=r"no scheme|must start with http:// or https://") as info:
        Client(url, "ws")
    assert repr(right) in str(info.value)
    assert Client(right, "ws").base_url == right
    assert "pw" not in str(info.value)


@pytest.mark.parametrize(
    ("url", "right"),
    [
        ("http://host:8000/v3", "http://host:8000"),
        ("http://host:8000/v3/", "http://host:8000"),
        ("http://host:8000/V3", "http://host:8000"),
        ("http://host:8000/v3/workspaces", "http://host:8000"),
        ("http://host:8000/v3/workspaces/ws/sessions", "http://host:8000"),
        ("https://h.example/honcho/v3", "https://h.example/honcho"),
        ("https://h.example/honcho/v3/workspaces", "https://h.example/honcho"),
        ("http://h:8000/health", "http://h:8000"),
        ("http://h:8000/openapi.json", "http://h:8000"),
        ("http://h:8000/docs", "http://h:8000"),
        ("http://[::1]:8000/a/b/v3", "http://[::1]:8000/a/b"),
    ],
)
def test_config_base_url_holding_a_honcho_route_is_refused_with_the_right_form(
    url: str, right: str
) -> None:
    """"http://h:8000/v3" used to be accepted and then every call went to
    /v3/v3/... and failed with 404; now it is refused before anything is sent."""
    with pytest.raises(ConfigError, match="already holds Honcho's route") as info:
        Client(url, "ws")
    assert f"use {right!r}" in str(info.value)
    assert Client(right, "ws").base_url == right


@pytest.mark.parametrize(
    "url",
    [
        "http://h/honcho",
        "http://h/api/v3x",
        "http://h/v3-proxy",
        "http://h/v2",
        "http://h/v",
        "http://h/healthz",
    ],
)
def test_config_base_url_a_proxy_prefix_is_kept(url: str) -> None:
    assert Client(url, "ws").base_url == url


def test_config_userinfo_never_echoed() -> None:
    with pytest.raises(ConfigError) as info:
        parse_base_url(f"http://u:{SECRET}@h")
    assert SECRET not in str(info.value) and SECRET not in repr(info.value.args)


# -- ids ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value", ["a", "A", "0", "_", "-", "ws-1_B", "x" * 512, "abcdefghijklmnopqrstu", "--"]
)
def test_config_id_accepted(value: str) -> None:
    assert check_id(value, "session_id") == value
    assert Client("http://h", value).workspace == value


@pytest.mark.parametrize(
    "value",
    [
        "",
        "x" * 513,
        "a b",
        "a/b",
        "a%2Fb",
        "..",
        ".",
        "a.b",
        "a\n",
        "\na",
        "a\r\nHost: evil",
        "a\x00",
        "é",
        "a?b",
        "a#b",
        "a:b",
        "ａ",  # a full-width letter: not ASCII
        "١",  # an Arabic-Indic digit
        None,
        1,
        b"ws",
        ["ws"],
    ],
)
def test_config_id_refused(value: object) -> None:
    with pytest.raises(ConfigError, match="session_id"):
        check_id(value, "session_id")
    with pytest.raises(ConfigError, match="workspace"):
        Client("http://h", value)  # type: ignore[arg-type]


def test_config_id_message_is_short_and_escaped() -> None:
    with pytest.raises(ConfigError) as info:
        check_id("a\r\n" + "z" * 1000, "peer_id")
    text = str(info.value)
    assert "\r" not in text and "\n" not in text
    assert "1003 characters" in text
    assert len(text) < 300


# -- API key ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "key",
    [
        SECRET,
        "eyJhbGciOiJIUzI1NiJ9.eyJhZCI6dHJ1ZX0.sig-_~+/=",
        "a",
        "tok==",
        b"bytes-key",
        bytearray(b"ba-key"),
    ],
)
def test_config_api_key_accepted(key: object) -> None:
    result = check_api_key(key)
    assert isinstance(result, bytearray)
    expected = key if isinstance(key, (bytes, bytearray)) else key.encode()  # type: ignore[union-attr]
    assert bytes(result) == bytes(expected)


def test_config_api_key_none_means_no_header() -> None:
    assert check_api_key(None) is None
    assert Client("http://h", "ws", api_key=None).has_key is False


@pytest.mark.parametrize(
    "key",
    [
        "",
        b"",
        " ",
        f"{SECRET} ",
        f" {SECRET}",
        f"Bearer {SECRET}",
        f"{SECRET}\n",
        f"{SECRET}\r\nX-Injected: 1",
        f"{SECRET}\x00",
        f"{SECRET}\t",
        f"{SECRET}é",
        f"{SECRET}\x7f",
        f'"{SECRET}"',
        f"{SECRET},x",
        b"\xff" + SECRET.encode(),
        1234,
        ["k"],
    ],
)
def test_config_api_key_refused_without_echo(key: object) -> None:
    with pytest.raises(ConfigError) as info:
        check_api_key(key)
    with pytest.raises(ConfigError) as via_client:
        Client("http://h", "ws", api_key=key)  # type: ignore[arg-type]
    for error in (info.value, via_client.value):
        shown = str(error) + repr(error) + repr(error.args)
        assert SECRET not in shown
        assert "api_key" in str(error)


def test_config_empty_key_message_points_to_none() -> None:
    with pytest.raises(ConfigError, match="pass None"):
        check_api_key("")


def test_config_key_not_in_client_repr() -> None:
    client = Client("http://h", "ws", api_key=SECRET)
    assert SECRET not in repr(client) and SECRET not in str(client)
    assert "key=set" in repr(client)


# -- timeouts and integers ----------------------------------------------------------------
@pytest.mark.parametrize("value", [0.001, 1, 2.5, 120, 10**6])
def test_config_timeout_accepted(value: float) -> None:
    assert check_timeout(value, "read_timeout") == float(value)


@pytest.mark.parametrize(
    "value",
    [
        True,
        False,
        0,
        0.0,
        -0.0,
        -1,
        -0.5,
        math.nan,
        math.inf,
        -math.inf,
        10**400,
        "5",
        b"5",
        None,
        [5],
    ],
)
def test_config_timeout_refused(value: object) -> None:
    with pytest.raises(ConfigError, match="read_timeout"):
        check_timeout(value, "read_timeout")
    with pytest.raises(ConfigError, match="read_timeout"):
        Client("http://h", "ws", read_timeout=value)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="connect_timeout"):
        Client("http://h", "ws", connect_timeout=value)  # type: ignore[arg-type]


def test_config_timeout_none_only_where_allowed() -> None:
    assert check_timeout(None, "deadline", allow_none=True) is None
    with pytest.raises(ConfigError):
        check_timeout(None, "deadline")


@pytest.mark.parametrize("value", [True, 0, -1, 1.5, "10", None])
def test_config_max_response_bytes_refused(value: object) -> None:
    with pytest.raises(ConfigError, match="max_response_bytes"):
        Client("http://h", "ws", max_response_bytes=value)  # type: ignore[arg-type]


def test_config_positive_int_bounds() -> None:
    assert check_positive_int(1, "size", high=100) == 1
    assert check_positive_int(100, "size", high=100) == 100
    with pytest.raises(ConfigError, match="between 1 and 100"):
        check_positive_int(101, "size", high=100)
    with pytest.raises(ConfigError, match="at least 1"):
        check_positive_int(0, "size")


def test_config_read_only_must_be_bool() -> None:
    with pytest.raises(ConfigError):
        Client("http://h", "ws", read_only=1)  # type: ignore[arg-type]
    assert Client("http://h", "ws", read_only=True).read_only is True
