"""The work queue in PostgreSQL (arena.events.pg_queue), against a real server: claims never
overlap, a game is stored once and only under a live lease, an expired lease is never renewed
and its late result is refused, what each worker holds is visible.  A lease of 0 seconds is
one that has expired by the worker's next transaction (no sleeping for the clock)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import attrs

from arena.events.pg_queue import WorkQueue, event_status, format_status, plan
from arena.events.pg_storage import PostgresStorage
from tests.events.test_storage import NAMES, game


def event(url: str, tables: int = 12) -> None:
    storage = PostgresStorage(url)
    storage.write_event({"seed": "q"}, [(name, "random") for name in NAMES])
    storage.close()
    assert plan(url, range(tables)) == tables
    assert plan(url, range(tables)) == 0  # planned again: nothing added


def queue(url: str, name: str, lease: float = 30.0) -> WorkQueue:
    worker = WorkQueue(url, name, lease_seconds=lease)
    worker.register("host", 1)
    return worker


def test_workers_claiming_at_once_share_the_tables_without_overlap(pg_url):
    event(pg_url, 40)
    workers = [queue(pg_url, f"w{i}") for i in range(8)]
    # Every worker starts claiming at the same moment (without it one thread could take all 40
    # before the others start), and claims until no open table is left, as arena worker does: a
    # claim racing others may come back short or empty (PostgreSQL locks the rows after LIMIT,
    # and drops those another claim took since the statement began).
    start = threading.Barrier(len(workers))

    def claim_all(worker: WorkQueue) -> list[int]:
        start.wait(timeout=30)
        taken: list[int] = []
        while (claimed := worker.claim(3)) or worker.open_tables()[1] == 0:  # one is free
            taken += claimed
        return taken

    with ThreadPoolExecutor(8) as pool:
        shares = list(pool.map(claim_all, workers))
    every = sorted(t for share in shares for t in share)
    assert every == list(range(40))  # each table claimed exactly once
    assert sum(bool(share) for share in shares) >= 2


def test_a_game_is_stored_once_under_its_lease_and_releases_its_table(pg_url):
    event(pg_url, 3)
    first, second = queue(pg_url, "first"), queue(pg_url, "second")
    assert first.claim(2) == [0, 1] and second.claim(5) == [2]
    assert not second.store(game(0))  # not its table
    assert first.store(game(0)) and not first.store(game(0))
    assert first.open_tables()[0] == 2
    first.release()  # drained: table 1 goes back
    assert second.claim(5) == [1]
    assert PostgresStorage(pg_url).games() == [game(0)]


def test_an_expired_lease_loses_its_tables_and_its_late_result_is_refused(pg_url):
    event(pg_url, 2)
    dead = queue(pg_url, "dead", lease=0)
    assert dead.claim(2) == [0, 1]
    assert dead.heartbeat() == 0  # expired: never renewed
    alive = queue(pg_url, "alive")
    assert alive.claim(5) == [0, 1]  # the dead worker's tables are played again
    late = attrs.evolve(game(0), scores=(9, 9, 9))
    assert not dead.store(late)
    assert alive.store(game(0)) and alive.store(game(1))
    assert not dead.store(game(1))
    assert PostgresStorage(pg_url).games() == [game(0), game(1)]
    assert alive.heartbeat() == 0 and alive.open_tables() == (0, 0.0)


def test_the_status_shows_each_workers_tables_and_stored_games(pg_url):
    event(pg_url, 6)
    one, two = queue(pg_url, "one"), queue(pg_url, "two")
    one.claim(2)
    two.claim(2)
    assert one.store(game(0))
    two.finish("drained")
    status = event_status(pg_url)
    assert (status.planned, status.stored) == (6, 1)
    by_name = {w.worker: w for w in status.workers}
    assert by_name["one"].holds == (1,) and by_name["one"].stored == 1
    assert by_name["two"].holds == (2, 3) and by_name["two"].state == "drained"
    text = format_status(status)
    # one numbering: the planned game's number as the database, `arena export` and the
    # pages' /game/N give it (from 0), not a second one from 1
    assert "1/6 games stored, 2 worker(s)" in text and "playing games 2, 3" in text


def test_one_worker_takes_the_final_fit_and_a_dead_ones_lock_is_freed(pg_url):
    """Every worker that found the event done ran the final rating fit (about 50 s each, with
    no heartbeat: --status called them lost); now the first to ask holds a lock and the others
    are told no at once."""
    event(pg_url, 2)
    first, second = queue(pg_url, "first"), queue(pg_url, "second")
    assert first.take_final_fit()
    assert not second.take_final_fit()
    first.give_final_fit_back()
    assert second.take_final_fit()
    second.close()  # it died holding it: its connection's lock goes with it
    third = queue(pg_url, "third")
    assert third.take_final_fit()
    third.give_final_fit_back()
    for worker in (first, third):
        worker.close()


def test_a_link_says_when_the_database_is_down_and_when_it_is_back(monkeypatch, caplog):
    """Issue 30: a worker said nothing while the database was down (-v or not)."""
    import logging

    import psycopg

    from arena.events import pg_queue

    class Connection:
        closed = False

        def close(self) -> None:
            self.closed = True

    monkeypatch.setattr(pg_queue, "connect", lambda url: Connection())
    monkeypatch.setattr(pg_queue.time, "sleep", lambda seconds: None)
    failures = iter([psycopg.OperationalError("server closed the connection unexpectedly")] * 3)

    def work(db: object) -> str:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return "stored"

    with caplog.at_level(logging.WARNING, logger="arena.worker"):
        assert pg_queue.Link("postgresql://x@/y").call(work) == "stored"
    said = [record.getMessage() for record in caplog.records]
    assert len(said) == 2, said
    assert said[0].startswith("the database cannot be reached (server closed the connection")
    assert said[1] == "the database is back (after 3 retries)"


def test_a_refused_result_is_said(caplog):
    import logging

    from arena.launch.worker import QueueStorage

    class Late:
        def store(self, game: object) -> bool:
            return False

    with caplog.at_level(logging.WARNING, logger="arena.worker"):
        assert not QueueStorage(Late()).add_game(game(4))  # type: ignore[arg-type]
    assert [r.getMessage() for r in caplog.records] == [
        "game 4 refused: this worker's lease on its table had expired (another worker plays it)"]
