"""The error family: its tree, pickling, StatusError's body and detail, status mapping."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

import roncho
from roncho import (
    ConfigError,
    ConnectError,
    ConnectTimeout,
    DeadlineExceeded,
    DecodeError,
    ProtocolError,
    ReadOnlyError,
    ReadTimeout,
    RedirectError,
    ResponseTooLargeError,
    RonchoError,
    StatusError,
    Timeout,
    UnauthorizedError,
    WebhookLimitError,
    WorkspaceBusyError,
)
from roncho._errors import MAX_ERROR_BODY_BYTES, status_error
from roncho._operations import Paths
from roncho._operations.workspaces import delete_workspace

# child -> every class it must be a subclass of (the tree in the _errors docstring)
TREE: dict[type[BaseException], tuple[type[BaseException], ...]] = {
    ConfigError: (RonchoError, ValueError),
    ReadOnlyError: (ConfigError, RonchoError, ValueError),
    ConnectError: (RonchoError,),
    Timeout: (RonchoError,),
    ConnectTimeout: (ConnectError, Timeout, RonchoError),
    ReadTimeout: (Timeout, RonchoError),
    DeadlineExceeded: (Timeout, RonchoError),
    ProtocolError: (RonchoError,),
    ResponseTooLargeError: (RonchoError,),
    DecodeError: (RonchoError,),
    StatusError: (RonchoError,),
    UnauthorizedError: (StatusError, RonchoError),
    WorkspaceBusyError: (StatusError, RonchoError),
    WebhookLimitError: (StatusError, RonchoError),
    RedirectError: (StatusError, RonchoError),
}


@pytest.mark.parametrize(
    ("child", "parents"), TREE.items(), ids=lambda x: getattr(x, "__name__", "")
)
def test_errors_tree(child: type[BaseException], parents: tuple[type[BaseException], ...]) -> None:
    for parent in parents:
        assert issubclass(child, parent)
    assert issubclass(child, Exception)


def test_errors_tree_has_no_unexpected_links() -> None:
    """Branches stay apart: a caller catching one kind never catches another by accident."""
    assert not issubclass(ReadTimeout, ConnectError)
    assert not issubclass(DeadlineExceeded, ConnectError)
    assert not issubclass(StatusError, ValueError)
    assert not issubclass(DecodeError, ValueError)
    assert not issubclass(ProtocolError, ValueError)
    assert not issubclass(RonchoError, (TimeoutError, ConnectionError, OSError))
    assert not issubclass(Timeout, TimeoutError)  # no builtin shadowing confusion
    for name in ("RedirectError", "UnauthorizedError", "WorkspaceBusyError", "WebhookLimitError"):
        assert not issubclass(getattr(roncho, name), (ConnectError, Timeout, ConfigError))


def test_errors_every_exported_error_is_in_the_tree() -> None:
    exported = {
        obj
        for name in roncho.__all__
        if isinstance(obj := getattr(roncho, name), type) and issubclass(obj, RonchoError)
    }
    # ScratchCleanupError belongs to scratch_workspace (roncho/_scratch.py), not the tree.
    assert exported - {RonchoError} - set(TREE) == {roncho.ScratchCleanupError}


def test_errors_docstring_draws_every_class() -> None:
    doc = roncho._errors.__doc__ or ""
    for cls in [RonchoError, *TREE]:
        assert cls.__name__ in doc


def test_errors_request_sent_default_and_set() -> None:
    assert ProtocolError("x").request_sent is False
    assert ProtocolError("x", request_sent=True).request_sent is True
    assert StatusError(500, "GET", "/x").request_sent is True
    assert ConfigError("x").request_sent is False


def _examples() -> list[RonchoError]:
    return [
        RonchoError("base"),
        ConfigError("bad url"),
        ReadOnlyError("read only"),
        ConnectError("refused", request_sent=False),
        ConnectTimeout("slow"),
        ReadTimeout("idle", request_sent=True),
        DeadlineExceeded("late", request_sent=True),
        ProtocolError("bad", request_sent=True),
        ResponseTooLargeError("big", request_sent=True),
        DecodeError("not json", request_sent=True),
        StatusError(500, "GET", "/v3/x", b'{"detail":"boom"}'),
        UnauthorizedError(401, "POST", "/v3/y", b'{"detail":"Invalid JWT"}', request_sent=True),
        UnauthorizedError(401, "GET", "/v3/y", b'{"detail":"Invalid JWT"}', key_sent=False),
        WorkspaceBusyError(409, "DELETE", "/v3/workspaces/w", b'{"detail":"active"}'),
        RedirectError(302, "GET", "/v3/z", b"", location="http://elsewhere/", request_sent=True),
        roncho.ScratchCleanupError("left over", ["workspace w", "session s"]),
    ]


@pytest.mark.parametrize("error", _examples(), ids=lambda e: type(e).__name__)
def test_errors_pickle_round_trip_keeps_attributes(error: RonchoError) -> None:
    for clone in (pickle.loads(pickle.dumps(error)), copy.copy(error), copy.deepcopy(error)):
        assert type(clone) is type(error)
        assert str(clone) == str(error)
        assert clone.args == error.args
        assert clone.__dict__ == error.__dict__
        assert clone.request_sent == error.request_sent


def test_errors_pickled_status_error_fields() -> None:
    error = pickle.loads(pickle.dumps(RedirectError(301, "GET", "/a", location="http://b/")))
    assert (error.status, error.method, error.path, error.location) == (
        301,
        "GET",
        "/a",
        "http://b/",
    )
    assert error.detail is None and error.body == b""


def test_status_error_keeps_first_4_kib_of_body() -> None:
    body = b"<html>" + b"x" * 10_000
    error = StatusError(502, "GET", "/v3/a", body)
    assert MAX_ERROR_BODY_BYTES == 4096
    assert error.body == body[:4096]
    assert len(error.body) == 4096


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b'{"detail":"Session s not found in workspace w"}', "Session s not found in workspace w"),
        (
            b'{"detail":[{"type":"string_too_long","loc":["body","query"],"msg":"too long",'
            b'"input":"x","ctx":{"max_length":10000}}]}',
            [
                {
                    "type": "string_too_long",
                    "loc": ["body", "query"],
                    "msg": "too long",
                    "input": "x",
                    "ctx": {"max_length": 10000},
                }
            ],
        ),
        (b'{"message":"no detail here"}', None),
        (b'["detail"]', None),
        (b"<html><title>502 Bad Gateway</title></html>", None),
        (b"", None),
        (b'{"detail": "trunc', None),
        (b'{"detail":"\xff"}', None),
        (b"{" + b'"a":[' * 100_000, None),  # deeply nested garbage is not a crash
    ],
)
def test_status_error_detail(body: bytes, detail: object) -> None:
    error = StatusError(422, "POST", "/v3/workspaces/w/peers/p/chat", body)
    assert error.detail == detail
    if isinstance(detail, str):
        assert str(error) == f"POST /v3/workspaces/w/peers/p/chat answered 422: {detail}"
    elif detail is None:
        assert str(error) == "POST /v3/workspaces/w/peers/p/chat answered 422"
    else:
        assert "string_too_long" in str(error)


def test_status_error_long_detail_shortened_in_message() -> None:
    error = StatusError(400, "GET", "/x", json.dumps({"detail": "d" * 5000}).encode()[:4096])
    assert error.detail is None  # the 4 KiB cut left invalid JSON
    error = StatusError(400, "GET", "/x", json.dumps({"detail": "d" * 1000}).encode())
    assert error.detail == "d" * 1000
    assert len(str(error)) < 400 and str(error).endswith("...")


def test_status_error_message_has_method_and_path_only() -> None:
    error = StatusError(500, "GET", "/v3/workspaces/w/queue/status")
    assert str(error) == "GET /v3/workspaces/w/queue/status answered 500"


def test_redirect_error_message_and_location() -> None:
    error = RedirectError(307, "POST", "/v3/workspaces", location="https://other.example/v3")
    assert error.location == "https://other.example/v3"
    assert "redirects are refused" in str(error)
    assert "'https://other.example/v3'" in str(error)
    assert "without a Location" in str(RedirectError(302, "GET", "/x"))


def test_unauthorized_error_takes_every_status_error_keyword() -> None:
    """The subclass adds ``key_sent`` and passes StatusError's own keywords on, each one."""
    error = UnauthorizedError(
        403, "GET", "/v3/x", b"", key_sent=True, message="as given", location="/v3/y",
        request_sent=False,
    )  # fmt: skip
    assert (str(error), error.location, error.request_sent, error.key_sent) == (
        "as given", "/v3/y", False, True,
    )  # fmt: skip


# ``busy`` is what the operation says (only delete_workspace gives 409 that meaning, through
# its Call's on_status); the error does not guess it from the path, so a session named
# "workspaces" cannot fool it.
@pytest.mark.parametrize(
    ("status", "method", "path", "expected", "busy"),
    [
        (401, "GET", "/v3/workspaces/w/queue/status", UnauthorizedError, False),
        (403, "POST", "/v3/workspaces", UnauthorizedError, False),
        (401, "DELETE", "/v3/workspaces/w", UnauthorizedError, True),
        (409, "DELETE", "/v3/workspaces/w", WorkspaceBusyError, True),
        (409, "DELETE", "/prefix/v3/workspaces/w", WorkspaceBusyError, True),
        (409, "DELETE", "/v3/workspaces/w/sessions/s", StatusError, False),
        (409, "DELETE", "/v3/workspaces/w/sessions/workspaces/peers", StatusError, False),
        (409, "POST", "/v3/workspaces", StatusError, False),
        (409, "PUT", "/v3/workspaces/w", StatusError, False),
        (409, "POST", "/v3/workspaces/w/sessions", StatusError, False),
        (404, "DELETE", "/v3/workspaces/w", StatusError, True),
        (400, "GET", "/v3/workspaces/w/queue/status", StatusError, False),
        (422, "POST", "/v3/workspaces/w/conclusions/query", StatusError, False),
        (500, "GET", "/health", StatusError, False),
        (405, "DELETE", "/v3/workspaces/w/sessions/s/messages/m", StatusError, False),
    ],
)
def test_status_error_mapping(
    status: int, method: str, path: str, expected: type[StatusError], busy: bool
) -> None:
    body = b'{"detail":"x"}'
    error = status_error(status, method, path, body, key_sent=True)
    meaning = delete_workspace(Paths("", "w")).on_status.get(status) if busy else None
    if meaning is not None:
        with pytest.raises(StatusError) as raised:
            meaning(error)
        error = raised.value
    assert type(error) is expected
    assert (error.status, error.method, error.path, error.body) == (status, method, path, body)
    assert error.request_sent is True
