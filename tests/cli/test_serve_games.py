"""``arena serve --game A --game B``: several games on one port, as an organiser and the bots
see it; under ``--db`` each game's ladder apart (``arena ratings`` of each game's place shows
that game's bots and games only), one registration for every game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.events.places import game_place
from tests.cli.test_bots_command import add, run
from tests.helpers import log_files
from tests.serve_harness import Served

#: Two games kept short: three seats at one hand of chochlik, two at vollewolle.
GAMES = ("--game", "chochlik", "--game", "vollewolle", "-o", "chochlik:hands=1",
         "-o", "vollewolle:players=2")
SEATS = {"chochlik": ["alice", "bob", "carol"], "vollewolle": ["alice", "dave"]}


def ratings(db: Path | str) -> dict[str, dict]:
    code, out = run("ratings", "--db", str(db), "--format", "json", "--resamples", "0")
    assert code == 0, out
    return {row["name"]: row for row in json.loads(out)}


def test_two_games_at_one_port_each_bot_naming_its_game(tmp_path: Path):
    with Served(tmp_path, *GAMES, "--games", "2") as served:
        served.out.seen.clear()
        nameless = served.client("nameless")  # names no game: one clear error
        error = nameless.expect("error")
        assert error["code"] == "game_required" and error["fatal"]
        assert "'chochlik', 'vollewolle'" in error["message"]
        for game, names in SEATS.items():
            for name in names:
                served.bot("--game", game, "--name", name)
        served.out.expect(r"2 games of each game played: stopping")
        assert served.process.wait(timeout=30) == 0
        rest = served.out.rest()
    for game in SEATS:
        assert len(log_files(tmp_path / "logs", f"{game}-*")) == 2
    summary = "\n".join(served.out.seen + rest)
    assert "arena: chochlik: 2 games played" in summary
    assert "arena: vollewolle: 2 games played" in summary


def test_options_that_would_apply_to_every_game_are_refused(tmp_path: Path):
    code, out = run("serve", *GAMES, "--players", "3", "--port", "0")
    assert code == 2 and "-o GAME:NAME=VALUE" in out, out
    code, out = run("serve", "--game", "chochlik", "--game", "wypas", "-o", "players=3")
    assert code == 2 and "GAME:NAME=VALUE" in out, out


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_under_db_each_game_keeps_its_own_ladder_and_one_registration_plays_both(
        tmp_path: Path, backend: str, request: pytest.FixtureRequest):
    db: Any = (tmp_path / "ladder.db" if backend == "sqlite"
               else request.getfixturevalue("pg_url"))
    tokens = {name: add(db, name) for name in ("alice", "bob", "carol", "dave")}
    with Served(tmp_path, *GAMES, "--games", "2", "--db", str(db)) as served:
        for game in SEATS:  # the organiser is told where each game's ladder is
            assert f"arena: {game}: its ladder in {game_place(db, game)}" in served.out.seen
        for game, names in SEATS.items():
            for name in names:
                served.bot("--game", game, "--name", name, "--token", tokens[name])
        served.out.expect(r"2 games of each game played: stopping")
        assert served.process.wait(timeout=30) == 0
    for game, names in SEATS.items():
        board = ratings(game_place(db, game))
        assert sorted(name for name, row in board.items() if row["games"]) == sorted(names)
        assert all(row["games"] == 2 for row in board.values() if row["games"])


def test_each_game_has_its_pages_its_live_tables_and_its_own_leaderboard(tmp_path: Path):
    import re
    import urllib.request

    db = tmp_path / "ladder.db"
    tokens = {name: add(db, name) for name in ("alice", "bob", "carol", "dave")}
    with Served(tmp_path, *GAMES, "--db", str(db), "--web", "0") as served:
        pages = dict(match.groups() for line in served.out.seen if (match := re.match(
            r"arena: (\w+): the pages at (http://127\.0\.0\.1:\d+)/", line)))
        assert sorted(pages) == sorted(SEATS) and len(set(pages.values())) == 2
        for game, names in SEATS.items():
            for name in names:
                served.bot("--game", game, "--name", name, "--token", tokens[name])
        boards: dict[str, list[str]] = {}
        for _ in range(40):  # after each game played (stored soon after)
            game = served.out.expect(r"^(\w+) table \S+: ").group(1)
            with urllib.request.urlopen(pages[game] + "/leaderboard.json", timeout=30) as got:
                rows = json.loads(got.read())["rows"]
            if played := sorted(row["name"] for row in rows if row["games"]):
                boards[game] = played  # every registered bot is listed, those who played it
            if len(boards) == 2:
                break
        assert boards == {game: sorted(names) for game, names in SEATS.items()}
        for address in pages.values():
            with urllib.request.urlopen(address + "/live.json", timeout=30) as got:
                assert got.status == 200
        assert any("hosting chochlik (3 players), vollewolle (2 players)" in line
                   for line in served.out.seen)
        assert served.interrupt() == 0


def test_transcripts_of_several_games_are_kept_apart_each_from_its_welcome(tmp_path: Path):
    folder = tmp_path / "transcripts"
    with Served(tmp_path, *GAMES, "--transcripts", str(folder)) as served:
        for game in SEATS:  # each game's first connection: number 1 at each game's server
            client = served.client(f"watcher-{game}", game=game, role="spectator")
            client.send({"type": "watch"})
            client.expect("tables")
        assert served.interrupt() == 0
    for game in SEATS:
        (path,) = (folder / game).glob("*.txt")
        lines = path.read_text().splitlines()
        assert path.name == f"1-watcher-{game}.txt"
        assert '"games":["chochlik","vollewolle"]' in lines[1] and "> " in lines[1]
        assert f'"game": "{game}"' in lines[2] and "< " in lines[2]
