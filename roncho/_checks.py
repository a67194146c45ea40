"""The checks of what a caller configures (base URL, ids, key, timeouts, caps, flags), and
the timestamp reader answers use: each check raises ConfigError naming the field, before
anything is sent, so a bad input loses nothing. What an operation sends is checked by
``_request_checks``, beside the catalogue. None of them reads the environment or a file:
configuration comes only from the caller.
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Any, Literal, NamedTuple, overload
from urllib.parse import urlsplit

from ._errors import ConfigError

JSON = dict[str, Any]

# Honcho's own id rule (src/schemas/api.py:45). Percent-encoding is not enough, because the
# server decodes %2F before routing, so anything else is refused outright.
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,512}")

# What a path prefix may hold: RFC 3986 unreserved characters, sub-delims that need no
# escaping in a path, and "/" between segments.
_PREFIX_PATTERN = re.compile(r"(/[A-Za-z0-9._~!$&'()*+,;=:@-]+)*")

# A host is either a bracketed IPv6 literal (urlsplit strips the brackets) or a name /
# IPv4 address; nothing that could smuggle a space, a CR/LF or a slash into a request.
# "_" is allowed in names (RFC 3986 reg-name): Docker service names such as honcho_api.
_HOST_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,253}|[0-9A-Fa-f:.]{2,45}")

# Where Honcho's own routes begin (everything under /v3, and /health,
# /metrics, /openapi.json, /docs, /redoc at the root). roncho adds these itself, so a base
# URL that already holds one would send every request to /v3/v3/... and get 404s.
_ROUTE_ROOTS = frozenset({"v3", "health", "metrics", "openapi.json", "docs", "redoc"})

# A scheme-less "host[:port][/path]" that is safe to echo back with http:// in front.
_BARE_HOST = re.compile(r"[A-Za-z0-9._-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~-]+)*/?")

_EXAMPLE = "for example 'http://127.0.0.1:8000', or 'https://honcho.example/prefix' behind a proxy"

# RFC 6750 b64token: the characters a Bearer credential may hold.
_KEY_PATTERN = re.compile(r"[A-Za-z0-9._~+/=-]+")


class Endpoint(NamedTuple):
    """Where requests go: parsed once from the caller's base URL."""

    scheme: str
    host: str
    port: int
    prefix: str  # "" or "/segment/..." without a trailing slash

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"

    def __str__(self) -> str:
        return f"{self.scheme}://{self.host_header}{self.prefix}"


def parse_base_url(base_url: object) -> Endpoint:
    """Check the base URL: http(s), a host, optional port and path prefix, nothing else.

    A prefix that already holds one of Honcho's routes (``/v3``, ``/v3/workspaces``,
    ``/health``) is refused, naming the base URL that was meant; a reverse proxy's own
    prefix (``/honcho``) is kept.
    """
    endpoint = _parse(base_url)
    meant = _without_route(endpoint)
    if meant is not None:
        root = endpoint.prefix[len(meant.prefix) :].split("/")[1]
        raise ConfigError(
            f"base_url path {endpoint.prefix!r} already holds Honcho's route '/{root}'; "
            f"roncho adds the routes itself, so a call would go to "
            f"'{endpoint.prefix}/v3/workspaces' and fail with 404: use {str(meant)!r}"
        )
    return endpoint


def _parse(base_url: object) -> Endpoint:
    if not isinstance(base_url, str) or not base_url:
        raise ConfigError(
            "base_url is required (for example 'http://127.0.0.1:8000'); "
            "roncho has no default server"
        )
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in base_url) or not base_url.isascii():
        raise ConfigError("base_url must be plain ASCII without spaces or control characters")
    if "?" in base_url or "#" in base_url:
        raise ConfigError("base_url must not have a query or fragment")
    try:
        parts = urlsplit(base_url)
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"base_url is not a valid URL: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ConfigError(_scheme_problem(base_url, scheme))
    if "@" in parts.netloc:
        raise ConfigError("base_url must not carry user information; pass api_key instead")
    host = parts.hostname or ""
    if not host or not _HOST_PATTERN.fullmatch(host):
        raise ConfigError("base_url must name a host")
    if "[" in parts.netloc and ":" not in host:
        # "[v1.x]" (IPvFuture) would otherwise become the DNS name "v1.x".
        raise ConfigError("base_url brackets may hold only an IPv6 address")
    if port == 0:
        raise ConfigError("base_url port must be between 1 and 65535")
    prefix = parts.path.rstrip("/")
    if not _PREFIX_PATTERN.fullmatch(prefix) or "/../" in prefix + "/" or "/./" in prefix + "/":
        raise ConfigError("base_url path prefix may hold only plain path segments")
    return Endpoint(scheme, host, port or (443 if scheme == "https" else 80), prefix)


def _scheme_problem(base_url: str, scheme: str) -> str:
    """What is wrong with a base URL that is not http(s), and what a right one looks like."""
    if "://" not in base_url and _BARE_HOST.fullmatch(base_url):
        # "localhost:8000" (which urlsplit reads as scheme "localhost") or "10.0.0.5:8000".
        try:
            endpoint = _parse("http://" + base_url)
        except ConfigError:
            pass
        else:
            meant = _without_route(endpoint) or endpoint
            return (
                f"base_url {base_url!r} has no scheme: write {str(meant)!r} (or https:// for TLS)"
            )
    got = f" (got {scheme}://)" if scheme and "://" in base_url else ""
    return f"base_url must start with http:// or https://{got}; {_EXAMPLE}"


def _without_route(endpoint: Endpoint) -> Endpoint | None:
    """The endpoint cut before the first segment where Honcho's routes begin, or None
    when its prefix holds none."""
    segments = endpoint.prefix.split("/")[1:]
    for i, segment in enumerate(segments):
        if segment.lower() in _ROUTE_ROOTS:
            return endpoint._replace(prefix="".join(f"/{s}" for s in segments[:i]))
    return None


def check_id(value: object, what: str) -> str:
    """An id that goes into a path must match Honcho's own rule, or nothing is sent."""
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        raise ConfigError(
            f"{what} must be 1 to 512 characters of A-Z, a-z, 0-9, '_' or '-' "
            f"(got {_describe(value)})"
        )
    return value


def check_api_key(api_key: object) -> bytearray | None:
    """None means no Authorization header; anything else must be a usable Bearer token.

    The key is returned as a bytearray so the client can overwrite it when it is closed.
    The key itself never appears in a message.
    """
    if api_key is None:
        return None
    if isinstance(api_key, (bytes, bytearray)):
        raise ConfigError(
            f"api_key must be a str or None, not {type(api_key).__name__}: "
            "pass the key as text (key.decode())"
        )
    if not isinstance(api_key, str):
        raise ConfigError(f"api_key must be a str or None, not {type(api_key).__name__}")
    if api_key == "":
        raise ConfigError("api_key is empty; pass None to send no Authorization header")
    if not _KEY_PATTERN.fullmatch(api_key):
        raise ConfigError(
            "api_key holds whitespace, control or other characters a Bearer token cannot carry"
        )
    return bytearray(api_key.encode("ascii"))


@overload
def check_timeout(value: object, name: str, *, allow_none: Literal[False] = False) -> float: ...
@overload
def check_timeout(value: object, name: str, *, allow_none: bool) -> float | None: ...
def check_timeout(value: object, name: str, *, allow_none: bool = False) -> float | None:
    """A positive finite number of seconds (bool is refused, though it is an int)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{name} must be a number of seconds, not {type(value).__name__}")
    try:
        seconds = float(value)
    except OverflowError:  # an int beyond float range
        seconds = math.inf
    if not math.isfinite(seconds) or seconds <= 0:
        raise ConfigError(f"{name} must be a positive finite number of seconds, got {value!r}")
    return seconds


def check_positive_int(value: object, name: str, *, low: int = 1, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, not {type(value).__name__}")
    if value < low or (high is not None and value > high):
        bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ConfigError(f"{name} must be {bounds}, got {value}")
    return value


def _describe(value: object) -> str:
    """A short, safe description of a refused value (it may come from a chat channel)."""
    if not isinstance(value, str):
        return type(value).__name__
    shown = value[:40].encode("unicode_escape").decode("ascii")
    more = "..." if len(value) > 40 else ""
    return f"{len(value)} characters: '{shown}{more}'"


def check_flag(value: object, name: str) -> bool:
    """A real bool: 0, 1 or "yes" are refused."""
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be True or False")
    return value


_RFC3339 = re.compile(
    r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)"
    r"(\.\d{1,9})?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)"
)


def parse_timestamp(value: str) -> datetime:
    """An RFC 3339 timestamp as an aware datetime (fractions beyond microseconds are cut)."""
    if not isinstance(value, str) or not _RFC3339.fullmatch(value):
        raise ValueError(f"not an RFC 3339 timestamp: {value!r}")
    text = value[:10] + "T" + value[11:]
    if text[-1] in "Zz":
        text = text[:-1] + "+00:00"
    main, zone = text[:-6], text[-6:]
    if "." in main:
        seconds, fraction = main.split(".")
        main = f"{seconds}.{fraction[:6]:0<6}"
    return datetime.fromisoformat(main + zone)  # a leap second (:60) raises ValueError
