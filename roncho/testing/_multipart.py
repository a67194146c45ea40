"""`multipart/form-data` bodies for the file-upload route, parsed with the standard library.

The server reads the form with Starlette (FastAPI `Form`/`File`); the emulator only needs the
named text fields and one file part with its filename, content type and bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from email import policy
from email.parser import BytesParser


@dataclass(frozen=True, slots=True)
class FilePart:
    filename: str
    content_type: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Form:
    fields: dict[str, str]
    files: dict[str, FilePart]


def parse_form(content_type: str, body: bytes) -> Form | None:
    """The parts of a multipart/form-data body; None when it is not one (or has no boundary)."""
    if "boundary=" not in content_type:
        return None
    if not content_type.lower().startswith("multipart/form-data"):
        return None
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode("latin-1")
    message = BytesParser(policy=policy.HTTP).parsebytes(head + body)
    if not message.is_multipart():
        return None
    fields: dict[str, str] = {}
    files: dict[str, FilePart] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        filename = part.get_filename()
        if filename is not None:
            kind = part.get("Content-Type")
            files[name] = FilePart(filename, str(kind) if kind else "", data)
        else:
            fields[name] = data.decode("utf-8", errors="replace")
    return Form(fields, files)
