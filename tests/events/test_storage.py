"""The event database: settings, entrants, and every game stored exactly once."""

from __future__ import annotations

from arena.events.storage import SqliteStorage, StoredGame


def game(planned, entrants=(0, 1, 2), ranks=(1, 2, 3), set_index=0, aborted=None):
    return StoredGame(planned=planned, set_index=set_index, rotation=planned, seed="s",
                      entrants=entrants, scores=(3, 2, 1), ranks=ranks, aborted=aborted,
                      defaults=(0, 0, 1), errors=(0, 0, 0), rounds=3, game_id=f"g{planned}",
                      log_path=None, seconds=0.5)


def test_games_are_stored_once_and_read_back(tmp_path):
    storage = SqliteStorage(tmp_path / "ev.db")
    storage.write_event({"game": "chochlik", "options": {"players": 3}}, [("a", "random")])
    assert storage.add_game(game(0)) and storage.add_game(game(1))
    assert not storage.add_game(game(0))  # a planned table is stored at most once
    storage.close()
    again = SqliteStorage(tmp_path / "ev.db")
    assert again.meta() == {"game": "chochlik", "options": {"players": 3}}
    assert again.entrants() == [("a", "random")]
    assert again.games() == [game(0), game(1)]
