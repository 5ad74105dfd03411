"""The JSON Lines record of one game (format described in SPEC.md, "Game logs"), written
gzip-compressed (``.jsonl.gz``) unless asked for plain text (``.jsonl``); the readers here
read both.

One JSON object per line, in the order things happened: a ``header`` (game, options, seed,
seating), every ``event`` with its audience (so the full deal is there), every ``action`` with
the seat, the request id, the milliseconds it took and who chose it (``bot`` or ``default``,
with the reason), ``error`` and ``note`` lines, and finally a ``result`` or an ``aborted`` line.
``arena replay`` needs nothing else.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import json
import os
import zlib
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Protocol

from arena.games.base import GameEvent, Result
from protocol.codec import quote_json as _quote
from protocol.codec import to_json
from protocol.errors import ErrorCode

#: 2: seeds draw through arena.games.chance (other deals than format 1), ``names`` header.
#: 3: every request is logged as sent (the audit trail); an answered request must be there.
LOG_FORMAT = 3
#: Formats ``arena replay`` reads (2 has no audit trail to check).
READABLE_FORMATS = (2, 3)
#: Lines a game's log gathers in memory before they go to its ``.part`` file (about 25 KB: a
#: chochlik game spools twice or three times; each batch costs the spooler's thread and the event
#: loop hand-overs of the interpreter, so fewer, larger batches leave the loop more time).
SPOOL_LINES = 256
#: zlib's level for compressed logs (benchmarks/log_size.py measures the levels).
COMPRESS_LEVEL = 6
#: zlib's window bits for a gzip stream (what ``gzip``/``zcat`` read).
GZIP_WBITS = 16 + zlib.MAX_WBITS
#: A gzip file's first two bytes: how readers tell a compressed log from a plain one.
GZIP_MAGIC = b"\x1f\x8b"


class Spooler(Protocol):
    """Runs the batches of logs in a thread of its own, in the order given, one at a time
    (a ``concurrent.futures.ThreadPoolExecutor`` with one worker)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any]: ...


class GameLog:
    """A game's log as it is written: lines of JSON text, in order, gzip-compressed unless
    ``compress`` is false (then plain ``.jsonl``).

    Once :meth:`spool_to` names a folder, the lines go to ``<name>.part`` there every
    :data:`SPOOL_LINES` lines, so a long game costs memory only for what is in flight;
    :meth:`write` adds the rest, syncs, and renames the file to ``<name>``.  Compressed, each
    batch is a gzip member of its own (a gzip file may hold several, one after another: ``gzip``,
    ``zcat`` and Python's :mod:`gzip` read them as one text), so what is in the ``.part`` file
    decompresses, a killed server's ``.part`` can be read up to its last batch, and a running
    game holds no compressor between batches.  What cannot be spooled (a full disk) stays in
    memory and is tried again later; the ``.part`` file never keeps half a batch.

    With a :class:`Spooler` (``spool_to``), a batch is compressed and spooled in the spooler's
    thread, off the caller's (a server's event loop): the bytes are the same, batch for batch;
    whatever reads or ends the log (:attr:`records`, :meth:`write`, :meth:`discard`) waits for
    the batches handed over first.
    """

    def __init__(self, header: dict[str, Any], *, compress: bool = True) -> None:
        self.header = header
        self._lines: list[str] = [to_json(header) + "\n"]  # not spooled yet
        self._folder: Path | None = None
        self._spooled = 0  # bytes of whole batches in the .part file
        self.compressed = compress
        self._pending = b""  # encoded (compressed) bytes the .part file does not hold yet
        #: Why the log could not be written the first time it failed (None: it never did);
        #: the server reports a log's failure once, not at every retry.
        self.write_failure: str | None = None
        self._discarded = False
        self._spooler: Spooler | None = None
        self._spooling: Future[Any] | None = None  # the last batch handed to the spooler
        self._broken: Exception | None = None  # what went wrong in the spooler (our bug)

    @classmethod
    def begin(cls, *, compress: bool = True, **header: Any) -> GameLog:
        return cls({"type": "header", "format": LOG_FORMAT, **header}, compress=compress)

    @property
    def name(self) -> str:
        return (f"{self.header['game']}-{self.header['game_id']}.jsonl"
                + (".gz" if self.compressed else ""))

    @property
    def records(self) -> list[dict[str, Any]]:
        """Every record so far, parsed (for spectators who join late, and for tests: the
        server itself never reads a log back)."""
        self._settle()
        data = self._pending
        if self._folder is not None and self._spooled:
            with open(self._folder / (self.name + ".part"), "rb") as spooled:
                data = spooled.read(self._spooled) + data
        if self.compressed:
            data = gzip.decompress(data)  # one gzip member a batch
        text = data.decode("utf-8") + "".join(self._lines)
        return [json.loads(line) for line in text.splitlines()]

    def spool_to(self, directory: str | os.PathLike[str], *,
                 compress: bool | None = None, spooler: Spooler | None = None) -> None:
        """Write the lines to ``directory`` as the game goes (see the class); ``compress``,
        when given, chooses gzip or plain text (before anything is spooled); ``spooler``:
        batches are compressed and written in its thread."""
        self._settle()
        self._spooler = spooler
        if compress is not None and compress != self.compressed:
            assert not self._spooled and not self._pending, "the log is being written"
            self.compressed = compress
        self._folder = Path(directory)

    def add(self, line: str) -> None:
        """A record already encoded as one line of JSON text (newline included)."""
        self._lines.append(line)
        if self._folder is not None and len(self._lines) >= SPOOL_LINES:
            if self._spooler is not None:
                batch, self._lines = self._lines, []
                self._spooling = self._spooler.submit(self._spool_batch, batch)
                return
            with contextlib.suppress(OSError):  # kept in memory; tried again later, and at the end
                self._spool()

    def _spool_batch(self, batch: list[str]) -> None:
        """In the spooler's thread: a batch compressed and spooled (as :meth:`_spool`; it
        touches only what the caller's thread leaves alone until :meth:`_settle`)."""
        if self._broken is not None:
            return
        try:
            self._compress(batch)
            with contextlib.suppress(OSError):  # kept in memory; tried again later, and at the end
                self._write_pending()
        except Exception as exc:  # our bug: a batch is lost, so the log is never written
            self._broken = exc

    def _settle(self) -> None:
        """Wait until the spooler has done every batch handed to it (they run in order); a
        batch it lost (our bug) makes every later use of the log fail, never a log with a
        hole."""
        spooling, self._spooling = self._spooling, None
        if spooling is not None:
            spooling.result()
        if self._broken is not None:
            raise self._broken

    def _append(self, record: dict[str, Any]) -> None:
        self.add(to_json(record) + "\n")

    def _encode(self) -> None:
        """Move the lines in flight to the bytes pending (compressed: a gzip member)."""
        lines, self._lines = self._lines, []
        self._compress(lines)

    def _compress(self, lines: list[str]) -> None:
        """``lines`` as bytes pending: compressed, one whole gzip member of their own, made by
        a compressor that lives only for them (a running game holds no compressor, whose
        window and tables are about 73 KiB once warm)."""
        data = "".join(lines).encode("utf-8")
        if not self.compressed:
            self._pending += data
            return
        compressor = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, GZIP_WBITS)
        self._pending += compressor.compress(data) + compressor.flush(zlib.Z_FINISH)

    def _spool(self) -> None:
        assert self._folder is not None
        if self._lines:
            self._encode()
        self._write_pending()

    def _write_pending(self) -> None:
        """Append the bytes pending to the ``.part`` file (all of them, or none)."""
        assert self._folder is not None
        if not self._spooled:
            self._folder.mkdir(parents=True, exist_ok=True)
        data = self._pending
        # three system calls (a file object costs two more: its status, a seek), each a
        # hand-over of the interpreter between the spooler's thread and the server's
        part = os.open(os.path.join(self._folder, self.name + ".part"),
                       os.O_WRONLY | (0 if self._spooled else os.O_CREAT | os.O_TRUNC), 0o666)
        try:
            view, offset = memoryview(data), self._spooled
            while view:  # a write may take only part of it
                written = os.pwrite(part, view, offset)
                if not written:
                    raise OSError(errno.EIO, "the log's .part file took no bytes")
                view, offset = view[written:], offset + written
        except OSError:
            os.ftruncate(part, self._spooled)  # never half a batch
            raise
        finally:
            os.close(part)
        self._spooled += len(data)
        self._pending = b""

    def discard(self) -> None:
        """Give the log up (it cannot be written and the server stops): its ``.part`` file
        goes, so that it does not keep a full disk full; it can no longer be written."""
        with contextlib.suppress(Exception):  # what the spooler did is given up anyway
            self._settle()
        self._discarded = True
        self._lines = []
        self._pending = b""
        if self._folder is not None:
            with contextlib.suppress(OSError):
                (self._folder / (self.name + ".part")).unlink(missing_ok=True)
        self._spooled = 0

    def event(self, event: GameEvent, data_json: str | None = None) -> None:
        """An event with its audience; ``data_json``: its data already encoded (as sent)."""
        audience = None if event.audience is None else sorted(event.audience)
        if data_json is None:
            data_json = to_json(event.data)
        self.add(f'{{"type":"event","kind":{_quote(event.kind)},"data":{data_json},'
                 f'"to":{"null" if audience is None else to_json(audience)}}}\n')

    def request(self, seat: int, request_id: int, legal: tuple[str, ...], digest: str,
                legal_json: str | None = None) -> None:
        """A request as sent: its legal list (``legal_json``: as JSON text already) and the
        digest of its observation."""
        if legal_json is None:
            legal_json = to_json(list(legal))
        self.add(f'{{"type":"request","seat":{seat},"id":{request_id},'
                 f'"legal":{legal_json},"observation":"{digest}"}}\n')

    def action(self, seat: int, action: str, request_id: int | None, ms: int, *, by: str,
               reason: str | None = None, decision: str | None = None,
               limit: str | None = None, bank_ms: int | None = None) -> None:
        # strings quoted as JSON does (encode_basestring, C), ints formatted as JSON writes
        # them (they are never bools here): the text to_json would give, without its calls
        line = (f'{{"type":"action","seat":{seat},"action":{_quote(action)},'
                f'"id":{"null" if request_id is None else request_id},"ms":{ms},'
                f'"by":{_quote(by)}')
        if reason is not None:
            line += f',"reason":{_quote(reason)}'
        if decision is not None:
            text = _quote(decision) if type(decision) is str else to_json(decision)
            line += f',"decision":{text}'
        if limit is not None:
            line += f',"limit":{_quote(limit)}'
        if bank_ms is not None:
            line += f',"bank_ms":{bank_ms}'
        self.add(line + "}\n")

    def bot_action(self, seat: int, action: str, request_id: int, ms: int,
                   decision: str | None, bank_ms: int | None) -> None:
        """``action(seat, action, request_id, ms, by="bot", decision=..., bank_ms=...)``: the
        same line, made with fewer calls (a bot's answer is logged at every decision)."""
        line = (f'{{"type":"action","seat":{seat},"action":{_quote(action)},'
                f'"id":{request_id},"ms":{ms},"by":"bot"')
        if decision is not None:
            text = _quote(decision) if type(decision) is str else to_json(decision)
            line += f',"decision":{text}'
        if bank_ms is not None:
            line += f',"bank_ms":{bank_ms}'
        self.add(line + "}\n")

    def error(self, seat: int, code: ErrorCode, request_id: int | None, detail: str) -> None:
        self._append({"type": "error", "seat": seat, "code": code.value,
                      "id": request_id, "detail": detail[:200]})

    def note(self, seat: int, what: str) -> None:
        self._append({"type": "note", "seat": seat, "what": what})

    def result(self, result: Result) -> None:
        self._append({"type": "result", "scores": list(result.scores),
                      "ranks": list(result.ranks), "winners": list(result.winners),
                      "reveal": result.reveal, "rounds": result.rounds})

    def aborted(self, reason: str) -> None:
        self._append({"type": "aborted", "reason": reason})

    def write(self, directory: str | os.PathLike[str] | None = None, *,
              sync: bool = True) -> Path:
        """Finish ``<game>-<game_id>.jsonl.gz`` (plain: ``.jsonl``) in the spool folder (or
        ``directory``, created if needed), atomically: a reader never sees half a log.  With
        ``sync`` it is durable too: once this returns the log survives a crash of the machine
        (the file and the folder are synced); without, the caller syncs it later
        (:func:`sync_logs`)."""
        if self._discarded:
            raise ValueError("this log was discarded")
        self._settle()
        if self._folder is None:
            if directory is None:
                raise ValueError("no folder to write the log to")
            self._folder = Path(directory)
        folder = self._folder
        path = folder / self.name
        partial = folder / (self.name + ".part")
        self._spool()
        if sync:
            with open(partial, "rb+") as part:
                os.fsync(part.fileno())
        os.replace(partial, path)
        if sync:
            _sync_folder(folder)
        return path


def sync_logs(paths: list[Path]) -> None:
    """Make logs written without ``sync`` durable: each file, then each folder once.  A log
    that is gone (moved away meanwhile) is skipped."""
    for path in paths:
        try:
            with open(path, "rb") as log_file:
                os.fsync(log_file.fileno())
        except OSError:
            continue
    for folder in {path.parent for path in paths}:
        _sync_folder(folder)


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the system allows opening a folder)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


class LogDirectoryError(Exception):
    """Game logs cannot be written where they should go."""


def ensure_writable(directory: str | os.PathLike[str]) -> None:
    """Create the log folder and write a probe file there, or raise LogDirectoryError: a server
    that could not keep its games must not start."""
    folder = Path(directory)
    probe = folder / f".arena-probe-{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe.write_text("probe\n", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise LogDirectoryError(f"cannot write game logs to {folder}: {exc.strerror or exc}") \
            from None


def open_log(path: str | os.PathLike[str]) -> io.TextIOBase:
    """A log (or a ``.part`` file) opened as text, compressed or plain: gzip is told by its
    first bytes, not by the name."""
    with open(path, "rb") as raw:
        compressed = raw.read(2) == GZIP_MAGIC
    if compressed:
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def read_header(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The header of a log or of a ``.part`` file, or None if it has none (or is unreadable)."""
    try:
        with open_log(path) as handle:
            record = json.loads(handle.readline())
    except (OSError, EOFError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("type") == "header" else None


def remove_stale_parts(directory: str | os.PathLike[str], game: str,
                       seeds: set[str]) -> list[Path]:
    """Remove the ``.part`` files that a stopped run of an event left in ``directory``: those
    of ``game`` whose header's seed is one of the event's table seeds (a resumed event plays
    those games again).  Returns the files removed."""
    removed = []
    for part in sorted(Path(directory).glob(f"{game}-*.part")):
        header = read_header(part)
        if header is not None and header.get("game") == game and header.get("seed") in seeds:
            try:
                part.unlink()
            except OSError:
                continue
            removed.append(part)
    return removed


def read_log(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The records of a log file, compressed or plain; raises ValueError if it is not one."""
    records = []
    try:
        with open_log(path) as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    records.append(json.loads(line))
                except ValueError as exc:
                    raise ValueError(f"{path}:{number}: not JSON ({exc})") from None
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise ValueError(f"{path}: not a whole compressed log ({exc})") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc})") from None
    if not records or records[0].get("type") != "header":
        raise ValueError(f"{path}: not a game log (no header line)")
    return records


def log_lines(path: str | os.PathLike[str]) -> list[str]:
    """A log's lines of text, compressed or plain (for tools and tests)."""
    with open_log(path) as handle:
        return handle.read().splitlines()
