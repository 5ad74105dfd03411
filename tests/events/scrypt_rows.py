"""Rows as the registry wrote them before issue 29 (a scrypt hash of the token, no ``scheme``
column named), written into a registry of either backend as raw SQL."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from arena.events.pg_registry import PgRegistry

#: The scrypt the registry used before issue 29.
OLD_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "maxmem": 64 * 1024 * 1024, "dklen": 32}


def add_scrypt_row(registry: Any, name: str, token: str) -> None:
    """Registers ``name`` with ``token`` as the registry did before issue 29."""
    salt = secrets.token_bytes(16)
    row = (name, name.casefold(), salt, hashlib.scrypt(token.encode(), salt=salt, **OLD_SCRYPT))
    if isinstance(registry, PgRegistry):
        with registry.lock, registry.pg.transaction():
            registry.pg.execute("INSERT INTO bots (name, folded, salt, hash) "
                                "VALUES (%s, %s, %s, %s)", row)
            registry.pg.execute("UPDATE registry_version SET version = version + 1")
        return
    with registry.db:
        registry.db.execute("INSERT INTO bots (name, folded, salt, hash) VALUES (?, ?, ?, ?)",
                            row)
        registry.db.execute(f"PRAGMA user_version = {registry.version() + 1}")
