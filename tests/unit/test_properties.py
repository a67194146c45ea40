"""Property tests (hypothesis): parser results do not depend on how the bytes arrive,
requests cannot be split by any argument, and ids either are refused or land exactly in
their path segment.

Each property runs PROPERTY_EXAMPLES examples in CI (no example database, see
tests/conftest.py). Arbitrary-bytes robustness lives in tests/fuzz/fuzz_parsers.py.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import roncho._client
from roncho import Client, ConfigError, DecodeError, Message, MessageCreate
from roncho._checks import ID_PATTERN
from roncho._decode import Fields
from roncho._http import BodyData, ResponseEnd, ResponseHead, ResponseParser, build_request
from roncho._models import ConclusionCreate, render_batch
from roncho._request_checks import check_json, check_metadata
from roncho._sse import ServerSentEvent, SSEDecoder

# Examples per property in CI: 6 properties x 300 take about 6 s on one core.
PROPERTY_EXAMPLES = 300
CAP = 4096

examples = settings(max_examples=PROPERTY_EXAMPLES, deadline=None, database=None)


def cut(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


# -- valid responses ----------------------------------------------------------------------
TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
RESERVED = {"content-length", "transfer-encoding"}

header_names = st.text(TOKEN_CHARS, min_size=1, max_size=12).filter(
    lambda n: n.lower() not in RESERVED
)
# field-content: visible ASCII and obs-text, single inner spaces/tabs (no leading/trailing)
header_values = st.text(
    st.characters(codec="latin-1", exclude_categories=("Cc",), exclude_characters="\x7f"),
    max_size=20,
).map(lambda v: v.strip(" \t"))


@dataclass(frozen=True)
class Expected:
    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    trailers: tuple[tuple[str, str], ...]


@st.composite
def responses(draw: st.DrawFn) -> tuple[bytes, Expected, str]:
    """A valid response in one framing, its expected parse, and the request method."""
    status = draw(st.integers(200, 599))
    method = draw(st.sampled_from(["GET", "POST", "DELETE", "HEAD"]))
    headers = tuple(
        (name, value)
        for name, value in draw(st.lists(st.tuples(header_names, header_values), max_size=6))
    )
    version = draw(st.sampled_from([b"1.1", b"1.0"]))
    eol = draw(st.sampled_from([b"\r\n", b"\n"]))
    bodiless = method == "HEAD" or status in (204, 304)
    body = b"" if bodiless else draw(st.binary(max_size=300))
    # RFC 9112 §6.1: chunked framing on HTTP/1.0 is faulty, so only 1.1 may use it.
    framing = draw(
        st.sampled_from(
            ["length", "chunked", "close"] if version == b"1.1" else ["length", "close"]
        )
    )
    trailers: tuple[tuple[str, str], ...] = ()
    lines = [b"HTTP/" + version + b" %d " % status + draw(st.sampled_from([b"OK", b"", b"X Y"]))]
    lines += [
        n.encode() + b":" + draw(st.sampled_from([b"", b" ", b"\t "])) + v.encode("latin-1")
        for n, v in headers
    ]
    if framing == "length":
        lines.append(b"Content-Length: %d" % len(body))
        payload = body
    elif framing == "chunked":
        lines.append(b"Transfer-Encoding: chunked")
        sizes = draw(st.lists(st.integers(1, 64), max_size=10))
        payload, rest = b"", body
        for size in sizes:
            if not rest:
                break
            piece, rest = rest[:size], rest[size:]
            ext = draw(st.sampled_from([b"", b";a=b", b' ; q="x;y"']))
            payload += b"%x" % len(piece) + ext + eol + piece + eol
        if rest:
            payload += b"%X" % len(rest) + eol + rest + eol
        trailers = tuple(draw(st.lists(st.tuples(header_names, header_values), max_size=2)))
        payload += (
            b"0"
            + eol
            + b"".join(n.encode() + b": " + v.encode("latin-1") + eol for n, v in trailers)
            + eol
        )
    else:
        payload = body
    if bodiless:
        payload = b""
        trailers = ()
    interim = draw(st.sampled_from([b"", b"HTTP/1.1 100 Continue" + eol + eol]))
    data = interim + eol.join(lines) + eol + eol + payload
    expected = Expected(
        status,
        tuple((n.lower(), v) for n, v in headers),
        body,
        tuple((n.lower(), v) for n, v in trailers),
    )
    return data, expected, method


def parse(chunks: list[bytes], method: str) -> tuple[ResponseHead, bytes, tuple[Any, ...]]:
    parser = ResponseParser(max_body=CAP, request_method=method)
    head: ResponseHead | None = None
    body = bytearray()
    for chunk in [*chunks, b""]:
        parser.feed(chunk)
        while (event := parser.next_event()) is not None:
            if isinstance(event, ResponseHead):
                head = event
            elif isinstance(event, BodyData):
                body += event.data
            else:
                assert isinstance(event, ResponseEnd) and head is not None
                return head, bytes(body), event.trailers
    raise AssertionError("no ResponseEnd")


@examples
@given(response=responses(), cuts=st.lists(st.integers(0, 800), max_size=20))
def test_property_any_split_parses_like_whole(
    response: tuple[bytes, Expected, str], cuts: list[int]
) -> None:
    data, expected, method = response
    head, body, trailers = parse([data], method)
    assert head.status == expected.status
    assert tuple(h for h in head.headers if h[0] not in RESERVED) == expected.headers
    assert body == expected.body
    assert trailers == expected.trailers
    assert parse(cut(data, cuts), method) == (head, body, trailers)


@examples
@given(response=responses())
def test_property_byte_by_byte_parses_like_whole(response: tuple[bytes, Expected, str]) -> None:
    data, _expected, method = response
    assert parse([data[i : i + 1] for i in range(len(data))], method) == parse([data], method)


# -- SSE ----------------------------------------------------------------------------------
sse_values = st.text(
    st.characters(exclude_characters="\r\n\x00", exclude_categories=("Cs",)), max_size=30
)


@st.composite
def sse_streams(draw: st.DrawFn) -> tuple[bytes, list[ServerSentEvent]]:
    """A stream of events with random fields, comments and line endings; expected events."""
    eol = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text, expected = "", []
    for _ in range(draw(st.integers(0, 5))):
        if draw(st.booleans()):
            text += ":" + draw(sse_values) + eol
        event_type = draw(st.one_of(st.none(), sse_values.filter(bool)))
        if event_type is not None:
            text += "event: " + event_type + eol
        decoded = []
        for line in draw(st.lists(sse_values, min_size=1, max_size=3)):
            separator = draw(st.sampled_from(["", " "]))
            text += "data:" + separator + line + eol
            # one space after the colon is dropped, whether we put it there or the value did
            decoded.append(line if separator else line.removeprefix(" "))
        text += eol
        expected.append(ServerSentEvent("\n".join(decoded), event_type or "message"))
    return text.encode(), expected


@examples
@given(stream=sse_streams(), cuts=st.lists(st.integers(0, 600), max_size=20))
def test_property_sse_any_split_decodes_like_whole(
    stream: tuple[bytes, list[ServerSentEvent]], cuts: list[int]
) -> None:
    data, expected = stream
    assert SSEDecoder(CAP).feed(data) == expected
    split: list[ServerSentEvent] = []
    decoder = SSEDecoder(CAP)
    for chunk in cut(data, cuts):
        split += decoder.feed(chunk)
    assert split == expected


# -- requests cannot be split -------------------------------------------------------------
@examples
@given(
    target=st.text(max_size=30),
    name=st.text(max_size=10),
    value=st.text(max_size=30),
)
def test_property_build_request_never_splits(target: str, name: str, value: str) -> None:
    """Whatever the strings, either ConfigError or exactly the lines we asked for."""
    try:
        request = build_request("GET", "/" + target, "h", [(name, value)], None)
    except ConfigError:
        return
    head = request.decode("ascii")
    assert head.endswith("\r\n\r\n")
    lines = head[:-4].split("\r\n")
    assert lines == [f"GET /{target} HTTP/1.1", "Host: h", f"{name}: {value}", "Connection: close"]
    assert "\n" not in "".join(lines) and "\r" not in "".join(lines)


# -- ids land exactly in their segment ----------------------------------------------------
class _Captured(Exception):
    def __init__(self, request: bytes) -> None:
        super().__init__("captured")
        self.request = request


class _FakeConnection:
    """Stands in for the socket transport: records the request and stops the call there."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def send(self, request: bytes) -> None:
        raise _Captured(request)

    def close(self) -> None:
        pass


def request_line(call: Callable[[], object]) -> str | None:
    """The request line ``call`` would send, or None when it refused with ConfigError."""
    with mock.patch.object(roncho._client, "connect", _FakeConnection):
        try:
            call()
        except ConfigError:
            return None
        except _Captured as sent:
            return sent.request.split(b"\r\n", 1)[0].decode("ascii")
    raise AssertionError("the call neither refused nor sent")


ids = st.one_of(
    st.text(max_size=20),
    st.from_regex(r"[A-Za-z0-9_-]{1,30}", fullmatch=True),
    st.tuples(
        st.from_regex(r"[A-Za-z0-9_-]{0,10}", fullmatch=True),
        st.sampled_from(["/", "%2F", "..", "?", "#", "\r\n", " ", ".", "%", "\x00", "é", "&", "="]),
        st.from_regex(r"[A-Za-z0-9_-]{0,10}", fullmatch=True),
    ).map("".join),
    st.sampled_from(["x" * 512, "x" * 513, "", "..", "."]),
)


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _valid(value: str) -> bool:
    return ID_PATTERN.fullmatch(value) is not None


@examples
@given(value=ids)
def test_property_ids_refused_or_exact_endpoint(value: str) -> None:
    client = Client("http://127.0.0.1:9/pre", "ws")
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: client.delete_session(value), f"DELETE /pre/v3/workspaces/ws/sessions/{value}"),
        (
            lambda: client.get_message("s1", value),
            f"GET /pre/v3/workspaces/ws/sessions/s1/messages/{value}",
        ),
        (
            lambda: client.chat(value, "q"),
            f"POST /pre/v3/workspaces/ws/peers/{value}/chat",
        ),
        (
            lambda: client.queue_status(session_id=value),
            f"GET /pre/v3/workspaces/ws/queue/status?session_id={value}",
        ),
        (
            lambda: client.with_workspace(value).delete_workspace(),
            f"DELETE /pre/v3/workspaces/{value}",
        ),
    ]
    for call, endpoint in cases:
        line = request_line(call)
        if _valid(value):
            assert line == endpoint + " HTTP/1.1"
        else:
            assert line is None


@examples
@given(
    peer_id=ids,
    content=st.one_of(st.text(max_size=50), st.text(st.characters(categories=["Cs", "Ll"]))),
)
def test_property_message_batch_refused_or_sent_as_json(peer_id: str, content: str) -> None:
    """A message either is refused before sending or reaches the body unchanged."""
    client = Client("http://127.0.0.1:9", "ws")
    sent: list[bytes] = []

    class Recording(_FakeConnection):
        def send(self, request: bytes) -> None:
            sent.append(request)
            raise _Captured(request)

    with mock.patch.object(roncho._client, "connect", Recording):
        try:
            client.add_messages("s1", [MessageCreate(peer_id, content)])
        except ConfigError:
            assert not (_valid(peer_id) and _utf8(content)) and not sent
            return
        except _Captured:
            pass
    assert _valid(peer_id) and _utf8(content)
    head, _, body = sent[0].partition(b"\r\n\r\n")
    assert head.split(b"\r\n", 1)[0] == b"POST /v3/workspaces/ws/sessions/s1/messages HTTP/1.1"
    assert json.loads(body) == {"messages": [{"peer_id": peer_id, "content": content}]}
    assert re.search(rb"\r\nContent-Length: %d\r\n" % len(body), head)


# -- what a request may carry ------------------------------------------------------
def _dumps_accepts(value: object) -> bool:
    """The reference: what the request encoder can send, with string keys only."""

    def string_keys(v: object) -> bool:
        if isinstance(v, dict):
            return all(isinstance(k, str) and string_keys(x) for k, x in v.items())
        if isinstance(v, (list, tuple)):
            return all(string_keys(x) for x in v)
        return True

    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError):
        return False
    return string_keys(value)


json_ish = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=4)
    | st.sampled_from(["\ud800", "é", b"bytes", {1, 2}]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=3) | st.integers(), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(json_ish)
def test_json_check_walk_agrees_with_the_encoder(value: object) -> None:
    try:
        check_json(value, "metadata")
        accepted = True
    except ConfigError:
        accepted = False
    assert accepted == _dumps_accepts(value)


def test_json_check_refuses_a_cycle_instead_of_recursing_forever() -> None:
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    with pytest.raises(ConfigError, match="refers to itself"):
        check_json(cycle, "metadata")


def test_metadata_depth_counts_arrays_as_the_server_does() -> None:
    """Honcho's _check_metadata_limits enters lists as well as dicts, one level each."""
    five = {"a": [[[{"b": 1}]]]}  # dict, list, list, list, dict: five levels
    assert check_metadata(five) is five
    with pytest.raises(ConfigError, match="deeper than 5"):
        check_metadata({"a": [[[[[]]]]]})  # dict and five lists: six levels


# -- a batch of messages --------------------------------------------------------------
peer_ids = st.one_of(
    st.sampled_from(["alice", "bob", "x" * 512, "x" * 513, "", "a b", "é", "a/b"]),
    st.text(max_size=6),
    st.integers(),
    st.just(["alice"]),
)
contents = st.one_of(
    st.text(max_size=10),
    st.sampled_from(["x" * 25_000, "x" * 25_001, "", "\ud800"]),
    st.integers(),
    st.none(),
)
messages = st.builds(
    MessageCreate,
    peer_id=peer_ids,
    content=contents,
    metadata=st.none() | st.just({"k": 1}),
    created_at=st.none() | st.just("2026-11-30T12:00:00Z"),
)


conclusions = st.builds(
    ConclusionCreate,
    content=contents,
    observer_id=peer_ids,
    observed_id=peer_ids,
    session_id=st.none() | peer_ids,
)


def _slow_batch(batch: list[Any], what: str) -> list[dict[str, Any]] | str:
    """Every item through all of its checks (``_checked_json``), none through the speed
    path (``_plain_json``)."""
    try:
        return [m._checked_json(f"{what}[{i}]") for i, m in enumerate(batch)]
    except ConfigError as exc:
        return str(exc)


@given(st.lists(messages, min_size=1, max_size=5))
def test_a_batch_renders_as_each_message_checked(batch: list[MessageCreate]) -> None:
    """The same bodies, or the same refusal, as each message's every check."""
    expected = _slow_batch(batch, "messages")
    try:
        got: list[dict[str, Any]] | str = render_batch(batch, MessageCreate, "messages", "op")
    except ConfigError as exc:
        got = str(exc)
    assert got == expected


@given(st.lists(conclusions, min_size=1, max_size=5))
def test_a_batch_renders_as_each_conclusion_checked(batch: list[ConclusionCreate]) -> None:
    expected = _slow_batch(batch, "conclusions")
    try:
        got: list[dict[str, Any]] | str = render_batch(batch, ConclusionCreate, "conclusions", "op")
    except ConfigError as exc:
        got = str(exc)
    assert got == expected


@given(st.one_of(messages, conclusions))
def test_the_speed_path_gives_what_every_check_gives(
    item: MessageCreate | ConclusionCreate,
) -> None:
    """``_plain_json`` answers only what ``_checked_json`` accepts, with the same body, key
    order included; ``to_json`` is the same as the checks, refusal text included."""
    try:
        checked: dict[str, Any] | str = item._checked_json("x")
    except ConfigError as exc:
        checked = str(exc)
    plain = item._plain_json()
    if plain is not None:
        assert isinstance(checked, dict)
        assert list(plain.items()) == list(checked.items())
    try:
        whole: dict[str, Any] | str = item.to_json("x")
    except ConfigError as exc:
        whole = str(exc)
    assert whole == checked


def test_the_speed_path_takes_the_common_inputs() -> None:
    """What a batch mostly is goes through ``_plain_json`` (else it would speed nothing)."""
    assert MessageCreate("alice", "hi")._plain_json() == {"peer_id": "alice", "content": "hi"}
    assert ConclusionCreate("c", "a", "b", "s")._plain_json() == {
        "content": "c",
        "observer_id": "a",
        "observed_id": "b",
        "session_id": "s",
    }
    assert MessageCreate("alice", "hé")._plain_json() is None  # non-ASCII: the checks decide
    assert MessageCreate("alice", "hi", metadata={})._plain_json() is None


def test_a_message_in_a_batch_of_conclusions_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"^conclusions\[0\] must be a ConclusionCreate$"):
        render_batch([MessageCreate("alice", "hi")], ConclusionCreate, "conclusions", "op")


# -- the decoding speed path: a well-formed message read in one pass ----------------------
FIELDS = (
    "id",
    "content",
    "peer_id",
    "session_id",
    "created_at",
    "metadata",
    "workspace_id",
    "token_count",
)
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=5),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.lists(st.integers(), max_size=2),
)


def checked(data: dict[str, Any]) -> Message:
    """The plain path: each field read through Fields (the reads every other model's
    decoder uses), in field order, and the message built by its own constructor."""
    f = Fields(data, "op", "message")
    return Message(
        id=f.text("id"),
        content=f.text("content"),
        peer_id=f.text("peer_id"),
        session_id=f.text("session_id"),
        created_at=f.text("created_at"),
        metadata=f.opt_obj("metadata"),
        workspace_id=f.opt_text("workspace_id"),
        token_count=f.opt_integer("token_count"),
    )


text = st.text(max_size=8)
well_formed = st.fixed_dictionaries(
    {"id": text, "content": text, "peer_id": text, "session_id": text, "created_at": text},
    optional={
        "metadata": st.none() | st.dictionaries(text, st.integers(), max_size=2),
        "workspace_id": st.none() | text,
        "token_count": st.none() | st.integers(),
        "role": text,
        "extra": values,
    },
)
anything = st.fixed_dictionaries({}, optional={name: values for name in FIELDS})


def _same_as_fields(data: dict[str, Any]) -> None:
    try:
        expected: Message | DecodeError = checked(data)
    except DecodeError as exc:
        expected = exc
    try:
        got: Message | DecodeError = Message.from_json(data, "op")
    except DecodeError as exc:
        got = exc
    if isinstance(expected, DecodeError):
        assert isinstance(got, DecodeError)
        assert str(got) == str(expected)
    else:
        assert got == expected


@given(well_formed | anything)
def test_message_speed_path_agrees_with_the_fields_reading(data: dict[str, Any]) -> None:
    """Message.from_json reads a well-formed message in one pass (_well_formed_message):
    the same message, or the same error, as reading it through Fields."""
    _same_as_fields(data)


@pytest.mark.parametrize("name", FIELDS)
@given(good=well_formed, value=values)
def test_message_speed_path_agrees_when_one_field_is_wrong(
    name: str, good: dict[str, Any], value: object
) -> None:
    """Each field in turn given any JSON value in an otherwise good message."""
    _same_as_fields({**good, name: value})
