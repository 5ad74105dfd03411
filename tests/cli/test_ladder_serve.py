"""``arena serve --db FILE`` as a ladder: every game stored in the registry's file, read by
``arena ratings`` and ``arena export`` while the server runs, indices continuing after a
restart, bots registered or renamed while it runs keeping one history; rating snapshots taken
as it runs (``arena ratings --history``)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_bots_command import add, run
from tests.serve_harness import Served


def ratings(db: Path) -> dict[str, dict]:
    code, out = run("ratings", "--db", str(db), "--format", "json", "--resamples", "0")
    assert code == 0, out
    return {row["name"]: row for row in json.loads(out)}


def exported(db: Path) -> list[dict]:
    code, out = run("export", "--db", str(db))
    assert code == 0, out
    records = [json.loads(line) for line in out.splitlines()]
    assert records[0]["type"] == "event" and records[0]["ladder"] is True
    return records[1:]


def test_a_ladder_stores_every_game_and_continues_after_a_restart(tmp_path: Path):
    db = tmp_path / "ladder.db"
    alice, bob = add(db, "alice"), add(db, "bob")
    game = ("--game", "vollewolle", "--players", "2", "--db", str(db))
    with Served(tmp_path, *game, "--games", "3") as served:
        served.bot("--name", "alice", "--token", alice)
        served.bot("--name", "bob", "--token", bob)
        served.out.expect(r"3 games played: stopping")
        assert served.process.wait(timeout=30) == 0
    games = exported(db)
    assert [g["planned"] for g in games] == [0, 1, 2]
    assert all(sorted(g["names"]) == ["alice", "bob"] and g["log_path"] for g in games)
    assert all(Path(g["log_path"]).is_file() for g in games)
    board = ratings(db)
    assert board["alice"]["games"] == board["bob"]["games"] == 3
    assert board["alice"]["head_to_head"][0]["games"] == 3
    code, out = run("ratings", "--db", str(db), "--history")  # the ladder's live snapshots
    assert code == 0, out
    rows = [line.split() for line in out.splitlines()[1:]]
    taken = {name: [int(row[3]) for row in rows if row[0] == name] for name in ("alice", "bob")}
    assert taken["alice"] == taken["bob"] and taken["alice"][-1] == 3, out  # a young ladder's:
    assert len(taken["alice"]) > 1  # several, not one every 100 games
    assert all(row[-1] == "-" for row in rows)  # live only: no fit in so short a run

    assert run("bots", "rename", "bob", "robert", "--db", str(db))[0] == 0  # between runs
    with Served(tmp_path, *game, "--quiet", verbose=True) as served:
        served.bot("--name", "alice", "--token", alice)
        served.bot("--name", "robert", "--token", bob)
        served.err.expect(r"arena\.server: table 2: ")  # two games at least: the first is stored
        carol = add(db, "carol")  # while the server runs
        cbot = served.bot("--name", "carol", "--token", carol)
        deadline = 200
        while "carol" not in (board := ratings(db)) or board["carol"]["games"] == 0:
            deadline -= 1  # ratings read the file while the server writes it
            assert deadline, (board, cbot.poll(), served.err.seen[-40:])
            served.err.expect(r"arena\.server: table \d+: ")  # wait for another game, not a time
        assert served.interrupt() == 0
    board = ratings(db)
    assert "bob" not in board and board["robert"]["games"] > 3  # one history
    assert board["carol"]["games"] >= 1
    games = exported(db)
    code, out = run("ratings", "--db", str(db), "--history")  # the last snapshot, at the end:
    seen = [int(line.split()[3]) for line in out.splitlines()[1:]]  # the stored games (rated
    assert max(seen) == len(games), out  # while the server served) and this run's, all rated
    assert [g["planned"] for g in games] == list(range(len(games)))  # 3, 4, ... after 0-2
    assert len({g["set"] for g in games}) == len(games)


def test_a_file_holding_an_event_or_another_game_is_refused(tmp_path: Path):
    db = tmp_path / "ladder.db"
    add(db, "alice")
    with Served(tmp_path, "--game", "vollewolle", "--db", str(db)):
        pass  # the ladder is in the file before the server listens (its banner)
    code, out = run("serve", "--game", "chochlik", "--port", "0", "--db", str(db))
    assert code == 1 and "holds a ladder of vollewolle" in out and out.count("\n") == 1, out
    code, out = run("tournament", "--resume", "--db", str(db))
    assert code == 2 and "holds a ladder, not a tournament" in out, out


def test_spectators_under_db_are_the_registered_bots_with_their_tokens(tmp_path: Path):
    db = tmp_path / "ladder.db"
    alice = add(db, "alice")
    with Served(tmp_path, "--game", "vollewolle", "--db", str(db)) as served:
        stranger = served.client("mallory", role="spectator", token=alice)
        assert stranger.expect("error")["code"] == "unknown_token"
        wrong = served.client("alice", role="spectator", token="not-alices-token-at-all")
        assert wrong.expect("error")["code"] == "bad_token"
        bob = add(db, "bob")  # registered while the server runs: may watch at once
        watcher = served.client("BOB", role="spectator", token=bob)
        watcher.send({"type": "watch"})
        assert watcher.expect("tables")["tables"] == []
    code, out = run("serve", "--game", "vollewolle", "--port", "0", "--spectators",
                    "registered")
    assert code == 2 and "needs --tokens FILE or --db FILE" in out


def test_a_ladder_served_again_with_the_same_seed_deals_anew(tmp_path: Path):
    """A finished ladder game is shown (pages, export): a later run given the same --seed
    must not deal its cards again."""
    db = tmp_path / "ladder.db"
    alice, bob = add(db, "alice"), add(db, "bob")
    for _ in range(2):
        with Served(tmp_path, "--game", "vollewolle", "--players", "2", "--db", str(db),
                    "--seed", "7", "--games", "2") as served:
            served.bot("--name", "alice", "--token", alice)
            served.bot("--name", "bob", "--token", bob)
            served.out.expect(r"2 games played: stopping")
            assert served.process.wait(timeout=30) == 0
    code, out = run("export", "--db", str(db), "--with-seeds")
    assert code == 0, out
    games = [json.loads(line) for line in out.splitlines()[1:]]
    assert len(games) == 4 and len({g["seed"] for g in games}) == 4, games
