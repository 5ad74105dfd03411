"""The standings are fitted again only when the games count changes; the pages meanwhile get
the last ones, the rating history carried over until it is fitted again."""

from __future__ import annotations

import attrs
import pytest
import trio

from arena.events.export import open_event
from arena.events.storage import SqliteStorage
from arena.web.data import EventData
from tests.web.events import make_event


def test_the_fit_is_redone_only_when_the_games_count_changes(tmp_path):
    db = make_event(tmp_path, ["a", "b", "c", "d"], tables=5)
    storage = open_event(db)
    data = EventData(storage, resamples=20)
    published: list[int] = []
    assert data.refresh(lambda: published.append(data.standings.version))
    assert published == [5, 5]  # the leaderboard, then with its history
    first = data.standings
    assert first.history.source == "computed" and first.history.by_bot
    assert not data.refresh() and data.standings is first and data.fits == 1
    writer = SqliteStorage(db)
    game = storage.games()[0]
    writer.add_game(attrs.evolve(game, tag=attrs.evolve(game.table, index=99)))
    writer.close()
    seen = []
    assert data.refresh(lambda: seen.append(data.standings))
    assert data.fits == 2 and [s.version for s in seen] == [6, 6]
    assert seen[0].history is first.history  # the last history until the new one is fitted
    assert seen[1].history is not first.history
    storage.close()


async def test_the_fit_runs_in_a_process_of_its_own(tmp_path):
    """The serving process never reads the games (its storage here cannot): the standings,
    their history and the next fit come from the fit's process; the games' replays are all
    found, though only the ones the pages list come whole."""
    db = make_event(tmp_path, ["a", "b", "c", "d"], tables=5)
    storage = open_event(db)
    storage.games = lambda: pytest.fail("the serving process read the games")  # type: ignore[method-assign]
    data = EventData(storage, resamples=20, check_every=0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(data.keep_fresh)
        with trio.fail_after(120):
            first = await data.current(history=True)
        assert first.version == 5 and {row.name for row in first.rows} == {"a", "b", "c", "d"}
        assert first.history.source == "computed" and first.history.by_bot
        assert sorted(first.refs) == list(range(5)) and first.game(4).log_path.is_file()
        writer = SqliteStorage(db)
        game = writer.games()[0]
        writer.add_game(attrs.evolve(game, tag=attrs.evolve(game.table, index=99)))
        writer.close()
        with trio.fail_after(120):
            while (await data.current()).version != 6:
                await data.published()
        assert data.fits == 2 and data.standings.game(99) is not None
        nursery.cancel_scope.cancel()
    storage.close()
