"""Each notebook's question in words, so a results page never names a question by its id.

The notebooks ask these at more length in their "Asked" cell; these are the one-line forms
the summaries, the index and ACROSS.md show beside each answer.
"""

from __future__ import annotations

QUESTIONS: dict[str, str] = {
    "q1_auth": "Is authentication on, what does a wrong or missing key get, and how far does "
    "each kind of key (workspace, peer, session) reach?",
    "q2_deletion": "Can a message be edited or deleted, and what does a session delete remove, "
    "and when?",
    "q3_derivation_switches": "Does derivation stop under each switch (observe_me false, "
    "reasoning.enabled false on a message, session or workspace)?",
    "q3_deriver_latency": "How long from a message to its first derived conclusion, below and "
    "above the deriver's token gate, and which gate released it?",
    "q4_filters": "Do metadata filters work on messages/list and on search, and which filters "
    "does chat accept?",
    "q5_provenance": "Can a conclusion be traced to the message it came from?",
    "q6_workspace_delete": "When does a workspace delete answer 409, and does a session delete "
    "free the workspace at once?",
    "q7_health": "What does /health answer, and where does the server reveal its version?",
    "q8_differences": "Where the sources disagree, which one does this server follow?",
    "q9_webhooks": "Does the queue.empty webhook arrive after a sync, how long after the last "
    "conclusion, what does it carry, and can it replace polling the queue status?",
    "q10_context": "After how many messages, and how long after the sync, does a session "
    "summary appear; does get_session_context keep to tokens=N; are the peer representation "
    "and card in the context (observed, observe_me false, after a dream); and does "
    "peer_perspective change what comes back?",
}

# The sources Q8 compares a server with, as its tables and figure name them.
SOURCE_LABELS: dict[str, str] = {
    "SRC 3.0.12": "the Honcho 3.0.12 server's source code (the release this project reads)",
    "OAS-3.3/docs": "the OpenAPI document and the documentation published for Honcho 3.3",
    "OBS 3.2.0": "a Honcho 3.2.0 server as this project observed it (docs/compatibility.md)",
}


def notebook_key(notebook: str) -> tuple[int, str]:
    """Where ``notebook`` comes in lists of answers: in the order of `QUESTIONS` (q9 before
    q10, which a sort by name would not give), then any other by name."""
    order = list(QUESTIONS)
    return (order.index(notebook) if notebook in QUESTIONS else len(order), notebook)


def question(notebook: str) -> str:
    """The question ``notebook`` answers; its id for a notebook this table does not know."""
    return QUESTIONS.get(notebook, notebook)


def source_legend() -> str:
    """One line naming each Q8 source label: shown under its table and in its figure."""
    return "; ".join(f"{label}: {meaning}" for label, meaning in SOURCE_LABELS.items())
