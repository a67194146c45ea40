"""roncho/_multipart.py, the upload's body: its exact bytes and boundary (the same upload is
always the same bytes), and what a quoted name refuses, with the error's whole text. (The
survivors of the mutation run over the module: each test here fails with one.)
"""

from __future__ import annotations

import hashlib

import pytest

import roncho
from roncho._multipart import form_data

REFUSED = "may not contain quotes, backslashes or control characters"


def test_the_body_is_exact_and_its_boundary_is_the_parts_own_hash() -> None:
    body, content_type = form_data([("peer_id", "alice")], "file", "a.txt", "text/plain", b"hi")
    field = b'Content-Disposition: form-data; name="peer_id"'
    head = (
        b'Content-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain'
    )
    boundary = (
        b"roncho-" + hashlib.sha256(field + b"alice" + head + b"hi").hexdigest()[:40].encode()
    )
    assert content_type == "multipart/form-data; boundary=" + boundary.decode()
    assert body == (
        b"--" + boundary + b"\r\n" + field + b"\r\n\r\nalice\r\n"
        b"--" + boundary + b"\r\n" + head + b"\r\n\r\nhi\r\n"
        b"--" + boundary + b"--\r\n"
    )


@pytest.mark.parametrize("bad", ["\x01", "\x1f", "\x7f", '"', "\\", "\r", "\n", "\x00"])
def test_a_control_character_quote_or_backslash_is_refused(bad: str) -> None:
    with pytest.raises(roncho.ConfigError) as info:
        form_data([], "file", f"a{bad}b.txt", "text/plain", b"")
    assert str(info.value) == f"filename {REFUSED}"


@pytest.mark.parametrize("fine", ["\x80", "é", " ", "~"])
def test_other_characters_go_out_as_utf8(fine: str) -> None:
    body, _ = form_data([], "file", f"a{fine}.txt", "text/plain", b"")
    assert b'filename="a' + fine.encode() + b'.txt"' in body


def test_a_bad_field_name_is_named_as_one() -> None:
    with pytest.raises(roncho.ConfigError) as info:
        form_data([("a\x01", "x")], "file", "a.txt", "text/plain", b"")
    assert str(info.value) == f"a form field name {REFUSED}"
    with pytest.raises(roncho.ConfigError) as info:
        form_data([], "fi\x01le", "a.txt", "text/plain", b"")
    assert str(info.value) == f"a form field name {REFUSED}"


class _FixedDigest:
    """A sha256 stand-in whose digest is known before the parts are: the one way to make
    a part that holds the boundary (with the real hash, a 160-bit preimage search)."""

    def update(self, data: bytes) -> None:
        pass

    def hexdigest(self) -> str:
        return "0" * 64


FIRST = b"roncho-" + b"0" * 40  # the boundary the stand-in gives first


@pytest.mark.parametrize(
    ("filename", "data"),
    [("a.bin", b"<" + FIRST + b">"), (FIRST.decode() + ".bin", b"")],
    ids=["in-the-file", "in-the-filename"],
)
def test_a_part_that_holds_the_boundary_gets_a_longer_one(
    monkeypatch: pytest.MonkeyPatch, filename: str, data: bytes
) -> None:
    """No "x" in any part here, so a boundary that is not FIRST grown by one "x" would show."""
    monkeypatch.setattr(hashlib, "sha256", _FixedDigest)
    body, content_type = form_data([], "file", filename, "application/octet-stream", data)
    boundary = FIRST + b"x"
    assert content_type == "multipart/form-data; boundary=" + boundary.decode()
    head = b'Content-Disposition: form-data; name="file"; filename="%s"' % filename.encode()
    assert body == (
        b"--" + boundary + b"\r\n" + head + b"\r\nContent-Type: application/octet-stream"
        b"\r\n\r\n" + data + b"\r\n--" + boundary + b"--\r\n"
    )
