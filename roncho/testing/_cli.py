"""Server mode: `python -m roncho.testing` / `fake-honcho` serve the emulator until stopped.

For programs that cannot import Python: start it, read the one JSON line it prints on stdout
once it listens (`{"url": ..., "port": ..., ...}`), test against the URL, send SIGTERM or
SIGINT. It listens on loopback unless `--allow-remote` is given with a non-loopback `--host`,
keeps all state in memory, and writes nothing except the key file it is told to write.
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

from ._profiles import DEFAULT_VERSION, PROFILES
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


def _seconds_flag(
    group: argparse._ArgumentGroup, flag: str, defaults: dict[str, Any], text: str
) -> None:
    """A flag taking seconds, defaulting to FakeHoncho's own keyword of the same name."""
    group.add_argument(
        flag,
        type=_seconds,
        default=defaults.get(flag[2:].replace("-", "_")),
        metavar="S",
        help=f"{text} (default %(default)s)",
    )


def build_parser() -> argparse.ArgumentParser:
    defaults = FakeHoncho.__init__.__kwdefaults__ or {}
    parser = _Parser(
        prog=PROG,
        description="Serve roncho's in-memory Honcho v3 emulator over HTTP until SIGINT/SIGTERM.",
        epilog="When it listens it prints one JSON line on stdout with its url. "
        "See docs/emulator.md for every flag and the /_fake/ control routes.",
    )
    where = parser.add_argument_group("where it listens")
    where.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    where.add_argument(
        "--port", type=_port, default=8000, help="TCP port, 0 for any free one (default 8000)"
    )
    where.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host that is not a loopback address (the emulator has no real security)",
    )
    keys = parser.add_argument_group("authentication")
    keys.add_argument("--auth", action="store_true", help="require keys (AUTH_USE_AUTH=true)")
    keys.add_argument(
        "--key-file",
        metavar="FILE",
        help="write the admin key to FILE (mode 0600) instead of printing it in the ready line",
    )
    behaviour = parser.add_argument_group("server behaviour")
    behaviour.add_argument(
        "--honcho-version",
        choices=sorted(PROFILES),
        default=DEFAULT_VERSION,
        help="the Honcho release to imitate where releases differ (default %(default)s)",
    )
    behaviour.add_argument(
        "--workspace-chat",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="serve POST /v3/workspaces/{w}/chat or answer 404 there "
        "(default: as the version does)",
    )
    deriver = parser.add_argument_group("deriver (background reasoning queue)")
    deriver.add_argument(
        "--flush", action="store_true", help="release every batch at once (DERIVER_FLUSH_ENABLED)"
    )
    deriver.add_argument(
        "--batch-tokens",
        type=_count,
        default=defaults.get("batch_tokens"),
        metavar="N",
        help="token target of the batching gate, 0 turns the gate off (default %(default)s)",
    )
    _seconds_flag(
        deriver,
        "--batch-max-age",
        defaults,
        "seconds after which a waiting batch is released anyway",
    )
    _seconds_flag(
        deriver,
        "--deriver-delay",
        defaults,
        "seconds from a batch being claimed to its conclusions",
    )
    _seconds_flag(
        deriver, "--enqueue-delay", defaults, "seconds before new queue items become visible"
    )
    timing = parser.add_argument_group("other delays")
    _seconds_flag(
        timing,
        "--purge-delay",
        defaults,
        "seconds from an accepted session/workspace delete to its purge",
    )
    _seconds_flag(timing, "--chat-delay", defaults, "seconds a chat takes before answering")
    _seconds_flag(timing, "--stream-chunk-delay", defaults, "seconds between streamed chat chunks")
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
    return {
        "auth": args.auth,
        "flush": args.flush,
        "batch_tokens": args.batch_tokens,
        "batch_max_age": args.batch_max_age,
        "deriver_delay": args.deriver_delay,
        "enqueue_delay": args.enqueue_delay,
        "purge_delay": args.purge_delay,
        "chat_delay": args.chat_delay,
        "stream_chunk_delay": args.stream_chunk_delay,
        "workspace_chat": args.workspace_chat,
        "version": args.honcho_version,
    }


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
