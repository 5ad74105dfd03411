"""Reading an event or ladder while it runs: a bot added with its first game between two
reads must not break what reads them (``arena ratings --db``, the pages' fit, the live
board's fit).  The race is made exact: a storage whose entrants, once read, get a new bot and
a game of it, as a ladder's writer could store them right after that read."""

from __future__ import annotations

from click.testing import CliRunner

from arena.cli.commands import main
from arena.events.leaderboard import leaderboard
from arena.events.storage import names_and_games
from tests.events.test_storage import NAMES, game


class AddsABotAfterEntrants:
    """``storage``, with "dave" and his first game stored just after the first entrants read."""

    def __init__(self, storage):
        self.storage, self.raced = storage, False

    def entrants(self):
        read = self.storage.entrants()
        if not self.raced:
            self.raced = True
            self.storage.write_event(self.storage.meta(), [*read, ("dave", "random")])
            assert self.storage.add_game(game(1, entrants=(0, 1, 3)))
        return read

    def __getattr__(self, name):
        return getattr(self.storage, name)


def ladder(storage_at):
    storage = storage_at("ladder.db")
    storage.write_event({"game": "chochlik", "options": {"players": 3}, "seed": "s"},
                        [(name, "random") for name in NAMES])
    assert storage.add_game(game(0))
    return storage


def test_names_and_games_name_every_entrant_of_every_game(storage_at):
    racing = AddsABotAfterEntrants(ladder(storage_at))
    names, games = names_and_games(racing)
    assert all(e < len(names) for g in games for e in g.entrants)
    assert [g.names for g in games] == [("a", "b", "c")]  # dave's game came after the read
    assert len(leaderboard(names, games, resamples=10)) == len(names)
    names, games = names_and_games(racing)  # read again: dave and his game, named
    assert names[3] == "dave" and games[1].names == ("a", "b", "dave")


def test_arena_ratings_while_a_bot_and_its_game_are_added(storage_at, monkeypatch, tmp_path):
    storage = ladder(storage_at)
    (tmp_path / "named.db").touch()  # what the option checks; the storage is the one above
    monkeypatch.setattr("arena.cli.events.opened_to_read",
                        lambda db: AddsABotAfterEntrants(storage))
    result = CliRunner().invoke(main, ["ratings", "--db", str(tmp_path / "named.db"),
                                       "--head-to-head"])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and " a " in f" {result.output} "
