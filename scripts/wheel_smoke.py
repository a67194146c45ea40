"""Smoke test of an installed roncho wheel, run from outside the checkout (scripts/check_wheel.sh).

memoryd pins a tag and installs the package, so this checks what such an install gets: the
wheel holds the library and nothing else (no tests, no notebooks), `py.typed` and the
license are there, `roncho` imports from the virtual environment (not from a checkout),
`roncho.testing` imports, and a client against the emulator makes one call of each kind.

Usage: python wheel_smoke.py PATH/TO/roncho-*.whl

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

CHECKS: list[Callable[[Path], None]] = []


def check(function: Callable[[Path], None]) -> Callable[[Path], None]:
    CHECKS.append(function)
    return function


@check
def the_wheel_holds_the_library_and_nothing_else(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/", 1)[0] for name in names}
    dist_info = [top for top in tops if top.endswith(".dist-info")]
    assert tops == {"roncho", *dist_info} and len(dist_info) == 1, f"top-level entries: {tops}"
    unwanted = [
        name
        for name in names
        if "/tests/" in f"/{name}"
        or "/notebooks/" in f"/{name}"
        or name.endswith((".ipynb", "conftest.py"))
        or Path(name).name.startswith("test_")
    ]
    assert not unwanted, f"tests or notebooks inside the wheel: {unwanted}"
    for needed in ("roncho/py.typed", "roncho/testing/__init__.py", "roncho/__init__.py"):
        assert needed in names, f"{needed} missing from the wheel"


@check
def the_license_is_an_spdx_expression_with_its_file(wheel: Path) -> None:
    meta = metadata.metadata("roncho")
    assert meta["License-Expression"] == "MIT", f"License-Expression: {meta['License-Expression']}"
    assert meta.get("License") is None, "the deprecated License field is set"
    files = [str(path) for path in metadata.files("roncho") or []]
    assert any(path.endswith("licenses/LICENSE") for path in files), "LICENSE not installed"


@check
def roncho_imports_from_the_installed_wheel(wheel: Path) -> None:
    import roncho

    where = Path(roncho.__file__).resolve()
    assert where.is_relative_to(Path(sys.prefix).resolve()), f"imported from {where}"
    assert (where.parent / "py.typed").is_file(), "py.typed not installed"
    assert roncho.__version__ == metadata.version("roncho")
    assert "roncho.testing" not in sys.modules, "import roncho imported roncho.testing"
    assert "asyncio" not in sys.modules, "import roncho imported asyncio"


@check
def one_call_of_each_kind_against_the_emulator(wheel: Path) -> None:
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
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    wheel = Path(argv[1])
    failed = 0
    for function in CHECKS:
        try:
            function(wheel)
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
