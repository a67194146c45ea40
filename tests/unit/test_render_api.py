"""scripts/render_api.py: docs/api.md lists every public method and every public model's
fields, from the code.

Why: a user once had to guess ConclusionCreate's fields, and the hand-written method table
listed none of the methods 0.4.0 added. Both parts of docs/api.md are generated (the
methods from the catalogue's order and Client's signatures and docstrings, the models by
introspection), and ``--check`` fails when either is stale.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import roncho
from roncho._record import Record

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "render_api.py"
DOC = SCRIPT.parent.parent / "docs" / "api.md"


def _render() -> Any:
    spec = importlib.util.spec_from_file_location("render_api", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_render_api_docs_are_fresh() -> None:
    """If this fails, run: python scripts/render_api.py (and commit docs/api.md)."""
    assert _render().main(["--check"]) == 0


def test_render_api_lists_every_public_model_and_every_field() -> None:
    text = DOC.read_text(encoding="utf-8")
    public = [
        getattr(roncho, name)
        for name in roncho.__all__
        if isinstance(getattr(roncho, name), type) and issubclass(getattr(roncho, name), Record)
    ]
    headings = re.findall(r"^### `(\w+)", text, flags=re.MULTILINE)
    assert sorted(headings) == sorted(cls.__name__ for cls in public)
    for cls in public:
        section = re.split(rf"### `{cls.__name__}[`\[]", text)[1].split("### ")[0]
        for name in cls.__slots__:
            assert f"| `{name}` |" in section, (cls.__name__, name)
    conclusion = text.split("### `ConclusionCreate`")[1]
    assert "| `observer_id` | `str` | required |" in conclusion
    assert "| `session_id` | `str \\| None` | `None` |" in conclusion


def test_render_api_check_fails_on_a_stale_document_and_write_touches_only_the_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    render = _render()
    doc = tmp_path / "api.md"
    doc.write_text(
        f"# head\n\n{render.METHODS_BEGIN}\nSTALE ROWS\n{render.METHODS_END}\n\nprose\n\n"
        f"{render.BEGIN}\nSTALE TEXT\n{render.END}\n\ntail\n",
        encoding="utf-8",
    )
    assert render.main(["--check", "--doc", str(doc)]) == 1
    assert "is stale" in capsys.readouterr().err
    assert render.main(["--doc", str(doc)]) == 0
    written = doc.read_text(encoding="utf-8")
    assert written.startswith(f"# head\n\n{render.METHODS_BEGIN}\n")
    assert f"{render.METHODS_END}\n\nprose\n\n{render.BEGIN}\n" in written
    assert written.endswith("\n\ntail\n")
    assert "### `MessageCreate`" in written and "STALE TEXT" not in written
    assert "| `clone_session(" in written and "STALE ROWS" not in written
    assert render.main(["--check", "--doc", str(doc)]) == 0


def test_render_api_refuses_a_document_without_markers(tmp_path: Path) -> None:
    doc = tmp_path / "api.md"
    doc.write_text("# nothing to fill\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="markers"):
        _render().main(["--doc", str(doc)])


def _method_rows(text: str) -> list[str]:
    part = text.split("<!-- BEGIN GENERATED: methods -->")[1].split("<!-- END GENERATED")[0]
    return re.findall(r"^\| `(\w+)\(", part, flags=re.MULTILINE)


def test_render_api_lists_every_public_method_of_client_in_the_catalogues_order() -> None:
    """Every operation of the catalogue, in the order of RESOURCES and of each module (the
    order render_clients.py writes the methods in), then every other public method."""
    from roncho import _operations

    rows = _method_rows(DOC.read_text(encoding="utf-8"))
    public = [
        name
        for name in dir(roncho.Client)
        if not name.startswith("_") and inspect.isfunction(getattr(roncho.Client, name))
    ]
    assert sorted(rows) == sorted(public)
    module_of = {
        name: _operations.RESOURCES.index(module)
        for module in _operations.RESOURCES
        for name, value in vars(module).items()
        if inspect.isfunction(value) and value.__module__ == module.__name__
    }
    ops = [name for name in rows if name in module_of]
    assert ops == sorted(ops, key=lambda name: module_of[name])  # grouped as RESOURCES
    assert ops.index("chat") + 1 == ops.index("chat_stream")  # where the twin is made
    # the methods 0.4.0 added are there too
    for name in ("clone_session", "upload_file", "get_scope_status", "set_peer_card"):
        assert name in ops, name
    assert rows[len(ops) :] == [n for n in rows if n not in module_of]


def test_render_api_method_rows_give_the_signature_and_the_docstrings_summary() -> None:
    render = _render()
    text = DOC.read_text(encoding="utf-8")
    for name in _method_rows(text):
        method = getattr(roncho.Client, name)
        row = next(line for line in text.splitlines() if line.startswith(f"| `{name}("))
        first = (inspect.getdoc(method) or "").split("\n\n")[0]
        assert " ".join(first.split()).replace("``", "`").replace("|", "\\|") in row, name
        parameters = inspect.signature(method).parameters
        for parameter in list(parameters)[1:]:
            if parameter != "deadline" or name == "wait_for_derivation":
                assert f"{parameter}: " in row, (name, parameter)
    row = next(line for line in text.splitlines() if line.startswith("| `list_messages("))
    assert row.startswith(
        "| `list_messages(session_id: str, *, page: int = 1, size: int = 50, "
        "reverse: bool = False, filters: Mapping[str, Any] \\| None = None)` "
        "| `Page[Message]` |"
    )
    assert "deadline: float | None = None" in text  # said once, for every server call
    assert "| `with_workspace(workspace: str, *, api_key: str \\| None = ...," in text
    assert render.shown_default(object()) == "..."


def test_render_api_says_what_async_client_has() -> None:
    from roncho.aio import AsyncClient

    text = DOC.read_text(encoding="utf-8")
    part = text.split("<!-- BEGIN GENERATED: methods -->")[1].split("<!-- END GENERATED")[0]
    note = next(line for line in part.splitlines() if line.startswith("`roncho.aio.AsyncClient`"))
    assert "as a coroutine" in note
    walks = [n for n in _method_rows(text) if n.startswith("iter_")]
    assert len(walks) == 10  # every paged list has its walk
    assert ", ".join(f"`{n}`" for n in walks) + " (each an async iterator)" in note
    assert "`chat_stream`, `chat_workspace_stream` give an `AsyncChatStream`" in note
    for name in _method_rows(text):
        assert hasattr(AsyncClient, name), name
