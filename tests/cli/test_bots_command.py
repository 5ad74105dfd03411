"""``arena bots`` (registration in SQLite) and ``arena serve --db`` admitting registered bots."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from tests.serve_harness import Served


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def add(db: Path, name: str) -> str:
    code, out = run("bots", "add", name, "--db", str(db))
    assert code == 0, out
    match = re.fullmatch(rf"{name} (\S{{16,}})\n", out)
    assert match, out
    return match.group(1)


def test_add_prints_a_token_once_and_list_shows_names_not_tokens(tmp_path: Path):
    db = tmp_path / "bots.db"
    token = add(db, "alice")
    assert add(db, "bob") != token
    code, out = run("bots", "list", "--db", str(db))
    assert code == 0 and out.splitlines() == ["alice", "bob"] and token not in out
    assert run("bots", "rename", "bob", "Carol", "--db", str(db)) == (0, "renamed bob to Carol\n")
    assert run("bots", "remove", "ALICE", "--db", str(db)) == (0, "removed ALICE\n")
    assert run("bots", "list", "--db", str(db)) == (0, "Carol\n")


def test_bad_input_is_one_line_and_exit_1(tmp_path: Path):
    db = tmp_path / "bots.db"
    add(db, "alice")
    for args, said in ((["add", "ALICE"], "'ALICE' is registered already"),
                       (["remove", "bob"], "'bob' is not registered"),
                       (["rename", "bob", "eve"], "'bob' is not registered"),
                       (["add", "two words"], "a name is 1 to 40 printable characters")):
        code, out = run("bots", *args, "--db", str(db))
        assert code == 1 and out.count("\n") == 1 and said in out, out
    code, out = run("bots", "add", "eve", "--db", str(tmp_path / "nowhere" / "bots.db"))
    assert code == 1 and out.startswith("Error: ") and out.count("\n") == 1, out


def test_import_hashes_each_token_of_a_tokens_file(tmp_path: Path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("alice s3cret-token-alice-0001\nbob s3cret-token-bob-000001\n")
    db = tmp_path / "bots.db"
    assert run("bots", "import", "--db", str(db), "--tokens", str(tokens)) == (
        0, "imported 2 bot(s)\n")
    assert run("bots", "list", "--db", str(db)) == (0, "alice\nbob\n")
    assert not any(b"s3cret-token" in file.read_bytes() for file in tmp_path.glob("bots.db*"))
    code, out = run("bots", "import", "--db", str(db), "--tokens", str(tokens))
    assert code == 1 and "registered already: alice, bob; nothing was imported" in out
    tokens.write_text("carol s3cret-token-carol-0001\nBOB s3cret-token-bob-000002\n")  # a clash
    code, out = run("bots", "import", "--db", str(db), "--tokens", str(tokens))
    assert code == 1 and "registered already: BOB" in out
    assert run("bots", "list", "--db", str(db)) == (0, "alice\nbob\n")  # carol not added


def test_import_refuses_a_file_with_a_weak_token_and_imports_none_of_it(tmp_path: Path):
    """A token given to the registry needs 128 bits, as those it makes (issue 29: it is kept as
    a fast digest, so it must be unguessable); a tokens file's are 16 characters at least."""
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("alice s3cret-token-alice-0001\nbob sixteen-chars-16\n")
    db = tmp_path / "bots.db"
    code, out = run("bots", "import", "--db", str(db), "--tokens", str(tokens))
    assert code == 1 and out.count("\n") == 1, out
    assert "bob: a token needs at least 128 random bits" in out and "nothing was imported" in out
    assert run("bots", "list", "--db", str(db)) == (0, "")


def test_serve_db_refuses_a_file_that_does_not_exist(tmp_path: Path):
    missing = tmp_path / "missing.db"
    code, out = run("serve", "--game", "chochlik", "--port", "0", "--db", str(missing))
    assert code == 2 and "does not exist" in out
    assert not missing.exists()


def test_serve_db_admits_registered_bots_even_ones_added_while_it_runs(tmp_path: Path):
    db = tmp_path / "bots.db"
    alice = add(db, "alice")
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"alice {alice}\n")
    code, out = run("serve", "--game", "vollewolle", "--db", str(db), "--tokens", str(tokens))
    assert code == 2 and "--db and --tokens" in out
    with Served(tmp_path, "--game", "vollewolle", "--players", "2", "--db", str(db),
                verbose=True) as served:
        wrong = served.client("alice", token="not-alices-token-at-all")
        assert wrong.expect("error")["code"] == "bad_token"
        stranger = served.client("mallory", token=alice)
        assert stranger.expect("error")["code"] == "unknown_token"
        served.client("ALICE", token=alice)
        served.err.expect(r"arena\.server: alice connected \(127\.0\.0\.1\)")
        twin = served.client("alice", token=alice)
        assert twin.expect("error")["code"] == "token_in_use"
        bob = add(db, "bob")  # while the server runs
        served.client("bob", token=bob)
        served.err.expect(r"arena\.server: table 1: (alice, bob|bob, alice)")
        assert served.interrupt() == 0


def test_serve_warns_of_the_bots_still_checked_by_scrypt(tmp_path: Path, capsys):
    """Wrong tokens for such a name cost a scrypt each and can hold its bot out until it is
    admitted once (a review's attack): the organiser is told which, and what to do."""
    from arena.cli.bots import open_registry_view
    from arena.events.registry import Registry
    from tests.events.scrypt_rows import add_scrypt_row

    db = tmp_path / "bots.db"
    with Registry(db) as registry:
        registry.add("fresh")
        add_scrypt_row(registry, "old", "old-token-from-before-issue-29x")
    open_registry_view(db, None)
    said = capsys.readouterr().err
    assert "1 bot(s) still hold a token from before issue 29" in said and "(old)" in said
    assert "fresh" not in said
