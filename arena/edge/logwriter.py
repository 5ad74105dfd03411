"""Log writing: finished games' logs go to disk, and are synced there in batches.

A log that cannot be written now (a full disk) is kept and tried again after every game and
at shutdown; what is left at the end is reported (``unwritten``).  While games run, their logs
are compressed and spooled a batch at a time in one worker thread (:func:`log_spooler`), off
the event loop.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import trio

from arena.gameplay.gamelog import GameLog, sync_logs

log = logging.getLogger("arena.server")

#: Seconds between syncs of finished logs to disk (a batch in a worker thread).
LOG_SYNC_SECONDS = 0.2

_spooler: ThreadPoolExecutor | None = None
_spooler_made = threading.Lock()


def log_spooler() -> ThreadPoolExecutor:
    """The process's one thread that compresses and spools running games' logs (batches in
    the order given; zlib lets go of the interpreter while it compresses, so the event loop
    goes on meanwhile)."""
    global _spooler
    with _spooler_made:
        if _spooler is None:
            _spooler = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-log-spool")
        return _spooler


class LogWriter:
    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        #: Logs are synced to disk as they are written (until :meth:`sync_forever` runs).
        self.syncing = True
        self._unsynced: list[Path] = []  # logs written and not yet synced
        self._unsynced_lot = trio.lowlevel.ParkingLot()
        #: Finished games whose log could not be written yet (a full disk).
        self.unwritten: list[GameLog] = []
        #: Where running games' logs are compressed and spooled (see :func:`log_spooler`).
        self.spooler = log_spooler()

    def write(self) -> dict[int, Path]:
        """Write every finished game's log not written yet; returns where each went (by the
        log's id).  A log that cannot be written now stays queued (never half written)."""
        written: dict[int, Path] = {}
        waiting = []
        for game_log in self.unwritten:
            try:
                written[id(game_log)] = game_log.write(self.log_dir, sync=self.syncing)
            except Exception as exc:
                if game_log.write_failure is None:  # one line per log, not one per retry
                    game_log.write_failure = (exc.strerror if isinstance(exc, OSError)
                                              else None) or repr(exc)
                    log.warning("game log %s could not be written to %s: %s; it is kept and "
                                "tried again after the next game", game_log.name,
                                self.log_dir, game_log.write_failure,
                                exc_info=not isinstance(exc, OSError))  # else: our bug
                waiting.append(game_log)
        self.unwritten = waiting
        if not self.syncing and written:
            self._unsynced.extend(written.values())
            self._unsynced_lot.unpark_all()
        return written

    async def sync_forever(self) -> None:
        """Sync finished logs to disk in a worker thread, a batch every
        :data:`LOG_SYNC_SECONDS` (a file's sync takes milliseconds that no table should wait
        for); at the end, whatever is left is synced before the server returns."""
        self.syncing = False
        try:
            while True:
                while not self._unsynced:
                    await self._unsynced_lot.park()
                await trio.sleep(LOG_SYNC_SECONDS)
                batch, self._unsynced = self._unsynced, []
                await trio.to_thread.run_sync(sync_logs, batch)
        finally:
            self.syncing = True  # from now on every log is synced as it is written
            sync_logs(self._unsynced)
            self._unsynced = []

    def last_try(self) -> None:
        """At shutdown: a last try for logs a full disk held back; the rest are lost, and
        their parts must not keep the disk full."""
        self.write()
        for game_log in self.unwritten:
            game_log.discard()
