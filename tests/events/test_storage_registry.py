"""Registered bots on both backends (SQLite and a real PostgreSQL): the same names, tokens and
errors, every change moving the version a server's view reads the rows again by; ``arena bots
--db URL`` works as with a file.  A token costs a digest, never a scrypt (issue 29), and a row
from before keeps working."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.events.pg_registry import PgRegistry
from arena.events.registry import Registry, RegistryError, RegistryView
from tests.events.scrypt_rows import add_scrypt_row

B22, T22, U22 = "beta-secret-token-0001", "late-secret-token-0001", "late-secret-token-0002"


@pytest.fixture(params=["sqlite", "postgresql"])
def opened(request, tmp_path):
    """``opened()``: the test's registry (SQLite file or PostgreSQL database), again."""
    url = request.getfixturevalue("pg_url") if request.param == "postgresql" else None
    made = []

    def again(shared: bool = False):
        registry = (PgRegistry(url, shared=shared) if url else
                    Registry(tmp_path / "bots.db", shared=shared))
        made.append(registry)
        return registry

    yield again
    for registry in made:
        registry.close()


def test_bots_are_added_checked_renamed_and_removed_alike(opened):
    registry = opened()
    start = registry.version()
    token = registry.add("Alpha")
    registry.add("beta", B22)
    assert registry.names() == ["Alpha", "beta"] and registry.version() == start + 2
    assert registry.verify("alpha", token) and registry.verify("beta", B22)
    assert registry.verify("beta", token) is False and registry.verify("gamma", token) is None
    with pytest.raises(RegistryError, match="registered already"):
        registry.add("ALPHA")
    with pytest.raises(RegistryError, match="at least 128 random bits"):
        registry.add("short", "x")
    registry.rename("Alpha", "Gamma")
    with pytest.raises(RegistryError, match="not registered"):
        registry.remove("alpha")
    registry.remove("beta")
    assert opened().names() == ["Gamma"] and opened().verify("gamma", token)
    assert registry.version() == start + 4  # the failed changes moved nothing


def test_a_servers_view_sees_a_bot_registered_after_it_was_opened(opened):
    view = RegistryView(None, opened(shared=True))  # type: ignore[arg-type]
    assert view.check("late", T22) == (None, False)
    opened().add("late", T22)
    assert view.check("late", T22) == ("late", True)
    assert view.check("late", U22) == ("late", False)


def test_arena_bots_takes_a_postgresql_url(pg_url):
    added = CliRunner().invoke(main, ["bots", "add", "remote-1", "--db", pg_url])
    assert added.exit_code == 0, added.output
    name, token = added.output.split()
    listed = CliRunner().invoke(main, ["bots", "list", "--db", pg_url])
    assert listed.output.split() == ["remote-1"]
    assert PgRegistry(pg_url).verify(name, token)


def forbid_scrypt(monkeypatch) -> None:
    def scrypt(*args, **kwargs):
        pytest.fail("scrypt was called")

    monkeypatch.setattr(hashlib, "scrypt", scrypt)


def test_a_wrong_token_costs_what_an_unknown_name_does_and_never_a_scrypt(opened, monkeypatch):
    """Issue 29: a wrong token for a registered (public) name cost a scrypt (some 100 ms; a
    flood of them locked every bot out) while an unknown name cost nothing, which also told
    them apart.  Now both make the same digest and the same constant-time comparison."""
    registry = opened()
    token = registry.add("alice")
    view = RegistryView(None, opened(shared=True))  # type: ignore[arg-type]
    assert view.check("alice", token) == ("alice", True)  # the rows read
    forbid_scrypt(monkeypatch)
    work: list[tuple[str, int, int]] = []

    def spy(module, name):
        real = getattr(module, name)

        def called(*args, **kwargs):
            work.append((name, len(args), len(kwargs)))
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, called)

    for module, name in ((hmac, "compare_digest"), (hashlib, "blake2b"), (hashlib, "sha256")):
        spy(module, name)

    def done(check) -> tuple[object, list[tuple[str, int, int]]]:
        work.clear()
        return check(), list(work)

    wrong = "W" * 32
    assert done(lambda: view.check("alice", wrong))[0] == ("alice", False)
    assert done(lambda: view.check("nobody", wrong))[0] == (None, False)
    assert done(lambda: view.check("ALICE", token))[0] == ("alice", True)
    same = done(lambda: view.check("alice", wrong))[1]
    assert ("compare_digest", 2, 0) in same
    assert done(lambda: view.check("nobody", wrong))[1] == same
    assert done(lambda: view.check("alice", token))[1] == same
    assert done(lambda: registry.verify("alice", wrong)) == (False, same)
    assert done(lambda: registry.verify("nobody", wrong)) == (None, same)


def test_a_row_from_before_issue_29_is_checked_with_scrypt_until_its_token_is_accepted(
        opened, monkeypatch):
    """A row made before issue 29 keeps its scrypt hash until its token is accepted once (by
    ``arena bots`` or by a server's hello, prepared in a worker thread); then its digest."""
    registry = opened()
    old, older, wrong = "o" * 16 + "O" * 6, "p" * 16 + "P" * 6, "w" * 16 + "W" * 6
    add_scrypt_row(registry, "Old", old)
    add_scrypt_row(registry, "Older", older)
    assert registry.verify("old", wrong) is False  # a scrypt: the row is unchanged
    assert registry.verify("OLD", old) is True  # a scrypt, then the digest kept
    with monkeypatch.context() as patched:
        forbid_scrypt(patched)
        assert registry.verify("old", old) is True and registry.verify("old", wrong) is False
        assert opened().verify("old", old) is True  # stored

    view = RegistryView(None, opened(shared=True))  # type: ignore[arg-type]
    assert view.slow("older", older) and view.slow("older", wrong)
    assert not view.slow("older", None) and not view.slow("old", old)
    assert not view.slow("nobody", older)
    with monkeypatch.context() as patched:
        forbid_scrypt(patched)  # check runs on the event loop: never a scrypt there
        assert view.check("older", older) == ("Older", False)  # not prepared
    view.prepare("older", wrong)
    assert view.check("older", wrong) == ("Older", False) and view.slow("older", older)
    view.prepare("Older", older)
    forbid_scrypt(monkeypatch)
    assert view.check("older", older) == ("Older", True) and not view.slow("older", older)
    assert view.check("older", wrong) == ("Older", False)
    assert opened().verify("older", older) is True  # stored by the view


def test_a_sqlite_file_made_before_issue_29_keeps_its_bots(tmp_path, monkeypatch):
    """The ``bots`` table as it was (no ``scheme`` column), with a scrypt row: opened, it gains
    the column, the bot's token is accepted with scrypt once, then by its digest."""
    import sqlite3

    from tests.events.scrypt_rows import OLD_SCRYPT

    db = tmp_path / "old.db"
    token = "token-from-before-issue-29"
    with sqlite3.connect(db) as old:
        old.execute("CREATE TABLE bots (name TEXT NOT NULL, folded TEXT PRIMARY KEY, "
                    "salt BLOB NOT NULL, hash BLOB NOT NULL)")
        old.execute("INSERT INTO bots VALUES (?, ?, ?, ?)", (
            "Veteran", "veteran", b"s" * 16,
            hashlib.scrypt(token.encode(), salt=b"s" * 16, **OLD_SCRYPT)))
        old.execute("PRAGMA user_version = 1")
    old.close()
    with Registry(db) as registry:
        assert registry.names() == ["Veteran"] and registry.verify("veteran", "W" * 32) is False
        assert registry.verify("veteran", token) is True
    forbid_scrypt(monkeypatch)
    with Registry(db) as registry:
        assert registry.verify("VETERAN", token) is True
        assert registry.verify("veteran", "W" * 32) is False


def test_a_postgresql_database_made_before_issue_29_keeps_its_bots(pg_url, monkeypatch):
    from arena.events import pg_storage

    token = "token-from-before-issue-29"
    with monkeypatch.context() as before:
        before.setattr(pg_storage, "PG_MIGRATIONS", pg_storage.PG_MIGRATIONS[:4])
        old = PgRegistry(pg_url)
        add_scrypt_row(old, "Veteran", token)
        old.close()
    with PgRegistry(pg_url) as registry:  # migrated: the scheme column, 'scrypt' for the row
        assert registry.names() == ["Veteran"] and registry.verify("veteran", "W" * 32) is False
        assert registry.verify("veteran", token) is True
    forbid_scrypt(monkeypatch)
    with PgRegistry(pg_url) as registry:
        assert registry.verify("VETERAN", token) is True
        assert registry.verify("veteran", "W" * 32) is False
