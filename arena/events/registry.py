"""Registered bots in SQLite (``arena bots``, ``arena serve --db``): a name and a digest of
its token, never the token.

A token is random (``arena bots add`` makes 192 bits; a token given to the registry needs 128,
:mod:`arena.events.tokens`); its row keeps a keyed BLAKE2b digest of it, checked in constant
time in a microsecond, as long for a wrong token as for a name that is not registered.  A row
made before issue 29 keeps a scrypt hash until its token is first accepted, then the digest
(:meth:`Registry.verify`, :meth:`RegistryView.prepare`).  Names are unique without case and
follow the hello's rule (1 to ``MAX_NAME_CHARS`` printable characters, no spaces at either end,
no space inside, so a tokens file's ``name token`` line can hold it).  Every change bumps the
file's ``PRAGMA user_version``, so a server can keep the rows in memory and read them again
only when that number moved (:class:`RegistryView`)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
import threading
from pathlib import Path

import attrs

from arena.events.tokens import (
    SALT_BYTES,
    Scheme,
    digest_matches,
    new_token,
    scrypt_hash,
    token_digest,
    weak_token_problem,
)
from protocol.limits import MAX_NAME_CHARS

__all__ = ["Registered", "Registry", "RegistryError", "RegistryView", "check_name",
           "identity", "new_token"]

# a row without ``scheme`` is a scrypt row: the column was added by issue 29 with that default
_SCHEMA = """CREATE TABLE IF NOT EXISTS bots (
    name TEXT NOT NULL,
    folded TEXT PRIMARY KEY,
    salt BLOB NOT NULL,
    hash BLOB NOT NULL,
    scheme TEXT NOT NULL DEFAULT 'scrypt')"""
_ADD_SCHEME = "ALTER TABLE bots ADD COLUMN scheme TEXT NOT NULL DEFAULT 'scrypt'"
_INSERT = "INSERT INTO bots (name, folded, salt, hash, scheme) VALUES (?, ?, ?, ?, ?)"
#: A scrypt row whose token was accepted keeps its digest instead (unless it changed meanwhile).
_UPGRADE = "UPDATE bots SET hash = ?, scheme = ? WHERE folded = ? AND salt = ? AND hash = ?"
SELECT_BOTS = "SELECT folded, name, salt, hash, scheme FROM bots"


#: SQL statements with their arguments, run in one transaction with a change of the registry.
Statements = tuple[tuple[str, tuple[object, ...]], ...]


def set_apart(folded: str) -> Statements:
    """The statements that take the hosted versions kept under the folded name ``folded``
    away from it (a bot removed, or a name registered anew with versions left under it by an
    arena before this rule): the ones that could play are ``retired``, the ones being built or
    validated ``refused``, and all are kept (for the records of the games they played) under a
    key no name can reach (a name holds no space), so the name's next holder starts at
    version 1 and never sees them."""
    apart = f"removed {secrets.token_hex(8)} {folded}"
    reason = "the bot was removed"
    return (
        ("UPDATE hosted_versions SET state = 'retired', reason = ? WHERE bot = ? AND state IN "
         "('active', 'valid')", (reason, folded)),
        ("UPDATE hosted_versions SET state = 'refused', reason = ? WHERE bot = ? AND state IN "
         "('building', 'validating')", (reason, folded)),
        ("UPDATE hosted_versions SET bot = ? WHERE bot = ?", (apart, folded)),
    )


class RegistryError(ValueError):
    """A bad name, a duplicate or unknown one, or a database that cannot be used."""


@attrs.frozen
class Registered:
    """One registered bot's row."""

    name: str
    salt: bytes
    #: The token's digest (:attr:`Scheme.DIGEST`) or scrypt hash (:attr:`Scheme.SCRYPT`).
    hash: bytes
    scheme: Scheme

    def digest_matches(self, token: str) -> bool:
        """The fast check (False for a scrypt row, whatever the token)."""
        return digest_matches(token, self.salt, self.hash) and self.scheme is Scheme.DIGEST

    def scrypt_matches(self, token: str) -> bool:
        """A scrypt row's check (some 100 ms: not on the event loop)."""
        return self.scheme is Scheme.SCRYPT and hmac.compare_digest(
            scrypt_hash(token, self.salt), self.hash)

    def upgraded(self, token: str) -> Registered:
        return attrs.evolve(self, hash=token_digest(token, self.salt), scheme=Scheme.DIGEST)


def check_name(name: str) -> str:
    if (not name or len(name) > MAX_NAME_CHARS or not name.isprintable()
            or name != name.strip() or " " in name):
        raise RegistryError(f"{name!r}: a name is 1 to {MAX_NAME_CHARS} printable characters "
                            "without spaces")
    return name


def identity(salt: bytes) -> str:
    """A registration's lasting identity (a ladder's entrant keeps it: a rename keeps the salt,
    a removal and a new registration of the name make a new one); a digest of the salt, so it
    tells nothing of the token."""
    return "registered:" + hashlib.sha256(b"arena-entrant\0" + salt).hexdigest()[:16]


class Registry:
    """The ``bots`` table of a SQLite file (created when missing; a file from before issue 29
    gets its ``scheme`` column)."""

    def __init__(self, path: Path, *, shared: bool = False) -> None:
        """``shared``: used from several threads (one at a time: the caller locks)."""
        self.path = path
        try:
            self.db = sqlite3.connect(path, timeout=5.0, check_same_thread=not shared)
            if self.db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                self.db.execute("PRAGMA journal_mode = wal")  # readers never wait for a writer
            self.db.execute(_SCHEMA)
            columns = {row[1] for row in self.db.execute("PRAGMA table_info(bots)")}
            if "scheme" not in columns:
                try:
                    self.db.execute(_ADD_SCHEME)
                except sqlite3.OperationalError as exc:  # another connection added it first
                    if "duplicate column" not in str(exc):
                        raise
            self.db.commit()
        except sqlite3.Error as exc:
            raise RegistryError(f"{path}: {exc}") from None

    def reopened(self) -> Registry:
        """Another connection to the same registry (``shared``)."""
        return Registry(self.path, shared=True)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Registry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    def _change(self, sql: str, args: tuple[object, ...], problem: str,
                also: Statements = ()) -> None:
        """``also``: statements run in the same transaction when the change is made."""
        try:
            with self.db:
                changed = self.db.execute(sql, args).rowcount
                if changed == 0:
                    raise RegistryError(problem)
                for statement in also:
                    self.db.execute(*statement)
                self.db.execute(f"PRAGMA user_version = {self.version() + 1}")
        except sqlite3.IntegrityError:
            raise RegistryError(problem) from None
        except sqlite3.Error as exc:
            raise RegistryError(f"{self.path}: {exc}") from None

    def add(self, name: str, token: str | None = None) -> str:
        """Registers ``name`` (with ``token``, which needs 128 bits, or a new one); returns the
        token."""
        check_name(name)
        token = new_token() if token is None else token
        problem = weak_token_problem(token)
        if problem is not None:
            raise RegistryError(f"{name}: {problem}")
        salt = secrets.token_bytes(SALT_BYTES)
        self._change(_INSERT, (name, name.casefold(), salt, token_digest(token, salt),
                               Scheme.DIGEST.value), f"{name!r} is registered already",
                     self._versions_set_apart(name))
        return token

    def remove(self, name: str) -> None:
        """The bot's hosted versions are set apart (:func:`set_apart`) in the same
        transaction."""
        self._change("DELETE FROM bots WHERE folded = ?", (name.casefold(),),
                     f"{name!r} is not registered", self._versions_set_apart(name))

    def _versions_set_apart(self, name: str) -> Statements:
        return set_apart(name.casefold()) if self._has_table("hosted_versions") else ()

    def _has_table(self, table: str) -> bool:
        return self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                               "name = ?", (table,)).fetchone() is not None

    def rename(self, old: str, new: str) -> None:
        """A ladder's entrant of that bot (``arena serve --db``) takes the new name too, and
        so do its hosted versions."""
        check_name(new)
        if old.casefold() != new.casefold() and self.lookup(new) is not None:
            raise RegistryError(f"{new!r} is registered already")
        row = self.lookup(old)
        also: Statements = ()
        if row is not None and self._has_table("entrants"):
            also += (("UPDATE entrants SET name = ? WHERE command = ?", (new, identity(row.salt))),)
        if self._has_table("hosted_versions"):
            also += (("UPDATE hosted_versions SET bot = ?, name = ? WHERE bot = ?",
                      (new.casefold(), new, old.casefold())),)
        self._change("UPDATE bots SET name = ?, folded = ? WHERE folded = ?",
                     (new, new.casefold(), old.casefold()), f"{old!r} is not registered", also)

    def names(self) -> list[str]:
        return [name for (name,) in self.db.execute("SELECT name FROM bots ORDER BY folded")]

    def _select(self) -> list[tuple[str, str, bytes, bytes, str]]:
        return list(self.db.execute(SELECT_BOTS))

    def rows(self) -> dict[str, Registered]:
        """Each registered bot by its folded name."""
        return {folded: Registered(name, bytes(salt), bytes(digest), Scheme(scheme))
                for folded, name, salt, digest, scheme in self._select()}

    def lookup(self, name: str) -> Registered | None:
        return self.rows().get(name.casefold())

    def upgrade(self, folded: str, row: Registered, token: str) -> bool:
        """Keeps the digest of ``token`` instead of scrypt row ``row``'s hash (``token`` was
        just accepted by it); False when the row changed meanwhile (removed, registered anew)."""
        try:
            self._change(_UPGRADE, (row.upgraded(token).hash, Scheme.DIGEST.value, folded,
                                    row.salt, row.hash), "changed meanwhile")
        except RegistryError:
            return False
        return True

    def verify(self, name: str, token: str) -> bool | None:
        """Whether ``token`` is ``name``'s (None: the name is not registered).  A scrypt row's
        token is checked with scrypt, and the row then keeps the digest (if it matched)."""
        row = self.lookup(name)
        if row is None:
            digest_matches(token, None, None)  # the same work as a registered name's
            return None
        if row.scheme is Scheme.DIGEST:
            return row.digest_matches(token)
        if not row.scrypt_matches(token):
            return False
        self.upgrade(name.casefold(), row, token)
        return True


class RegistryView:
    """A server's view of a registry: the rows in memory, read again when the registry's
    version moved (one small read per hello).  :meth:`check` answers a hello at once (a digest
    and a comparison, the same work for a wrong token as for an unknown name), on the event
    loop.  A row from before issue 29 still holding a scrypt hash is :meth:`slow`: the hello
    is :meth:`prepare`-d first, in a worker thread, where a matching token turns the row into
    a digest one (in memory at once, in the database through a connection of its own); an
    unprepared or wrong token never matches such a row."""

    def __init__(self, path: Path, registry: Registry | None = None) -> None:
        """``registry``: another store's (PostgreSQL's) instead of the file ``path``'s."""
        self.registry = registry if registry is not None else Registry(path, shared=True)
        self.lock = threading.Lock()
        self.seen = -1
        self.rows: dict[str, Registered] = {}
        #: Where scrypt rows are upgraded (opened at the first; its own lock, so a slow write
        #: never holds up :meth:`check` on the event loop).
        self.writer: Registry | None = None
        self.writing = threading.Lock()

    def close(self) -> None:
        with self.writing:
            if self.writer is not None:
                self.writer.close()
        self.registry.close()

    def _row(self, name: str) -> Registered | None:
        with self.lock:
            version = self.registry.version()
            if version != self.seen:
                self.rows, self.seen = self.registry.rows(), version
            return self.rows.get(name.casefold())

    def check(self, name: str, token: str | None) -> tuple[str | None, bool]:
        """(the registered name or None when unknown, whether ``token`` is its token)."""
        row = self._row(name)
        if token is None:
            return (None if row is None else row.name), False
        if row is None:
            digest_matches(token, None, None)  # the same work as a registered name's
            return None, False
        return row.name, row.digest_matches(token)

    def slow(self, name: str, token: str | None) -> bool:
        """Whether the hello needs :meth:`prepare` first (a scrypt row's, with a token).  Read
        from the rows in memory (the registry is read once, the first time): :meth:`check`
        reads the version right after, and one read per hello is enough (a PostgreSQL read
        waits for the network, on the event loop).  A scrypt row is never made any more, so
        the rows read before hold them all, but for a rename meanwhile: that bot is refused
        once (``bad_token``), and its next hello is prepared."""
        if token is None:
            return False
        with self.lock:
            if self.seen < 0:  # the version first: a change in between is read again later
                self.seen = self.registry.version()
                self.rows = self.registry.rows()
            row = self.rows.get(name.casefold())
        return row is not None and row.scheme is Scheme.SCRYPT

    def prepare(self, name: str, token: str | None) -> None:
        """A scrypt row's check (thread-safe; some 100 ms): a matching token makes it a digest
        row, so :meth:`check` accepts it; a wrong one changes nothing."""
        row = self._row(name)
        if token is None or row is None or not row.scrypt_matches(token):
            return
        folded = name.casefold()
        with self.writing:  # stored (the version moves), else the next hello pays scrypt again
            try:
                if self.writer is None:
                    self.writer = self.registry.reopened()
                self.writer.upgrade(folded, row, token)
            except RegistryError:
                pass
        with self.lock:  # this hello is accepted either way
            if self.rows.get(folded) == row:
                self.rows[folded] = row.upgraded(token)
