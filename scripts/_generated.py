"""The part of a hand-written document that a script generates, between two marker lines.

Shared by render_compat.py and render_api.py: splice the generated text in, and either write
the document or, with --check, say it is stale (what test.sh runs so a page cannot drift).
"""

from __future__ import annotations

import sys
from pathlib import Path


def splice(document: str, generated: str, begin: str, end: str) -> str:
    """``document`` with everything from ``begin`` to ``end`` replaced by ``generated``."""
    if begin not in document or end not in document:
        raise SystemExit(f"the document has no {begin} ... {end} markers")
    head, rest = document.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + generated + tail


def update(doc: Path, generated: str, begin: str, end: str, *, check: bool, script: str) -> int:
    """Write the regenerated part (0), or with ``check`` only compare: 1 when it is stale."""
    document = doc.read_text(encoding="utf-8")
    updated = splice(document, generated, begin, end)
    if check:
        if updated != document:
            print(f"{doc} is stale: run {script}", file=sys.stderr)
            return 1
        return 0
    if updated != document:
        doc.write_text(updated, encoding="utf-8")
    return 0
