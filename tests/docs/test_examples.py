"""Every code example a user can read runs here, so none can rot.

The convention (others write examples to it):

- README.md and docs/*.md: every ```python fenced block is executed. The blocks of one file
  run in order, in one namespace, against a fresh ``roncho.testing.FakeHoncho(flush=True)``:
  the literal ``http://127.0.0.1:8000`` is replaced by the emulator's URL. A block that
  defines ``test_*`` functions is a pytest example: it is also written to a file of its own
  and run by pytest (so it must be self-contained). A block that truly cannot run is
  preceded by ``<!-- example: skip (why) -->`` on the line just before its fence.
- Every example must be safe to paste against a real server: it writes only to workspaces
  its own run made, under names new on every run (``roncho.scratch_workspace``, or a name
  made unique). Held by running a file's blocks twice: the second time against an emulator
  that already holds every workspace the first run wrote (as a real server holds its
  owner's), where no block may write to any of them.
- Docstrings under roncho/: ``>>>`` examples are doctests, run with their module's globals;
  a ``::`` literal block that is Python (it parses, or starts with ``import``/``from``/
  ``def``/``with``/``@``...) runs like a markdown block. Diagrams are literal blocks that are
  not Python and are left alone.

Nothing may leave loopback: name lookups and connections to any other address fail, here and
in the pytest subprocess. Every wait is bounded (pytest-timeout, the subprocess timeout).
"""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
import re
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest
from example_blocks import (
    EXAMPLE_URL,
    Block,
    ExampleFormatError,
    docstring_literal_blocks,
    loopback_only_patches,
    markdown_blocks,
    repo_root,
    workspaces_written,
)

import roncho
from roncho.testing import FakeHoncho

ROOT = repo_root()
PYTEST_EXAMPLE_TIMEOUT = 120  # seconds for a whole pytest-style example, subprocess included


def _markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _package_sources() -> list[Path]:
    return sorted(Path(roncho.__file__).parent.rglob("*.py"))


def _relative(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _markdown_with_examples() -> list[Path]:
    return [path for path in _markdown_files() if markdown_blocks(path.read_text(), "")]


def _docstring_examples() -> list[Block]:
    blocks: list[Block] = []
    for path in _package_sources():
        blocks.extend(docstring_literal_blocks(path.read_text(), _relative(path)))
    return blocks


def _doctests() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    found: list[doctest.DocTest] = []
    for module_info in pkgutil.walk_packages(roncho.__path__, "roncho."):
        module = importlib.import_module(module_info.name)
        found.extend(test for test in finder.find(module) if test.examples)
    found.extend(test for test in finder.find(roncho) if test.examples)
    return found


def _run_pytest_example(block: Block, tmp_path: Path) -> None:
    """Run a pytest-style example as its reader would: a test file of its own, under pytest."""
    (tmp_path / "pytest.ini").write_text("[pytest]\ntimeout = 60\n")
    guard_dir = Path(__file__).resolve().parent
    (tmp_path / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(guard_dir)!r})\n"
        "from example_blocks import install_loopback_guard\ninstall_loopback_guard()\n"
    )
    (tmp_path / "test_example.py").write_text(block.source)
    expected = sum(
        isinstance(node, ast.FunctionDef) and node.name.startswith("test")
        for node in ast.parse(block.source).body
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_example.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=PYTEST_EXAMPLE_TIMEOUT,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"the example at {block.where} fails under pytest:\n{output}"
    passed = re.search(r"(\d+) passed", output)
    assert passed and int(passed.group(1)) == expected, (
        f"the example at {block.where} should pass {expected} test(s):\n{output}"
    )


def _run_blocks(blocks: list[Block], url: str, tmp_path: Path, *, run_pytest: bool = True) -> None:
    """Run blocks in order in one namespace, with the example URL pointing at `url`."""
    namespace: dict[str, object] = {"__name__": "__example__"}
    for number, block in enumerate(blocks):
        if block.skip is not None:
            continue
        runnable = Block(block.path, block.line, block.source.replace(EXAMPLE_URL, url))
        exec(runnable.compiled(), namespace)
        if runnable.is_pytest_module and run_pytest:
            example_dir = tmp_path / f"block{number}"
            example_dir.mkdir(parents=True)
            _run_pytest_example(runnable, example_dir)


@pytest.fixture
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    for owner, name, replacement in loopback_only_patches():
        monkeypatch.setattr(owner, name, replacement)


def _run_twice_as_on_a_real_server(blocks: list[Block], where: str, tmp_path: Path) -> None:
    """Run ``blocks``, then again where every workspace the first run wrote already exists.

    The second run stands for a real server that holds its owner's workspaces: an example
    that writes to one of them (a fixed name, a workspace it did not create) would write
    (or delete) a real workspace when pasted. Each run's own workspaces are fine.
    """
    with FakeHoncho(flush=True) as fake:
        _run_blocks(blocks, fake.url, tmp_path / "first")
        first = workspaces_written(fake.requests)
    with FakeHoncho(flush=True) as fake:
        owner = roncho.Client(fake.url, "owner")
        for name in first:
            owner.with_workspace(name).get_or_create_workspace()
        fake.clear_requests()
        _run_blocks(blocks, fake.url, tmp_path / "second", run_pytest=False)
        again = [name for name in workspaces_written(fake.requests) if name in first]
    assert not again, (
        f"the examples of {where} write to workspace(s) {again} that existed before they ran "
        "(the same name on every run): pasted against a real server they would write to, or "
        "delete, someone's workspace. Use roncho.scratch_workspace(...) or a unique name."
    )


@pytest.mark.parametrize("path", _markdown_with_examples(), ids=_relative)
def test_every_markdown_example_runs_and_is_safe_on_a_real_server(
    path: Path, tmp_path: Path, loopback_only: None
) -> None:
    blocks = markdown_blocks(path.read_text(), _relative(path))
    _run_twice_as_on_a_real_server(blocks, _relative(path), tmp_path)


@pytest.mark.parametrize("block", _docstring_examples(), ids=lambda block: block.where)
def test_every_docstring_literal_example_runs_and_is_safe_on_a_real_server(
    block: Block, tmp_path: Path, loopback_only: None
) -> None:
    _run_twice_as_on_a_real_server([block], block.where, tmp_path)


def test_an_example_that_writes_a_fixed_workspace_is_refused(
    tmp_path: Path, loopback_only: None
) -> None:
    # The first README quickstart's shape: a fixed workspace name, written and deleted.
    unsafe = markdown_blocks(
        "```python\nimport roncho\n"
        'c = roncho.Client("http://127.0.0.1:8000", "memoryd")\n'
        'c.get_or_create_session("s")\nc.delete_session("s")\nc.delete_workspace()\n```\n',
        "unsafe.md",
    )
    with pytest.raises(AssertionError, match=r"workspace\(s\) \['memoryd'\] that existed"):
        _run_twice_as_on_a_real_server(unsafe, "unsafe.md", tmp_path)
    safe = markdown_blocks(
        "```python\nimport roncho\n"
        'with roncho.scratch_workspace("http://127.0.0.1:8000", "docs") as c:\n'
        '    c.get_or_create_session("s")\n```\n',
        "safe.md",
    )
    _run_twice_as_on_a_real_server(safe, "safe.md", tmp_path / "safe")


def _run_doctests(tests: list[doctest.DocTest]) -> tuple[int, str]:
    """Run each doctest; (examples run, the report of every failure)."""
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    output: list[str] = []
    for test in tests:
        runner.run(test, out=output.append)
    return runner.tries, "".join(output) if runner.failures else ""


def test_every_doctest_passes(loopback_only: None) -> None:
    """roncho's docstrings hold no ``>>>`` example today; any one added runs here."""
    _, failures = _run_doctests(_doctests())
    assert failures == ""


def test_a_docstring_example_is_found_and_a_wrong_one_fails() -> None:
    """The doctest path can fail: an example in a module's docstring is found and run, and
    one whose output is wrong is reported."""
    module = types.ModuleType("roncho_doctest_probe")
    source = '"""\n>>> 1 + 1\n2\n"""\n\n\ndef wrong():\n    """\n    >>> 1 + 1\n    3\n    """\n'
    exec(compile(source, "<roncho_doctest_probe>", "exec"), module.__dict__)
    found = [t for t in doctest.DocTestFinder(exclude_empty=True).find(module) if t.examples]
    assert sorted(t.name for t in found) == ["roncho_doctest_probe", "roncho_doctest_probe.wrong"]
    tries, failures = _run_doctests(found)
    assert tries == 2
    assert "roncho_doctest_probe.wrong" in failures and "Expected:\n    3" in failures


# The finder itself: if it stopped finding examples, every test above would pass vacuously.


def test_the_readme_and_the_emulator_docstring_examples_are_found() -> None:
    readme = markdown_blocks((ROOT / "README.md").read_text(), "README.md")
    assert len([block for block in readme if block.skip is None]) >= 2
    assert any(block.is_pytest_module for block in readme)
    testing = [block for block in _docstring_examples() if "testing/__init__" in block.path]
    assert len(testing) == 1 and testing[0].is_pytest_module


def test_markdown_blocks_follow_the_convention() -> None:
    text = textwrap.dedent(
        """\
        Intro.

        ```python
        x = 1
        ```

        ```sh
        echo not python
        ```

        <!-- example: skip (needs a real deriver) -->
        ```python
        y = 2
        ```
        """
    )
    blocks = markdown_blocks(text, "t.md")
    assert [(block.line, block.source, block.skip) for block in blocks] == [
        (4, "x = 1\n", None),
        (13, "y = 2\n", "needs a real deriver"),
    ]


def test_a_skip_without_a_reason_is_refused() -> None:
    with pytest.raises(ExampleFormatError, match="reason"):
        markdown_blocks("<!-- example: skip -->\n```python\nx = 1\n```\n", "t.md")


def test_an_unclosed_fence_is_refused() -> None:
    with pytest.raises(ExampleFormatError, match="never closed"):
        markdown_blocks("```python\nx = 1\n", "t.md")


def test_a_traceback_names_the_document_line() -> None:
    block = markdown_blocks("one\n\n```python\nx = 1\nraise KeyError(x)\n```\n", "t.md")[0]
    with pytest.raises(KeyError) as caught:
        exec(block.compiled(), {})
    last = caught.tb
    while last.tb_next is not None:
        last = last.tb_next
    assert (last.tb_frame.f_code.co_filename, last.tb_lineno) == ("t.md", 5)


def test_docstring_literal_blocks_tell_code_from_diagrams() -> None:
    source = textwrap.dedent(
        '''\
        """Module.

        A tree::

            Root
              Child    what it is

        Use it::

            import os
            assert os.sep

        Broken::

            from os import (
        """
        '''
    )
    blocks = docstring_literal_blocks(source, "m.py")
    assert [(block.line, block.source) for block in blocks] == [
        (10, "import os\nassert os.sep\n"),
        (15, "from os import (\n"),
    ]


def test_examples_cannot_leave_loopback(loopback_only: None) -> None:
    import socket

    with pytest.raises(OSError, match="loopback"):
        socket.getaddrinfo("honcho.lan", 8000)
    with pytest.raises(OSError, match="loopback"):
        socket.create_connection(("192.0.2.1", 9), timeout=1)
    with pytest.raises(roncho.ConnectError):
        roncho.Client("http://honcho.lan:8000", "w", connect_timeout=1).probe()


def _readme_error_tree() -> list[tuple[int, str]]:
    """(indent, name) of each line of the README's error tree (the block under "## Errors")."""
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Errors\n", 1)[1]
    tree = section.split("```", 2)[1]
    return [
        (len(line) - len(line.lstrip()), line.split()[0])
        for line in tree.splitlines()
        if line.strip()
    ]


def test_the_readme_error_tree_names_every_exported_error_under_its_parent() -> None:
    exported = {
        name
        for name in roncho.__all__
        if isinstance(getattr(roncho, name), type)
        and issubclass(getattr(roncho, name), BaseException)
    }
    tree = _readme_error_tree()
    assert {name for _, name in tree} == exported
    parents: list[tuple[int, str]] = []
    for indent, name in tree:
        while parents and parents[-1][0] >= indent:
            parents.pop()
        if parents:
            parent = getattr(roncho, parents[-1][1])
            assert issubclass(getattr(roncho, name), parent), f"{name} is not a {parent}"
        parents.append((indent, name))


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({}, r"waiting after (\d+\.\d\d) s: session '2026-11-30-chat' has 1 pending"),
        ({"flush": True}, r"done: 1 new queue item\(s\) of session '2026-11-30-chat'"),
    ],
    ids=["batching", "flush"],
)
def test_the_quickstart_says_what_the_deriver_did(
    options: dict[str, bool],
    said: str,
    loopback_only: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Against a batching server (fake-honcho's default, as Honcho's) the quickstart's wait
    ends at its bound saying the work is pending, not with a timeout; its bound is cut to
    3 s here (the time it says is at least that, and a loaded machine adds to it). Against a
    flushing one it is done."""
    [quickstart] = [
        block
        for block in markdown_blocks((ROOT / "README.md").read_text(), "README.md")
        if "wait_for_derivation(" in block.source
    ]
    assert "deadline=30)" in quickstart.source
    with FakeHoncho(**options) as fake:
        source = quickstart.source.replace(EXAMPLE_URL, fake.url)
        source = source.replace("deadline=30)", "deadline=3)")
        exec(compile(source, quickstart.where, "exec"), {})
    printed = capsys.readouterr().out
    found = re.search(said, printed)
    assert found, printed
    if found.groups():
        assert float(found.group(1)) >= 3.0, printed
