"""Split a byte stream into lines, each at most ``max_line`` bytes.

Only splitting happens here, no decoding.  A line ends at ``\\n``; a ``\\r`` before it is
dropped; blank lines are skipped.  When more than ``max_line`` bytes arrive without a newline,
:data:`TOO_LONG` is returned once and the rest of that line is discarded up to its newline, so
memory stays bounded whatever the peer sends.
"""

from __future__ import annotations

from protocol.limits import MAX_LINE_BYTES


class _TooLong:
    def __repr__(self) -> str:
        return "TOO_LONG"


#: Returned by :meth:`LineBuffer.next_line` in place of a line that was too long.
TOO_LONG = _TooLong()


class LineBuffer:
    __slots__ = ("max_line", "_data", "_scanned", "_discarding")

    def __init__(self, max_line: int = MAX_LINE_BYTES) -> None:
        self.max_line = max_line
        self._data = bytearray()
        self._scanned = 0  # bytes of _data already known to hold no newline
        self._discarding = False  # inside a too-long line, dropping bytes up to its newline

    def feed(self, data: bytes) -> None:
        self._data += data

    def next_line(self) -> bytes | _TooLong | None:
        """The next complete line (without its newline), :data:`TOO_LONG`, or ``None`` when
        no complete line is buffered yet."""
        if not self._data:  # the common case after a line was taken (nothing scanned then)
            return None
        while True:
            end = self._data.find(b"\n", self._scanned)
            if end < 0:
                if self._discarding:
                    self._data.clear()
                    self._scanned = 0
                    return None
                self._scanned = len(self._data)
                # a line of max_line bytes may still be waiting for the LF after its CR
                crlf_pending = (self._scanned == self.max_line + 1
                                and self._data.endswith(b"\r"))
                if self._scanned > self.max_line and not crlf_pending:
                    self._discarding = True
                    self._data.clear()
                    self._scanned = 0
                    return TOO_LONG
                return None
            line = bytes(memoryview(self._data)[:end])  # one copy, not two
            del self._data[: end + 1]
            self._scanned = 0
            if self._discarding:  # the tail of a line already reported as too long
                self._discarding = False
                continue
            if line.endswith(b"\r"):
                line = line[:-1]
            if len(line) > self.max_line:
                return TOO_LONG
            if not line or line.isspace():  # blank (as strip() would leave nothing)
                continue
            return line

    def take_rest(self) -> bytes:
        """Every byte held and not yet returned as a line; the buffer is then empty (a
        connection handed over to another reads them next)."""
        rest = b"" if self._discarding else bytes(self._data)
        self._data.clear()
        self._scanned = 0
        self._discarding = False
        return rest

    @property
    def buffered(self) -> int:
        """Bytes held (a bound check for tests: never much above ``max_line``)."""
        return len(self._data)
