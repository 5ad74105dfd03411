"""The finished games as columns, read by both backends in one query (issue 30 §2): the same
numbers as the game records give, the same leaderboard, and the records read instead only when
a row holds something else than the storage writes."""

from __future__ import annotations

import random

import attrs
import numpy as np
import pytest

from arena.events.leaderboard import leaderboard, results_leaderboard
from arena.events.results import Results
from arena.events.storage import names_and_results
from tests.events.test_storage import game

NAMES = [f"bot{i}" for i in range(6)]


def columns(results: Results) -> dict[str, list[float]]:
    return {field.name: getattr(results, field.name).tolist()
            for field in attrs.fields(Results)}


def random_games(seed: int, count: int) -> list:
    """Tables of 2 to 4 of six bots (one seated twice now and then), three games a set,
    scores below zero and defaults, every eleventh game aborted."""
    rng = random.Random(seed)
    games = []
    for planned in range(count):
        entrants = tuple(rng.sample(range(6), rng.randint(2, 4)))
        if planned % 9 == 4:
            entrants = (*entrants, entrants[0])
        scores = tuple(rng.randint(-5, 9) for _ in entrants)
        ranks = tuple(1 + sum(other > mine for other in scores) for mine in scores)
        games.append(attrs.evolve(
            game(planned, entrants, ranks, set_index=planned // 3,
                 aborted="internal_error" if planned % 11 == 10 else None),
            scores=scores, defaults=tuple(rng.randint(0, 2) for _ in entrants),
            errors=(0,) * len(entrants)))
    return games


def stored(storage, games):
    storage.write_event({"seed": "x"}, [(name, "random") for name in NAMES])
    for g in games:
        storage.add_game(g)


def test_the_columns_are_the_records_numbers_and_give_the_same_leaderboard(storage_at):
    storage = storage_at("ev.db")
    games = random_games(3, 60)
    stored(storage, games)
    names, results = names_and_results(storage)
    assert names == NAMES
    assert columns(results) == columns(Results.of_games(storage.games()))
    assert len(results.sizes) == sum(g.aborted is None for g in games) == 55
    assert results_leaderboard(names, results, resamples=30, seed=2) == leaderboard(
        names, storage.games(), resamples=30, seed=2)


def test_the_columns_are_read_without_a_record_per_game(storage_at, monkeypatch):
    storage = storage_at("ev.db")
    stored(storage, random_games(4, 12))
    expected = columns(Results.of_games(storage.games()))

    def no_records():
        raise AssertionError("read a record per game")

    monkeypatch.setattr(storage, "iter_games", no_records)
    assert columns(storage.results()) == expected


def test_no_games_are_empty_columns(storage_at):
    storage = storage_at("ev.db")
    stored(storage, [game(0, aborted="internal_error")])
    results = storage.results()
    assert columns(results) == {name: [] for name in columns(results)}


def test_a_row_written_otherwise_is_read_through_its_record(storage_at):
    """A rank stored as ``2.0`` (not a whole number's text) is not read as columns: the
    records give it (as the ranks of a record, whole numbers)."""
    storage = storage_at("ev.db")
    stored(storage, [game(0, (0, 1, 2), (1, 2, 2)), game(1, (1, 2, 0), (2, 1, 3))])
    with storage.lock:
        storage.db.execute("UPDATE games SET ranks = '[1, 2.0, 2]' WHERE planned = 0")
        storage.db.commit()
    assert columns(storage.results()) == columns(Results.of_games(storage.games()))
    assert storage.results().ranks.tolist() == [1, 2, 2, 2, 1, 3]


@pytest.mark.parametrize("texts", [
    ("2", "0", "[0, 1, 2]", "[1, 2, 3]", "[0, 0, 0]", "[0, 0, 0]"),  # a set index missing
    ("2", "0,1", "[0, 1, 2]", "[1, 2, 3]", "[0, 0, 0]", "[0, 0, 0]"),  # a game missing
    ("2", "0,1", "[0, 1, 2],[3, 4]", "[1, 2, 3],[1]", "[0, 0, 0],[0, 0]",
     "[0, 0, 0],[0, 0]"),  # a rank missing
    ("2", "0,1", "[0, 1, 2],[]", "[1, 2, 3],[]", "[0, 0, 0],[]", "[0, 0, 0],[]"),  # no seats
    ("1", "0", "[0, 1, 2]", "[1, 2, x]", "[0, 0, 0]", "[0, 0, 0]"),  # not a number
    ("1", "0", "[0, 1, 2]", "[1, 2.5, 3]", "[0, 0, 0]", "[0, 0, 0]"),  # a rank not whole
])
def test_columns_that_do_not_add_up_are_refused(texts):
    games, *rest = texts
    assert Results.parse(int(games), *rest) is None


def test_columns_that_add_up_are_read():
    results = Results.parse(2, "0,1", "[4, 5, 6],[4, 5]", "[1, 2, 2],[2, 1]",
                            "[3, -1.5, 0],[2, 7]", "[0, 0, 1],[0, 0]")
    assert results is not None
    assert results.sizes.tolist() == [3, 2]
    assert results.entrants.tolist() == [4, 5, 6, 4, 5]
    assert results.scores.tolist() == [3.0, -1.5, 0.0, 2.0, 7.0]
    assert results.defaults.tolist() == [0, 0, 1, 0, 0]
    assert results.starts.tolist() == [0, 3]
    assert [(t.entrants, t.ranks) for t in results.tables()] == [((4, 5, 6), (1, 2, 2)),
                                                                  ((4, 5), (2, 1))]
    assert np.array_equal(results.game_of_seat(), [0, 0, 0, 1, 1])


def test_a_database_written_before_records_reads_as_columns(tmp_path, monkeypatch):
    """A database as 6aa8bd6 wrote it (tests/events/test_storage.py) is read as columns, no
    record read: the columns need no change of schema."""
    from arena.events.storage import SqliteStorage
    from tests.events.test_storage import OLD_GAMES, old_database

    old_database(tmp_path / "old.db", [("p0", "x 0"), ("p1", "x 1"), ("p2", "x 2")], OLD_GAMES)
    storage = SqliteStorage(tmp_path / "old.db")
    expected = columns(Results.of_games(storage.games()))
    monkeypatch.setattr(storage, "iter_games", lambda: pytest.fail("read a record per game"))
    assert columns(storage.results()) == expected
    assert len(expected["sizes"]) == len(OLD_GAMES)
