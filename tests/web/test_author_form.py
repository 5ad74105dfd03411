"""The author's page's form reading (:mod:`arena.web.author_form`), against hostile bodies."""

from __future__ import annotations

import pytest

from arena.web.author_form import MAX_FIELDS, FormError, multipart

CONTENT_TYPE = "multipart/form-data; boundary=a"


def body(*parts: bytes) -> bytes:
    return b"".join(b"--a\r\n" + part + b"\r\n" for part in parts) + b"--a--\r\n"


def test_a_form_of_a_few_fields_is_read():
    fields = multipart(CONTENT_TYPE, body(
        b'Content-Disposition: form-data; name="form_token"\r\n\r\nxyz',
        b'Content-Disposition: form-data; name="file"; filename="main.py"\r\n\r\nprint(1)'))
    assert fields == {"form_token": (None, b"xyz"), "file": ("main.py", b"print(1)")}


@pytest.mark.parametrize("named", [False, True])
def test_a_form_of_many_parts_is_refused_before_they_are_parsed(named: bool):
    """An upload's 16 MB cut in a million tiny parts (nameless, or all of one name: neither
    adds a field) would hold the pages' process parsing their headers for tens of seconds,
    every other page waiting: more parts than fields a form may have are refused at once."""
    part = b'Content-Disposition: form-data; name="x"\r\n\r\n' if named else b"X: y\r\n\r\n"
    with pytest.raises(FormError, match="too many"):
        multipart(CONTENT_TYPE, body(*[part] * (MAX_FIELDS + 1)))
    assert multipart(CONTENT_TYPE, body(*[part] * MAX_FIELDS)) == (
        {"x": (None, b"")} if named else {})
