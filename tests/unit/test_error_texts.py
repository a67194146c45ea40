"""What a refused configuration tells the caller: the exact text, because it says what to
write instead. Each of these is raised by the constructor, before any connection."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import roncho
from roncho import ConfigError

EXAMPLE = "for example 'http://127.0.0.1:8000', or 'https://honcho.example/prefix' behind a proxy"
ID_RULE = "workspace must be 1 to 512 characters of A-Z, a-z, 0-9, '_' or '-'"


def refused(base_url: object, workspace: object = "w") -> str:
    with pytest.raises(ConfigError) as info:
        roncho.Client(base_url, workspace)  # type: ignore[arg-type]
    assert type(info.value) is ConfigError
    assert info.value.request_sent is False
    return str(info.value)


@pytest.mark.parametrize(
    ("base_url", "text"),
    [
        (
            "localhost:8000",
            "base_url 'localhost:8000' has no scheme: write 'http://localhost:8000' "
            "(or https:// for TLS)",
        ),
        (
            "localhost:8000/v3",
            "base_url 'localhost:8000/v3' has no scheme: write 'http://localhost:8000' "
            "(or https:// for TLS)",
        ),
        ("ftp://h", f"base_url must start with http:// or https:// (got ftp://); {EXAMPLE}"),
        ("ftp:h", f"base_url must start with http:// or https://; {EXAMPLE}"),
        ("ftp:/h", f"base_url must start with http:// or https://; {EXAMPLE}"),
    ],
    ids=[
        "bare-host",
        "bare-host-with-route",
        "other-scheme",
        "scheme-without-slashes",
        "one-slash",
    ],
)
def test_a_base_url_without_http_says_what_to_write(base_url: str, text: str) -> None:
    assert refused(base_url) == text


@pytest.mark.parametrize(
    ("workspace", "shown"),
    [
        ("bad id!", "7 characters: 'bad id!'"),
        ("x" * 39 + "!", "40 characters: '" + "x" * 39 + "!'"),
        ("x" * 40 + "!", "41 characters: '" + "x" * 40 + "...'"),
        ("é\n", "2 characters: '\\xe9\\n'"),
        (5, "int"),
    ],
    ids=["short", "forty", "forty-one", "escaped", "not-a-string"],
)
def test_a_refused_id_is_described_safely_and_cut_at_forty_characters(
    workspace: object, shown: str
) -> None:
    assert refused("http://127.0.0.1:9", workspace) == f"{ID_RULE} (got {shown})"


class Real(float):
    """A float subclass, as json.dumps takes it."""


def refused_call(call: Callable[[roncho.Client], object]) -> str:
    client = roncho.Client("http://127.0.0.1:9", "w")  # nothing listens: a send would fail
    with pytest.raises(ConfigError) as info:
        call(client)
    assert type(info.value) is ConfigError
    assert info.value.request_sent is False
    return str(info.value)


@pytest.mark.parametrize(
    ("call", "text"),
    [
        (lambda c: c.chat("alice", 5), "query must be a string"),
        (
            lambda c: c.add_messages("s", [roncho.MessageCreate("alice", "a\ud800")]),
            "messages[0].content holds a lone surrogate, which UTF-8 cannot carry",
        ),
        (
            lambda c: c.add_messages("s", [roncho.MessageCreate("alice", 5)]),  # type: ignore[arg-type]
            "messages[0].content must be a string",
        ),
        (
            lambda c: c.get_or_create_peer("p", metadata={"k": object()}),
            "metadata is not JSON-serialisable: object is not a JSON type",
        ),
        (
            lambda c: c.get_or_create_peer("p", metadata={"k": Real("nan")}),
            "metadata is not JSON-serialisable: NaN and Infinity cannot be sent",
        ),
        (
            lambda c: c.query_conclusions("tea", "alice", "alice", distance="0.5"),
            "distance must be a finite number",
        ),
        (
            lambda c: c.query_conclusions("tea", "alice", "alice", distance=True),
            "distance must be a finite number",
        ),
        (
            lambda c: c.queue_status(observer_id="bad id"),
            "observer_id must be 1 to 512 characters of A-Z, a-z, 0-9, '_' or '-' "
            "(got 6 characters: 'bad id')",
        ),
    ],
    ids=[
        "query-not-a-string",
        "content-surrogate",
        "content-not-a-string",
        "metadata-not-json",
        "metadata-float-subclass-nan",
        "distance-a-string",
        "distance-a-bool",
        "query-id-named",
    ],
)
def test_a_refused_argument_is_named_and_the_rule_given(
    call: Callable[[roncho.Client], object], text: str
) -> None:
    assert refused_call(call) == text


@pytest.mark.parametrize(
    ("base_url", "api_key", "text"),
    [
        (
            "",
            None,
            "base_url is required (for example 'http://127.0.0.1:8000'); "
            "roncho has no default server",
        ),
        ("http://h/?x=1", None, "base_url must not have a query or fragment"),
        ("http://h#f", None, "base_url must not have a query or fragment"),
        ("http://h:99999", None, "base_url is not a valid URL: Port out of range 0-65535"),
        (
            "http://u:p@h:8000",
            None,
            "base_url must not carry user information; pass api_key instead",
        ),
        (
            "http://h:8000",
            "",
            "api_key is empty; pass None to send no Authorization header",
        ),
        (
            "http://h:8000",
            "a b",
            "api_key holds whitespace, control or other characters a Bearer token cannot carry",
        ),
    ],
    ids=["no-url", "query", "fragment", "bad-port", "user-info", "empty-key", "key-with-space"],
)
def test_a_refused_configuration_says_what_to_do(
    base_url: str, api_key: str | None, text: str
) -> None:
    with pytest.raises(ConfigError) as info:
        roncho.Client(base_url, "w", api_key=api_key)
    assert type(info.value) is ConfigError
    assert str(info.value) == text
