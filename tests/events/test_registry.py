"""Registered bots in SQLite: tokens kept only as salted scrypt hashes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.events import registry as registry_module
from arena.events.registry import Registry, RegistryError, RegistryView, new_token
from reference_bots.client import argument_parser


def test_add_verify_remove_rename(tmp_path: Path):
    with Registry(tmp_path / "r.db") as registry:
        token = registry.add("Alice")
        assert registry.verify("alice", token) is True
        assert registry.verify("ALICE", token + "x") is False
        assert registry.verify("bob", token) is None
        registry.rename("alice", "Bob")
        assert registry.names() == ["Bob"]
        assert registry.verify("bob", token) is True and registry.verify("alice", token) is None
        registry.remove("BOB")
        assert registry.names() == [] and registry.verify("bob", token) is None


def test_a_new_token_can_follow_token_on_a_bots_command_line():
    """A token starting with "-" is read as an option (argparse, as the reference bots'):
    ``--token -x...`` stopped the bot with exit status 2.  One token in 64 did; the ladder
    test's bots added with ``arena bots add`` then never played (carol, flaky under load)."""
    parser = argument_parser("a bot", "bot")
    for _ in range(2000):  # (63/64)**2000: the old tokens passed once in 10**13
        token = new_token()
        assert parser.parse_args(["--token", token]).token == token


def test_the_database_holds_no_token_and_every_salt_differs(tmp_path: Path):
    with Registry(tmp_path / "r.db") as registry:
        tokens = [registry.add("a"), registry.add("b", "the-same-token-16"),
                  registry.add("c", "the-same-token-16")]
    db = sqlite3.connect(tmp_path / "r.db")
    rows = db.execute("SELECT name, salt, hash FROM bots").fetchall()
    db.close()
    assert len({salt for _, salt, _ in rows}) == 3 and len({h for _, _, h in rows}) == 3
    assert all(len(salt) == 16 for _, salt, _ in rows)
    raw = b"".join(file.read_bytes() for file in tmp_path.glob("r.db*"))
    assert not any(token.encode() in raw for token in tokens)
    assert all(token.encode() not in digest for token in tokens for _, _, digest in rows)


@pytest.mark.parametrize("problem", [
    lambda r: r.add("ALICE"), lambda r: r.add(""), lambda r: r.add("x" * 41),
    lambda r: r.add("two words"), lambda r: r.add("tab\there"), lambda r: r.add("b", "short"),
    lambda r: r.remove("carol"), lambda r: r.rename("carol", "dave"),
    lambda r: r.rename("alice", "Bob")])
def test_bad_input_is_refused(tmp_path: Path, problem):
    with Registry(tmp_path / "r.db") as registry:
        registry.add("alice")
        registry.add("bob")
        with pytest.raises(RegistryError):
            problem(registry)
        assert registry.names() == ["alice", "bob"]


def test_an_unusable_file_is_a_registry_error(tmp_path: Path):
    with pytest.raises(RegistryError):
        Registry(tmp_path / "missing" / "r.db")


def test_a_prepared_hello_costs_its_check_no_scrypt(tmp_path: Path, monkeypatch):
    view = RegistryView(tmp_path / "r.db")
    with Registry(tmp_path / "r.db") as registry:
        token = registry.add("alice")
    view.prepare("alice", token)
    view.prepare("alice", "wrong-token-wrong")
    monkeypatch.setattr(registry_module, "token_matches", pytest.fail)
    assert view.check("alice", token) == ("alice", True)
    assert view.check("alice", "wrong-token-wrong") == ("alice", False)
    assert view.check("alice", token) == ("alice", True)  # remembered


def test_a_view_sees_bots_added_later_and_checks_prepared_verdicts(tmp_path: Path):
    view = RegistryView(tmp_path / "r.db")
    assert view.check("alice", "whatever-token-123") == (None, False)
    with Registry(tmp_path / "r.db") as registry:
        token = registry.add("Alice")
    view.prepare("alice", token)
    view.prepare("alice", "wrong-token-wrong")
    assert view.verdicts and len(view.verdicts) == 2
    assert view.check("ALICE", token) == ("Alice", True)
    assert view.check("alice", "wrong-token-wrong") == ("Alice", False)
    assert view.check("alice", None) == ("Alice", False)
    assert view.check("alice", token) == ("Alice", True)  # remembered
    with Registry(tmp_path / "r.db") as registry:
        registry.remove("alice")
    assert view.check("alice", token) == (None, False)
