"""Where each game's ladder is kept when ``arena serve --db`` hosts several games."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from arena.events.places import game_place, schema_of


def test_an_sqlite_games_ladder_is_a_file_beside_the_registry():
    assert game_place(Path("/srv/ladder.db"), "wypas") == Path("/srv/ladder.wypas.db")
    assert game_place(Path("/srv/ladder"), "wypas") == Path("/srv/ladder.wypas.db")


def test_a_postgresql_games_ladder_is_a_schema_of_its_own_the_url_keeping_its_options(
        pg_url: str):
    import psycopg

    given = pg_url + "&options=-c%20statement_timeout%3D60000"
    place = game_place(given, "a-game")
    assert isinstance(place, str)
    options = parse_qs(urlsplit(place).query)["options"]
    assert options == ["-c statement_timeout=60000 -csearch_path=arena_a_game"]
    from arena.events.pg_storage import PostgresStorage

    PostgresStorage(place).close()  # its tables are made in the game's schema
    with psycopg.connect(pg_url) as db:
        tables = db.execute("SELECT table_schema FROM information_schema.tables "
                            "WHERE table_name = 'games'").fetchall()
    assert tables == [(schema_of("a-game"),)]
    assert game_place(given, "a-game") == place  # again: the same, the schema kept
