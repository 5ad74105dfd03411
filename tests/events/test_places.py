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
    assert options == ["-c statement_timeout=60000 -csearch_path=arena_a$2dgame"]
    from arena.events.pg_storage import PostgresStorage

    PostgresStorage(place).close()  # its tables are made in the game's schema
    with psycopg.connect(pg_url) as db:
        tables = db.execute("SELECT table_schema FROM information_schema.tables "
                            "WHERE table_name = 'games'").fetchall()
    assert tables == [(schema_of("a-game"),)]
    assert game_place(given, "a-game") == place  # again: the same, the schema kept


def test_a_schema_name_is_one_games_only_and_plain_names_keep_theirs():
    """``my-game`` and ``my_game`` were both ``arena_my_game``: one ladder for two games.  A
    name of a-z, 0-9 and ``_`` keeps its schema (the built-in games', existing databases');
    any other is escaped, and a name too long for PostgreSQL ends with a digest."""
    from arena.games import GAMES

    for plain in [*GAMES, "my_game", "x9"]:
        if plain.replace("_", "").isalnum() and plain == plain.lower() and plain.isascii():
            assert schema_of(plain) == "arena_" + plain
    names = ["my-game", "my_game", "My_game", "my.game", "my$2dgame", "mój", "moj",
             "a" * 80, "a" * 79 + "b", "-" * 40, "_" * 40]
    schemas = [schema_of(name) for name in names]
    assert len(set(schemas)) == len(names), schemas
    assert all(len(schema.encode()) <= 63 for schema in schemas)
    assert schema_of("my-game") == "arena_my$2dgame"


def test_two_games_whose_names_differ_by_a_dash_get_two_postgresql_schemas(pg_url: str):
    from arena.events.pg_storage import PostgresStorage

    places = [game_place(pg_url, name) for name in ("my-game", "my_game")]
    assert places[0] != places[1]
    for place, event in zip(places, ("first", "second"), strict=True):
        storage = PostgresStorage(str(place))
        storage.write_event({"game": event}, [])
        storage.close()
    for place, event in zip(places, ("first", "second"), strict=True):
        storage = PostgresStorage(str(place))
        assert storage.meta()["game"] == event
        storage.close()


def test_a_database_made_before_keeps_its_games_old_schema(pg_url: str):
    """A ladder of ``my-game`` made when its schema was ``arena_my_game`` is still found there
    (no game ``my_game`` installed to claim it), so its ratings are not lost."""
    import psycopg

    from arena.events.pg_storage import PostgresStorage

    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute('CREATE SCHEMA "arena_my_game"')
    place = game_place(pg_url, "my-game")
    assert "search_path%3Darena_my_game" in str(place)
    PostgresStorage(str(place)).close()
    with psycopg.connect(pg_url) as db:
        tables = db.execute("SELECT table_schema FROM information_schema.tables "
                            "WHERE table_name = 'games'").fetchall()
    assert tables == [("arena_my_game",)]
