"""Smoke test of an installed roncho wheel, run from outside the checkout (scripts/check_wheel.sh).

memoryd pins a tag and installs the package, so this checks what such an install gets: the
wheel's file list is the library's files (LIBRARY_FILES: every file under ``roncho/`` the
checkout tracks, the emulator included) and its metadata, nothing more (no workbook, no
tests, no notebooks) and nothing less; the license is there, `roncho` imports from the
virtual environment (not from a checkout), `roncho.testing` imports, and a client against
the emulator makes one call of each kind.

Usage: python wheel_smoke.py PATH/TO/roncho-*.whl LIBRARY_FILES
(LIBRARY_FILES: a text file, one path a line, as ``git ls-files roncho`` prints them.)

Standard library only, loopback only, every wait bounded by the client's timeouts. Prints one
line per check and a closing "N passed, N failed" line; exits 1 if any check failed.
"""

from __future__ import annotations

import sys
import traceback
import zipfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

# What a wheel's .dist-info holds besides the library: the metadata, the wheel's own
# description, its file list with hashes, the console script and pytest plugin entry
# points, the top-level package's name, and the license (PEP 639's licenses/ folder).
DIST_INFO_FILES = frozenset(
    {"METADATA", "WHEEL", "RECORD", "entry_points.txt", "top_level.txt", "licenses/LICENSE"}
)

CHECKS: list[Callable[[Path, frozenset[str]], None]] = []


def check(
    function: Callable[[Path, frozenset[str]], None],
) -> Callable[[Path, frozenset[str]], None]:
    CHECKS.append(function)
    return function


def wheel_list_errors(names: list[str], library: frozenset[str]) -> list[str]:
    """What is wrong with a wheel's file list: each file too many, each file missing.

    ``names`` is the wheel's list; ``library`` the library's files (paths under ``roncho/``).
    The wheel must hold exactly those, plus one ``roncho-<version>.dist-info/`` holding
    exactly DIST_INFO_FILES.
    """
    dist_infos = {name.split("/", 1)[0] for name in names if ".dist-info/" in name}
    errors = []
    if len(dist_infos) != 1:
        errors.append(f"expected one roncho-*.dist-info/, found {sorted(dist_infos)}")
    expected = set(library) | {f"{info}/{name}" for info in dist_infos for name in DIST_INFO_FILES}
    errors += [f"unexpected in the wheel: {name}" for name in sorted(set(names) - expected)]
    errors += [f"missing from the wheel: {name}" for name in sorted(expected - set(names))]
    if len(names) != len(set(names)):
        errors.append("a file is in the wheel twice")
    return errors


@check
def the_wheel_holds_the_library_and_nothing_else(wheel: Path, library: frozenset[str]) -> None:
    assert "roncho/__init__.py" in library and "roncho/py.typed" in library, (
        f"the library's file list looks wrong: {len(library)} files"
    )
    errors = wheel_list_errors(zipfile.ZipFile(wheel).namelist(), library)
    assert not errors, "\n".join(errors)


@check
def the_license_is_an_spdx_expression_with_its_file(wheel: Path, library: frozenset[str]) -> None:
    meta = metadata.metadata("roncho")
    assert meta["License-Expression"] == "MIT", f"License-Expression: {meta['License-Expression']}"
    assert meta.get("License") is None, "the deprecated License field is set"
    files = [str(path) for path in metadata.files("roncho") or []]
    assert any(path.endswith("licenses/LICENSE") for path in files), "LICENSE not installed"


@check
def roncho_imports_from_the_installed_wheel(wheel: Path, library: frozenset[str]) -> None:
    import roncho

    where = Path(roncho.__file__).resolve()
    assert where.is_relative_to(Path(sys.prefix).resolve()), f"imported from {where}"
    assert (where.parent / "py.typed").is_file(), "py.typed not installed"
    assert roncho.__version__ == metadata.version("roncho")
    assert "roncho.testing" not in sys.modules, "import roncho imported roncho.testing"
    assert "asyncio" not in sys.modules, "import roncho imported asyncio"


@check
def one_call_of_each_kind_against_the_emulator(wheel: Path, library: frozenset[str]) -> None:
    import roncho
    from roncho.testing import FakeHoncho

    with (
        FakeHoncho(flush=True) as fake,
        roncho.Client(fake.url, "smoke", connect_timeout=5, read_timeout=30) as client,
    ):
        assert client.probe().status == "ok"  # GET, no workspace
        client.server_version()  # GET /openapi.json
        assert client.get_or_create_workspace().created  # POST, 201
        assert not client.get_or_create_workspace().created  # POST, 200
        client.update_workspace(metadata={"smoke": True})  # PUT
        client.get_or_create_peer("owner")
        client.get_or_create_session("s1", peers={"owner": roncho.SessionPeerConfig()})
        stored = client.add_messages("s1", [roncho.MessageCreate("owner", "I live in Lisbon")])
        assert client.get_message("s1", stored[0].id).content == "I live in Lisbon"
        assert [m.id for m in client.list_messages("s1").items] == [stored[0].id]  # page
        assert [m.content for m in client.search("Lisbon")] == ["I live in Lisbon"]  # bare array
        made = client.create_conclusions(
            [roncho.ConclusionCreate("Lives in Lisbon", observer_id="owner", observed_id="owner")]
        )
        assert client.query_conclusions("Lisbon", "owner", "owner")
        client.delete_conclusion(made[0].id)  # 204, empty body
        assert client.chat("owner", "Where does the owner live?").content  # JSON answer
        with client.chat_stream("owner", "Where does the owner live?") as stream:  # SSE
            assert "".join(chunk.content for chunk in stream)
        client.queue_status()
        fake.faults.fail_next(500)
        try:
            client.list_peers()
        except roncho.StatusError as error:  # the error family
            assert error.status == 500
        else:
            raise AssertionError("a 500 did not raise StatusError")
        try:
            client.with_workspace("smoke", read_only=True).delete_session("s1")
        except roncho.ReadOnlyError:
            pass
        else:
            raise AssertionError("a read-only client sent a delete")
        client.delete_session("s1")  # 202
        client.delete_workspace()  # 202


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    wheel = Path(argv[1])
    library = frozenset(Path(argv[2]).read_text(encoding="utf-8").split())
    failed = 0
    for function in CHECKS:
        try:
            function(wheel, library)
        except Exception:
            failed += 1
            print(f"FAIL  {function.__name__}")
            traceback.print_exc()
        else:
            print(f"pass  {function.__name__}")
    print(f"wheel-smoke: {len(CHECKS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
