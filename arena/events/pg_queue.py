"""The work queue of an event played by ``arena worker`` processes on many hosts: PostgreSQL is
the queue and the store.

- ``planned``: a row per game of the schedule (its index); ``arena tournament --plan-only``
  writes them with the event.  A row is open (``NOT done``) until its game is stored.
- **Claim.**  A worker takes open rows nobody holds (no lease, or an expired one) with
  ``SELECT ... FOR UPDATE SKIP LOCKED`` (workers never wait for each other, never take the same
  row), stamping them with its lease (a number from the ``leases`` sequence, one per worker
  run) and ``lease_until`` (the database's clock plus the lease's seconds).
- **Heartbeat.**  The worker renews ``lease_until`` of the rows it holds (and of its
  ``workers`` row) every third of the lease; a lease already expired is never renewed.
- **Store.**  In ONE transaction (one statement, :data:`STORE`): the row is marked done if the
  worker's lease still holds it and has not expired, and the game is inserted; otherwise
  nothing changes and the result is refused (a late result of a dead lease: another worker
  plays or played that table).  So every planned game is stored exactly once.
- ``workers``: a row per worker (host, pid, lease, state, last heartbeat): with the rows each
  holds, what every worker is running (``arena tournament --status``).

A :class:`Link` retries a call whose connection broke (the database restarted, the network
dropped) until ``patience`` seconds have passed, reconnecting: the workers wait and carry on.
Every call waits for the network: an event loop makes them from a worker thread.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import attrs
import psycopg

from arena.events.pg_storage import connect, migrate
from arena.events.storage import GAME_COLUMNS, game_row
from arena.gameplay.records import GameRecord

T = TypeVar("T")

#: Seconds between reconnection attempts (doubling up to the last).
RETRY_DELAYS = (0.1, 0.2, 0.5, 1.0, 2.0)
#: The channel a change of the queue is notified on (a game stored, tables given back).
CHANGED = "arena_queue"

CLAIM = """
WITH open AS (
    SELECT planned FROM planned
    WHERE NOT done AND (lease_until IS NULL OR lease_until < now())
    ORDER BY planned LIMIT %(n)s FOR UPDATE SKIP LOCKED)
UPDATE planned SET lease = %(lease)s, worker = %(worker)s, claimed_at = now(),
       lease_until = now() + make_interval(secs => %(seconds)s)
FROM open WHERE planned.planned = open.planned
RETURNING planned.planned
"""


#: The column types of a stored game (for the parameters of :data:`STORE`), then ``worker``.
GAME_TYPES = ("integer", "integer", "integer", "text", "text", "text", "text", "text", "text",
              "text", "integer", "text", "text", "double precision", "text", "text")

#: Mark the table done if this lease holds it still, and insert its game: one statement, so
#: one transaction; the change is notified (:meth:`WorkQueue.wait_for_change`).  Its one row
#: is the number of games stored (0 or 1).
STORE = f"""
WITH held AS (
    UPDATE planned SET done = true, lease_until = NULL
    WHERE planned = %s AND lease = %s AND NOT done AND lease_until > now()
    RETURNING planned),
stored AS (
    INSERT INTO games ({', '.join(GAME_COLUMNS)}, worker)
    SELECT {', '.join(f'%s::{kind}' for kind in GAME_TYPES)} FROM held
    ON CONFLICT (planned) DO NOTHING RETURNING planned)
SELECT count(*) FROM (SELECT pg_notify('{CHANGED}', '') FROM stored) AS notified
"""


#: The advisory lock the worker taking the event's final rating snapshot holds (a database
#: holds one event: one key; not the migrations' lock, which the fit's process takes).
FINAL_FIT_LOCK = 0x6172656E6166  # "arenaf"


log = logging.getLogger("arena.worker")


class Link:
    """A connection that comes back: :meth:`call` runs ``work(connection)`` and, when the
    connection breaks, reconnects and runs it again (for ``patience`` seconds at most; then the
    error is raised).  ``work`` must be safe to run again (a transaction that may or may not
    have committed)."""

    def __init__(self, url: str, patience: float = 600.0) -> None:
        self.url, self.patience = url, patience
        self.db: psycopg.Connection[Any] | None = None
        self.lock = threading.Lock()

    def call(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        deadline = time.monotonic() + self.patience
        attempt = 0
        with self.lock:
            while True:
                try:
                    if self.db is None or self.db.closed:
                        self.db = connect(self.url)
                    done = work(self.db)
                    if attempt:
                        log.warning("the database is back (after %d retries)", attempt)
                    return done
                except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
                    if self.db is not None:
                        self.db.close()
                    self.db = None
                    if not attempt:
                        log.warning("the database cannot be reached (%s): retrying for up to "
                                    "%.0f s", str(exc).strip().splitlines()[0] if str(exc)
                                    else type(exc).__name__, self.patience)
                    if time.monotonic() >= deadline:
                        raise
                    time.sleep(RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)])
                    attempt += 1

    def close(self) -> None:
        with self.lock:
            if self.db is not None:
                self.db.close()
                self.db = None


def plan(url: str, indexes: Sequence[int]) -> int:
    """Write the schedule's games into the queue (those not stored yet are open); how many
    rows were added."""
    with connect(url) as db:
        migrate(db)
        with db.transaction():
            added = db.execute(
                "INSERT INTO planned (planned, done) SELECT i, EXISTS "
                "(SELECT 1 FROM games WHERE games.planned = i) FROM unnest(%s::int[]) AS i "
                "ON CONFLICT (planned) DO NOTHING", (list(indexes),)).rowcount
    return added


class WorkQueue:
    """A worker's end of the queue, named ``worker`` (unique per worker run)."""

    def __init__(self, url: str, worker: str, *, lease_seconds: float = 30.0,
                 patience: float = 600.0) -> None:
        self.url, self.worker, self.lease_seconds = url, worker, lease_seconds
        self.work = Link(url, patience)
        self.beat = Link(url, patience)  # the heartbeat's own: never behind a slow store
        self.listen = Link(url, patience)  # hears of changes (LISTEN) while nothing is free
        self.listening: psycopg.Connection[Any] | None = None
        self.lease: int | None = None

    def _params(self, **more: Any) -> dict[str, Any]:
        return {"lease": self.lease, "worker": self.worker, "seconds": self.lease_seconds,
                **more}

    def register(self, host: str, pid: int) -> int:
        """Take a lease (a new one for each run) and say so in ``workers``; the lease."""
        def register(db: psycopg.Connection[Any]) -> int:
            migrate(db)
            with db.transaction():
                row = db.execute("SELECT nextval('leases')").fetchone()
                assert row is not None
                lease = int(row[0])
                db.execute(
                    "INSERT INTO workers VALUES (%(worker)s, %(host)s, %(pid)s, %(lease)s, "
                    "'running', now(), now(), now() + make_interval(secs => %(seconds)s)) "
                    "ON CONFLICT (worker) DO UPDATE SET host = excluded.host, "
                    "pid = excluded.pid, lease = excluded.lease, state = 'running', "
                    "started_at = now(), heartbeat_at = now(), "
                    "lease_until = excluded.lease_until",
                    {**self._params(), "lease": lease, "host": host, "pid": pid})
            return lease

        self.lease = self.work.call(register)
        return self.lease

    def claim(self, count: int) -> list[int]:
        """Up to ``count`` open tables nobody holds, now held by this worker's lease (one
        statement: its own transaction)."""
        def claim(db: psycopg.Connection[Any]) -> list[int]:
            rows = db.execute(CLAIM, self._params(n=count)).fetchall()
            return sorted(planned for (planned,) in rows)

        return self.work.call(claim)

    def heartbeat(self) -> int:
        """Renew the lease (unless it has expired); how many tables it holds still."""
        def beat(db: psycopg.Connection[Any]) -> int:
            with db.transaction():
                db.execute("UPDATE workers SET heartbeat_at = now(), lease_until = now() + "
                           "make_interval(secs => %(seconds)s) WHERE worker = %(worker)s AND "
                           "lease = %(lease)s", self._params())
                return db.execute(
                    "UPDATE planned SET lease_until = now() + make_interval(secs => "
                    "%(seconds)s) WHERE lease = %(lease)s AND NOT done AND lease_until > now()",
                    self._params()).rowcount

        return self.beat.call(beat)

    def store(self, game: GameRecord) -> bool:
        """Store a game of a table this worker's lease holds and release it, in one
        transaction (one statement); False (nothing stored) when the lease no longer holds
        it."""
        row = game_row(game)

        def store(db: psycopg.Connection[Any]) -> bool:
            found = db.execute(STORE, (row[0], self.lease, *row, self.worker)).fetchone()
            return bool(found and found[0] == 1)

        return self.work.call(store)

    def release(self) -> None:
        """Give back the tables this worker holds but has not played (drained)."""
        def release(db: psycopg.Connection[Any]) -> None:
            with db.transaction():
                if db.execute("UPDATE planned SET lease = NULL, lease_until = NULL, "
                              "worker = NULL WHERE lease = %(lease)s AND NOT done",
                              self._params()).rowcount:
                    db.execute(f"NOTIFY {CHANGED}")

        self.work.call(release)

    def open_tables(self) -> tuple[int, float]:
        """Tables not stored yet (held by a worker or not), and the seconds until the first
        lease holding one may expire (0 when one is free)."""
        def count(db: psycopg.Connection[Any]) -> tuple[int, float]:
            row = db.execute(
                "SELECT count(*), coalesce(extract(epoch FROM min(coalesce(lease_until, "
                "now())) - now()), 0) FROM planned WHERE NOT done").fetchone()
            return (int(row[0]), max(0.0, float(row[1]))) if row else (0, 0.0)

        return self.work.call(count)

    def wait_for_change(self, timeout: float) -> None:
        """Return when the queue changes (a game stored, tables given back), or after
        ``timeout`` seconds.  Listening starts at the first call; a change since then
        returns at once."""
        def wait(db: psycopg.Connection[Any]) -> None:
            if self.listening is not db:  # a new connection: listen again
                db.execute(f"LISTEN {CHANGED}")
                self.listening = db
            for _ in db.notifies(timeout=timeout, stop_after=1):
                pass

        self.listen.call(wait)

    def snapshot_games(self) -> int:
        """The game count of the newest rating snapshot (0: none yet)."""
        def newest(db: psycopg.Connection[Any]) -> int:
            row = db.execute("SELECT coalesce(max(games), 0) FROM rating_snapshots").fetchone()
            return int(row[0]) if row else 0

        return self.work.call(newest)

    def take_final_fit(self) -> bool:
        """Whether this worker is the one to take the event's final rating snapshot: the
        first to ask holds a lock (its connection's) until :meth:`give_final_fit_back`; the
        others are told no at once (one fit, not one per worker).  A worker that dies lets it
        go with its connection."""
        def take(db: psycopg.Connection[Any]) -> bool:
            row = db.execute("SELECT pg_try_advisory_lock(%s)", (FINAL_FIT_LOCK,)).fetchone()
            return bool(row and row[0])

        return self.work.call(take)

    def give_final_fit_back(self) -> None:
        self.work.call(lambda db: db.execute("SELECT pg_advisory_unlock(%s)",
                                             (FINAL_FIT_LOCK,)))

    def finish(self, state: str) -> None:
        """Say how this worker ended (``done``, ``drained``, ``failed``)."""
        self.work.call(lambda db: db.execute(
            "UPDATE workers SET state = %(state)s, heartbeat_at = now() WHERE worker = "
            "%(worker)s AND lease = %(lease)s", self._params(state=state)))

    def close(self) -> None:
        for link in (self.work, self.beat, self.listen):
            link.close()


@attrs.frozen
class WorkerStatus:
    worker: str
    host: str
    pid: int
    state: str  # running, done, drained, failed; "lost" when running without a live lease
    heartbeat_age: float  # seconds since its last heartbeat
    stored: int  # games it stored
    holds: tuple[int, ...]  # the tables its live lease holds (being played, or next)


@attrs.frozen
class EventStatus:
    planned: int
    stored: int
    workers: tuple[WorkerStatus, ...]


def event_status(url: str) -> EventStatus:
    """The queue's progress, by worker."""
    with connect(url) as db:
        planned, stored = db.execute(
            "SELECT (SELECT count(*) FROM planned), (SELECT count(*) FROM games)").fetchone() \
            or (0, 0)
        rows = db.execute(
            "SELECT w.worker, w.host, w.pid, CASE WHEN w.state = 'running' AND w.lease_until "
            "< now() THEN 'lost' ELSE w.state END, extract(epoch FROM now() - w.heartbeat_at), "
            "(SELECT count(*) FROM games g WHERE g.worker = w.worker), "
            "ARRAY(SELECT p.planned FROM planned p WHERE p.lease = w.lease AND NOT p.done "
            "AND p.lease_until > now() ORDER BY p.planned) "
            "FROM workers w ORDER BY w.started_at, w.worker").fetchall()
    return EventStatus(int(planned), int(stored), tuple(
        WorkerStatus(worker, host, int(pid), state, float(age), int(count), tuple(holds))
        for worker, host, pid, state, age, count, holds in rows))


def format_status(status: EventStatus) -> str:
    lines = [f"{status.stored}/{status.planned} games stored, "
             f"{len(status.workers)} worker(s)"]
    for w in status.workers:
        # the planned number from 0, as the database, `arena export` and /game/N give it
        holds = ", ".join(str(i) for i in w.holds[:8]) + (" ..." if len(w.holds) > 8 else "")
        lines.append(f"  {w.worker:<24} {w.host}:{w.pid:<8} {w.state:<8} {w.stored:>6} stored"
                     f"  heartbeat {w.heartbeat_age:.0f}s ago"
                     + (f"  playing games {holds}" if holds else ""))
    return "\n".join(lines)
