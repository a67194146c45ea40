"""roncho_workbook: the investigation logic the notebooks call (standard library only).

Never imported by ``import roncho``. Each probe takes a `Target` (a real server or the
in-process emulator), writes only into scratch workspaces it creates and deletes, and
returns a `Finding`: a one-line answer, CSV-ready tables and the evidence (every call with
its status and body). Tables, plots and result files are the notebooks' helper's business
(``notebooks/_lab.py``), so memoryd never pulls pandas.
"""

from __future__ import annotations

from ._auth import probe_auth
from ._context import probe_context
from ._deletion import probe_deletion
from ._deriver import SWITCHES, Switch, measure_latency, measure_switches
from ._deriver_config import DeriverConfig
from ._differences import probe_differences, upstream_answer
from ._filters import probe_filters
from ._finding import Finding, wait_until
from ._health import probe_health
from ._identity import (
    EMULATOR_IDENTITY,
    MANIFEST,
    ServerIdentity,
    choose_run_folder,
    identify,
    read_manifest,
)
from ._load import RecordedRun, load_record, table_across
from ._provenance import probe_provenance
from ._questions import QUESTIONS, SOURCE_LABELS, notebook_key, question, source_legend
from ._raw import RawClient, RawReply
from ._target import (
    EMULATOR_LABEL,
    EXAMPLE_URL,
    RunInfo,
    Target,
    check_server,
    describe,
    open_target,
    server_label,
)
from ._trace import Call, Trace
from ._workspace import probe_workspace_delete

__all__ = [
    "EMULATOR_IDENTITY",
    "EMULATOR_LABEL",
    "EXAMPLE_URL",
    "MANIFEST",
    "QUESTIONS",
    "SOURCE_LABELS",
    "SWITCHES",
    "Call",
    "DeriverConfig",
    "Finding",
    "RawClient",
    "RawReply",
    "RecordedRun",
    "RunInfo",
    "ServerIdentity",
    "Switch",
    "Target",
    "Trace",
    "check_server",
    "choose_run_folder",
    "describe",
    "identify",
    "load_record",
    "measure_latency",
    "measure_switches",
    "notebook_key",
    "open_target",
    "probe_auth",
    "probe_context",
    "probe_deletion",
    "probe_differences",
    "probe_filters",
    "probe_health",
    "probe_provenance",
    "probe_workspace_delete",
    "question",
    "read_manifest",
    "server_label",
    "source_legend",
    "table_across",
    "upstream_answer",
    "wait_until",
]
