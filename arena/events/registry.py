"""Registered bots in SQLite (``arena bots``, ``arena serve --db``): a name and a salted hash of
its token, never the token.

Each token is hashed with ``hashlib.scrypt`` (n=2**14, r=8, p=1) and a random 16-byte salt of
its own, and checked with ``hmac.compare_digest``.  Names are unique without case and follow the
hello's rule (1 to ``MAX_NAME_CHARS`` printable characters, no spaces at either end, no space
inside, so a tokens file's ``name token`` line can hold it).  Every change bumps the file's
``PRAGMA user_version``, so a server can keep the rows in memory and read them again only
when that number moved (:class:`RegistryView`)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
import threading
from pathlib import Path

from protocol.limits import MAX_NAME_CHARS

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
SALT_BYTES = 16
#: Characters a token needs at least (as a tokens file's).
MIN_TOKEN_CHARS = 16

_SCHEMA = """CREATE TABLE IF NOT EXISTS bots (
    name TEXT NOT NULL,
    folded TEXT PRIMARY KEY,
    salt BLOB NOT NULL,
    hash BLOB NOT NULL)"""


class RegistryError(ValueError):
    """A bad name, a duplicate or unknown one, or a database that cannot be used."""


def hash_token(token: str, salt: bytes) -> bytes:
    return hashlib.scrypt(token.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P,
                          maxmem=64 * 1024 * 1024, dklen=32)


def token_matches(token: str, salt: bytes, digest: bytes) -> bool:
    return hmac.compare_digest(hash_token(token, salt), digest)


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


def new_token() -> str:
    """32 URL-safe characters (24 random bytes), never a leading "-": a bot's command line
    (``--token TOKEN``) would read such a token as an option."""
    while True:
        token = secrets.token_urlsafe(24)
        if not token.startswith("-"):
            return token


class Registry:
    """The ``bots`` table of a SQLite file (created when missing)."""

    def __init__(self, path: Path, *, shared: bool = False) -> None:
        """``shared``: used from several threads (one at a time: the caller locks)."""
        self.path = path
        try:
            self.db = sqlite3.connect(path, timeout=5.0, check_same_thread=not shared)
            if self.db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                self.db.execute("PRAGMA journal_mode = wal")  # readers never wait for a writer
            self.db.execute(_SCHEMA)
            self.db.commit()
        except sqlite3.Error as exc:
            raise RegistryError(f"{path}: {exc}") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Registry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    def _change(self, sql: str, args: tuple[object, ...], problem: str,
                also: tuple[str, tuple[object, ...]] | None = None) -> None:
        """``also``: a statement run in the same transaction when the change is made."""
        try:
            with self.db:
                changed = self.db.execute(sql, args).rowcount
                if changed == 0:
                    raise RegistryError(problem)
                if also is not None:
                    self.db.execute(*also)
                self.db.execute(f"PRAGMA user_version = {self.version() + 1}")
        except sqlite3.IntegrityError:
            raise RegistryError(problem) from None
        except sqlite3.Error as exc:
            raise RegistryError(f"{self.path}: {exc}") from None

    def add(self, name: str, token: str | None = None) -> str:
        """Registers ``name`` (with ``token``, or a new one); returns the token."""
        check_name(name)
        token = new_token() if token is None else token
        if len(token) < MIN_TOKEN_CHARS:
            raise RegistryError(f"{name}: a token needs at least {MIN_TOKEN_CHARS} characters")
        salt = secrets.token_bytes(SALT_BYTES)
        self._change("INSERT INTO bots (name, folded, salt, hash) VALUES (?, ?, ?, ?)",
                     (name, name.casefold(), salt, hash_token(token, salt)),
                     f"{name!r} is registered already")
        return token

    def remove(self, name: str) -> None:
        self._change("DELETE FROM bots WHERE folded = ?", (name.casefold(),),
                     f"{name!r} is not registered")

    def rename(self, old: str, new: str) -> None:
        """A ladder's entrant of that bot (``arena serve --db``) takes the new name too."""
        check_name(new)
        if old.casefold() != new.casefold() and self.lookup(new) is not None:
            raise RegistryError(f"{new!r} is registered already")
        row = self.lookup(old)
        ladder = self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                 "name = 'entrants'").fetchone()
        also = (("UPDATE entrants SET name = ? WHERE command = ?", (new, identity(row[1])))
                if row is not None and ladder else None)
        self._change("UPDATE bots SET name = ?, folded = ? WHERE folded = ?",
                     (new, new.casefold(), old.casefold()), f"{old!r} is not registered", also)

    def names(self) -> list[str]:
        return [name for (name,) in self.db.execute("SELECT name FROM bots ORDER BY folded")]

    def rows(self) -> dict[str, tuple[str, bytes, bytes]]:
        """Each registered bot by its folded name: (name, salt, hash)."""
        return {folded: (name, salt, digest) for folded, name, salt, digest in self.db.execute(
            "SELECT folded, name, salt, hash FROM bots")}

    def lookup(self, name: str) -> tuple[str, bytes, bytes] | None:
        return self.rows().get(name.casefold())

    def verify(self, name: str, token: str) -> bool | None:
        """Whether ``token`` is ``name``'s (None: the name is not registered)."""
        row = self.lookup(name)
        return None if row is None else token_matches(token, row[1], row[2])


class RegistryView:
    """A server's view of a registry file: the rows in memory, read again when the file's
    version moved (one small read per hello), and the tokens it has checked remembered (by
    their SHA-256, never in clear) so a bot's next hello costs no scrypt.  :meth:`prepare`
    does the slow part (the scrypt) and may run in a worker thread; :meth:`check` then finds
    its verdict."""

    #: Verdicts kept for :meth:`check` at most (forgotten all at once beyond).
    VERDICTS_KEPT = 1024

    def __init__(self, path: Path, registry: Registry | None = None) -> None:
        """``registry``: another store's (PostgreSQL's) instead of the file ``path``'s."""
        self.registry = registry if registry is not None else Registry(path, shared=True)
        self.lock = threading.Lock()
        self.seen = -1
        self.rows: dict[str, tuple[str, bytes, bytes]] = {}
        self.checked: dict[str, bytes] = {}
        self.verdicts: dict[bytes, bool] = {}

    def _row(self, name: str) -> tuple[str, bytes, bytes] | None:
        with self.lock:
            version = self.registry.version()
            if version != self.seen:
                self.rows, self.seen, self.checked = self.registry.rows(), version, {}
                self.verdicts = {}
            return self.rows.get(name.casefold())

    @staticmethod
    def _key(row: tuple[str, bytes, bytes], token: str) -> bytes:
        return hashlib.sha256(row[0].casefold().encode() + b"\0" + row[1] + token.encode()).digest()

    def prepare(self, name: str, token: str | None) -> None:
        """Checks ``token`` against ``name``'s hash ahead of :meth:`check` (thread-safe)."""
        row = self._row(name)
        if row is None or token is None:
            return
        key = self._key(row, token)
        if self.checked.get(name.casefold()) == key:
            return
        matches = token_matches(token, row[1], row[2])
        if len(self.verdicts) >= self.VERDICTS_KEPT:
            self.verdicts = {}
        self.verdicts[key] = matches

    def check(self, name: str, token: str | None) -> tuple[str | None, bool]:
        """(the registered name or None when unknown, whether ``token`` is its token)."""
        row = self._row(name)
        if row is None:
            return None, False
        if token is None:
            return row[0], False
        key = self._key(row, token)
        known = self.checked.get(name.casefold())
        if known is not None and hmac.compare_digest(known, key):
            return row[0], True
        matches = self.verdicts.pop(key, None)
        if matches is None:  # not prepared: checked here
            matches = token_matches(token, row[1], row[2])
        if matches:
            self.checked[name.casefold()] = key
        return row[0], matches
