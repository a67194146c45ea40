"""roncho/_checks.py: the texts that tell a caller what to do, asserted whole (the mutation
run over the module left them as message-only survivors)."""

from __future__ import annotations

import pytest

import roncho


@pytest.mark.parametrize("base_url", ["http://:8000", "http://bad_host!/"])
def test_a_base_url_without_a_host_says_so(base_url: str) -> None:
    with pytest.raises(roncho.ConfigError) as info:
        roncho.Client(base_url, "w")
    assert str(info.value) == "base_url must name a host"


def test_a_bytes_key_says_how_to_pass_it() -> None:
    with pytest.raises(roncho.ConfigError) as info:
        roncho.Client("http://127.0.0.1:9", "w", api_key=b"k")  # type: ignore[arg-type]
    assert str(info.value) == (
        "api_key must be a str or None, not bytes: pass the key as text (key.decode())"
    )


def test_a_timestamp_that_is_not_rfc_3339_is_shown() -> None:
    with pytest.raises(ValueError) as info:
        roncho.parse_timestamp("yesterday")
    assert str(info.value) == "not an RFC 3339 timestamp: 'yesterday'"


@pytest.mark.parametrize(
    ("base_url", "text"),
    [
        ("http://[v1.x]:8000", "base_url brackets may hold only an IPv6 address"),
        ("http://127.0.0.1:0", "base_url port must be between 1 and 65535"),
    ],
)
def test_a_base_url_bracket_or_port_error_says_what_is_allowed(base_url: str, text: str) -> None:
    with pytest.raises(roncho.ConfigError) as info:
        roncho.Client(base_url, "w")
    assert str(info.value) == text
