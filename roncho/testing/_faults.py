"""Faults as rules: which requests a fault hits, and what it does to them.

A `FaultRule` matches by method and route template (`/v3/workspaces/{w}/peers`, `{x}` is one
path segment), optionally only the `nth` matching call, at most `times` times, with a
`probability` drawn from the rule's own seeded generator (the same seed gives the same hits).
What it does is either to the whole answer (a `latency` drawn from a fixed, uniform or
lognormal distribution, a `status` answered without handling the request, a body cut short by
`close_mid_body`) or, with `stream`, to a streamed chat answer:

- `"error"`: the final event carries `{"done": true, "error": detail}` instead of the answer's;
- `"end_early"`: the body ends properly, but before the final event;
- `"split_utf8"`: events are sent with their UTF-8 text unescaped, each cut in the middle of
  its first multi-byte character, so a character spans two chunks;
- `"stall"`: `stall` seconds of silence after the first `after_events` events;
- `"abort"`: the first `after_events` events, then the connection closes without the final
  event and without the chunked body's end (as when the server's stream raises).

Or, with `failure`, a way the real server fails, by name (`_failures.FAILURES`: its status and
routes, its stream fault, or what it does to the deriver or the webhooks).

Request rules are matched when a request arrives, stream rules when a streamed answer is about
to be sent (so their `nth` counts streamed answers). Every rule that fires applies: delays add
up, the first status wins. The one-shot switches (`slow_next`, `fail_next`,
`stall_stream_next`, `close_mid_body_next`) are rules with `times=1` matching any request.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import threading
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from ._failures import FAILURES, ServerFailure
from ._web import compile_template

# Bounds of what a fault may ask for: a stuck emulator helps no test.
MAX_FAULT_SECONDS = 600.0
StreamFault = Literal["error", "end_early", "split_utf8", "stall", "abort"]
STREAM_FAULTS: tuple[str, ...] = ("error", "end_early", "split_utf8", "stall", "abort")
LATENCY_KINDS = ("fixed", "uniform", "lognormal")
DEFAULT_DETAIL = "An unexpected error occurred"


def _seconds(name: str, value: object, *, allow_zero: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"'{name}' must be a number from 0 to {MAX_FAULT_SECONDS:g}")
    low_ok = value >= 0 if allow_zero else value > 0
    if not low_ok or not value <= MAX_FAULT_SECONDS:
        raise ValueError(f"'{name}' must be a number from 0 to {MAX_FAULT_SECONDS:g}")
    return float(value)


@dataclass(frozen=True, slots=True, kw_only=True)
class Latency:
    """A delay distribution: `Latency.fixed(s)`, `.uniform(low, high)`, `.lognormal(median,
    sigma)` (as WireMock's: the median delay and the spread of its logarithm). Draws are
    capped at `MAX_FAULT_SECONDS`."""

    kind: str
    seconds: float = 0.0
    low: float = 0.0
    high: float = 0.0
    median: float = 0.0
    sigma: float = 0.0

    @classmethod
    def fixed(cls, seconds: float) -> Latency:
        return cls(kind="fixed", seconds=_seconds("seconds", seconds))

    @classmethod
    def uniform(cls, low: float, high: float) -> Latency:
        low, high = _seconds("low", low), _seconds("high", high)
        if low > high:
            raise ValueError("'low' must not be above 'high'")
        return cls(kind="uniform", low=low, high=high)

    @classmethod
    def lognormal(cls, median: float, sigma: float) -> Latency:
        median = _seconds("median", median, allow_zero=False)
        if isinstance(sigma, bool) or not isinstance(sigma, int | float) or not 0 <= sigma <= 10:
            raise ValueError("'sigma' must be a number from 0 to 10")
        return cls(kind="lognormal", median=median, sigma=float(sigma))

    @classmethod
    def from_json(cls, data: object) -> Latency:
        """`{"kind": "fixed", "seconds": s}`, `{"kind": "uniform", "low", "high"}` or
        `{"kind": "lognormal", "median", "sigma"}`."""
        if not isinstance(data, dict) or data.get("kind") not in LATENCY_KINDS:
            raise ValueError(f"'latency' must be an object whose 'kind' is one of {LATENCY_KINDS}")
        wanted = {
            "fixed": ("seconds",),
            "uniform": ("low", "high"),
            "lognormal": ("median", "sigma"),
        }
        names = wanted[data["kind"]]
        missing = [name for name in names if name not in data]
        if missing or set(data) - {"kind", *names}:
            raise ValueError(f"a {data['kind']} latency takes exactly {', '.join(names)}")
        made: Latency = getattr(cls, data["kind"])(*(data[name] for name in names))
        return made

    def to_json(self) -> dict[str, Any]:
        names = {
            "fixed": ("seconds",),
            "uniform": ("low", "high"),
            "lognormal": ("median", "sigma"),
        }
        return {"kind": self.kind, **{name: getattr(self, name) for name in names[self.kind]}}

    def draw(self, rng: random.Random) -> float:
        if self.kind == "fixed":
            value = self.seconds
        elif self.kind == "uniform":
            value = rng.uniform(self.low, self.high)
        else:
            value = self.median * rng.lognormvariate(0.0, self.sigma)
        return min(value, MAX_FAULT_SECONDS)


@dataclass(frozen=True, slots=True, kw_only=True)
class FaultRule:
    """One fault rule (see the module docstring); `id` is given when it is added."""

    method: str | None = None
    route: str | None = None
    nth: int | None = None
    times: int | None = None
    probability: float = 1.0
    seed: int | None = None
    latency: Latency | None = None
    status: int | None = None
    detail: str | None = None
    close_mid_body: bool = False
    stream: StreamFault | None = None
    stall: float = 0.0
    after_events: int = 1
    failure: str | None = None
    id: int = 0

    def __post_init__(self) -> None:
        if self.method is not None and (not isinstance(self.method, str) or not self.method):
            raise ValueError("'method' must be an HTTP method such as \"POST\"")
        if self.route is not None and (not isinstance(self.route, str) or not self.route):
            raise ValueError("'route' must be a path template such as /v3/workspaces/{w}")
        for name in ("nth", "times"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise ValueError(f"'{name}' must be a whole number >= 1")
        if (
            isinstance(self.probability, bool)
            or not isinstance(self.probability, int | float)
            or not 0 <= self.probability <= 1
        ):
            raise ValueError("'probability' must be a number from 0 to 1")
        if self.seed is not None and (
            isinstance(self.seed, bool) or not isinstance(self.seed, int)
        ):
            raise ValueError("'seed' must be an integer")
        if self.status is not None and (
            isinstance(self.status, bool)
            or not isinstance(self.status, int)
            or not 300 <= self.status <= 599
        ):
            raise ValueError("'status' must be an integer from 300 to 599")
        if self.detail is not None and not isinstance(self.detail, str):
            raise ValueError("'detail' must be a string")
        _seconds("stall", self.stall)
        if isinstance(self.after_events, bool) or not isinstance(self.after_events, int):
            raise ValueError("'after_events' must be a whole number >= 0")
        if self.after_events < 0:
            raise ValueError("'after_events' must be a whole number >= 0")
        if self.latency is not None and not isinstance(self.latency, Latency):
            raise ValueError("'latency' must be a Latency (Latency.fixed, .uniform, .lognormal)")
        if not isinstance(self.close_mid_body, bool):
            raise ValueError("'close_mid_body' must be true or false")
        whole = self.latency is not None or self.status is not None or self.close_mid_body
        if self.failure is not None:
            self._check_failure(whole)
        elif self.stream is not None:
            if self.stream not in STREAM_FAULTS:
                raise ValueError(f"'stream' must be one of {STREAM_FAULTS}")
            if whole:
                raise ValueError("a stream fault takes no latency, status or close_mid_body")
        elif not whole:
            raise ValueError(
                "a fault rule needs an effect: latency, status, close_mid_body or stream"
            )

    def _check_failure(self, whole: bool) -> None:
        failure = FAILURES.get(self.failure) if isinstance(self.failure, str) else None
        if failure is None:
            raise ValueError(f"'failure' must be one of {tuple(FAILURES)}")
        if whole or self.stream is not None or self.detail is not None:
            raise ValueError("a failure says what it sends: no latency, status, detail or stream")
        if failure.kind == "background" and (self.method is not None or self.route is not None):
            raise ValueError(f"{failure.name} is not an answer: it takes no method or route")
        if not failure.per_event and (
            self.nth is not None or self.times is not None or self.probability != 1
        ):
            raise ValueError(
                f"{failure.name} lasts while the rule is in place: no nth, times or probability"
            )

    @property
    def server_failure(self) -> ServerFailure | None:
        """The named failure this rule produces, if any."""
        return FAILURES[self.failure] if self.failure is not None else None

    @classmethod
    def from_json(cls, data: object) -> FaultRule:
        """A rule from the JSON body of `POST /_fake/faults` (the same names as here)."""
        if not isinstance(data, dict):
            raise ValueError("a fault rule is a JSON object")
        known = {name for name in cls.__dataclass_fields__ if name != "id"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown fault rule fields: {', '.join(unknown)}")
        values = dict(data)
        if values.get("latency") is not None:
            values["latency"] = Latency.from_json(values["latency"])
        return cls(**values)

    def to_json(self) -> dict[str, Any]:
        body = asdict(self)
        body["latency"] = self.latency.to_json() if self.latency is not None else None
        return body


# What a rule matches: (method or None for any, path pattern or None for any) pairs.
_Targets = list[tuple[str | None, re.Pattern[str] | None]]


def _targets(rule: FaultRule) -> _Targets:
    failure = rule.server_failure
    if failure is not None and failure.kind == "answer" and rule.route is None:
        return [(method, compile_template(route)) for method, route in failure.routes]
    return [(rule.method, compile_template(rule.route) if rule.route is not None else None)]


@dataclass(slots=True)
class _Armed:
    rule: FaultRule
    targets: _Targets
    rng: random.Random
    matched: int = 0
    applied: int = 0

    def fires(self, method: str, path: str) -> bool:
        """Count a matching call and say whether the rule applies to it."""
        rule = self.rule
        if not any(
            (want is None or want.upper() == method.upper())
            and (pattern is None or pattern.match(path))
            for want, pattern in self.targets
        ):
            return False
        self.matched += 1
        if rule.nth is not None and self.matched != rule.nth:
            return False
        if rule.times is not None and self.applied >= rule.times:
            return False
        if rule.probability < 1 and self.rng.random() >= rule.probability:
            return False
        self.applied += 1
        return True


@dataclass(frozen=True, slots=True)
class RuleState:
    """A rule with its counts: calls it matched and calls it applied to."""

    rule: FaultRule
    matched: int
    applied: int

    def to_json(self) -> dict[str, Any]:
        return {**self.rule.to_json(), "matched": self.matched, "applied": self.applied}


@dataclass(slots=True)
class RequestPlan:
    """What the firing request rules do to one answer."""

    delay: float = 0.0
    status: int | None = None
    detail: str = DEFAULT_DETAIL
    close_mid_body: bool = False
    rules: list[int] = field(default_factory=list)


class Faults:
    """The fault rules of one emulator. Thread-safe: a test adds rules while it serves."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[_Armed] = []
        self._ids = itertools.count(1)

    def add(self, rule: FaultRule | None = None, **fields: Any) -> FaultRule:
        """Add a rule (a `FaultRule`, or its fields as keywords); returns it with its id."""
        if rule is None:
            rule = FaultRule(**fields)
        elif fields:
            raise TypeError("give a FaultRule or its fields, not both")
        with self._lock:
            rule = replace(rule, id=next(self._ids))
            self._rules.append(_Armed(rule, _targets(rule), random.Random(rule.seed)))
        return rule

    def remove(self, rule_id: int) -> bool:
        """Drop the rule with this id; False if there was none."""
        with self._lock:
            kept = [armed for armed in self._rules if armed.rule.id != rule_id]
            removed = len(kept) != len(self._rules)
            self._rules = kept
            return removed

    def rules(self) -> list[RuleState]:
        """Every rule, oldest first, with how often it matched and applied."""
        with self._lock:
            return [RuleState(a.rule, a.matched, a.applied) for a in self._rules]

    def clear(self) -> None:
        """Drop every rule."""
        with self._lock:
            self._rules.clear()

    # ---- the one-shot switches: a rule for the next request, whatever it is ----

    def slow_next(self, seconds: float) -> None:
        """Delay the next response by `seconds` before anything is sent."""
        self.add(latency=Latency.fixed(seconds), times=1)

    def fail_next(self, status: int = 500) -> None:
        """Answer the next request with `status` and `{"detail": ...}` without handling it."""
        self.add(status=int(status), times=1)

    def stall_stream_next(self, seconds: float) -> None:
        """The next streamed chat sends its first chunk, then stalls `seconds`."""
        self.add(stream="stall", stall=float(seconds), times=1)

    def close_mid_body_next(self) -> None:
        """The next response declares a longer body than it writes, then the socket closes."""
        self.add(close_mid_body=True, times=1)

    # ---- used by the server ----

    def on_request(self, method: str, path: str, *, streamed: bool = False) -> RequestPlan:
        """Match a request against the request rules; what to do to its answer. `streamed`:
        the request asks for a streamed answer (a failure with a stream fault waits for it)."""
        plan = RequestPlan()
        with self._lock:
            for armed in self._rules:
                rule, failure = armed.rule, armed.rule.server_failure
                if rule.stream is not None or (
                    failure is not None
                    and (failure.kind != "answer" or (streamed and failure.stream is not None))
                ):
                    continue
                if not armed.fires(method, path):
                    continue
                plan.rules.append(rule.id)
                if rule.latency is not None:
                    plan.delay += rule.latency.draw(armed.rng)
                status = failure.status if failure is not None else rule.status
                if status is not None and plan.status is None:
                    plan.status = status
                    plan.detail = (failure.detail if failure is not None else rule.detail) or (
                        DEFAULT_DETAIL if status == 500 else f"Injected {status}"
                    )
                plan.close_mid_body = plan.close_mid_body or rule.close_mid_body
        plan.delay = min(plan.delay, MAX_FAULT_SECONDS)
        return plan

    def on_stream(self, method: str, path: str) -> FaultRule | None:
        """The first stream rule that fires for a streamed answer, if any (a failure's stream
        fault as a plain stream rule)."""
        with self._lock:
            chosen = None
            for armed in self._rules:
                failure = armed.rule.server_failure
                if failure is not None and failure.stream is not None:
                    effect = replace(
                        armed.rule,
                        failure=None,
                        stream=failure.stream,
                        after_events=failure.stream_after,
                    )
                elif armed.rule.stream is not None and failure is None:
                    effect = armed.rule
                else:
                    continue
                if armed.fires(method, path) and chosen is None:
                    chosen = effect
        return chosen

    def failing(self, name: str) -> bool:
        """Whether the background failure `name` fires on the event at hand (the deriver and
        the webhook deliveries ask); every rule of that name counts the event, but for a
        failure that lasts while its rule is in place, which counts nothing."""
        with self._lock:
            fired = False
            for armed in self._rules:
                failure = armed.rule.server_failure
                if failure is None or failure.name != name:
                    continue
                if not failure.per_event or armed.fires("", ""):
                    fired = True
            return fired


def error_event(detail: str | None) -> bytes:
    """The final event of an `"error"` stream fault."""
    payload = {"done": True, "error": detail or DEFAULT_DETAIL}
    return b"data: " + json.dumps(payload).encode("ascii") + b"\n\n"


def split_utf8_chunks(event: bytes) -> list[bytes]:
    """An event re-sent with its text unescaped, cut inside its first multi-byte character."""
    prefix, _, rest = event.partition(b"data: ")
    try:
        payload = json.loads(rest)
    except ValueError:
        return [event]
    raw = prefix + b"data: " + json.dumps(payload, ensure_ascii=False).encode("utf-8") + b"\n\n"
    for index, byte in enumerate(raw):
        if byte >= 0xC0:  # the lead byte of a multi-byte character
            return [raw[: index + 1], raw[index + 1 :]]
    return [raw]
