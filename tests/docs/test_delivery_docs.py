"""What docs/api.md and docs/delivery.md say of `sync_batch`, held to the code.

Why: these two pages describe the delivery add-on by hand (it is not exported from `roncho`,
so the generated tables do not list it); a changed default or a new field would leave them
behind without a test that reads them.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from roncho import delivery
from roncho.aio import delivery as aio_delivery

DOCS = Path(__file__).resolve().parents[2] / "docs"
SIGNATURE = re.compile(r"`(?:roncho\.delivery\.)?sync_batch\((client, [^)]*)\)")


def _written(page: str) -> list[str]:
    text = " ".join(DOCS.joinpath(page).read_text(encoding="utf-8").split())
    return [m[1] for m in SIGNATURE.finditer(text) if "*" in m[1]]


def _code(function: object) -> str:
    parts = []
    for name, parameter in inspect.signature(function).parameters.items():  # type: ignore[arg-type]
        if parameter.kind is parameter.KEYWORD_ONLY and "*" not in parts:
            parts.append("*")
        default = parameter.default
        if default is parameter.empty:
            parts.append(name)
        else:
            shown = f'"{default}"' if isinstance(default, str) else repr(default)
            parts.append(f"{name}={shown}")
    return ", ".join(parts)


def test_both_pages_give_the_signature_the_code_has() -> None:
    code = _code(delivery.sync_batch)
    assert _code(aio_delivery.sync_batch) == code
    for page in ("api.md", "delivery.md"):
        written = _written(page)
        assert written, f"docs/{page} no longer spells out sync_batch's signature"
        assert set(written) == {code}, page


def test_api_md_names_every_field_of_the_delivery_record() -> None:
    text = " ".join(DOCS.joinpath("api.md").read_text(encoding="utf-8").split())
    section = text[text.index("## Delivery") : text.index("## Models")]
    said = re.search(r"`Delivery` record: (.*?); a look", section)
    assert said
    assert re.findall(r"`(\w+)`", said[1])[: len(delivery.Delivery.__slots__)] == list(
        delivery.Delivery.__slots__
    )
