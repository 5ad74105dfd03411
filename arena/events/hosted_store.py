"""Hosted bots' versions in the database of ``arena bots`` (SQLite here, PostgreSQL in
:mod:`arena.events.pg_hosted`): the ``hosted_versions`` and ``hosted_builds`` tables of
:mod:`arena.events.hosted_versions`, made by one schema migration on either backend.

Every change is one transaction: a version is numbered when stored (1, 2, ... a bot), a build
is stored once by its digest (a second version with the same build only names it), and making
a version active makes the bot's active one ``valid`` in the same transaction (the database
also refuses two active versions of a bot: a unique index).  A name is a registered bot's,
found without case (:mod:`arena.events.registry`), and its versions are kept under its folded
name: a rename moves them along, and removing the bot (or registering a name anew) sets them
apart where no name reaches them (:func:`arena.events.registry.set_apart`), so a name's next
holder starts at version 1 and never sees the old ones."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.events import storage
from arena.events.hosted_versions import (
    ACTIVATABLE,
    COLUMNS,
    BotVersion,
    VersionError,
    VersionState,
    move,
    version_of,
)
from arena.events.registry import Registry

#: Tries at numbering a version when another submission of the same bot took the number.
NUMBER_TRIES = 5

_SELECT = f"SELECT {', '.join(COLUMNS)} FROM hosted_versions"


class HostedStore:
    """Both backends' logic; a backend gives :meth:`_transaction`, :meth:`_run` (``?``
    placeholders) and :attr:`_duplicate` (its unique-violation error)."""

    _duplicate: type[Exception] = sqlite3.IntegrityError

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        raise NotImplementedError
        yield

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> HostedStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading --

    def registered(self, name: str) -> str:
        """The registered name (its case) of ``name``; a VersionError when not registered."""
        row = self._run("SELECT name FROM bots WHERE folded = ?", (name.casefold(),)).fetchone()
        if row is None:
            raise VersionError(f"{name!r} is not registered (arena bots add {name})")
        return str(row[0])

    def names(self) -> list[str]:
        """Every registered bot's name."""
        return [str(name) for (name,) in self._run("SELECT name FROM bots").fetchall()]

    def versions(self, name: str) -> list[BotVersion]:
        self.registered(name)
        rows = self._run(f"{_SELECT} WHERE bot = ? ORDER BY number", (name.casefold(),))
        return [version_of(tuple(row)) for row in rows.fetchall()]

    def version(self, name: str, number: int) -> BotVersion:
        row = self._run(f"{_SELECT} WHERE bot = ? AND number = ?",
                        (name.casefold(), number)).fetchone()
        if row is None:
            raise VersionError(f"{name} has no version {number}")
        return version_of(tuple(row))

    def active(self) -> list[BotVersion]:
        """Every registered bot's active version (what a ladder of hosted bots plays), by
        name; never an unregistered bot's."""
        rows = self._run(f"{_SELECT} WHERE state = ? AND bot IN (SELECT folded FROM bots) "
                         "ORDER BY bot", (VersionState.ACTIVE.value,))
        return [version_of(tuple(row)) for row in rows.fetchall()]

    def logs(self, name: str, number: int) -> tuple[str, str]:
        """(the build log, the validation's log) of a version."""
        row = self._run("SELECT build_log, check_log FROM hosted_versions WHERE bot = ? AND "
                        "number = ?", (name.casefold(), number)).fetchone()
        if row is None:
            raise VersionError(f"{name} has no version {number}")
        return str(row[0]), str(row[1])

    def source(self, name: str, number: int) -> bytes:
        row = self._run("SELECT source FROM hosted_versions WHERE bot = ? AND number = ?",
                        (name.casefold(), number)).fetchone()
        if row is None:
            raise VersionError(f"{name} has no version {number}")
        return bytes(row[0])

    def build(self, digest: str) -> bytes:
        """A build's files (a packed folder), by its digest."""
        row = self._run("SELECT files FROM hosted_builds WHERE digest = ?", (digest,)).fetchone()
        if row is None:
            raise VersionError(f"no build {digest}")
        return bytes(row[0])

    def build_in_use(self, digest: str) -> bool:
        """Whether a version not refused has the build ``digest`` (its folder is kept)."""
        row = self._run("SELECT count(*) FROM hosted_versions WHERE build_digest = ? AND "
                        "state <> ?", (digest, VersionState.REFUSED.value)).fetchone()
        return int(row[0]) > 0

    def builds(self) -> int:
        return int(self._run("SELECT count(*) FROM hosted_builds").fetchone()[0])

    # -- changing --

    def submit(self, name: str, language: str, source: bytes, source_digest: str,
               now: float | None = None) -> BotVersion:
        """Store a new version (``building``) of the registered bot ``name``."""
        shown = self.registered(name)
        at = time.time() if now is None else now
        for _ in range(NUMBER_TRIES):
            try:
                with self._transaction():
                    number = int(self._run(
                        "SELECT coalesce(max(number), 0) + 1 FROM hosted_versions WHERE bot = ?",
                        (name.casefold(),)).fetchone()[0])
                    self._run("INSERT INTO hosted_versions (bot, number, name, language, state, "
                              "source_digest, source, submitted_at) VALUES (?, ?, ?, ?, ?, ?, "
                              "?, ?)", (name.casefold(), number, shown, language,
                                        VersionState.BUILDING.value, source_digest, source, at))
                return self.version(name, number)
            except self._duplicate:
                continue
        raise VersionError(f"{name}: too many submissions at once; submit again")

    def built(self, name: str, number: int, files: bytes, digest: str, log: str,
              run: tuple[str, ...], *, expected: BotVersion | None = None) -> BotVersion:
        """The version was built: its build stored (once by its digest), ``validating``.
        ``expected`` (here and in :meth:`refuse`, :meth:`passed`): the version as its build
        began (a VersionError if ``name`` ``number`` is another submission now: the bot was
        removed and the name registered anew meanwhile; its bot renamed meanwhile, it is found
        under the new name)."""
        name = self._now_named(name, number, expected)
        self._moved(name, number, VersionState.VALIDATING, expected)
        with self._transaction():
            if self._run("SELECT 1 FROM hosted_builds WHERE digest = ?",
                         (digest,)).fetchone() is None:
                self._run("INSERT INTO hosted_builds VALUES (?, ?, ?)",
                          (digest, files, len(files)))
            self._run("UPDATE hosted_versions SET state = ?, build_digest = ?, build_log = ?, "
                      "run = ? WHERE bot = ? AND number = ?",
                      (VersionState.VALIDATING.value, digest, log, json.dumps(list(run)),
                       name.casefold(), number))
        return self.version(name, number)

    def refuse(self, name: str, number: int, reason: str, *, build_log: str | None = None,
               check_log: str | None = None, expected: BotVersion | None = None) -> BotVersion:
        """The version is refused (it never plays); its build's bytes, when it had one, are
        removed unless another version not refused has the same build (a refused build kept
        for ever would let a few uploads an hour fill the database)."""
        name = self._now_named(name, number, expected)
        self._moved(name, number, VersionState.REFUSED, expected)
        found = self.logs(name, number)
        build = self.version(name, number).build_digest
        with self._transaction():
            self._run("UPDATE hosted_versions SET state = ?, reason = ?, build_log = ?, "
                      "check_log = ?, build_digest = NULL WHERE bot = ? AND number = ?",
                      (VersionState.REFUSED.value, reason,
                       found[0] if build_log is None else build_log,
                       found[1] if check_log is None else check_log, name.casefold(), number))
            if build is not None:
                self._run("DELETE FROM hosted_builds WHERE digest = ? AND NOT EXISTS (SELECT 1 "
                          "FROM hosted_versions WHERE build_digest = ?)", (build, build))
        return self.version(name, number)

    def passed(self, name: str, number: int, check_log: str, *,
               expected: BotVersion | None = None) -> BotVersion:
        """The version passed its validation: it becomes the bot's active version."""
        name = self._now_named(name, number, expected)
        self._moved(name, number, VersionState.ACTIVE, expected)
        with self._transaction():
            self._run("UPDATE hosted_versions SET check_log = ? WHERE bot = ? AND number = ?",
                      (check_log, name.casefold(), number))
            self._make_active(name, number)
        return self.version(name, number)

    def activate(self, name: str, number: int) -> BotVersion:
        """Return to an older version (valid or retired): it plays instead of the active one."""
        found = self.version(name, number)
        if found.state not in ACTIVATABLE:
            move(found.bot, number, found.state, VersionState.ACTIVE)
        with self._transaction():
            self._make_active(name, number)
        return self.version(name, number)

    def retire(self, name: str, number: int | None = None, reason: str = "") -> list[int]:
        """Retire a version, or (``number`` None) every version of the bot that could play;
        the numbers retired."""
        self.registered(name)
        if number is not None:
            self._moved(name, number, VersionState.RETIRED)
        states = (VersionState.ACTIVE.value, VersionState.VALID.value)
        chosen = [] if number is None else [number]
        with self._transaction():
            rows = self._run("SELECT number, state FROM hosted_versions WHERE bot = ? ORDER BY "
                             "number", (name.casefold(),)).fetchall()
            numbers = [int(n) for n, state in rows
                       if state in states and (number is None or n in chosen)]
            for each in numbers:
                self._run("UPDATE hosted_versions SET state = ?, reason = ? WHERE bot = ? AND "
                          "number = ?", (VersionState.RETIRED.value, reason or "by the organiser",
                                         name.casefold(), each))
        return numbers

    def _make_active(self, name: str, number: int) -> None:
        self._run("UPDATE hosted_versions SET state = ? WHERE bot = ? AND state = ?",
                  (VersionState.VALID.value, name.casefold(), VersionState.ACTIVE.value))
        self._run("UPDATE hosted_versions SET state = ?, reason = '' WHERE bot = ? AND "
                  "number = ?", (VersionState.ACTIVE.value, name.casefold(), number))

    def _now_named(self, name: str, number: int, expected: BotVersion | None) -> str:
        """The registered bot's name the version ``expected`` is kept under now (``name``, or
        its new name when the bot was renamed since)."""
        if expected is None:
            return name
        row = self._run("SELECT b.name FROM hosted_versions v JOIN bots b ON b.folded = v.bot "
                        "WHERE v.number = ? AND v.source_digest = ? AND v.submitted_at = ?",
                        (number, expected.source_digest, expected.submitted_at)).fetchone()
        return name if row is None else str(row[0])

    def _moved(self, name: str, number: int, wanted: VersionState,
               expected: BotVersion | None = None) -> None:
        found = self.version(name, number)
        if expected is not None and (found.source_digest, found.submitted_at) != (
                expected.source_digest, expected.submitted_at):
            raise VersionError(f"{name} version {number} is another submission now (the bot "
                               "was removed and its name registered again meanwhile)")
        move(found.bot, number, found.state, wanted)


class SqliteHosted(HostedStore):
    """The tables in the SQLite file of ``arena bots`` (its registry made when missing; the
    schema migrated, saying so, as every command that writes does)."""

    def __init__(self, path: Path) -> None:
        Registry(path).close()
        self.path = path
        self.db = sqlite3.connect(path, timeout=30)
        try:
            storage.migrate(self.db, str(path))
        except BaseException:
            self.db.close()
            raise

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        with self.db:
            yield

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        return self.db.execute(sql, args)

    def close(self) -> None:
        self.db.close()
