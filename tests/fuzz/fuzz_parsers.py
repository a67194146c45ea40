"""Hypothesis-driven fuzzing of the sans-IO parsers: HTTP responses and SSE streams.

Each target is fed the same input twice, whole and cut into random reads, and checks:

* nothing but a RonchoError subclass ever escapes (no IndexError, UnicodeError, ...);
* both feedings agree: the same events, or an error of the same class (HTTP), or an
  error both ways (SSE, where two errors in one input may surface in either order);
* what comes out is well formed: one head first, body bytes only after it, never more
  body bytes than the cap, ResponseEnd last and only then ``done``.

Inputs are arbitrary bytes, "HTTP-ish" bytes glued from protocol fragments, and valid
responses with a few bytes flipped, inserted or removed (so the fuzzer spends its time
near the interesting edges, not on random noise the status line refuses at once).

In CI, tests/fuzz/test_fuzz_parsers.py runs each target for ``CI_EXAMPLES`` examples.
For a longer run::

    .venv/bin/python tests/fuzz/fuzz_parsers.py --examples 100000
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roncho import RonchoError
from roncho._http import BodyData, ResponseEnd, ResponseHead, ResponseParser
from roncho._sse import ServerSentEvent, SSEDecoder

# Examples per target in CI: 3 targets x 1000 take about 3 s on one core.
CI_EXAMPLES = 1000
# Small caps, so the fuzzer reaches them with small inputs.
FUZZ_MAX_BODY = 64
FUZZ_MAX_HEADER = 128
FUZZ_SSE_CAP = 48

# -- input strategies ---------------------------------------------------------------------
HTTP_FRAGMENTS = [
    b"HTTP/1.1 ",
    b"HTTP/1.0 ",
    b"200",
    b"204",
    b"304",
    b"100",
    b"101",
    b"404 Not Found",
    b" OK",
    b"\r\n",
    b"\n",
    b"\r",
    b"\r\n\r\n",
    b"Content-Length: ",
    b"Content-Length: 5\r\n",
    b"Transfer-Encoding: chunked\r\n",
    b"Transfer-Encoding: gzip\r\n",
    b"X-A: b\r\n",
    b" folded\r\n",
    b":",
    b";ext=1",
    b" ",
    b"\t",
    b"0",
    b"5",
    b"a",
    b"F" * 17,
    b"99999999999999999999999",
    b"-1",
    b"hello",
    b"\x00",
    b"\xff",
    b"0\r\n\r\n",
    b"5\r\nhello\r\n",
]

http_ish = st.lists(st.sampled_from(HTTP_FRAGMENTS), max_size=40).map(b"".join)

SSE_FRAGMENTS = [
    b"data",
    b"data:",
    b"data: ",
    b"event: x",
    b"id: 1",
    b"id",
    b"retry: 10",
    b": comment",
    b":",
    b"\n",
    b"\r",
    b"\r\n",
    b"\n\n",
    b"hello",
    b"\xc3\xa9",
    b"\xc3",
    b"\xa9",
    b"\xf0\x9f\x98\x80",
    b"\xff",
    b"\x00",
    b"\xef\xbb\xbf",
    b'{"done": true}',
    b"x" * 40,
]

sse_ish = st.lists(st.sampled_from(SSE_FRAGMENTS), max_size=40).map(b"".join)

VALID_RESPONSES = [
    b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: 1\r\n\r\n",
    b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil close",
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}",
    b"HTTP/1.1 204 No Content\r\n\r\n",
    b"HTTP/1.1 422 Unprocessable\r\nContent-Length: 14\r\n\r\n" + b'{"detail":"x"}',
]
VALID_STREAMS = [
    b'data: {"delta": {"content": "Hi"}, "done": false}\n\ndata: {"done": true}\n\n',
    b"event: e\r\nid: 7\r\ndata: a\r\ndata: b\r\n\r\n: c\r\n",
    b"\xef\xbb\xbfdata: \xc3\xa9\xf0\x9f\x98\x80\r\rdata\n\n",
]


@st.composite
def mutated(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    """A valid input with a few bytes flipped, inserted or deleted."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["flip", "insert", "delete", "repeat"]))
        if action == "insert":
            data[where:where] = draw(st.binary(min_size=1, max_size=4))
        elif action == "delete" and data:
            del data[min(where, len(data) - 1)]
        elif action == "repeat":
            data[where:where] = data[where : where + draw(st.integers(1, 20))]
        elif data:
            data[min(where, len(data) - 1)] = draw(st.integers(0, 255))
    return bytes(data)


http_inputs = st.one_of(st.binary(max_size=300), http_ish, mutated(VALID_RESPONSES))
sse_inputs = st.one_of(st.binary(max_size=200), sse_ish, mutated(VALID_STREAMS))


def cut(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` split at the given positions (any order, repeats allowed)."""
    points = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


# -- targets ------------------------------------------------------------------------------
@dataclass(frozen=True)
class HttpOutcome:
    head: ResponseHead | None = None
    body: bytes = b""
    trailers: tuple[tuple[str, str], ...] | None = None
    error: type[RonchoError] | None = None


def run_http(chunks: list[bytes], method: str) -> HttpOutcome:
    """Feed the reads, then EOF; check the event order; never let a non-Roncho error out."""
    parser = ResponseParser(
        max_body=FUZZ_MAX_BODY, request_method=method, max_header_bytes=FUZZ_MAX_HEADER
    )
    head: ResponseHead | None = None
    body = bytearray()
    try:
        for chunk in [*chunks, b""]:
            parser.feed(chunk)
            while (event := parser.next_event()) is not None:
                if isinstance(event, ResponseHead):
                    assert head is None, "a second final head"
                    assert not 100 <= event.status < 200, "an interim head was handed out"
                    assert 0 <= event.status <= 999
                    head = event
                elif isinstance(event, BodyData):
                    assert head is not None, "body before head"
                    assert event.data, "an empty BodyData"
                    body += event.data
                    assert len(body) <= FUZZ_MAX_BODY, "more body than the cap"
                else:
                    assert isinstance(event, ResponseEnd)
                    assert head is not None and parser.done
                    return HttpOutcome(head, bytes(body), event.trailers)
        raise AssertionError("EOF was fed but the response neither ended nor failed")
    except RonchoError as exc:
        return HttpOutcome(head, bytes(body), None, type(exc))


def check_http(data: bytes, cuts: list[int], method: str) -> None:
    whole = run_http([data], method)
    split = run_http(cut(data, cuts), method)
    if whole.error is None:
        assert split == whole, (whole, split)
    else:
        assert split.error is whole.error, (whole, split)


def run_sse(chunks: list[bytes]) -> tuple[list[ServerSentEvent], bool]:
    decoder = SSEDecoder(FUZZ_SSE_CAP)
    events: list[ServerSentEvent] = []
    try:
        for chunk in chunks:
            for event in decoder.feed(chunk):
                assert isinstance(event.data, str) and isinstance(event.event, str)
                assert event.event, "an event with no type"
                assert len(event.data) <= FUZZ_SSE_CAP
                events.append(event)
    except RonchoError:
        return events, True
    return events, False


def check_sse(data: bytes, cuts: list[int]) -> None:
    whole, whole_failed = run_sse([data])
    split, split_failed = run_sse(cut(data, cuts))
    assert whole_failed == split_failed, (whole_failed, split_failed)
    if not whole_failed:
        assert split == whole


# -- hypothesis wrappers ------------------------------------------------------------------
cuts_strategy = st.lists(st.integers(0, 400), max_size=12)
methods = st.sampled_from(["GET", "POST", "HEAD", "DELETE"])


def _http(data: bytes, cuts: list[int], method: str) -> None:
    check_http(data, cuts, method)


def _http_byte_by_byte(data: bytes, method: str) -> None:
    check_http(data, list(range(len(data))), method)


def _sse(data: bytes, cuts: list[int]) -> None:
    check_sse(data, cuts)


# name -> (check, its argument strategies)
TARGETS: dict[str, tuple[Callable[..., None], dict[str, st.SearchStrategy[object]]]] = {
    "http": (_http, {"data": http_inputs, "cuts": cuts_strategy, "method": methods}),
    "http_byte_by_byte": (_http_byte_by_byte, {"data": http_inputs, "method": methods}),
    "sse": (_sse, {"data": sse_inputs, "cuts": cuts_strategy}),
}


def with_examples(name: str, examples: int) -> Callable[[], None]:
    """A fresh hypothesis test for one target: bounded examples, no example database."""
    check, strategies = TARGETS[name]
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )(given(**strategies)(check))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--examples", type=int, default=CI_EXAMPLES, help="examples per target")
    parser.add_argument("--target", choices=sorted(TARGETS), action="append")
    args = parser.parse_args(argv)
    for name in args.target or list(TARGETS):
        started = time.monotonic()
        with_examples(name, args.examples)()
        print(f"{name}: {args.examples} examples passed in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
