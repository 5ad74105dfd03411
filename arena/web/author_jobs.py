"""The author's page's uploads (:mod:`arena.web.author`): each becomes a version built and
validated exactly as ``arena bots submit`` does it, by that very command, run by the pages'
process in a process of its own, one upload at a time, off every request.

- an upload is refused at once (nothing kept) when the bot has one waiting or being built,
  when the queue holds :data:`MAX_QUEUED` already, or when the bot uploaded
  :data:`UPLOADS_PER_HOUR` times in the last hour;
- an accepted upload is written to a private temporary folder (only its base name kept, made
  safe), and the command stores it as a version (``building``, then ``validating``, then
  ``active`` or ``refused``, each step written to the database by the command: the page shows
  where it stands); its last lines of output are kept for its author (the reason when the
  submission could not even become a version, say an archive with no entry file);
- the command gets :data:`JOB_SECONDS` at most; then, or when the pages stop, it is
  interrupted (it refuses the version, saying arena stopped while building or validating it)
  and killed :data:`STOP_GRACE` seconds later.  (It is ``arena`` with Ctrl-C's handler set
  again: the pages' process of ``arena serve --web`` ignores Ctrl-C, and a process it starts
  would inherit that.)
"""

from __future__ import annotations

import collections
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.web.author_auth import Window

#: Uploads a bot may make in an hour (each a version built and validated).
UPLOADS_PER_HOUR = 4
UPLOAD_WINDOW = 3600.0
#: Uploads waiting at most (every bot's).
MAX_QUEUED = 8
#: Seconds an upload's build and validation may take in all.
JOB_SECONDS = 900.0
#: Seconds an interrupted command gets to refuse its version (then it is killed): within
#: the pages' process's own grace (:data:`arena.web.pagesproc.STOP_GRACE`).
STOP_GRACE = 4.0
#: Bytes of the command's output kept for its author (its end).
OUTPUT_KEPT = 4096
#: ``python -c`` this: the ``arena`` command, interrupted by SIGINT whatever its parent ignores.
ARENA = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
         "from arena.cli import main; main(prog_name='arena')")
#: Where ``arena`` is, for the command when it is not installed.
PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def _absolute_place(place: str) -> str:
    """A database file as an absolute path (an upload's command runs in a folder of its own);
    a URL as it is."""
    return place if "://" in place else str(Path(place).absolute())


@attrs.frozen
class AuthorSettings:
    """What the author's page needs: the database (a file or URL), the game the validation
    series plays, the folder builds are unpacked in (``arena bots submit --builds``); a file
    and the folder are made absolute, where they were named."""

    db: str = attrs.field(converter=_absolute_place)
    game: str
    builds: Path = attrs.field(converter=lambda folder: Path(folder).absolute())

    def to_json(self) -> dict[str, Any]:
        return {"db": self.db, "game": self.game, "builds": str(self.builds)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AuthorSettings:
        return cls(str(data["db"]), str(data["game"]), Path(data["builds"]))


def safe_name(filename: str | None) -> str:
    """An upload's file name as it is written: its base name, only letters, digits, ``.``,
    ``_`` and ``-`` (the suffix says what it is: ``.py``, ``.tar.gz``, ``.zip``)."""
    base = re.split(r"[\\/]", filename or "")[-1]
    cleaned = _UNSAFE.sub("_", base).lstrip(".")
    return cleaned[:100] or "submission"


@attrs.frozen
class Upload:
    bot: str
    #: The registration's lasting identity: what its limits and last words are kept by (a
    #: name removed and registered anew is another bot).
    owner: str
    filename: str
    data: bytes = attrs.field(repr=False)
    language: str | None = None


class Uploads:
    """The queue of uploads and its worker (:meth:`run`, a task of the pages' app)."""

    def __init__(self, settings: AuthorSettings, clock: Callable[[], float] = time.monotonic,
                 command: Callable[[Upload, Path], list[str]] | None = None) -> None:
        self.settings = settings
        self.window = Window(UPLOADS_PER_HOUR, UPLOAD_WINDOW, clock)
        self._send, self._receive = trio.open_memory_channel[Upload](MAX_QUEUED)
        #: Each bot's upload waiting or running, by its owner: "waiting" or "running".
        self.pending: dict[str, str] = {}
        #: Each bot's last finished upload, by its owner: what the command said (its last
        #: lines).
        self.last: dict[str, str] = {}
        self.command = command or self.submit_command
        #: Uploads finished (tests wait on it).
        self.done = 0
        self._finished = trio.Event()

    def submit_command(self, upload: Upload, path: Path) -> list[str]:
        settings = self.settings
        return [sys.executable, "-c", ARENA, "bots", "submit", upload.bot, str(path),
                "--db", settings.db, "--game", settings.game, "--builds", str(settings.builds),
                *(["--lang", upload.language] if upload.language else [])]

    def offer(self, upload: Upload) -> str | None:
        """Queue ``upload``; why not, in a sentence (None: queued)."""
        folded = upload.owner
        if folded in self.pending:
            return ("your last upload is not built and checked yet: wait for it to be "
                    "active or refused, then upload again")
        from arena.web.author_auth import in_minutes

        wait = self.window.wait(folded)
        if wait > 0:
            return (f"{UPLOADS_PER_HOUR} uploads an hour at most: upload again in "
                    f"{in_minutes(wait)}")
        try:
            self._send.send_nowait(upload)
        except trio.WouldBlock:
            return f"{MAX_QUEUED} uploads are waiting to be built already: try in a few minutes"
        self.window.add(folded)
        self.pending[folded] = "waiting"
        return None

    async def finished(self) -> None:
        """Wait until the next upload is finished."""
        await self._finished.wait()

    async def run(self) -> None:
        """Build and check the uploads, one at a time, until cancelled."""
        async for upload in self._receive:
            folded = upload.owner
            self.pending[folded] = "running"
            try:
                self.last[folded] = await self._one(upload)
            except OSError as exc:  # no room for the file, no process could start
                self.last[folded] = f"the upload could not be built: {exc.strerror or exc}"
            finally:
                self.pending.pop(folded, None)
                self.done += 1
                self._finished.set()
                self._finished = trio.Event()

    async def _one(self, upload: Upload) -> str:
        with tempfile.TemporaryDirectory(prefix="arena-upload-") as private:
            path = Path(private) / safe_name(upload.filename)
            path.write_bytes(upload.data)
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                [str(PROJECT_ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
            output = bytearray()
            async with trio.open_nursery() as nursery:
                process = await trio.lowlevel.open_process(
                    self.command(upload, path), stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=private, env=env,
                    start_new_session=True)
                assert process.stdout is not None
                nursery.start_soon(_collect, process.stdout, output)
                try:
                    with trio.move_on_after(JOB_SECONDS) as timer:
                        await process.wait()
                finally:  # its time is up, or the pages stop
                    if process.returncode is None:
                        await _stop(process)
            lines = output.decode(errors="replace").strip().splitlines()
            said = "\n".join(collections.deque(lines, maxlen=4))
            if timer.cancelled_caught:
                return f"stopped after {JOB_SECONDS:g} s\n{said}"
            return said or f"the upload ended ({process.returncode}) without a word"


async def _collect(stream: trio.abc.ReceiveStream, into: bytearray) -> None:
    async for chunk in stream:
        into += chunk
        del into[:-OUTPUT_KEPT]


async def _stop(process: trio.Process) -> None:
    """Interrupt (the command refuses its version), then kill after :data:`STOP_GRACE`."""
    with trio.CancelScope(shield=True):
        process.send_signal(signal.SIGINT)
        with trio.move_on_after(STOP_GRACE):
            await process.wait()
        if process.returncode is None:
            process.kill()
            await process.wait()
