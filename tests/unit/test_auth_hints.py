"""The hint an UnauthorizedError adds after the server's words (roncho/_auth_hints.py), whole:
the text tells the caller what to check, so every word of it is held. Found unheld by the
mutation run of that module."""

from __future__ import annotations

import roncho

GENERIC = (
    "check this client's api_key: None sends no key; the key must be valid for this server "
    "and an admin key or one scoped to this workspace, reaching this peer or session"
)
NO_KEY = (
    "this client has no api_key, so it sent no key, and the server wants one: pass an admin "
    "key or one scoped to this workspace"
)


def _error(body: bytes, *, key_sent: bool) -> str:
    return str(roncho.UnauthorizedError(401, "GET", "/v3/y", body, key_sent=key_sent))


def test_a_client_without_a_key_is_told_to_pass_one_whatever_the_server_said() -> None:
    said = _error(b'{"detail":"Invalid JWT"}', key_sent=False)
    assert said == f"GET /v3/y answered 401: Invalid JWT ({NO_KEY})"


def test_a_detail_that_is_not_a_string_gets_the_generic_hint() -> None:
    """FastAPI's validation shape (a list of objects) cannot be a key of the hints: it is
    not looked up (a list is unhashable), and the generic hint is given."""
    said = _error(b'{"detail":[{"msg":"x"}]}', key_sent=True)
    assert said == f'GET /v3/y answered 401: [{{"msg": "x"}}] ({GENERIC})'


def test_an_unknown_detail_with_a_key_gets_the_generic_hint() -> None:
    said = _error(b'{"detail":"something else"}', key_sent=True)
    assert said == f"GET /v3/y answered 401: something else ({GENERIC})"
