"""Server mode: `python -m roncho.testing` / `fake-honcho` serve the emulator until stopped.

For programs that cannot import Python: start it, read the one JSON line it prints on stdout
once it listens (`{"url": ..., "port": ..., ...}`), test against the URL, send SIGTERM or
SIGINT. It listens on loopback unless `--allow-remote` is given with a non-loopback `--host`,
keeps all state in memory (starting from `--state FILE` if given), and writes nothing except
the key file it is told to write.
A bad flag or an address in use gives one line on stderr and a non-zero exit.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType
from typing import Any, NoReturn

from ._options import GROUPS, FlagSpec, flag_specs
from ._profiles import PROFILES
from ._server import FakeHoncho

PROG = "fake-honcho"
# Exit statuses: argparse's 2 for bad flags; 1 when the emulator cannot listen or write.
EXIT_USAGE = 2
EXIT_FAILED = 1
# How often the waiting main thread wakes (signals are handled between waits).
_WAKE = 0.5


class _Parser(argparse.ArgumentParser):
    """argparse with errors on ONE line (no usage block), so a script can show it as is."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"seconds must be a finite number >= 0, got {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return value


def _port(text: str) -> int:
    value = _count(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"not a TCP port: {text!r}")
    return value


_FLAG_TYPES: dict[str, tuple[Any, str]] = {
    "seconds": (_seconds, "S"),
    "count": (_count, "N"),
    "text": (str, "S"),
}


def _add_option_flag(group: argparse._ArgumentGroup, spec: FlagSpec) -> None:
    """The flag of one `Options` field, as its kind reads on a command line."""
    if spec.kind == "switch":
        group.add_argument(spec.flag, dest=spec.option, action="store_true", help=spec.help)
    elif spec.kind == "maybe":
        group.add_argument(
            spec.flag,
            dest=spec.option,
            action=argparse.BooleanOptionalAction,
            default=spec.default,
            help=spec.help,
        )
    elif spec.kind in ("version", "choice"):
        group.add_argument(
            spec.flag,
            dest=spec.option,
            choices=sorted(PROFILES) if spec.kind == "version" else spec.choices,
            default=spec.default,
            help=f"{spec.help} (default %(default)s)",
        )
    else:
        convert, metavar = _FLAG_TYPES[spec.kind]
        group.add_argument(
            spec.flag,
            dest=spec.option,
            type=convert,
            default=spec.default,
            metavar=metavar,
            help=f"{spec.help} (default %(default)s)",
        )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Serve roncho's in-memory Honcho v3 emulator over HTTP until SIGINT/SIGTERM.",
        epilog="When it listens it prints one JSON line on stdout with its url. "
        "See docs/emulator.md for every flag and the /_fake/ control routes.",
    )
    where = parser.add_argument_group(GROUPS[0])
    where.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    where.add_argument(
        "--port", type=_port, default=8000, help="TCP port, 0 for any free one (default 8000)"
    )
    groups = {GROUPS[0]: where, **{title: parser.add_argument_group(title) for title in GROUPS[1:]}}
    for spec in flag_specs():
        _add_option_flag(groups[spec.group], spec)
        if spec.option == "auth":  # the key file belongs with it, in --help and usage
            groups[spec.group].add_argument(
                "--key-file",
                metavar="FILE",
                help="write the admin key to FILE (mode 0600) instead of printing it in the "
                "ready line",
            )
    groups["server behaviour"].add_argument(
        "--state",
        metavar="FILE",
        help="start from the state snapshot in FILE (as GET /_fake/state answers it)",
    )
    parser.add_argument(
        "--control",
        action="store_true",
        help="enable the control routes under /_fake/ (reset, faults, request and deriver logs)",
    )
    return parser


def _bind_host(args: argparse.Namespace, parser: argparse.ArgumentParser) -> str:
    """The address to bind: an IP literal, loopback unless --allow-remote says otherwise."""
    host: str = args.host
    if host == "localhost":
        return "127.0.0.1"
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        parser.error(f"--host must be an IP address or localhost, got {host!r}")
    if not loopback and not args.allow_remote:
        parser.error(f"--host {host} is not a loopback address; add --allow-remote to listen there")
    return host


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {spec.option: getattr(args, spec.option) for spec in flag_specs()}


class _Served(FakeHoncho):
    """A FakeHoncho that binds where it is told and has its control surface set at start."""

    def __init__(self, host: str, port: int, control: bool, **options: Any) -> None:
        self._bind = (host, port)
        self.control_enabled = control
        super().__init__(**options)


def _write_key(path: str, key: str) -> None:
    """Write `key` to `path`, readable by its owner only, replacing what was there."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(key + "\n")


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr, flush=True)
    return EXIT_FAILED


def main(argv: Sequence[str] | None = None) -> int:
    """Run server mode; returns the exit status (0 after a clean SIGINT/SIGTERM stop)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    host = _bind_host(args, parser)
    options = _options(args)
    try:
        fake = _Served(host, args.port, args.control, **options)
    except ValueError as error:
        parser.error(str(error))
    except OSError as error:
        reason = error.strerror or str(error)
        return _fail(f"cannot listen on {host}:{args.port}: {reason}")
    if args.state is not None:
        try:
            with open(args.state, encoding="utf-8") as handle:
                fake.restore_state(json.load(handle))
        except (OSError, ValueError) as error:
            fake.close()
            reason = getattr(error, "strerror", None) or str(error)
            return _fail(f"cannot load --state {args.state}: {reason}")
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        ready: dict[str, Any] = {
            "url": fake.url,
            "host": fake.host,
            "port": fake.port,
            "pid": os.getpid(),
            "auth": fake.options.auth,
            "control": fake.control_enabled,
            "version": fake.options.version,
        }
        if args.key_file is not None:
            try:
                _write_key(args.key_file, fake.admin_key)
            except OSError as error:
                return _fail(f"cannot write --key-file {args.key_file}: {error.strerror}")
            ready["key_file"] = args.key_file
        elif args.auth:
            ready["admin_key"] = fake.admin_key
        try:
            print(json.dumps(ready), flush=True)
        except OSError:  # stdout closed: nobody can learn the URL, so do not serve
            return EXIT_FAILED
        while not stop.wait(_WAKE):
            pass
    finally:
        fake.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
