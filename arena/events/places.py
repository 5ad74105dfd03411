"""Where each game's ladder is stored when ``arena serve --db`` hosts several games: a place
of its own beside the registry's, so one game's ratings, snapshots and leaderboard never mix
with another's (the tables are those of a one-game ladder: every reader, ``arena ratings``,
``arena export`` and ``arena web``, reads a game's place as it reads a one-game ladder).

- An SQLite file ``ladder.db``: the game's ladder is the file ``ladder.<game>.db`` beside it;
  ``ladder.db`` keeps the registry (a bot registered once may play every game).
- A PostgreSQL URL: the game's ladder is the schema ``arena_<game>`` of the same database
  (:func:`schema_of`: a name of other characters than ``a-z``, ``0-9`` and ``_`` escaped, so
  two games never share one; the URL with ``-csearch_path=<schema>`` added to its
  ``options``); the registry stays where it was.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

#: The schema of a game's ladder in a PostgreSQL database starts so.
SCHEMA_PREFIX = "arena_"
#: The characters a game's name keeps in its schema's (any other is escaped).
PLAIN = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
#: The longest name PostgreSQL keeps (NAMEDATALEN - 1 bytes: a longer one is cut short).
MAX_IDENTIFIER = 63
#: Hex digits of a digest ending a schema name that would be too long.
DIGEST_HEX = 16


def schema_of(game: str) -> str:
    """The schema of ``game``'s ladder, one game's only: ``arena_<game>`` for a name of
    ``a-z``, ``0-9`` and ``_`` (the built-in games' and every such name keep the schema they
    always had); in any other name each other character is written ``$`` and its UTF-8 bytes
    in hex (``my-game``: ``arena_my$2dgame``, never ``my_game``'s).  A schema that would be
    longer than PostgreSQL keeps is cut, marked ``$$`` and ended by a digest of the name (no
    escaped name holds ``$$``)."""
    escaped = "".join(char if char in PLAIN else "".join(f"${byte:02x}" for byte in
                                                         char.encode("utf-8", "surrogatepass"))
                      for char in game)
    schema = SCHEMA_PREFIX + escaped
    if len(schema) > MAX_IDENTIFIER:
        digest = hashlib.sha256(game.encode("utf-8", "surrogatepass")).hexdigest()
        schema = schema[:MAX_IDENTIFIER - DIGEST_HEX - 2] + "$$" + digest[:DIGEST_HEX]
    return schema


def schema_before(game: str) -> str:
    """The schema an arena before gave ``game`` (each character not ``a-z``, ``0-9`` or ``_``
    written ``_``: ``my-game`` and ``my_game`` shared one)."""
    return SCHEMA_PREFIX + re.sub(r"[^a-z0-9_]", "_", game.lower())


def _chosen_schema(conn: Any, game: str) -> str:
    """``game``'s schema, made if missing; but a database made before that kept the game's
    ladder in :func:`schema_before` (and not in its own yet) keeps it there, unless that is
    the very schema of an installed game's plain name."""
    from arena.games import GAMES

    schema, before = schema_of(game), schema_before(game)
    if schema != before and before.removeprefix(SCHEMA_PREFIX) not in GAMES:
        found = {name for (name,) in conn.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname IN (%s, %s)", (schema, before))}
        if before in found and schema not in found:
            return before
    conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
    return schema


def game_place(db: Path | str, game: str) -> Path | str:
    """Where ``game``'s ladder is kept beside the registry of ``db`` (made if missing: the
    PostgreSQL schema; an SQLite file is made when it is opened)."""
    if isinstance(db, Path):
        return db.with_name(f"{db.stem}.{game}{db.suffix or '.db'}")
    from arena.events.pg_storage import connect

    with connect(db) as conn:
        schema = _chosen_schema(conn, game)
    parts = urlsplit(db)
    query = parse_qsl(parts.query, keep_blank_values=True)
    given = " ".join(value for key, value in query if key == "options")
    query = [(key, value) for key, value in query if key != "options"]
    query.append(("options", f"{given} -csearch_path={schema}".strip()))
    return urlunsplit(parts._replace(query=urlencode(query, quote_via=quote)))
