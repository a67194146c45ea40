"""The whole roncho error family, shaped by what a caller catches.

::

    RonchoError
      ConfigError(RonchoError, ValueError)    bad URL, id, key, timeout, argument; nothing sent
        ReadOnlyError                         a write on a read_only client; nothing sent
      ConnectError                            could not connect to any resolved address
      Timeout
        ConnectTimeout(ConnectError, Timeout) catchable as either
        ReadTimeout                           no bytes for read_timeout seconds
        DeadlineExceeded                      the optional per-call total deadline
      ProtocolError                           malformed HTTP or SSE, connection closed early
      ResponseTooLargeError                   body over max_response_bytes
      DecodeError                             not JSON / UTF-8, or a field we rely on is missing
      StatusError                             any non-2xx answer
        UnauthorizedError                     401 or 403
        WorkspaceBusyError                    409 "active sessions" on workspace delete
        WebhookLimitError                     409 on webhook create: the workspace has its maximum
        RedirectError                         any 3xx, never followed

Every error carries ``request_sent``: ``False`` means no byte of the request left this
process, so retrying cannot duplicate anything; ``True`` means the server may have
received (and acted on) the request, so a caller syncing messages should first look at
what the server already holds. Messages are built from the method and path only: never
from a header, so the API key cannot reach ``str()``, ``repr()`` or ``args``.
"""

from __future__ import annotations

import json
from typing import Any

# The part of an error body kept on a StatusError; enough for FastAPI's detail and an
# HTML error page's title, small enough that a hostile server cannot bloat a log line.
MAX_ERROR_BODY_BYTES = 4096


class RonchoError(Exception):
    """Base of every error roncho raises."""

    request_sent: bool = False

    def __init__(self, message: str, *, request_sent: bool = False) -> None:
        super().__init__(message)
        self.request_sent = request_sent

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.__dict__.copy(), self.args))


def _rebuild(cls: type[RonchoError], state: dict[str, Any], args: tuple[Any, ...]) -> RonchoError:
    """Unpickle without calling a subclass __init__ whose signature differs."""
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class ConfigError(RonchoError, ValueError):
    """Invalid configuration or argument; raised before anything is sent."""


class ReadOnlyError(ConfigError):
    """A call that changes server state, made on a client built with ``read_only=True``."""


class ConnectError(RonchoError):
    """Could not connect: refused, unreachable, name not resolved, TLS handshake failed."""


class Timeout(RonchoError):
    """Base of the three ways a call can run out of time."""


class ConnectTimeout(ConnectError, Timeout):
    """No address accepted the connection within connect_timeout."""


class ReadTimeout(Timeout):
    """The server sent no byte for read_timeout seconds (an idle timeout, not a total)."""


class DeadlineExceeded(Timeout):
    """The call's optional total deadline passed."""


class ProtocolError(RonchoError):
    """The response broke HTTP/1.1 or SSE framing, the connection closed early, or a streamed
    answer ended with an error event instead of its answer (the server's words included)."""


class ResponseTooLargeError(RonchoError):
    """The response body (or one header section or SSE line) passed its cap."""


class DecodeError(RonchoError):
    """The body is not the JSON (or UTF-8) the operation expects, or lacks a field we rely on."""


class StatusError(RonchoError):
    """The server answered with a status outside 2xx.

    Attributes:
        status: the HTTP status code.
        method, path: the request, without query string or headers.
        body: at most the first 4 KiB of the response body.
        detail: FastAPI's ``detail`` (a string or the 422 list) when the body has one.
        location: a 3xx answer's Location, kept for diagnosis; nothing is sent there.
    """

    def __init__(
        self,
        status: int,
        method: str,
        path: str,
        body: bytes = b"",
        *,
        message: str | None = None,
        location: str | None = None,
        request_sent: bool = True,
    ) -> None:
        self.status = status
        self.method = method
        self.path = path
        self.body = body[:MAX_ERROR_BODY_BYTES]
        self.detail = _fastapi_detail(self.body)
        self.location = location
        super().__init__(message or self._describe(), request_sent=request_sent)

    def _describe(self) -> str:
        text = f"{self.method} {self.path} answered {self.status}"
        return text if self.detail is None else f"{text}: {_short(self.detail)}"


class UnauthorizedError(StatusError):
    """401 or 403: no key, a key the server cannot read, or a key whose scope does not reach
    this resource.

    ``key_sent`` says whether the request carried a key (never the key itself; ``None`` when
    the error was built without knowing). The message adds, after the server's words, the
    hint that fits what was sent and what the server said (``_auth_hints``, an add-on loaded
    by the first such error).
    """

    def __init__(self, *args: Any, key_sent: bool | None = None, **kwargs: Any) -> None:
        """StatusError's arguments, and ``key_sent``."""
        self.key_sent = key_sent  # before the message, which reads it
        super().__init__(*args, **kwargs)

    def _describe(self) -> str:
        from ._auth_hints import auth_hint  # an add-on: loaded by the first 401 or 403

        return f"{super()._describe()} ({auth_hint(self.key_sent, self.detail)})"


class WorkspaceBusyError(StatusError):
    """409 on workspace delete: the workspace still has active sessions (delete them first)."""


class WebhookLimitError(StatusError):
    """409 on webhook create: the workspace has as many endpoints as the server allows
    (10 on Honcho 3.0.12, its ``WEBHOOK_MAX_WORKSPACE_LIMIT``); delete one first."""


class RedirectError(StatusError):
    """Any 3xx; roncho never follows redirects, so memory text cannot leave the configured host.

    ``location`` is what the server asked for, kept for diagnosis; nothing is sent there.
    """

    def _describe(self) -> str:
        where = f" to {self.location!r}" if self.location else " without a Location"
        return (
            f"{self.method} {self.path} answered {self.status}, a redirect{where}; "
            "redirects are refused"
        )


def _fastapi_detail(body: bytes) -> Any:
    """FastAPI's {"detail": ...} when the body is such an object, else None."""
    if not body.startswith(b"{"):
        return None
    try:
        data = json.loads(body.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    return data.get("detail") if isinstance(data, dict) else None


def _short(detail: Any, limit: int = 300) -> str:
    text = detail if isinstance(detail, str) else json.dumps(detail, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def status_error(
    status: int, method: str, path: str, body: bytes, *, key_sent: bool
) -> StatusError:
    """The StatusError for a non-2xx answer (3xx handled by the caller); ``key_sent`` says
    whether the request carried a key. What a status means for one operation only (409 on
    a workspace delete) is that operation's: its ``Call.on_status``."""
    if status in (401, 403):
        return UnauthorizedError(status, method, path, body, key_sent=key_sent)
    return StatusError(status, method, path, body)
