"""``load_bots.py --ladder``: the load benchmark against a ladder (``arena serve --db FILE``,
ladder seating, every game stored; issue 20, section 4).

The N bots are registered in a fresh SQLite file before the server starts, under the names
the benchmark's bots say (``load00000``, ...) and tokens made from their numbers
(:func:`token`: a benchmark's bots have no secrets), each row as :meth:`Registry.add` writes it
(a digest of the token: a microsecond).  ``--ladder-registry FILE`` keeps the registry of N
bots in FILE to be copied by the next runs of that size (``load_scaling.py`` passes one per
size; it saved most of a minute when each token cost a scrypt, before issue 29).  The
benchmark's warm-up starts only once every bot had its first seat.

At the end (after the server stopped) the games stored in the file are counted and compared
with the games the server says it played (its last ``arena: N games played`` line): every
finished game, aborted ones included, must be stored.
"""

from __future__ import annotations

import re
import secrets
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from arena.events.registry import Registry
from arena.events.tokens import SALT_BYTES, Scheme, token_digest


def name(index: int) -> str:
    """The name bot ``index`` says (as ``load_bots.Bot``)."""
    return f"load{index:05d}"


def token(index: int) -> str:
    return f"load-bench-token-{index:06d}"


def _row(index: int) -> tuple[str, str, bytes, bytes, str]:
    salt = secrets.token_bytes(SALT_BYTES)
    return (name(index), name(index).casefold(), salt, token_digest(token(index), salt),
            Scheme.DIGEST.value)


def register(path: Path, bots: int) -> float:
    """Registers bots 0 .. ``bots`` - 1 in a new registry at ``path`` (the rows
    :meth:`Registry.add` writes, in one transaction); the seconds it took."""
    started = time.monotonic()
    with Registry(path) as registry, registry.db:
        registry.db.executemany(
            "INSERT INTO bots (name, folded, salt, hash, scheme) VALUES (?, ?, ?, ?, ?)",
            map(_row, range(bots)))
        registry.db.execute(f"PRAGMA user_version = {registry.version() + 1}")
    return time.monotonic() - started


def registered(path: Path) -> list[str]:
    with Registry(path) as registry:
        return registry.names()


def prepare(folder: Path, bots: int, keep: str | None,
            arena_path: str | None = None) -> tuple[Path, str]:
    """A fresh ladder database in ``folder`` with the ``bots`` registered (copied from
    ``keep`` when it holds exactly them, else registered and, with ``keep``, copied there);
    the file and a line saying how it was made.  ``arena_path``: the server is another
    checkout's, whose registry rows this tree's may not be (before issue 29 they were scrypt
    hashes): its own ``benchmarks/ladder_load.py`` registers them."""
    db = folder / "ladder.sqlite"
    if arena_path is not None:
        started = time.monotonic()
        code = (f"import sys; sys.path[:0] = [{arena_path!r}, {arena_path + '/benchmarks'!r}]; "
                f"import pathlib, ladder_load; ladder_load.register(pathlib.Path({str(db)!r}), "
                f"{bots})")
        subprocess.run([sys.executable, "-c", code], check=True)
        return db, (f"{bots} bots registered by {arena_path}'s own code in "
                    f"{time.monotonic() - started:.1f} s")
    wanted = [name(i) for i in range(bots)]
    if keep is not None and Path(keep).exists():
        if registered(Path(keep)) != wanted:
            raise SystemExit(f"{keep} does not hold exactly the {bots} bots load00000 ...: "
                             "give another --ladder-registry")
        shutil.copyfile(keep, db)
        return db, f"{bots} bots registered (copied from {keep})"
    seconds = register(db, bots)
    if keep is not None:
        with sqlite3.connect(db) as source, sqlite3.connect(keep) as target:
            source.backup(target)
    return db, f"{bots} bots registered in {seconds:.1f} s"


def stored_games(db: Path) -> tuple[int, int]:
    """(games stored, of which aborted) in the ladder's file."""
    with sqlite3.connect(db) as conn:
        total, aborted = conn.execute(
            "SELECT COUNT(*), COUNT(aborted) FROM games").fetchone()
    return int(total), int(aborted)


def server_games(output: str) -> tuple[int, int] | None:
    """(games, aborted) of the server's last tally line, or None when it printed none."""
    found = re.findall(r"arena: (\d+) games played(?:, (\d+) aborted)?", output)
    if not found:
        return None
    games, aborted = found[-1]
    return int(games), int(aborted or 0)
