"""What both backends do with a database's schema version (``schema_version``, see
:mod:`arena.events.storage`): a database written by a newer arena is refused in one line, a
migration is said before it runs, and a command that only reads never migrates."""

from __future__ import annotations

import logging

log = logging.getLogger("arena.storage")


class SchemaTooNew(Exception):
    """The database was written by a newer arena: its schema version is above this one's."""


def check(found: int, known: int, where: str) -> None:
    """Refuse a database whose schema version ``found`` is above ``known``."""
    if found > known:
        raise SchemaTooNew(f"{where}: its schema is version {found}, newer than this arena's "
                           f"({known}): it was written by a newer arena; upgrade arena "
                           "(pip install -U) to use it")


def announce(found: int, known: int, where: str) -> None:
    """Say that a database made before is migrated (a fresh one, at 0, is only made)."""
    if 0 < found < known:
        log.warning("%s: migrating its schema from version %d to %d (an older arena cannot "
                    "use it afterwards)", where, found, known)
