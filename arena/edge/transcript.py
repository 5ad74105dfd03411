"""Transcripts: every line a connection exchanged, as it went, for a bot author to debug with.

One text file per connection in the transcript folder, ``<number>-<name>.txt`` (the name is
added once the bot said hello), one line per protocol line::

    # arena transcript of connection 3 from 127.0.0.1, opened 2026-12-01T10:00:00+0000
    +0.000412 > {"type":"welcome",...}
    +0.001907 < {"type":"hello","name":"mybot"}
    +0.002230 > {"type":"game_start",...}

``>`` is what the server sent, ``<`` what the bot sent, after the seconds since the connection
opened.  A line over the size limit is not copied (``< (a line of more than N bytes,
dropped)``).  The ``token`` of a hello is masked: a transcript can be shared.  Files are line
buffered: what was exchanged is on disk even if the server is killed.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import TextIO

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_TOKEN = re.compile(rb'"token"\s*:\s*"(?:[^"\\]|\\.)*"')


class Transcript:
    def __init__(self, folder: Path, number: int, address: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{number}.txt"
        self.number = number
        self._file: TextIO = open(  # noqa: SIM115 (kept open for the connection's life)
            self.path, "w", encoding="utf-8", buffering=1)
        self._opened = time.monotonic()
        self._file.write(f"# arena transcript of connection {number} from {address}, opened "
                         f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')}\n")

    def _line(self, direction: str, text: str) -> None:
        if not self._file.closed:
            self._file.write(f"+{time.monotonic() - self._opened:.6f} {direction} {text}\n")

    def sent(self, data: bytes) -> None:
        for line in data.decode("utf-8", "replace").splitlines():
            self._line(">", line)

    def received(self, line: bytes | None, max_line: int) -> None:
        if line is None:
            self._line("<", f"(a line of more than {max_line} bytes, dropped)")
            return
        masked = _TOKEN.sub(b'"token":"***"', line)
        self._line("<", masked.decode("utf-8", "replace"))

    def named(self, name: str) -> None:
        """The bot said hello as ``name``: the file is renamed to show it."""
        safe = _UNSAFE.sub("_", name)[:60] or "bot"
        target = self.path.with_name(f"{self.number}-{safe}.txt")
        try:
            self.path.rename(target)
            self.path = target
        except OSError:
            self._line("#", f"named {json.dumps(name)}")

    def close(self) -> None:
        if not self._file.closed:
            self._line("#", "closed")
            self._file.close()
