"""Drive ``sync_batch`` through the fault proxy against a server, with both clients, and count
what the server holds at the end: every turn exactly once, in order? any batch in part?

    python tests/delivery_soak.py http://127.0.0.1:8000 --turns 500 --seed 1

One throwaway workspace (``roncho.scratch_workspace``: created new, deleted afterwards, also
on failure) holds two sessions, ``blocking`` and ``asyncio``; each client runs its turns in
its own session through its own ``FaultProxy`` (tests/faultproxy.py), the two at once. A
turn is a batch of 1 to 4 messages (two peers, as a chat turn) with a marker of its own;
the driver calls ``sync_batch`` once per turn, and only when that raises (a look that
failed, every attempt refused) it calls again with ``look_first=True``, as the function's
docstring tells a caller to. At the end it reads each session straight from the server,
not through the proxy, and prints the figures as JSON (``--json`` writes them to a file).

Exit status 0 when every turn is held exactly once and in order, no batch in part, and
the proxy had no error of its own; 1 otherwise. tests/wire/test_delivery_function.py runs
a short form against the emulator; scripts/test-real.sh against the kit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))  # faultproxy, when run as a script

from faultproxy import FaultPlan, FaultProxy, counts

import roncho
from roncho import delivery
from roncho.aio import AsyncClient
from roncho.aio import delivery as aio_delivery

PEERS = ("owner", "assistant")
MAX_CALLS = 20  # calls of sync_batch per turn before the driver gives the turn up
RECALL_PAUSE = 1.0  # the driver's own pause before calling again after a raise


def turns_of(count: int, seed: int, tag: str) -> list[list[roncho.MessageCreate]]:
    """``count`` batches of 1 to 4 messages, their sizes drawn by ``seed``."""
    rng = random.Random(seed)
    return [
        [
            roncho.MessageCreate(PEERS[j % 2], f"{tag} turn {i} message {j}")
            for j in range(rng.randint(1, 4))
        ]
        for i in range(count)
    ]


class Tally:
    """What the driver saw of one client's run."""

    def __init__(self) -> None:
        self.outcomes: Counter[str] = Counter()
        self.send_errors: Counter[str] = Counter()  # from the records: failed sends
        self.raised: Counter[str] = Counter()  # what sync_batch raised
        self.mismatches = 0
        self.given_up = 0
        self.calls = 0
        self.sends = 0
        self.looks = 0
        self.settled = 0.0

    def took(self, record: delivery.Delivery) -> None:
        self.outcomes[record.outcome] += 1
        self.send_errors.update(record.errors)
        self.sends += record.attempts
        self.looks += record.looks
        self.settled += record.settled

    def as_dict(self) -> dict[str, Any]:
        return {
            "outcomes": dict(self.outcomes),
            "send_errors": dict(self.send_errors),
            "raised": dict(self.raised),
            "mismatch_errors": self.mismatches,
            "turns_given_up": self.given_up,
            "calls": self.calls,
            "sends": self.sends,
            "looks": self.looks,
            "settled_s": round(self.settled, 1),
        }


def run_blocking(
    url: str, workspace: str, session: str, batches: list[list[roncho.MessageCreate]],
    options: dict[str, Any], tag: str, tally: Tally,
) -> None:  # fmt: skip
    client = roncho.Client(url, workspace, **options)
    client.get_or_create_session(session)
    for i, batch in enumerate(batches):
        look_first = False
        for _ in range(MAX_CALLS):
            tally.calls += 1
            try:
                record = delivery.sync_batch(
                    client, session, batch, f"{tag}-{i}", look_first=look_first
                )
            except delivery.BatchMismatchError:
                tally.mismatches += 1
                break
            except roncho.RonchoError as error:
                tally.raised[type(error).__name__] += 1
                look_first = True
                time.sleep(RECALL_PAUSE)
                continue
            tally.took(record)
            break
        else:
            tally.given_up += 1


async def run_async(
    url: str, workspace: str, session: str, batches: list[list[roncho.MessageCreate]],
    options: dict[str, Any], tag: str, tally: Tally,
) -> None:  # fmt: skip
    client = AsyncClient(url, workspace, **options)
    await client.get_or_create_session(session)
    for i, batch in enumerate(batches):
        look_first = False
        for _ in range(MAX_CALLS):
            tally.calls += 1
            try:
                record = await aio_delivery.sync_batch(
                    client, session, batch, f"{tag}-{i}", look_first=look_first
                )
            except delivery.BatchMismatchError:
                tally.mismatches += 1
                break
            except roncho.RonchoError as error:
                tally.raised[type(error).__name__] += 1
                look_first = True
                await asyncio.sleep(RECALL_PAUSE)
                continue
            tally.took(record)
            break
        else:
            tally.given_up += 1


def held(client: roncho.Client, session: str, batches: list[list[roncho.MessageCreate]],
         tag: str) -> dict[str, Any]:  # fmt: skip
    """What the server holds of the run's turns: lost, once, doubled, in part, in order."""
    stored = list(client.iter_messages(session))
    by_turn: dict[int, list[str]] = {}
    order: list[tuple[int, int]] = []
    foreign = 0
    for message in stored:
        marker = str(message.metadata.get("sync_id", ""))
        if not marker.startswith(f"{tag}-"):
            foreign += 1
            continue
        turn = int(marker.rsplit("-", 1)[1])
        by_turn.setdefault(turn, []).append(message.content)
        order.append((turn, int(message.content.rsplit(" ", 1)[1])))
    lost = doubled = partial = once = 0
    for i, batch in enumerate(batches):
        contents = by_turn.get(i, [])
        wanted = [m.content for m in batch]
        copies = Counter(contents)
        if not contents:
            lost += 1
        elif set(copies) != set(wanted) or len(set(copies.values())) != 1:
            partial += 1  # some message of the batch missing, or held more often than another
        elif copies[wanted[0]] == 1:
            once += 1
        else:
            doubled += 1
    expected = [(i, j) for i, batch in enumerate(batches) for j in range(len(batch))]
    return {
        "messages_held": len(stored),
        "messages_sent_once_expected": len(expected),
        "turns_once": once,
        "turns_lost": lost,
        "turns_doubled": doubled,
        "turns_partial": partial,
        "in_order": order == expected,
        "foreign_messages": foreign,
    }


def soak(url: str, turns: int, seed: int, read_timeout: float, rate: float,
         refuse_for: float, api_key: str | None = None) -> dict[str, Any]:  # fmt: skip
    """Both clients' runs at once in one scratch workspace; the figures of each."""
    parts = urlsplit(url)
    upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
    options = {"api_key": api_key, "connect_timeout": 2.0, "read_timeout": read_timeout}
    figures: dict[str, Any] = {
        "server": url, "turns_per_client": turns, "seed": seed, "fault_rate": rate,
        "read_timeout_s": read_timeout, "settle_s": read_timeout, "hold_s": read_timeout + 1.0,
        "refuse_for_s": refuse_for,
    }  # fmt: skip
    started = time.monotonic()
    with roncho.scratch_workspace(url, "roncho-delivery-soak", api_key=api_key) as direct:
        plans = {"blocking": seed, "asyncio": seed + 1}
        proxies = {
            name: FaultProxy(upstream, FaultPlan(plan_seed, rate=rate),
                             hold=read_timeout + 1.0, refuse_for=refuse_for)
            for name, plan_seed in plans.items()
        }  # fmt: skip
        batches = {name: turns_of(turns, plans[name], name) for name in plans}
        tallies = {name: Tally() for name in plans}
        failures: list[BaseException] = []
        times: dict[str, float] = {}

        def guarded(name: str, body: Callable[[], None]) -> Callable[[], None]:
            def run() -> None:
                begun = time.monotonic()
                try:
                    body()
                except BaseException as error:  # reported in the main thread
                    failures.append(error)
                finally:
                    times[name] = time.monotonic() - begun

            return run

        with proxies["blocking"], proxies["asyncio"]:
            workers = [
                threading.Thread(target=guarded("blocking", lambda: run_blocking(
                    proxies["blocking"].url, direct.workspace, "blocking",
                    batches["blocking"], options, "blocking", tallies["blocking"]))),
                threading.Thread(target=guarded("asyncio", lambda: asyncio.run(run_async(
                    proxies["asyncio"].url, direct.workspace, "asyncio",
                    batches["asyncio"], options, "asyncio", tallies["asyncio"])))),
            ]  # fmt: skip
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
        if failures:
            raise failures[0]
        for name in plans:
            figures[name] = {
                "seconds": round(times[name], 1),
                **counts(proxies[name]),
                **tallies[name].as_dict(),
                **held(direct, name, batches[name], name),
            }
    figures["seconds"] = round(time.monotonic() - started, 1)
    return figures


def verdict(figures: dict[str, Any]) -> bool:
    """Every turn held once, in order; nothing partial or given up; no proxy error."""
    return all(
        part["turns_once"] == figures["turns_per_client"]
        and part["in_order"]
        and part["mismatch_errors"] == 0
        and part["turns_given_up"] == 0
        and not part["proxy_errors"]
        for part in (figures["blocking"], figures["asyncio"])
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the server (loopback), e.g. http://127.0.0.1:8000")
    parser.add_argument("--turns", type=int, default=500, help="turns per client")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--read-timeout", type=float, default=3.0)
    parser.add_argument("--rate", type=float, default=0.25, help="share of writes faulted")
    parser.add_argument("--refuse-for", type=float, default=2.0)
    parser.add_argument("--key-file", help="a file holding the API key (auth on)")
    parser.add_argument("--json", help="also write the figures to this file")
    options = parser.parse_args(argv)
    host = urlsplit(options.url).hostname or ""
    if not (host.startswith("127.") or host in ("localhost", "::1")):
        parser.error("the fault proxy listens on loopback: give a loopback server")
    key = Path(options.key_file).read_text().strip() if options.key_file else None
    figures = soak(options.url, options.turns, options.seed, options.read_timeout,
                   options.rate, options.refuse_for, key)  # fmt: skip
    text = json.dumps(figures, indent=2)
    print(text)
    if options.json:
        Path(options.json).write_text(text + "\n", encoding="utf-8")
    ok = verdict(figures)
    print("delivery soak:", "every turn once, in order" if ok else "FAILED", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
