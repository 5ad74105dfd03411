"""The JSON Lines record of one game (format described in SPEC.md, "Game logs").

One JSON object per line, in the order things happened: a ``header`` (game, options, seed,
seating), every ``event`` with its audience (so the full deal is there), every ``action`` with
the seat, the request id, the milliseconds it took and who chose it (``bot`` or ``default``,
with the reason), ``error`` and ``note`` lines, and finally a ``result`` or an ``aborted`` line.
``arena replay`` needs nothing else.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import attrs

from arena.games.base import GameEvent, Result
from protocol.codec import to_json
from protocol.errors import ErrorCode

#: 2: seeds draw through arena.games.chance (other deals than format 1), ``names`` header.
#: 3: every request is logged as sent (the audit trail); an answered request must be there.
LOG_FORMAT = 3
#: Formats ``arena replay`` reads (2 has no audit trail to check).
READABLE_FORMATS = (2, 3)


@attrs.define
class GameLog:
    records: list[dict[str, Any]] = attrs.field(factory=list)

    @classmethod
    def begin(cls, **header: Any) -> GameLog:
        return cls([{"type": "header", "format": LOG_FORMAT, **header}])

    @property
    def header(self) -> dict[str, Any]:
        return self.records[0]

    def event(self, event: GameEvent) -> None:
        audience = None if event.audience is None else sorted(event.audience)
        self.records.append({"type": "event", "kind": event.kind, "data": event.data,
                             "to": audience})

    def request(self, seat: int, request_id: int, legal: tuple[str, ...], digest: str) -> None:
        """A request as sent: its legal list and the digest of its observation."""
        self.records.append({"type": "request", "seat": seat, "id": request_id,
                             "legal": list(legal), "observation": digest})

    def action(self, seat: int, action: str, request_id: int | None, ms: int, *, by: str,
               reason: str | None = None, decision: str | None = None,
               limit: str | None = None, bank_ms: int | None = None) -> None:
        record: dict[str, Any] = {"type": "action", "seat": seat, "action": action,
                                  "id": request_id, "ms": ms, "by": by}
        for key, value in (("reason", reason), ("decision", decision), ("limit", limit),
                           ("bank_ms", bank_ms)):
            if value is not None:
                record[key] = value
        self.records.append(record)

    def error(self, seat: int, code: ErrorCode, request_id: int | None, detail: str) -> None:
        self.records.append({"type": "error", "seat": seat, "code": code.value,
                             "id": request_id, "detail": detail[:200]})

    def note(self, seat: int, what: str) -> None:
        self.records.append({"type": "note", "seat": seat, "what": what})

    def result(self, result: Result) -> None:
        self.records.append({"type": "result", "scores": list(result.scores),
                             "ranks": list(result.ranks), "winners": list(result.winners),
                             "reveal": result.reveal, "rounds": result.rounds})

    def aborted(self, reason: str) -> None:
        self.records.append({"type": "aborted", "reason": reason})

    def to_jsonl(self) -> str:
        return "".join(to_json(record) + "\n" for record in self.records)

    def write(self, directory: str | os.PathLike[str]) -> Path:
        """Write ``<game>-<game_id>.jsonl`` into ``directory`` (created if needed), atomically
        and durably: a reader never sees half a log, and once this returns the log survives a
        crash of the machine (the file and the folder are synced)."""
        folder = Path(directory)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.header['game']}-{self.header['game_id']}.jsonl"
        partial = path.with_suffix(".jsonl.part")
        try:
            with open(partial, "w", encoding="utf-8") as file:
                file.write(self.to_jsonl())
                file.flush()
                os.fsync(file.fileno())
            os.replace(partial, path)
            _sync_folder(folder)
        except OSError:
            partial.unlink(missing_ok=True)  # no half log left behind (a full disk, say)
            raise
        return path


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


def read_log(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The records of a log file; raises ValueError if it is not one."""
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except ValueError as exc:
                raise ValueError(f"{path}:{number}: not JSON ({exc})") from None
    if not records or records[0].get("type") != "header":
        raise ValueError(f"{path}: not a game log (no header line)")
    return records
