"""A call's answer decoding at its edges, over the raw-socket server: a body labelled with a
content encoding roncho never asked for is refused (never read as if it were plain), and an
empty 204 is "no document", not a broken one.
"""

from __future__ import annotations

import pytest
from rawserver import RawServer, reply

import roncho
from roncho import DecodeError

PATIENT = 30.0
pytestmark = pytest.mark.timeout(30)

VERSION_DOCUMENT = {"info": {"version": "3.0.12"}}


@pytest.mark.parametrize("encoding", ["gzip", " BR ", "deflate, gzip", "x-" + "y" * 60])
def test_a_json_body_labelled_with_a_content_encoding_is_refused_naming_it(encoding: str) -> None:
    """A proxy that compresses answers must be found: a body labelled as encoded is never
    read as plain JSON, even when its bytes happen to parse, and the error says which
    encoding came and that the request was sent (a retry of a write could repeat it)."""
    answer = reply(200, VERSION_DOCUMENT, headers=[("Content-Encoding", encoding)])
    with RawServer([answer]) as server, pytest.raises(DecodeError) as info:
        roncho.Client(server.url, "w", read_timeout=PATIENT).server_version()
    err = info.value
    assert type(err) is DecodeError
    assert err.request_sent is True
    shown = encoding.strip().lower()[:40]  # a header's value is shown, at most 40 characters
    assert str(err) == (
        f"server_version: the answer is encoded with {shown!r}, which roncho never asks for"
    )


@pytest.mark.parametrize("encoding", ["identity", " Identity "])
def test_a_body_labelled_identity_is_read_as_it_is(encoding: str) -> None:
    """``identity`` is no encoding at all: the document is read."""
    answer = reply(200, VERSION_DOCUMENT, headers=[("Content-Encoding", encoding)])
    with RawServer([answer]) as server:
        assert roncho.Client(server.url, "w", read_timeout=PATIENT).server_version() == "3.0.12"


def test_server_version_of_an_empty_204_is_none_not_a_decode_error() -> None:
    """An empty 204 carries no document, so it states no version: None, as a 404 gives,
    where an empty 200 is a broken answer (DecodeError)."""
    with RawServer([reply(204, raw_body=b"")]) as server:
        assert roncho.Client(server.url, "w", read_timeout=PATIENT).server_version() is None


def test_an_empty_205_where_a_document_is_needed_is_a_decode_error() -> None:
    """Only 204 means "no content": any other empty 2xx is a broken answer."""
    with RawServer([reply(205, raw_body=b"")]) as server, pytest.raises(DecodeError) as info:
        roncho.Client(server.url, "w", read_timeout=PATIENT).server_version()
    assert info.value.request_sent is True
    assert str(info.value).startswith("server_version: the answer is not JSON")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_an_answer_holding_nan_or_infinity_is_not_json_and_the_error_names_it(
    constant: str,
) -> None:
    """Python's json module reads NaN and Infinity, which JSON has not: such an answer is a
    DecodeError (never a float no JSON peer could send back), saying which word it found."""
    answer = reply(200, raw_body=b'{"info": {"version": ' + constant.encode() + b"}}")
    with RawServer([answer]) as server, pytest.raises(DecodeError) as info:
        roncho.Client(server.url, "w", read_timeout=PATIENT).server_version()
    assert info.value.request_sent is True
    assert str(info.value) == f"server_version: the answer is not JSON ({constant} is not JSON)"


def test_an_answer_that_is_not_utf8_is_a_decode_error_saying_so() -> None:
    answer = reply(200, raw_body=b'{"info": {"version": "3.0.\xff"}}')
    with RawServer([answer]) as server, pytest.raises(DecodeError) as info:
        roncho.Client(server.url, "w", read_timeout=PATIENT).server_version()
    assert info.value.request_sent is True
    assert str(info.value) == "server_version: the answer is not UTF-8"


def test_an_answer_nested_past_the_parser_is_a_decode_error_saying_so() -> None:
    answer = reply(200, raw_body=b"[" * 100_000 + b"]" * 100_000)
    with RawServer([answer]) as server, pytest.raises(DecodeError) as info:
        roncho.Client(server.url, "w", read_timeout=PATIENT).server_version()
    assert info.value.request_sent is True
    assert str(info.value) == "server_version: the answer nests too deeply"
