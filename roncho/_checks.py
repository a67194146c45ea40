"""Every argument check, in one place: each raises ConfigError naming the field, before
anything is sent, so a bad input loses nothing.

First what a caller configures (base URL, ids, key, timeouts, caps), then what an
operation sends (metadata and other JSON, text, timestamps, batches, paging, filters and
the chat options). None of them reads the environment or a file: configuration comes only
from the caller.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Final, Literal, NamedTuple, overload
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


# The server's limits (src/schemas/api.py): checked before sending, so nothing is refused late.
MAX_METADATA_KEYS: Final = 100
MAX_METADATA_DEPTH: Final = 5
MAX_MESSAGE_CHARS: Final = 25_000
MAX_BATCH: Final = 100
MAX_CONCLUSION_CHARS: Final = 65_535
MAX_QUERY_CHARS: Final = 10_000
MAX_PAGE_SIZE: Final = 100  # fastapi-pagination's bound on ``size``
REASONING_LEVELS: Final = ("minimal", "low", "medium", "high", "max")


# -- JSON, text and timestamps ----------------------------------------------------------
def check_metadata(value: object, what: str = "metadata") -> JSON:
    """A JSON object the server will take: finite, serialisable, ≤100 keys, depth ≤5."""
    if not isinstance(value, dict):
        raise ConfigError(f"{what} must be a dict (a JSON object), not {type(value).__name__}")
    depth = _json_depth(value, what)
    if len(value) > MAX_METADATA_KEYS:
        raise ConfigError(
            f"{what} has {len(value)} top-level keys; the server allows {MAX_METADATA_KEYS}"
        )
    if depth > MAX_METADATA_DEPTH:
        raise ConfigError(f"{what} nests deeper than {MAX_METADATA_DEPTH} levels")
    return value


def check_json(value: object, what: str) -> None:
    """Serialisable with string keys and no NaN or Infinity (which JSON cannot carry)."""
    _json_depth(value, what)


def _json_depth(value: object, what: str) -> int:
    """Check ``value`` is what the client can send as JSON; return its object nesting depth.

    One walk instead of a trial json.dumps: it is several times faster on the small
    metadata every message carries, and it names the problem. Depth counts every object
    and array on the deepest path, as the server's own check does (api.py
    ``_check_metadata_limits``: a list inside a dict is one level deeper).
    """
    try:
        return _walk(value, what)
    except RecursionError:
        raise ConfigError(
            f"{what} is not JSON-serialisable: it nests too deeply or refers to itself"
        ) from None


def _walk(value: object, what: str) -> int:
    kind = type(value)
    if kind is str:
        if not value.isascii():  # type: ignore[attr-defined]
            _check_surrogates(value, what)  # type: ignore[arg-type]
        return 0
    if value is None or kind is bool or kind is int:
        return 0
    if kind is float:
        if not math.isfinite(value):  # type: ignore[arg-type]
            raise ConfigError(f"{what} is not JSON-serialisable: NaN and Infinity cannot be sent")
        return 0
    if isinstance(value, dict):
        deepest = 0
        for key, item in value.items():
            if not isinstance(key, str):
                raise ConfigError(f"{what} must use only string keys")
            if not key.isascii():
                _check_surrogates(key, what)
            deepest = max(deepest, _walk(item, what))
        return deepest + 1
    if isinstance(value, (list, tuple)):
        return 1 + max((_walk(item, what) for item in value), default=0)
    if isinstance(value, str):  # subclasses of the plain kinds, as json.dumps takes them
        return _walk(str(value), what)
    if isinstance(value, (bool, int)):
        return 0
    if isinstance(value, float):
        return _walk(float(value), what)
    raise ConfigError(f"{what} is not JSON-serialisable: {type(value).__name__} is not a JSON type")


def _check_surrogates(text: str, what: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(
            f"{what} is not JSON-serialisable: a string holds a lone surrogate, which UTF-8 "
            f"cannot carry"
        ) from None


def check_text(value: str, what: str) -> str:
    """Text UTF-8 can carry: a lone surrogate (left by a bad decode upstream) is refused."""
    if value.isascii():  # O(1) in CPython (a flag on the string), and the common case
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(f"{what} holds a lone surrogate, which UTF-8 cannot carry") from None
    return value


def check_content(value: object, what: str, limit: int, *, empty: bool) -> str:
    """A message's or conclusion's text: a string (``empty`` or not) of at most ``limit``
    characters that UTF-8 can carry."""
    if not isinstance(value, str) or not (empty or value):
        raise ConfigError(f"{what} must be a {'' if empty else 'non-empty '}string")
    if len(value) > limit:
        raise ConfigError(f"{what} has {len(value)} characters; the server allows {limit}")
    return check_text(value, what)


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


def check_timestamp(value: object, what: str = "created_at") -> str:
    """An RFC 3339 string, or a timezone-aware datetime rendered as one."""
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ConfigError(f"{what} must be timezone-aware (a naive datetime is ambiguous)")
        return value.isoformat()
    if isinstance(value, str):
        try:
            parse_timestamp(value)
        except ValueError:
            raise ConfigError(
                f"{what} must be an RFC 3339 timestamp with a timezone, "
                f"such as 2026-11-30T12:00:00Z"
            ) from None
        return value
    raise ConfigError(f"{what} must be an RFC 3339 string or an aware datetime")


def check_reasoning_config(value: object, what: str) -> JSON:
    check_json(value, what)
    if not isinstance(value, dict):
        raise ConfigError(f"{what} must be a dict")
    return value


def check_finite(value: float, what: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"{what} must be a finite number")
    if not low <= value <= high:
        raise ConfigError(f"{what} must be between {low} and {high}")
    return float(value)


# -- what operations send (batches of messages and conclusions: _models.render_batch) --
def check_flag(value: object, name: str) -> bool:
    """A real bool: 0, 1 or "yes" are refused."""
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be True or False")
    return value


def check_items(value: object, what: str, item: str) -> list[object]:
    """A batch as a list: any iterable of items, but not one item on its own, nor a str,
    bytes or a dict (each iterable, and each would be read as a batch of something else)."""
    if isinstance(value, (str, bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        got = type(value).__name__
        if got == item:
            raise ConfigError(
                f"{what} must be a list of {item}, not a single one: pass [{what[:-1]}]"
            )
        raise ConfigError(f"{what} must be a list of {item}, not {got}")
    return list(value)


def check_optional_metadata(metadata: Mapping[str, Any] | None) -> JSON | None:
    """Metadata a caller may leave out (None); a Mapping is copied into a dict."""
    if metadata is None:
        return None
    return check_metadata(dict(metadata) if isinstance(metadata, Mapping) else metadata)


def check_json_object(value: Mapping[str, Any] | None, what: str) -> JSON | None:
    """A caller's dict (configuration, response_format, filters), copied and checked."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ConfigError(f"{what} must be a dict")
    result = dict(value)
    check_json(result, what)
    return result


def check_filters_body(filters: Mapping[str, Any] | None) -> JSON:
    return {"filters": check_json_object(filters, "filters")} if filters is not None else {}


def check_paging(page: int, size: int, reverse: bool | None) -> list[tuple[str, str]]:
    query = [
        ("page", str(check_positive_int(page, "page"))),
        ("size", str(check_positive_int(size, "size", high=MAX_PAGE_SIZE))),
    ]
    if reverse is not None:
        query.append(("reverse", "true" if check_flag(reverse, "reverse") else "false"))
    return query


def check_webhook_url(url: object) -> str:
    """A webhook endpoint URL as far as the server's rule is known before asking it: http
    or https, with a host. The server also refuses IP literals of private, loopback and
    other internal addresses (422); that it says itself. The URL is never echoed: it may
    hold credentials."""
    if not isinstance(url, str):
        raise ConfigError(f"the webhook url must be a string, not {type(url).__name__}")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        raise ConfigError("the webhook url is not a valid URL") from None
    if parts.scheme not in ("http", "https"):
        raise ConfigError("the webhook url must start with http:// or https://")
    if not host or not parts.netloc:
        raise ConfigError("the webhook url has no host")
    return check_text(url, "the webhook url")


def check_id_query(**ids: str | None) -> list[tuple[str, str]]:
    """The given ids as query pairs, in order, each checked against Honcho's id rule."""
    return [(name, check_id(value, name)) for name, value in ids.items() if value is not None]


def check_string(value: object, what: str, limit: int | None, *, allow_empty: bool = False) -> str:
    """A string (non-empty unless ``allow_empty``) of at most ``limit`` characters."""
    if not isinstance(value, str):
        raise ConfigError(f"{what} must be a string")
    if not value and not allow_empty:
        raise ConfigError(f"{what} must not be empty")
    if limit is not None and len(value) > limit:
        raise ConfigError(f"{what} has {len(value)} characters; the server allows {limit}")
    return check_text(value, what)


def check_reasoning_level(value: str) -> str:
    if value not in REASONING_LEVELS:
        raise ConfigError(f"reasoning_level must be one of {', '.join(REASONING_LEVELS)}")
    return value
