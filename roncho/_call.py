"""What one operation is, as data: the ``Call`` an operation of the catalogue returns, and
the decoders every operation shares to read its answer. No I/O and no clock here: how long
a call may take is the executor's (``Client._run(call, deadline)``), not the request's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Generic, NamedTuple, TypeVar

from ._decode import parse_json
from ._errors import DecodeError, StatusError
from ._http import ResponseHead

if TYPE_CHECKING:
    from ._chat import ChatDecoder

    # A streamed call's body decoder, made when its 2xx head arrives:
    # (op, the answer's content type, the cap on an event, the key's redactor).
    StreamDecoder = Callable[[str, str | None, int, Callable[[bytes], bytes]], ChatDecoder]

T = TypeVar("T")

NO_BODY: Final[Any] = object()
_NO_MEANINGS: Final[Mapping[int, Any]] = {}


class Upload(NamedTuple):
    """A body that is not JSON: its bytes as they are sent, and their content type (a
    multipart form, say)."""

    data: bytes
    content_type: str


class Call(Generic[T]):
    """One operation, ready to send: pure request data plus the decoder of its answer.

    Args:
        op: the operation's name, for messages.
        method, path: the request line (the query comes apart, in ``query``).
        decode: a 2xx answer -> the result.
        query: name, value pairs, percent-encoded when sent.
        body: a JSON value, an ``Upload``, or NO_BODY.
        write: the call changes server state (a ``read_only`` client refuses it).
        stream: for a chat stream, the decoder its 2xx body is read with (``ChatDecoder``),
            chunk by chunk as the caller pulls them; None: the body is read whole.
        on_status: what a status means for this operation: the StatusError of that status
            goes to the function, which returns the result or raises the error it means
            (409 on a workspace delete is WorkspaceBusyError; 404 on /openapi.json, None).
    """

    __slots__ = ("body", "decode", "method", "on_status", "op", "path", "query", "stream", "write")

    def __init__(
        self,
        op: str,
        method: str,
        path: str,
        decode: Callable[[Response], T],
        *,
        query: tuple[tuple[str, str], ...] = (),
        body: Any = NO_BODY,
        write: bool = False,
        stream: StreamDecoder | None = None,
        on_status: Mapping[int, Callable[[StatusError], T]] = _NO_MEANINGS,
    ) -> None:
        self.op = op
        self.method = method
        self.path = path
        self.decode = decode
        self.query = query
        self.body = body
        self.write = write
        self.stream = stream
        self.on_status = on_status

    @property
    def what(self) -> str:
        """``METHOD /path`` for messages: never the query, never a header."""
        return f"{self.method} {self.path}"

    def __repr__(self) -> str:  # never the body: it is memory text
        return f"<Call {self.op} {self.what}>"


class Response:
    """A complete 2xx answer. ``take_body()`` hands the bytes over, so the decoder can let
    them go while parsing: holding the bytes, the text and the objects at once costs 3x."""

    __slots__ = ("_body", "head")

    def __init__(self, head: ResponseHead, body: bytes | bytearray) -> None:
        self.head = head
        self._body = body

    @property
    def status(self) -> int:
        return self.head.status

    @property
    def body(self) -> bytes | bytearray:
        return self._body

    def take_body(self) -> bytes | bytearray:
        body, self._body = self._body, b""
        return body


# -- decoders every operation shares -------------------------------------------------------
def read_json(response: Response, op: str, *, allow_empty: bool = False) -> Any:
    """The answer's JSON (None for an empty 204, or any empty answer with ``allow_empty``);
    every failure is a DecodeError that says the request was sent."""
    encoding = (response.head.get("content-encoding") or "identity").strip().lower()
    if encoding != "identity":
        raise DecodeError(
            f"{op}: the answer is encoded with {encoding[:40]!r}, which roncho never asks for",
            request_sent=True,
        )
    body = response.take_body()  # so only the text and the objects are alive at once
    # isspace() stops at the first other byte; strip() would copy a large body.
    if (not body or body.isspace()) and (allow_empty or response.status == 204):
        return None
    try:
        text = body.decode("utf-8")
        del body
        return parse_json(text)
    except UnicodeDecodeError:
        raise DecodeError(f"{op}: the answer is not UTF-8", request_sent=True) from None
    except RecursionError:
        raise DecodeError(f"{op}: the answer nests too deeply", request_sent=True) from None
    except ValueError as exc:
        raise DecodeError(
            f"{op}: the answer is not JSON ({str(exc)[:120]})", request_sent=True
        ) from None


def decoded(
    op: str, model: Callable[[object, str], T], *, allow_empty: bool = False
) -> Callable[[Response], T]:
    """A decoder: the answer's JSON through ``model``; every failure says request_sent."""

    def decode(response: Response) -> T:
        data = read_json(response, op, allow_empty=allow_empty)
        try:
            return model(data, op)
        except DecodeError as exc:
            exc.request_sent = True
            raise
        except RecursionError:
            raise DecodeError(f"{op}: the answer nests too deeply", request_sent=True) from None

    return decode


def nothing(response: Response) -> None:
    """For 204 answers (and any other 2xx): the body is not read."""
    return None
