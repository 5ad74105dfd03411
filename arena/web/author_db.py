"""What the author's page reads and writes in the database (blocking: called in worker threads),
always for the one bot its session signed in as: the name comes from the session, never from
the request, so no URL names another bot.  Each call opens its own connections (a file or a
PostgreSQL URL: the same database the ladder, ``arena bots`` and ``arena bots submit`` use),
writable: making an older version active is a write."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import attrs

from arena.events.hosted_store import HostedStore, SqliteHosted
from arena.events.hosted_versions import BotVersion, VersionError
from arena.events.pg_storage import is_url
from arena.events.registry import Registry, RegistryError, identity
from arena.launch.hosted_run import OUTPUT_KEPT_BYTES, output_file

#: Bytes of a version's standard error shown (its end; the ladder keeps as much).
OUTPUT_SHOWN = OUTPUT_KEPT_BYTES
NO_OUTPUT = "no output yet"


@attrs.frozen
class Signed:
    """A bot signed in: its registered name and its registration's identity."""

    bot: str
    identity: str


class AuthorDb:
    """The database ``db`` (a file or a URL) as the author's page uses it; ``builds``: the
    builds' folder (its ``.output`` sibling holds the versions' standard error)."""

    def __init__(self, db: str, builds: Path) -> None:
        self.db = db
        self.builds = builds

    @contextlib.contextmanager
    def _registry(self) -> Iterator[Registry]:
        if is_url(self.db):
            from arena.events.pg_registry import PgRegistry

            registry: Registry = PgRegistry(self.db)
        else:
            registry = Registry(Path(self.db))
        with registry:
            yield registry

    @contextlib.contextmanager
    def _store(self) -> Iterator[HostedStore]:
        if is_url(self.db):
            from arena.events.pg_hosted import PgHosted

            store: HostedStore = PgHosted(self.db)
        else:
            store = SqliteHosted(Path(self.db))
        with store:
            yield store

    def sign_in(self, name: str, token: str) -> Signed | None:
        """The bot ``name`` if ``token`` is its token (None otherwise: a wrong token and an
        unknown name alike, after the same work)."""
        with self._registry() as registry:
            if not registry.verify(name, token):
                return None
            row = registry.lookup(name)
        return None if row is None else Signed(row.name, identity(row.salt))

    def still(self, signed: Signed) -> Signed | None:
        """The bot as registered now, if it is still the registration that signed in (its
        name may have changed; None: removed, or registered anew)."""
        try:
            with self._registry() as registry:
                rows = registry.rows()
        except RegistryError:
            return None
        for row in rows.values():
            if identity(row.salt) == signed.identity:
                return Signed(row.name, signed.identity)
        return None

    def versions(self, signed: Signed) -> list[BotVersion]:
        with self._store() as store:
            return store.versions(signed.bot)

    def version(self, signed: Signed, number: int) -> tuple[BotVersion, str, str, str] | None:
        """A version of the bot with its build log, validation log and standard error (None:
        the bot has no such version)."""
        try:
            with self._store() as store:
                version = store.version(signed.bot, number)
                build_log, check_log = store.logs(signed.bot, number)
        except VersionError:
            return None
        return version, build_log, check_log, self.output(version)

    def activate(self, signed: Signed, number: int) -> str | None:
        """Make version ``number`` the one that plays; why not (None: done)."""
        try:
            with self._store() as store:
                store.activate(signed.bot, number)
        except VersionError as exc:
            return str(exc)
        return None

    def output(self, version: BotVersion) -> str:
        """The end of the version's standard error as the ladder keeps it (at most
        :data:`OUTPUT_SHOWN` bytes), or :data:`NO_OUTPUT` (the version: one of the signed-in
        bot's, read from the store)."""
        path = output_file(self.builds, version)
        try:
            with path.open("rb") as file:
                size = file.seek(0, 2)
                file.seek(max(0, size - OUTPUT_SHOWN))
                text = file.read(OUTPUT_SHOWN)
        except OSError:
            return NO_OUTPUT
        return text.decode("utf-8", errors="replace") if text else NO_OUTPUT



def entrants_of(entrants: list[tuple[str, str]], signed: Signed) -> list[int]:
    """The bot's entrants among an event's ``(name, command)`` pairs (a ladder's entrant
    keeps its registration's identity as its command, whatever its name)."""
    return [i for i, (_, command) in enumerate(entrants) if command == signed.identity]
