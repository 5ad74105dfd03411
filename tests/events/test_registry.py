"""Registered bots in SQLite: tokens of 128 random bits at least, kept only as keyed digests."""

from __future__ import annotations

import sqlite3
import string
from pathlib import Path

import pytest

from arena.events.registry import Registry, RegistryError, RegistryView, new_token
from reference_bots.client import argument_parser
from tests.events.scrypt_rows import add_scrypt_row

URLSAFE = set(string.ascii_letters + string.digits + "-_")


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
    same = "the-same-token-22-chars"
    with Registry(tmp_path / "r.db") as registry:
        tokens = [registry.add("a"), registry.add("b", same), registry.add("c", same)]
    db = sqlite3.connect(tmp_path / "r.db")
    rows = db.execute("SELECT name, salt, hash FROM bots").fetchall()
    db.close()
    assert len({salt for _, salt, _ in rows}) == 3 and len({h for _, _, h in rows}) == 3
    assert all(len(salt) == 16 for _, salt, _ in rows)
    raw = b"".join(file.read_bytes() for file in tmp_path.glob("r.db*"))
    assert not any(token.encode() in raw for token in tokens)
    assert all(token.encode() not in digest for token in tokens for _, _, digest in rows)


def test_the_tokens_the_registry_makes_are_random_with_more_than_128_bits(tmp_path: Path):
    """A digest, fast, is only as safe as the token is unguessable: 32 URL-safe characters
    drawn by ``secrets`` (24 bytes, 192 bits less the leading "-" refused)."""
    with Registry(tmp_path / "r.db") as registry:
        tokens = [registry.add(f"bot{i}") for i in range(200)]
    assert len(set(tokens)) == 200
    assert all(len(token) == 32 and set(token) <= URLSAFE for token in tokens)
    assert len(set("".join(tokens))) == 64  # the whole alphabet is drawn from


@pytest.mark.parametrize("problem", [
    lambda r: r.add("ALICE"), lambda r: r.add(""), lambda r: r.add("x" * 41),
    lambda r: r.add("two words"), lambda r: r.add("tab\there"), lambda r: r.add("b", "short"),
    lambda r: r.remove("carol"), lambda r: r.rename("carol", "dave"),
    lambda r: r.rename("alice", "Bob"),
    # fewer than 128 bits, were they random: 31 hex digits, 21 URL-safe characters, 19 others
    lambda r: r.add("c", "0123456789abcdef0123456789abcde"),
    lambda r: r.add("c", "a-token-of-21-chars-1"),
    lambda r: r.add("c", "a token, of 19 ch.!")])
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


def test_a_token_of_128_bits_is_taken(tmp_path: Path):
    with Registry(tmp_path / "r.db") as registry:
        for name, token in (("hex", "0123456789abcdef" * 2), ("url", "a-token-of-22-chars-12"),
                            ("any", "a token, of 20 ch.!?")):
            registry.add(name, token)
            assert registry.verify(name, token) is True


def test_a_view_sees_bots_added_and_removed_later(tmp_path: Path):
    view = RegistryView(tmp_path / "r.db")
    assert view.check("alice", "whatever-token-123") == (None, False)
    with Registry(tmp_path / "r.db") as registry:
        token = registry.add("Alice")
    assert view.check("ALICE", token) == ("Alice", True)
    assert view.check("alice", "wrong-token-wrong") == ("Alice", False)
    assert view.check("alice", None) == ("Alice", False)
    assert not view.slow("alice", token)  # a digest row: checked at once
    with Registry(tmp_path / "r.db") as registry:
        registry.remove("alice")
    assert view.check("alice", token) == (None, False)
    view.close()


def test_a_hello_reads_the_registrys_version_once(tmp_path: Path, monkeypatch):
    """slow() and check() run on the event loop for every hello; on PostgreSQL a read waits
    for the network, so a hello costs one (check's), as before issue 29."""
    view = RegistryView(tmp_path / "r.db")
    with Registry(tmp_path / "r.db") as registry:
        token = registry.add("alice")
        add_scrypt_row(registry, "old", "old-token-from-before-29")
    assert view.check("alice", token) == ("alice", True)
    reads = []
    real = view.registry.version
    monkeypatch.setattr(view.registry, "version", lambda: reads.append(1) or real())
    for name, token_said in (("alice", token), ("nobody", token), ("alice", "W" * 32)):
        assert not view.slow(name, token_said)
        view.check(name, token_said)
    assert view.slow("old", "W" * 32)
    assert len(reads) == 3


def test_a_bot_from_before_issue_29_renamed_while_a_server_runs_gets_in_by_its_second_hello(
        tmp_path: Path):
    """slow() answers from the rows in memory: a scrypt row renamed since is found by its new
    name only once check() read the rows again, so its first hello may be refused."""
    view = RegistryView(tmp_path / "r.db")
    old = "old-token-from-before-29"

    def hello(name: str, token: str) -> tuple[str | None, bool]:  # as the server does
        if view.slow(name, token):
            view.prepare(name, token)
        return view.check(name, token)

    with Registry(tmp_path / "r.db") as registry:
        add_scrypt_row(registry, "old", old)
        assert view.slow("old", old)
        registry.rename("old", "renamed")
    assert hello("renamed", old)[0] == "renamed"
    assert hello("renamed", old) == ("renamed", True)
    assert not view.slow("renamed", old)  # its digest kept
