"""``import roncho`` has no side effects: no thread, no asyncio/ssl/pandas, no environment
read, no file opened except its own and the standard library's modules.

Each check runs in a fresh interpreter (``-I``: no PYTHON* variables, no user site; ``-B``:
no bytecode written, so a first run after an edit opens no temporary .pyc file). The
probe script installs an audit hook (``sys.addaudithook``) that records every ``open``
event, and swaps ``os.environ`` for a mapping that records every access, before roncho is
imported. A plain ``http://`` Client is then built, which must not load ssl either.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

SUBPROCESS_TIMEOUT = 30  # seconds; generous for a cold interpreter on a shared CI machine

_PROBE = textwrap.dedent(
    """
    import importlib.util, json, os, socket, sys, sysconfig, threading
    from collections.abc import MutableMapping

    package_dir = os.path.dirname(importlib.util.find_spec("roncho").origin)
    stdlib_dirs = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib")}

    opened = []
    def hook(event, args):
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            opened.append(os.fsdecode(args[0]))
    sys.addaudithook(hook)

    environ_reads = []
    class Recording(MutableMapping):
        def __init__(self, real): self._real = real
        def _note(self, what):
            caller = sys._getframe(2).f_code.co_filename
            environ_reads.append([what, caller])
        def __getitem__(self, key): self._note(f"get {key}"); return self._real[key]
        def __setitem__(self, key, value): self._note(f"set {key}"); self._real[key] = value
        def __delitem__(self, key): self._note(f"del {key}"); del self._real[key]
        def __iter__(self): self._note("iter"); return iter(self._real)
        def __len__(self): self._note("len"); return len(self._real)
        def copy(self): self._note("copy"); return dict(self._real)
    real_environ = os.environ
    os.environ = Recording(real_environ)

    before = set(sys.modules)
    threads_before = threading.active_count()
    import roncho
    after_import = set(sys.modules)
    if MODE == "client":
        client = roncho.Client("http://127.0.0.1:9", "ws", api_key="k", read_timeout=5)
        repr(client)
        client.close()
    os.environ = real_environ

    def allowed(path):
        if not path.endswith((".py", ".pyc")):
            return False
        path = os.path.realpath(path)
        roots = [os.path.realpath(package_dir), *map(os.path.realpath, stdlib_dirs)]
        return any(path.startswith(root + os.sep) for root in roots)

    print(json.dumps({
        "new_modules": sorted(set(sys.modules) - before),
        "import_modules": sorted(after_import - before),
        "threads_before": threads_before,
        "threads": threading.active_count(),
        "thread_names": [t.name for t in threading.enumerate()],
        "environ": environ_reads,
        "opened": opened,
        "bad_opens": [p for p in opened if not allowed(p)],
        "default_timeout": socket.getdefaulttimeout(),
    }))
    """
)


def _probe(mode: str, probe: str = _PROBE) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-I", "-B", "-c", f"MODE = {mode!r}\n" + probe],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
        cwd="/",
    )
    assert result.returncode == 0, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


@pytest.fixture(scope="module", params=["import", "client"])
def report(request: pytest.FixtureRequest) -> dict[str, Any]:
    return _probe(request.param)


def test_import_loads_roncho_and_no_forbidden_module(report: dict[str, Any]) -> None:
    modules = set(report["new_modules"])
    assert "roncho" in modules and "roncho._client" in modules  # the probe really imported
    forbidden = {"asyncio", "ssl", "_ssl", "pandas", "numpy", "matplotlib", "concurrent.futures"}
    assert modules & forbidden == set()
    # What the import costs is measured by benchmarks/bench_import.py.
    assert not any(m.startswith(("roncho.testing", "roncho_workbook")) for m in modules)


def test_import_starts_no_thread(report: dict[str, Any]) -> None:
    assert report["threads_before"] == 1
    assert report["threads"] == 1, report["thread_names"]


def test_import_reads_no_environment(report: dict[str, Any]) -> None:
    assert report["environ"] == []


def test_import_opens_only_module_files(report: dict[str, Any]) -> None:
    assert any("roncho" in path for path in report["opened"])  # the hook saw the imports
    assert report["bad_opens"] == []


def test_import_sets_no_global_socket_timeout(report: dict[str, Any]) -> None:
    assert report["default_timeout"] is None


def test_import_probe_would_notice_an_environment_read() -> None:
    """The recorder is live: a read made after import, on purpose, is reported."""
    probe = _PROBE.replace('if MODE == "client":', 'os.environ.get("HOME")\nif MODE == "client":')
    reads = _probe("import", probe)["environ"]
    assert [what for what, _caller in reads] == ["get HOME"]


def test_import_roncho_aio_loads_asyncio_but_no_ssl_thread_or_environment() -> None:
    """``import roncho.aio`` is where asyncio comes in; an http:// AsyncClient makes no TLS
    context, starts no thread and reads no environment. (asyncio itself imports ssl when
    it is imported, so for roncho.aio "ssl only for https" means no TLS context, no
    handshake, for http.)"""
    probe = _PROBE.replace(
        'if MODE == "client":',
        "import roncho.aio\n"
        'aio = roncho.aio.AsyncClient("http://127.0.0.1:9", "ws", api_key="k")\n'
        "repr(aio)\n"
        "assert aio._tls is None\n"
        "aio.close()\n"
        'if MODE == "client":',
    )
    report = _probe("import", probe)
    modules = set(report["new_modules"])
    assert "asyncio" in modules and "roncho.aio" in modules
    assert "concurrent.futures.thread" not in modules  # no executor, so no thread pool
    assert report["threads"] == 1, report["thread_names"]
    assert report["environ"] == []
    assert report["bad_opens"] == []


# The add-ons beside the call path (docs/core.md): each loads only when used.
CHECKOUT = Path(__file__).resolve().parents[2]  # the roncho these tests are about
ADD_ONS = (
    "roncho._derivation",
    "roncho.webhooks",
    "roncho._scratch",
    "roncho.pytest_plugin",
    "roncho._reports",
    "roncho._delivery",
    "roncho.delivery",
    "roncho.aio.delivery",
    "roncho._auth_hints",
    "roncho._derivation_wait",
    "roncho.aio._derivation_wait",
)


def _fresh(code: str) -> str:
    """What ``code`` prints in a fresh interpreter that imports this checkout's roncho."""
    out = subprocess.run(
        [sys.executable, "-B", "-s", "-c", code],
        env={"PYTHONPATH": str(CHECKOUT)},
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
        cwd="/",
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_import_loads_no_add_on_and_no_asyncio() -> None:
    """``import roncho`` loads none of the add-ons (the deriver wait, webhooks, the scratch
    workspace, the pytest plugin, the on_call reports, the delivery function, the 401/403
    hints) and not asyncio; an add-on loads on first use, and the deriver wait's records and
    CallReport keep their public names."""
    code = "import json, sys, roncho\nprint(roncho.__file__, json.dumps(sorted(sys.modules)))"
    where, modules = _fresh(code).split(" ", 1)
    loaded = set(json.loads(modules))
    assert where == str(CHECKOUT / "roncho" / "__init__.py")  # the probe imported this one
    assert "roncho._client" in loaded
    assert loaded & set(ADD_ONS) == set()
    assert "asyncio" not in loaded
    # Loaded by the one call that needs it, not by the import (benchmarks/RESULTS.md):
    # hashlib (and its OpenSSL binding) only by an upload's multipart body.
    assert loaded & {"hashlib", "_hashlib"} == set()
    used = _fresh(
        "import sys, roncho\n"
        "print(roncho.DerivationOutcome.__module__, roncho.scratch_workspace.__module__,\n"
        "      roncho.CallReport.__module__, 'roncho._derivation' in sys.modules,\n"
        "      'roncho._scratch' in sys.modules, 'roncho._reports' in sys.modules)"
    )
    assert used.split() == ["roncho", "roncho", "roncho", "True", "True", "True"]
    hinted = _fresh(
        "import sys, roncho\n"
        "error = roncho.StatusError(404, 'GET', '/v3/x')\n"
        "print('roncho._auth_hints' in sys.modules)\n"
        "error = roncho.UnauthorizedError(401, 'GET', '/v3/x', key_sent=False)\n"
        "print('roncho._auth_hints' in sys.modules, 'no api_key' in str(error))"
    )
    assert hinted.split() == ["False", "True", "True"]


def test_hashlib_loads_with_the_first_upload_body() -> None:
    """``import roncho`` leaves hashlib out; the multipart body of an upload brings it in,
    and its boundary is still the parts' own hash."""
    out = _fresh(
        "import sys, roncho, roncho._multipart as multipart\n"
        "print('hashlib' in sys.modules)\n"
        "body, kind = multipart.form_data([], 'file', 'a.txt', 'text/plain', b'hi')\n"
        "print('hashlib' in sys.modules, kind)"
    )
    before, rest = out.splitlines()
    after, kind = rest.split(" ", 1)
    assert (before, after) == ("False", "True")
    prefix = "multipart/form-data; boundary=roncho-"
    assert kind.startswith(prefix) and len(kind) == len(prefix) + 40
