"""Request numbering over one connection, and the answer to an action whose request is closed.

A protocol rule, kept here: each connection numbers the requests sent over it 1, 2, 3, ...;
an answer naming an id that was sent there and is closed gets ``stale_request`` (it costs
nothing), one naming an id never sent there gets ``wrong_request_id``.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import Error


class RequestCounter:
    """Numbers the requests sent over one connection: 1, 2, 3, ...  An id from 1 to
    ``newest`` was sent there; any other id never was."""

    __slots__ = ("newest",)

    def __init__(self) -> None:
        self.newest = 0

    def next_id(self) -> int:
        self.newest += 1
        return self.newest

    def was_sent(self, request_id: int) -> bool:
        return 1 <= request_id <= self.newest


def notice_for_closed(counter: RequestCounter, request_id: int) -> Error:
    """The answer to an action whose request is not open: ``stale_request`` (costs nothing)
    if that id was sent over this connection, else ``wrong_request_id``."""
    if counter.was_sent(request_id):
        return Error(code=ErrorCode.STALE_REQUEST.value, id=request_id,
                     message=f"request {request_id} is closed; the answer was ignored")
    return Error(code=ErrorCode.WRONG_REQUEST_ID.value,
                 message=f"request {request_id} was never sent to you; none is open")
