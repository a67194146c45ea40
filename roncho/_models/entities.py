"""Workspaces, peers, sessions and webhook endpoints (the named things a workspace holds), a
peer's configuration inside one session, a page of any list, and the answers of the health
check and of a delete."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from .._decode import JSON, Fields
from .._errors import ConfigError
from .._record import Record, store

T = TypeVar("T")


class Workspace(Record):
    """A workspace: the unit a key is scoped to. ``created`` is set only by get-or-create."""

    id: str
    metadata: JSON  # default: {}
    configuration: JSON  # default: {}
    created_at: str | None  # default: None
    created: bool | None  # default: None
    """True when get-or-create made it (201), False when it existed (200), else None."""

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("id", "metadata", "configuration", "created_at", "created")

    def __init__(
        self,
        *,
        id: str,
        metadata: JSON | None = None,
        configuration: JSON | None = None,
        created_at: str | None = None,
        created: bool | None = None,
    ) -> None:
        store(self, "id", id)
        store(self, "metadata", {} if metadata is None else metadata)
        store(self, "configuration", {} if configuration is None else configuration)
        store(self, "created_at", created_at)
        store(self, "created", created)

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str, created: bool | None = None) -> Workspace:
        f = Fields(data, op, "workspace")
        return cls(
            id=f.text("id"),
            metadata=f.opt_obj("metadata"),
            configuration=f.opt_obj("configuration"),
            created_at=f.opt_text("created_at"),
            created=created,
        )


class Peer(Record):
    """A participant (user, agent) whose messages can be observed and reasoned about."""

    id: str
    metadata: JSON  # default: {}
    configuration: JSON  # default: {}
    created_at: str | None  # default: None
    created: bool | None  # default: None
    """True when get-or-create made it (201), False when it existed (200), else None."""
    workspace_id: str | None  # default: None

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("id", "metadata", "configuration", "created_at", "created", "workspace_id")

    def __init__(
        self,
        *,
        id: str,
        metadata: JSON | None = None,
        configuration: JSON | None = None,
        created_at: str | None = None,
        created: bool | None = None,
        workspace_id: str | None = None,
    ) -> None:
        store(self, "id", id)
        store(self, "metadata", {} if metadata is None else metadata)
        store(self, "configuration", {} if configuration is None else configuration)
        store(self, "created_at", created_at)
        store(self, "created", created)
        store(self, "workspace_id", workspace_id)

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str, created: bool | None = None) -> Peer:
        f = Fields(data, op, "peer")
        return cls(
            id=f.text("id"),
            metadata=f.opt_obj("metadata"),
            configuration=f.opt_obj("configuration"),
            created_at=f.opt_text("created_at"),
            created=created,
            workspace_id=f.opt_text("workspace_id"),
        )


class Session(Record):
    """A conversation; ``is_active`` turns false at once when it is deleted."""

    id: str
    metadata: JSON  # default: {}
    configuration: JSON  # default: {}
    created_at: str | None  # default: None
    created: bool | None  # default: None
    """True when get-or-create made it (201), False when it existed (200), else None."""
    workspace_id: str | None  # default: None
    is_active: bool  # default: True

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = (
        "id",
        "metadata",
        "configuration",
        "created_at",
        "created",
        "workspace_id",
        "is_active",
    )

    def __init__(
        self,
        *,
        id: str,
        metadata: JSON | None = None,
        configuration: JSON | None = None,
        created_at: str | None = None,
        created: bool | None = None,
        workspace_id: str | None = None,
        is_active: bool = True,
    ) -> None:
        store(self, "id", id)
        store(self, "metadata", {} if metadata is None else metadata)
        store(self, "configuration", {} if configuration is None else configuration)
        store(self, "created_at", created_at)
        store(self, "created", created)
        store(self, "workspace_id", workspace_id)
        store(self, "is_active", is_active)

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str, created: bool | None = None) -> Session:
        f = Fields(data, op, "session")
        return cls(
            id=f.text("id"),
            metadata=f.opt_obj("metadata"),
            configuration=f.opt_obj("configuration"),
            created_at=f.opt_text("created_at"),
            created=created,
            workspace_id=f.opt_text("workspace_id"),
            is_active=f.opt_flag("is_active") is not False,  # absent or null: active
        )


class WebhookEndpoint(Record):
    """A URL the server posts a workspace's events to (``roncho.webhooks`` reads them)."""

    id: str
    url: str
    workspace_id: str | None  # default: None
    created_at: str | None  # default: None
    created: bool | None  # default: None
    """True when get-or-create made it (201), False when the URL was registered (200), else
    None (a list)."""

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("id", "url", "workspace_id", "created_at", "created")

    def __init__(
        self,
        *,
        id: str,
        url: str,
        workspace_id: str | None = None,
        created_at: str | None = None,
        created: bool | None = None,
    ) -> None:
        store(self, "id", id)
        store(self, "url", url)
        store(self, "workspace_id", workspace_id)
        store(self, "created_at", created_at)
        store(self, "created", created)

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str, created: bool | None = None) -> WebhookEndpoint:
        f = Fields(data, op, "webhook endpoint")
        return cls(
            id=f.text("id"),
            url=f.text("url"),
            workspace_id=f.opt_text("workspace_id"),
            created_at=f.opt_text("created_at"),
            created=created,
        )


class SessionPeerConfig(Record):
    """A peer's observation switches inside one session; None means "not set here"."""

    observe_me: bool | None  # default: None
    observe_others: bool | None  # default: None

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("observe_me", "observe_others")
    # END GENERATED record

    def __init__(
        self, *, observe_me: bool | None = None, observe_others: bool | None = None
    ) -> None:
        for name, value in (("observe_me", observe_me), ("observe_others", observe_others)):
            # Not ``in (None, True, False)``: 1 == True, and 1 would be sent as 1.
            if value is not None and not isinstance(value, bool):
                raise ConfigError(f"{name} must be True, False or None")
        store(self, "observe_me", observe_me)
        store(self, "observe_others", observe_others)

    def to_json(self) -> JSON:
        return {"observe_me": self.observe_me, "observe_others": self.observe_others}

    @classmethod
    def from_json(cls, data: object, op: str) -> SessionPeerConfig:
        f = Fields(data, op, "session peer config")
        return cls(observe_me=f.opt_flag("observe_me"), observe_others=f.opt_flag("observe_others"))


class Page(Record, Generic[T]):
    """One page of a list; ``pages`` is 0 when ``total`` is 0."""

    items: tuple[T, ...]
    total: int
    page: int
    size: int
    pages: int

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("items", "total", "page", "size", "pages")

    def __init__(
        self, *, items: tuple[T, ...], total: int, page: int, size: int, pages: int
    ) -> None:
        store(self, "items", items)
        store(self, "total", total)
        store(self, "page", page)
        store(self, "size", size)
        store(self, "pages", pages)

    # END GENERATED record

    @classmethod
    def decode(cls, data: object, op: str, item: Callable[[object, str], T]) -> Page[T]:
        """A page whose items are each decoded by ``item`` (a model's ``from_json``)."""
        f = Fields(data, op, "page")
        items = f.data.get("items")
        if not isinstance(items, list):
            raise f.fail("items", "an array")
        return cls(
            items=tuple([item(entry, op) for entry in items]),
            total=f.integer("total"),
            page=f.integer("page"),
            size=f.integer("size"),
            pages=f.integer("pages"),
        )


class Health(Record):
    """``GET /health``. Honcho 3.2 reveals no version here (nor in any header)."""

    status: str

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("status",)

    def __init__(self, *, status: str) -> None:
        store(self, "status", status)

    # END GENERATED record

    @property
    def ok(self) -> bool:
        """The server answered ``{"status": "ok"}``."""
        return self.status == "ok"

    @classmethod
    def from_json(cls, data: object, op: str) -> Health:
        return cls(status=Fields(data, op, "health").text("status"))


class DeleteAccepted(Record):
    """A 202 for a session or workspace delete: accepted, purged later in the background."""

    message: str | None  # default: None

    # BEGIN GENERATED record (scripts/render_records.py)
    __slots__ = ("message",)

    def __init__(self, *, message: str | None = None) -> None:
        store(self, "message", message)

    # END GENERATED record

    @classmethod
    def from_json(cls, data: object, op: str) -> DeleteAccepted:
        if data is None:
            return cls()
        return cls(message=Fields(data, op, "delete answer").opt_text("message"))
