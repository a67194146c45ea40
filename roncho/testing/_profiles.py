"""Version profiles: the behaviours where the Honcho versions the emulator imitates really differ.

A profile is chosen once, by `FakeHoncho(version=...)`, and read by the route handlers. Only
differences that were seen on a real server (or, for 3.2.0, recorded from one, or known from
its release notes, its server code and the official SDK's types: each field names its source)
belong here; everything else is the same in every profile. `docs/emulator-profiles.md` holds
the table of profiles, and a test renders it from `PROFILES` so the page cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True, slots=True, kw_only=True)
class Profile:
    """What one Honcho version does where versions differ (each field says which way)."""

    version: str
    # A conclusion carries `"source_ids": null` (3.2.0 observed) or no such key (3.0.12).
    conclusion_source_ids: bool
    # `POST /v3/workspaces/{w}/chat` is served (3.2.0) or answers 404 (3.0.12).
    workspace_chat: bool
    # Chat honours `include_evidence` with an `evidence` object (3.2.0) or ignores the field
    # and answers `{"content"}` only (3.0.12).
    chat_evidence: bool
    # The rest is 3.2.0's conclusion attribution (release note: plastic-labs/honcho PR 952;
    # its server code: branch abigail/dev-2219), not seen on a server here: docs/emulator.md.
    # A conclusion carries `"times_derived": 1` (3.2.0) or no such key (3.0.12).
    conclusion_times_derived: bool
    # `GET .../conclusions/{id}` is served (3.2.0) or answers 405, the path having only
    # DELETE (3.0.12).
    conclusion_get: bool
    # A `source_ids` filter takes conclusion ids (a string, `{"contains": id}`, a list of
    # ids, `{"in": [...]}`) and matches by membership (3.2.0), or is a JSONB column that
    # refuses them with 422 (3.0.12).
    source_ids_membership: bool


PROFILES: dict[str, Profile] = {
    profile.version: profile
    for profile in (
        Profile(
            version="3.2.0",
            conclusion_source_ids=True,
            workspace_chat=True,
            chat_evidence=True,
            conclusion_times_derived=True,
            conclusion_get=True,
            source_ids_membership=True,
        ),
        Profile(
            version="3.0.12",
            conclusion_source_ids=False,
            workspace_chat=False,
            chat_evidence=False,
            conclusion_times_derived=False,
            conclusion_get=False,
            source_ids_membership=False,
        ),
    )
}
DEFAULT_VERSION = "3.2.0"

# What each field means, for the docs table (kept next to the fields it describes).
DESCRIPTIONS: dict[str, str] = {
    "conclusion_source_ids": "conclusion has a `source_ids` key (null)",
    "workspace_chat": "`POST /v3/workspaces/{w}/chat` served (else 404)",
    "chat_evidence": "chat honours `include_evidence` (else ignored: `{content}` only)",
    "conclusion_times_derived": "conclusion has a `times_derived` key (1)",
    "conclusion_get": "`GET .../conclusions/{id}` served (else 405)",
    "source_ids_membership": "`source_ids` filter matches by id membership (else 422)",
}


def profile_for(version: str) -> Profile:
    """The profile named `version`; a clear ValueError naming the known ones otherwise."""
    try:
        return PROFILES[version]
    except (KeyError, TypeError):
        known = ", ".join(sorted(PROFILES))
        raise ValueError(
            f"unknown Honcho version {version!r} for FakeHoncho; known versions: {known}"
        ) from None


def profile_table() -> str:
    """The profiles as a Markdown table, one row per behaviour, one column per version."""
    versions = sorted(PROFILES, key=lambda v: tuple(int(p) for p in v.split(".")))
    lines = [
        "| behaviour | " + " | ".join(versions) + " |",
        "|---|" + "---|" * len(versions),
    ]
    for field in fields(Profile):
        if field.name == "version":
            continue
        cells = ["yes" if getattr(PROFILES[v], field.name) else "no" for v in versions]
        lines.append(f"| {DESCRIPTIONS[field.name]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
