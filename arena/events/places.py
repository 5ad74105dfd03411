"""Where each game's ladder is stored when ``arena serve --db`` hosts several games: a place
of its own beside the registry's, so one game's ratings, snapshots and leaderboard never mix
with another's (the tables are those of a one-game ladder: every reader, ``arena ratings``,
``arena export`` and ``arena web``, reads a game's place as it reads a one-game ladder).

- An SQLite file ``ladder.db``: the game's ladder is the file ``ladder.<game>.db`` beside it;
  ``ladder.db`` keeps the registry (a bot registered once may play every game).
- A PostgreSQL URL: the game's ladder is the schema ``arena_<game>`` of the same database
  (the URL with ``-csearch_path=arena_<game>`` added to its ``options``); the registry stays
  where it was.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

#: The schema of a game's ladder in a PostgreSQL database (one of its name's characters that
#: is not a letter, a digit or ``_`` is written ``_``).
SCHEMA_PREFIX = "arena_"


def schema_of(game: str) -> str:
    return SCHEMA_PREFIX + re.sub(r"[^a-z0-9_]", "_", game.lower())


def game_place(db: Path | str, game: str) -> Path | str:
    """Where ``game``'s ladder is kept beside the registry of ``db`` (made if missing: the
    PostgreSQL schema; an SQLite file is made when it is opened)."""
    if isinstance(db, Path):
        return db.with_name(f"{db.stem}.{game}{db.suffix or '.db'}")
    from arena.events.pg_storage import connect

    schema = schema_of(game)
    with connect(db) as conn:
        conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
    parts = urlsplit(db)
    query = parse_qsl(parts.query, keep_blank_values=True)
    given = " ".join(value for key, value in query if key == "options")
    query = [(key, value) for key, value in query if key != "options"]
    query.append(("options", f"{given} -csearch_path={schema}".strip()))
    return urlunsplit(parts._replace(query=urlencode(query, quote_via=quote)))
