"""A value of the wrong type, given to any public method of either client, is a ConfigError
that names the parameter, and nothing reaches the server.

One walk over every public method's signature (``roncho.Client`` and
``roncho.aio.AsyncClient``, the constructor included): each parameter's annotation says
which kinds it takes, and every value from a fixed list of examples that its annotation
does not take is given to it in turn, the other arguments being valid. A method added later
is walked the same way without a line here, unless it needs an argument kind this file has
no valid example for: then the walk fails and says what to add.

A batch parameter (``messages``, ``conclusions``) is walked one level down as well: each
field of its record, given a wrong value inside a one-item batch, is a ConfigError that
names the field.

The clients point at a loopback listener that counts connections. Each method is first
called with valid arguments only, which must reach the listener (so the valid examples
really are valid, and the refusals below are the wrong value's doing); the listener closes
each connection at once, so that call ends in a transport error. Then no wrong value may
open a connection at all. Python's own TypeError stays for a missing or unknown argument.
"""

from __future__ import annotations

import asyncio
import collections.abc
import inspect
import socket
import threading
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest

import roncho
from roncho import ConclusionCreate, ConfigError, MessageCreate, RonchoError
from roncho.aio import AsyncClient

CLIENTS = (roncho.Client, AsyncClient)
WAIT = 10.0  # every wait of the listener, in seconds

# What each annotation is evaluated against (the clients import their models only for
# type checking, so their annotations are strings).
NAMESPACE: dict[str, Any] = {
    **vars(typing),
    **vars(collections.abc),
    **{name: getattr(roncho, name) for name in roncho.__all__},
    "datetime": datetime,
}

# The wrong values, most telling first: a single record where a list is expected, a str
# where a list of ids or records is expected, a bool where a number is expected, and so on.
# Each parameter gets every one its annotation does not take.
RECORD = MessageCreate("owner", "hi")
EXAMPLES: tuple[object, ...] = (
    RECORD,
    "text",
    True,
    7,
    2.5,
    None,
    b"bytes",
    ["ok_1"],
    {"ok_1": "v"},
    object(),
)

# Valid values for the arguments a method requires, by annotation, and by name where the
# name asks for more than the kind (a URL, a base URL).
VALID_BY_NAME: dict[str, object] = {"url": "http://example.com/hook"}
VALID_BY_KIND: dict[object, object] = {
    str: "ok_1",
    int: 1,
    float: 1.0,
    bool: False,
    bytes: b"file bytes",
    collections.abc.Mapping: {},
    MessageCreate: [MessageCreate("owner", "hi")],
    ConclusionCreate: [ConclusionCreate("fact", "owner", "owner")],
    roncho.QueueStatus: roncho.QueueStatus(
        total_work_units=0, completed_work_units=0, in_progress_work_units=0, pending_work_units=0
    ),
}
# The records a batch holds: their fields are walked too, one record in a one-item batch.
RECORDS = (MessageCreate, ConclusionCreate)
# Arguments without which a method refuses to send at all (a rule between arguments).
VALID_EXTRA: dict[str, dict[str, object]] = {
    "set_session_peer_config": {"observe_me": True},
    "create_key": {"workspace_id": "ok_1"},
    # A list of ids or lines where the walk's valid example of the item kind is one id.
    "set_peer_card": {"card": ["a line"]},
    "add_session_peers": {"peers": {"ok_1": None}},
    "remove_session_peers": {"peer_ids": ["ok_1"]},
    "add_scope_sessions": {"session_ids": ["ok_1"]},
    "upload_file": {"content_type": "text/plain"},
}


def takes(annotation: object, value: object) -> bool:
    """Whether ``value`` is of a kind ``annotation`` allows (bool is not a number here)."""
    if annotation is Any or annotation is object:
        # Every example would be taken, so the parameter would get no wrong value at all.
        raise AssertionError(f"an argument annotated {annotation!r} has no wrong type: annotate it")
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return any(takes(member, value) for member in typing.get_args(annotation))
    if annotation is None or annotation is type(None):
        return value is None
    if annotation is bool:
        return isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if annotation is str:
        return isinstance(value, str)
    if origin in (collections.abc.Mapping, dict) or annotation is collections.abc.Mapping:
        return isinstance(value, collections.abc.Mapping)
    if origin in (collections.abc.Iterable, collections.abc.Sequence, list, tuple):
        (item,) = typing.get_args(annotation)[:1]
        return isinstance(value, (list, tuple)) and all(takes(item, v) for v in value)
    if origin is collections.abc.Callable:  # on_call: a function, or anything callable
        return callable(value)
    if isinstance(annotation, type):
        return isinstance(value, annotation)
    raise AssertionError(f"the walk does not know the annotation {annotation!r}: teach takes()")


def valid_for(method: str, name: str, annotation: object) -> object:
    if name in VALID_BY_NAME:
        return VALID_BY_NAME[name]
    origin = typing.get_origin(annotation)
    key: object = annotation
    if origin in (collections.abc.Iterable, collections.abc.Sequence, list, tuple):
        key = typing.get_args(annotation)[0]
    elif origin in (collections.abc.Mapping, dict):
        key = collections.abc.Mapping
    if key not in VALID_BY_KIND:
        raise AssertionError(
            f"no valid example for {method}({name}: {annotation!r}): add one to VALID_BY_KIND"
        )
    return VALID_BY_KIND[key]


def fields_of(record: type) -> list[Param]:
    """A record's constructor parameters, as a method's are read."""
    init: Any = vars(record)["__init__"]  # written in its own module (shown as roncho's)
    scope = {**init.__globals__, **NAMESPACE}
    return [
        Param(p.name, eval(p.annotation, scope), p.default is inspect.Parameter.empty)
        for p in inspect.signature(record).parameters.values()
    ]


def record_of(annotation: object) -> type | None:
    """The record a batch parameter holds (``Iterable[MessageCreate]``), else None."""
    if typing.get_origin(annotation) not in (collections.abc.Iterable, collections.abc.Sequence):
        return None
    (item,) = typing.get_args(annotation)
    return item if item in RECORDS else None


@dataclass
class Param:
    name: str
    annotation: object
    required: bool


def public_methods(kind: type) -> Iterator[tuple[str, list[Param]]]:
    """Every public method (and the constructor) with its parameters after ``self``."""
    for name, function in inspect.getmembers(kind, inspect.isfunction):
        if name.startswith("_") and name != "__init__":
            continue
        scope = {**function.__globals__, **NAMESPACE}
        params = [
            Param(p.name, eval(p.annotation, scope), p.default is inspect.Parameter.empty)
            for p in list(inspect.signature(function).parameters.values())[1:]
        ]
        yield name, params


class Listener:
    """A loopback listener that counts connections and closes each one at once."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(WAIT)
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    try:
        yield server
    finally:
        server.close()


async def outcome(call: Callable[..., Any], kwargs: dict[str, object]) -> BaseException | None:
    """Run one call to its end (a coroutine awaited, a walk or stream's first item taken)
    and give back what it raised."""
    try:
        result = call(**kwargs)
        if inspect.isawaitable(result):
            result = await result
        if isinstance(result, collections.abc.AsyncIterator):
            await result.__anext__()
        elif isinstance(result, collections.abc.Iterator):
            next(result)
    except (Exception, StopIteration) as exc:
        return exc
    return None


@dataclass
class Walk:
    methods: int = 0
    params: int = 0
    examples: int = 0
    record_fields: int = 0


async def walk_record(
    where: str,
    target: Callable[..., Any],
    base: dict[str, object],
    param: Param,
    record: type,
    listener: Listener,
    problems: list[str],
    counted: Walk,
) -> None:
    """Each field of the one record in ``param``'s batch, given every wrong value in turn:
    a ConfigError naming ``param[0].field`` (or the field, if the record refuses it)."""
    fields = fields_of(record)
    valid = {f.name: valid_for(record.__name__, f.name, f.annotation) for f in fields if f.required}
    for field in fields:
        counted.record_fields += 1
        wrong = [value for value in EXAMPLES if not takes(field.annotation, value)]
        if not wrong:
            problems.append(f"{where}: {record.__name__}.{field.name}: no wrong value to give")
        for value in wrong:
            counted.examples += 1
            before = listener.connections
            try:
                item = record(**{**valid, field.name: value})
            except ConfigError as refused:  # a record that checks as it is made
                got: BaseException | None = refused
            else:
                got = await outcome(target, {**base, param.name: [item]})
            said = f"{where}({param.name}=[{record.__name__}({field.name}={value!r})])"
            if listener.connections != before:
                problems.append(f"{said}: reached the server")
            elif not isinstance(got, ConfigError):
                problems.append(f"{said}: {type(got).__name__}: {got}")
            elif field.name not in str(got):
                problems.append(f"{said}: the error does not name the field: {got}")


async def walk(kind: type, listener: Listener, problems: list[str]) -> Walk:
    counted = Walk()
    for method, params in public_methods(kind):
        counted.methods += 1
        # A client of its own for each method: one of them is close().
        client = kind(listener.url, "ok_1", read_timeout=WAIT, connect_timeout=WAIT)
        target: Callable[..., Any]
        if method == "__init__":
            target = kind
            base: dict[str, object] = {"base_url": listener.url, "workspace": "ok_1"}
        else:
            target = getattr(client, method)
            base = {p.name: valid_for(method, p.name, p.annotation) for p in params if p.required}
            base.update(VALID_EXTRA.get(method, {}))
        before = listener.connections
        first = await outcome(target, base)
        reached = listener.connections - before
        if isinstance(first, ConfigError):
            problems.append(f"{kind.__name__}.{method}: valid arguments refused: {first}")
            continue
        if reached != (0 if first is None else 1):
            # A method that sends must have reached the listener, once; a local one
            # (close, a copy, the constructor) must not have.
            problems.append(f"{kind.__name__}.{method}: valid call gave {first!r}, {reached} sent")
        for param in params:
            counted.params += 1
            wrong = [value for value in EXAMPLES if not takes(param.annotation, value)]
            if not wrong:  # a parameter the walk cannot hold: it would pass whatever it took
                problems.append(f"{kind.__name__}.{method}({param.name}): no wrong value to give")
            for value in wrong:
                counted.examples += 1
                before = listener.connections
                got = await outcome(target, {**base, param.name: value})
                where = f"{kind.__name__}.{method}({param.name}={value!r})"
                if listener.connections != before:
                    problems.append(f"{where}: reached the server")
                elif not isinstance(got, ConfigError):
                    problems.append(f"{where}: {type(got).__name__}: {got}")
                elif param.name not in str(got):
                    problems.append(f"{where}: the error does not name it: {got}")
                elif got.request_sent:
                    problems.append(f"{where}: request_sent is true")
            record = record_of(param.annotation)
            if record is not None:
                where = f"{kind.__name__}.{method}"
                await walk_record(where, target, base, param, record, listener, problems, counted)
        client.close()
    return counted


@pytest.mark.parametrize("kind", CLIENTS, ids=lambda kind: kind.__name__)
def test_every_wrong_type_is_a_config_error_naming_the_parameter(
    kind: type, listener: Listener
) -> None:
    problems: list[str] = []
    counted = asyncio.run(walk(kind, listener, problems))
    assert not problems, "\n".join(problems)
    # The walk saw the whole surface: if these fall, a method was lost, not fixed.
    assert counted.methods >= 40 and counted.params >= 100 and counted.examples >= 700
    assert counted.record_fields >= 9  # both batch methods' records, every field
    print(f"{kind.__name__}: {counted}")


def test_valid_arguments_reach_the_listener(listener: Listener) -> None:
    """The guard on the walk itself: a valid call does connect (and fails only after)."""
    client = roncho.Client(listener.url, "ok_1", read_timeout=WAIT, connect_timeout=WAIT)
    with pytest.raises(RonchoError) as info:
        client.add_messages("s", [RECORD])
    assert not isinstance(info.value, ConfigError)
    assert listener.connections == 1


@pytest.mark.parametrize("kind", CLIENTS, ids=lambda kind: kind.__name__)
def test_one_message_where_a_list_is_expected_says_so(kind: type, listener: Listener) -> None:
    async def call() -> BaseException | None:
        client = kind(listener.url, "ok_1")
        one = MessageCreate("owner", "hi")
        return await outcome(client.add_messages, {"session_id": "s", "messages": one})

    error = asyncio.run(call())
    assert isinstance(error, ConfigError) and isinstance(error, ValueError)
    assert "messages" in str(error) and "[" in str(error), str(error)
    assert error.request_sent is False
    assert listener.connections == 0


@pytest.mark.parametrize("kind", CLIENTS, ids=lambda kind: kind.__name__)
def test_a_missing_or_unknown_argument_stays_a_type_error(kind: type) -> None:
    client = kind("http://127.0.0.1:9", "ok_1")
    with pytest.raises(TypeError) as missing:
        client.add_messages("s")
    with pytest.raises(TypeError) as unknown:
        client.add_messages("s", [RECORD], nonsense=1)
    assert not isinstance(missing.value, ConfigError)
    assert not isinstance(unknown.value, ConfigError)
