"""The live leaderboard of a running event, at a small cost to its event loop.

Two ratings, as issue 20 asks: the live one (``arena.events.live_rating``, openskill's
Plackett-Luce) is updated in the loop as each game is stored (about 80 microseconds a game
with 200 bots), and the published one, the batch fit with its bootstrap intervals
(``arena.events.leaderboard``), runs every ``every`` seconds in a process of its own
(``python -m arena.launch.live_board``, niced), which reads the event's database itself, so the
loop neither reads the database nor holds the GIL for the fit: it only starts the process and
prints what it prints.  (Before, the loop read every stored game itself and fitted them in a
thread of its own process: at 50 bots and 2,000 sets that took most of the loop; measured by
``benchmarks/live_leaderboard_cost.py``.)

Rating snapshots (``arena.events.snapshots``) are taken by the same two, in the event's
database (an SQLite file or PostgreSQL, through the storage interface): the live rating's as
the :class:`~arena.events.snapshots.SnapshotPolicy` says (written in a worker thread; a write
that fails is said in a line, the event goes on), and one with the batch fit's numbers by the
fit's process each time it runs.  A ladder (``arena serve
--db``) runs the same fit's process every :data:`LADDER_FIT_EVERY` seconds
(:func:`fit_periodically`) for its snapshots, printing nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import trio

from arena.events.live_rating import LiveRating, LiveRow, format_ranking
from arena.events.pg_open import STORAGE_ERRORS, add_snapshot
from arena.events.pg_storage import redacted
from arena.events.snapshots import SnapshotPolicy
from arena.events.storage import names_and_games
from arena.gameplay.records import GameRecord

#: Rows of the live ranking printed above the batch fit's table.
LIVE_TOP = 10
#: Live-only snapshots waiting for the writer; more are dropped (the next one comes soon).
QUEUED_SNAPSHOTS = 16
#: The fit's process runs at this niceness: the event's own processes come first.
FIT_NICENESS = 10
#: Where ``arena`` is, for the fit's process when it is not installed.
PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
#: Seconds between a ladder's batch fits (each only when games were played since the last).
LADDER_FIT_EVERY = 600.0

Echo = Callable[..., None]
Snapshot = tuple[float, int, LiveRating]  # when, after how many games, a copy to rank


class LiveBoard:
    """The live rating of an event stored in ``db`` (``names`` by entrant, tables of
    ``players``), fed by :meth:`game_over`; :meth:`run` prints the leaderboard every
    ``every`` seconds and writes the snapshots.  ``earlier``: the games stored before this
    run (a resumed event), replayed into the live rating.  ``clock`` is the wall clock of the
    snapshots' times."""

    def __init__(self, db: Path | str, names: Sequence[str], players: int, *, echo: Echo,
                 seed: object = 0, resamples: int = 100, every: float = 30.0,
                 policy: SnapshotPolicy | None = None, earlier: Sequence[GameRecord] = (),
                 clock: Callable[[], float] = time.time, prefix: str = "") -> None:
        self.db, self.names, self.echo, self.prefix = db, list(names), echo, prefix
        self.seed, self.resamples, self.every, self.clock = seed, resamples, every, clock
        self.policy = policy if policy is not None else SnapshotPolicy()
        self.live = LiveRating(players, names)
        for game in earlier:
            self.live.add(game)
        self.last_games, self.last_time = self.live.seen, clock()
        self.queue, self.queued = trio.open_memory_channel[Snapshot](QUEUED_SNAPSHOTS)
        #: What messages call the database (a URL without its password).
        self.where = redacted(db) if isinstance(db, str) else str(db)

    def game_over(self, game: GameRecord) -> None:
        """One more game stored: into the live rating; a snapshot queued when one is due."""
        self.live.add(game)
        now = self.clock()
        if self.policy.due(self.live.seen, now, self.last_games, self.last_time):
            self.last_games, self.last_time = self.live.seen, now
            # the writer behind (or gone): this one is skipped, the next comes soon
            with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError):
                self.queue.send_nowait((now, self.live.seen, self.live.copy()))

    def ranking(self) -> list[LiveRow]:
        return self.live.ranking(self.names)

    def leaders(self, top: int = 3) -> list[tuple[str, float]]:
        """The live rating's first ``top`` (name, mean), for the progress line."""
        return [(row.name, row.mean) for row in self.ranking()[:top]]

    async def run(self) -> None:
        """The snapshot writer and, every ``every`` seconds, the batch fit (until
        cancelled)."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.write_snapshots)
            while True:
                await trio.sleep(self.every)
                await self.refresh()

    async def write_snapshots(self) -> None:
        """Write the queued live-only snapshots, one at a time in a worker thread, until the
        queue is closed (:meth:`close`)."""
        failed = ""
        async with self.queued:
            async for taken_at, games, live in self.queued:
                try:
                    await trio.to_thread.run_sync(self.write_snapshot, taken_at, games, live)
                except STORAGE_ERRORS as exc:  # said once; the next one comes soon
                    problem = str(exc).strip().splitlines()[0] if str(exc).strip() else \
                        type(exc).__name__
                    if problem != failed:
                        self.echo(f"arena: no rating snapshot in {self.where}: {problem}",
                                  err=True)
                    failed = problem
                else:
                    failed = ""

    def write_snapshot(self, taken_at: float, games: int, live: LiveRating) -> None:
        """In a worker thread: rank the copy (hundreds of bots: tens of ms) and write it."""
        add_snapshot(self.db, taken_at, games, live.ranking(self.names))

    def close(self) -> None:
        """No more snapshots: the writer ends once it has written the queued ones."""
        self.queue.close()

    async def refresh(self) -> None:
        """Print the live ranking's top and the batch fit's table, fitted (and its snapshot
        written) by the fit's process; a line saying so if the fit failed."""
        rows = self.ranking()
        done = await run_fit(fit_request(self.db, self.live, rows, self.clock(),
                                         seed=self.seed, resamples=self.resamples))
        live = (f"live rating (openskill), {self.live.rated} games:\n"
                + format_ranking(rows, top=LIVE_TOP))
        fitted = (done.stdout.decode(errors="replace").rstrip("\n") if done.returncode == 0
                  else fit_failure(done))
        self.echo(self.prefix + live + "\n" + fitted)

    def final_snapshot(self, fitted_rows: Sequence[Any]) -> None:
        """A last snapshot with the final leaderboard's rows (after the loop: blocking); a
        line if it cannot be written."""
        try:
            add_snapshot(self.db, self.clock(), self.live.seen, self.ranking(),
                         {row.name: (row.elo, row.low, row.high) for row in fitted_rows})
        except STORAGE_ERRORS as exc:
            self.echo(f"arena: no final rating snapshot in {self.where}: {exc}", err=True)


def fit_request(db: Path | str, live: LiveRating, rows: Sequence[LiveRow], taken_at: float,
                *, seed: object = 0, resamples: int = 100) -> dict[str, Any]:
    """What the fit's process is asked: the database, the fit's seed and resamples, and the
    live snapshot (``rows``, taken at ``taken_at`` after ``live.seen`` games) its own
    snapshot carries."""
    return {"db": str(db), "seed": seed, "resamples": resamples, "taken_at": taken_at,
            "games": live.seen,
            "live": [[row.name, row.mean, row.uncertainty, row.games] for row in rows]}


async def run_fit(request: dict[str, Any]) -> subprocess.CompletedProcess[bytes]:
    """The fit's process (``python -m arena.launch.live_board``, niced, BLAS on one thread)
    given ``request``; how it ended (the table on its standard output)."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join(
               [str(PROJECT_ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
    return await trio.run_process(
        [sys.executable, "-m", "arena.launch.live_board"],
        stdin=json.dumps(request).encode(), capture_stdout=True, capture_stderr=True,
        check=False, env=env)


def fit_failure(done: subprocess.CompletedProcess[bytes]) -> str:
    why = done.stderr.decode(errors="replace").strip().splitlines()
    return (f"arena: the leaderboard's fit failed (exit {done.returncode})"
            + (f": {why[-1]}" if why else ""))


async def fit_periodically(db: Path | str, live: LiveRating, *, every: float = LADDER_FIT_EVERY,
                           report: Callable[[str | None], None],
                           clock: Callable[[], float] = time.time, seed: object = 0,
                           resamples: int = 100) -> None:
    """A ladder's batch fit, every ``every`` seconds when ``live`` took games since the last
    (until cancelled), in the fit's process, which writes the snapshot (the fit's numbers and
    the live rows read here, in the loop); ``report`` is told after each: None, or the line
    saying why it failed."""
    fitted = live.seen
    while True:
        await trio.sleep(every)
        if live.seen == fitted:
            continue
        fitted = live.seen
        try:
            rows = await trio.to_thread.run_sync(live.copy().ranking)  # off the loop
            done = await run_fit(fit_request(db, live, rows, clock(), seed=seed,
                                             resamples=resamples))
        except OSError as exc:  # no process (out of memory, too many processes)
            report(f"arena: the leaderboard's fit could not start: {exc}")
            continue
        report(None if done.returncode == 0 else fit_failure(done))


def fit_and_snapshot(request: dict[str, Any]) -> str:
    """In the fit's process: the event's leaderboard from its database, its snapshot written
    (with the live rows the request brought, or, with none, those of a live rating of the
    stored games in schedule order); the table to print."""
    from arena.events.leaderboard import format_table, leaderboard
    from arena.events.pg_open import is_url, open_storage

    url = is_url(request["db"])
    storage = open_storage(request["db"] if url else Path(request["db"]))
    try:
        names, games = names_and_games(storage)
        rows = leaderboard(names, games, resamples=request["resamples"],
                           seed=request["seed"])
        seen, live = request["games"], [LiveRow(place, name, mean, uncertainty, played) for
                                        place, (name, mean, uncertainty, played)
                                        in enumerate(request["live"] or (), start=1)]
        if request["live"] is None:  # no live rating came (arena worker): the stored games'
            rating = LiveRating(int(storage.meta()["options"]["players"]), names)
            for game in games:
                rating.add(game)
            seen, live = rating.seen, rating.ranking(names)
        storage.add_snapshot(request["taken_at"], seen, live,
                             {row.name: (row.elo, row.low, row.high) for row in rows})
    finally:
        storage.close()
    return format_table(rows)


def main() -> None:
    """``python -m arena.launch.live_board``: a request (JSON) on standard input, the table on
    standard output."""
    if hasattr(os, "nice"):
        os.nice(FIT_NICENESS)
    print(fit_and_snapshot(json.load(sys.stdin)))


if __name__ == "__main__":
    main()

