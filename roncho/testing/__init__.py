"""roncho.testing: `FakeHoncho`, an in-process emulator of a Honcho v3 server.

Standard library only, never imported by `import roncho`. It serves HTTP/1.1 on 127.0.0.1 at
an ephemeral port, keeps everything in memory (two instances share nothing), runs a simulated
deriver on a background thread, and stops in well under a second.

Use it as a pytest fixture::

    import time

    import pytest
    import roncho
    from roncho.testing import FakeHoncho

    @pytest.fixture
    def fake_honcho():
        with FakeHoncho(flush=True) as fake:
            yield fake

    def test_add(fake_honcho):
        client = roncho.Client(fake_honcho.url, "ws1")
        client.add_messages("s1", [roncho.MessageCreate(peer_id="alice", content="hi")])
        assert fake_honcho.requests[-1].path == "/v3/workspaces/ws1/sessions/s1/messages"
        # The deriver runs on its own thread: wait for it, with a limit.
        deadline = time.monotonic() + 5.0
        while not fake_honcho.deriver_log() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [record.gate for record in fake_honcho.deriver_log()] == ["flush"]

or from a notebook: `fake = FakeHoncho(); url = fake.url; ...; fake.close()`.

Knobs: `auth` (keys required; `fake.admin_key`, `fake.issue_key(workspace, peer, session)`),
deriver timing (`deriver_delay`, `enqueue_delay`), its batching gate (`batch_tokens`,
`batch_max_age`, `flush`), `purge_delay`, `chat_delay`, `stream_chunk_delay`, and
`workspace_chat=False` for a server without `POST /v3/workspaces/{w}/chat`, and `version`
(`"3.2.0"`, the default, or `"3.0.12"`): the Honcho version to imitate where versions differ
(`PROFILES`, docs/emulator-profiles.md).
`fake.faults` holds fault rules (`fake.faults.add(method=, route=, nth=, probability=,
latency=Latency.lognormal(...), status=, stream="split_utf8", ...)`, or a real server's
failure by name: `failure="llm_unavailable"`, `"deriver_stopped"`..., docs/emulator.md) and the
one-shot switches (`slow_next`, `fail_next`, `stall_stream_next`, `close_mid_body_next`);
`fake.requests` records every request (Authorization redacted);
`fake.deriver_log()` tells which gate (`tokens`, `age`, `flush`) released each queue item;
with `deriver="manual"` nothing is derived until `fake.deriver.step()`.
`fake.export_state()` / `fake.restore_state(snapshot)` save and load all state as versioned
JSON (a snapshot of another roncho version is refused with `SnapshotError`).

Behaviour follows the real server (observed 3.2.0 / 3.0.12 servers where they were observed,
else the 3.0.12 source; what 3.2.0 adds, from its release notes, its code and the official
SDK's types, each named in docs/emulator.md): 201/200 get-or-create, 202 deletes with
background purge, 409 workspace delete with active sessions, 405 message delete, 204
conclusion delete with a JSON content type, FastAPI's 422 list shape for body errors and
Honcho's string shape for filter errors, 401 for every auth failure.

Where the emulator differs from the real server:

- Search fuses a full-text list and a semantic list by RRF as the server does, so it fills up
  to `limit` and word matches lead; a character-trigram similarity stands in for embeddings
  (which non-matching messages come first is the embeddings' choice on the server), and a
  stopword list with a rough stemmer for PostgreSQL's English full-text search. The
  conclusions query is the `top_k` nearest by that similarity, within `distance`.
- Token counts are tiktoken `o200k_base`'s (the server's tokenizer) with the `roncho[tokens]`
  extra; without it, an estimate with the standard library: its pre-tokenizer exactly, then
  each piece's tokens from its class and length (mean error 4.6% on a 359-text corpus counted
  by a real 3.0.12). `tokens="exact"|"estimate"` pins one (docs/emulator.md, Token counts).
- The deriver is simulated: one `explicit` conclusion per message and observer, content
  `"<sender> said: <first 200 chars>"`, no LLM, no deductive/inductive levels, no dreams, no
  peer cards. Summary items are made every 20th message (per the configuration) and write a
  short summary built from recent messages. No polling backoff or jitter: a 10 ms tick.
- Chat answers are deterministic text built from the best keyword-matching conclusions and
  messages about the subject; `reasoning_level` only validates. In stream mode a missing
  target or session gives a 200 stream that ends without its final event, as the 3.0.12
  source does (derived from the code, not observed). `response_format` fills string
  properties with the answer text.
- No cursor pagination, no `GET .../conclusions/{id}`, no `/metrics`; `/openapi.json` is a
  stub with only `info`. Scopes are backed by a peer `scope.<id>` and guarded as on the
  server; the `scope` read option narrows to the scope's member sessions (the server reads a
  single scope through the scope peer's own backfilled collection); backfill completes at
  once. `schedule_dream` only
  validates and answers 204. File upload reads text/* and JSON files only (no PDF).
- Representation text: explicit conclusions only, in creation order; the server's order of
  lines that share a timestamp is its own. `search_query` brings its best keyword matches in
  (`search_top_k`, default a third of `max_conclusions`) before the most recent ones;
  `search_max_distance` and `include_most_frequent` are only checked.
- Workspace deletion purges after `purge_delay` (real: about 1-3.5 s); session deletion too.
- Keys: `exp` is an ISO string and is honoured (`JWT expired`); the real server may answer
  `Invalid JWT` for such keys. Keys from one emulator are invalid on another.
- Filter type checks are lighter than the server's; error texts for bad filters, bad chat
  filters and the example inside the conclusions-query 422 are paraphrased.
- Message search includes messages of deleted sessions until their purge.
"""

from __future__ import annotations

from ._deriver import DeriverRecord
from ._faults import FaultRule, Faults, Latency, RuleState
from ._options import Options
from ._profiles import PROFILES, Profile
from ._server import FakeHoncho
from ._snapshot import SnapshotError
from ._web import RecordedRequest

__all__ = [
    "PROFILES",
    "DeriverRecord",
    "FakeHoncho",
    "FaultRule",
    "Faults",
    "Latency",
    "Options",
    "Profile",
    "RecordedRequest",
    "RuleState",
    "SnapshotError",
]

for _name in __all__:  # tracebacks and reprs say roncho.testing.FakeHoncho
    if isinstance(globals()[_name], type):
        globals()[_name].__module__ = __name__
del _name
