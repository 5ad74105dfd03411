"""A ladder's stored games rated at start (``arena serve --db``), without keeping the server
waiting: the server listens and seats bots at once, while the live rating of every stored game
(openskill, about 6 s per 100,000 games, plus 3 s to read them) is computed in a process of its
own (``python -m arena.edge.stored_rating``), so the event loop neither waits for it nor
shares the GIL with it.  A ladder of few games (:data:`THREAD_GAMES` at most, counted in one
query) is rated in a worker thread instead: starting a process would cost more.

The request is one JSON line on standard input (``{"db": FILE or URL, "players": N}``); the
answer one JSON line on standard output: the live rating's state
(:meth:`~arena.events.live_rating.LiveRating.state`: floats written as JSON come back exact,
so the ratings are those rating the games in the server would give) and the next game and set
numbers.  :class:`~arena.edge.ladder_book.LadderBook` merges it with the games played
meanwhile."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.events.live_rating import LiveRating
from arena.events.storage import Storage

log = logging.getLogger("arena.server")

#: Stored games rated in a worker thread at most (more: in a process of their own).
THREAD_GAMES = 2_000
#: Where ``arena`` is, for the process when it is not installed.
PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent


@attrs.frozen
class Stored:
    """What the stored games say: the live rating's state, and the next numbers to give."""

    state: dict[str, Any]
    next_index: int
    next_set: int


def rate_stored(storage: Storage, players: int) -> Stored:
    """Every stored game rated in order (blocking: reads every game)."""
    rating = LiveRating(players)
    next_index = next_set = 0
    for game in storage.games():
        rating.add(game)
        next_index = max(next_index, game.planned + 1)
        next_set = max(next_set, game.set_index + 1)
    return Stored(rating.state(), next_index, next_set)


def where_of(storage: Storage) -> str | None:
    """What another process opens ``storage`` by (its file or URL); None when it cannot."""
    url = getattr(storage, "url", None)
    if isinstance(url, str):
        return url
    path = getattr(storage, "path", None)
    return str(path) if isinstance(path, Path) else None


def few_games(storage: Storage, limit: int) -> bool:
    """Whether ``storage`` holds at most ``limit`` games (False when it cannot say cheaply)."""
    db = getattr(storage, "db", None)
    if not isinstance(db, sqlite3.Connection):
        return False
    return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0]) <= limit


async def load_stored(storage: Storage, players: int, *, thread_games: int = THREAD_GAMES
                      ) -> Stored:
    """The stored games rated: in a process of its own, or in a worker thread when they are
    few, when the storage cannot be opened by another process, or when the process failed
    (said in one line).  ``storage`` is used from a worker thread only."""
    where = where_of(storage)
    if where is not None and not await trio.to_thread.run_sync(few_games, storage,
                                                               thread_games):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(PROJECT_ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
        done = await trio.run_process(
            [sys.executable, "-m", "arena.edge.stored_rating"],
            stdin=json.dumps({"db": where, "players": players}).encode(),
            capture_stdout=True, capture_stderr=True, check=False, env=env)
        if done.returncode == 0:
            answer = json.loads(done.stdout)
            return Stored(answer["state"], answer["next_index"], answer["next_set"])
        why = done.stderr.decode(errors="replace").strip().splitlines()
        log.warning("the stored games' rating process failed (exit %s%s): rated in a thread",
                    done.returncode, f": {why[-1]}" if why else "")
    return await trio.to_thread.run_sync(rate_stored, storage, players)


def main() -> None:
    """``python -m arena.edge.stored_rating``: the request on standard input, the answer on
    standard output."""
    from arena.events.pg_open import open_storage

    request = json.loads(sys.stdin.readline())
    storage = open_storage(request["db"])
    try:
        stored = rate_stored(storage, int(request["players"]))
    finally:
        storage.close()
    sys.stdout.write(json.dumps(attrs.asdict(stored)) + "\n")


if __name__ == "__main__":
    main()
