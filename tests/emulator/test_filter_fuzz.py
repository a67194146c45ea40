"""Any filter object answers 200 or a 422, never a 500 (property test)."""

from __future__ import annotations

from typing import Any

from emu_http import Api
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roncho.testing import FakeHoncho

KEYS = st.sampled_from(
    [
        "peer_id",
        "session_id",
        "created_at",
        "token_count",
        "metadata",
        "metadata.n",
        "metadata.label",
        "AND",
        "OR",
        "NOT",
        "id",
        "gte",
        "in",
        "icontains",
        "ne",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from(["*", "alice", "2024-01-01", "keep", "2026-11-30T00:00:00Z", ""]),
)
JSON: Any = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=8,
)


def test_filters_never_crash_the_server() -> None:
    with FakeHoncho() as fake:
        api = Api(fake.port)
        items = [
            {"peer_id": "alice", "content": "a", "metadata": {"label": "keep", "n": 3}},
            {"peer_id": "bob", "content": "b", "metadata": {"n": "x", "nested": {"k": [1]}}},
        ]
        api.post("/v3/workspaces/w/sessions/s/messages", {"messages": items})

        @settings(
            max_examples=150,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
            database=None,
        )
        @given(filters=st.dictionaries(KEYS, JSON, max_size=3))
        def check(filters: dict[str, Any]) -> None:
            reply = api.post("/v3/workspaces/w/sessions/s/messages/list", {"filters": filters})
            assert reply.status in (200, 422), (filters, reply)
            search = api.post("/v3/workspaces/w/search", {"query": "a", "filters": filters})
            assert search.status in (200, 422), (filters, search)

        check()
