"""A request's body read up to a limit, and a ``multipart/form-data`` body split into its
fields (the author's page's upload), with the standard library only.

The body is counted as it arrives: a ``Content-Length`` over the limit is refused before a
byte is read, and a body that grows past it (no length said, or a false one) is refused as
soon as it does, so no upload holds more than the limit in memory."""

from __future__ import annotations

import email.message
import email.parser
import email.policy

from starlette.requests import Request

#: Fields (parts) a form may have at most.
MAX_FIELDS = 8


class FormError(ValueError):
    """A body that cannot be read as the form it should be (``status``: the HTTP status)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def too_big(limit: int) -> FormError:
    return FormError(f"the upload is more than {limit} bytes (the limit of a submission, with "
                     "the form around it)", 413)


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, :class:`FormError` (413) past ``limit`` bytes."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise too_big(limit)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_big(limit)
    return bytes(body)


def _boundary(content_type: str) -> bytes:
    header = email.message.EmailMessage()
    header["content-type"] = content_type
    boundary = header.get_param("boundary") if header.get_content_type() == \
        "multipart/form-data" else None
    if not isinstance(boundary, str) or not boundary or len(boundary) > 200:
        raise FormError("an upload is sent as multipart/form-data (the page's form)")
    return boundary.encode("latin-1", errors="replace")


def multipart(content_type: str, body: bytes) -> dict[str, tuple[str | None, bytes]]:
    """Each field of a ``multipart/form-data`` body: name -> (its file name or None, its
    bytes); the first of a name is kept.  :class:`FormError` when it is not such a body."""
    delimiter = b"--" + _boundary(content_type)
    pieces = body.split(delimiter)
    if len(pieces) < 3 or not pieces[-1].startswith(b"--"):
        raise FormError("the form is cut short or not a form")
    if len(pieces) - 2 > MAX_FIELDS:  # before any is parsed: a million tiny parts take long
        raise FormError("the form has too many fields")
    fields: dict[str, tuple[str | None, bytes]] = {}
    for piece in pieces[1:-1]:
        if not piece.startswith(b"\r\n") or not piece.endswith(b"\r\n"):
            raise FormError("the form is not well formed")
        head, blank, content = piece[2:-2].partition(b"\r\n\r\n")
        if not blank:
            raise FormError("the form is not well formed")
        headers = email.parser.BytesHeaderParser(policy=email.policy.HTTP).parsebytes(
            head + b"\r\n\r\n")
        name = headers.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        if name not in fields:
            fields[name] = (headers.get_filename(), content)
        if len(fields) > MAX_FIELDS:
            raise FormError("the form has too many fields")
    return fields
