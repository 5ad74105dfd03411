"""``arena sprt`` resumes: the same command run again with the same --db continues a test that
SIGTERM stopped, and reaches the verdict an uninterrupted run reaches.  First with a stand-in
tournament that plays scripted games and stores them (fast, exact), then through the real
command line with real bots; each on both backends (an SQLite file, and a database of a real
PostgreSQL server: tests/pg_fixture.py)."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
from click.testing import CliRunner

from arena.cli import main
from arena.events.pg_open import open_storage
from arena.gameplay.records import GameRecord
from arena.launch.tournament import TournamentReport
from tests.helpers import stand_in_tournament
from tests.serve_harness import Lines


def a_wins(set_index: int, rotation: int) -> bool:
    """A fixed, varied script: A ranks first in about 65 % of the games (H1 after 23 sets)."""
    return random.Random(f"{set_index} {rotation}").random() < 0.65


def storing_tournament(signal_after: int | None = None) -> type:
    """A Tournament stand-in that, like the real one, plays only the tables --db does not
    hold yet and stores each game as it ends; A or B first, the field second; SIGTERM to
    itself after ``signal_after`` games of this run, then it starts no table once drained."""

    class Storing:
        def __init__(self, *, planned: Any, storage: Any, on_game_finished: Any,
                     **_: Any) -> None:
            done = {game.planned for game in storage.games()}
            self.todo = [table for table in planned if table.index not in done]
            self.storage, self.on_game_finished = storage, on_game_finished
            self.drained = trio.Event()

        def drain(self) -> None:
            self.drained.set()

        async def run(self) -> TournamentReport:
            played = 0
            for table in self.todo:
                if self.drained.is_set():
                    break
                first = 0 if a_wins(table.set_index, table.rotation) else 1
                rank = {first: 1, 2: 2, 1 - first: 3}
                ranks = tuple(rank[entrant] for entrant in table.entrants)
                record = GameRecord(
                    number=table.index, game_id=f"g{table.index}", entrants=table.entrants,
                    names=("a", "b", "random"), seed=table.seed, scores=(0,) * 3, ranks=ranks,
                    winners=(), aborted=None, defaults=(0,) * 3, errors=(0,) * 3, rounds=1,
                    log_path=None, seconds=0.0, tag=table)
                self.on_game_finished(record)
                self.storage.add_game(record)
                played += 1
                if played == signal_after:
                    os.kill(os.getpid(), signal.SIGTERM)
                    with trio.fail_after(5):
                        await self.drained.wait()
                await trio.lowlevel.checkpoint()
            return TournamentReport(runs=[], played=played, remaining=0, seconds=0.0,
                                    failures=[])

    return Storing


@pytest.fixture(params=["sqlite", "postgresql"])
def db_at(request, tmp_path):
    """``db_at(name)``: the --db of the test's backend (a file, or a fresh database's URL; the
    same name gives the same one)."""
    made: dict[str, str] = {}

    def at(name: str) -> str:
        if name not in made:
            made[name] = (str(tmp_path / name) if request.param == "sqlite" else
                          request.getfixturevalue("pg_server").new_database())
        return made[name]

    monkeypatch = request.getfixturevalue("monkeypatch")
    monkeypatch.chdir(tmp_path)  # the stand-in's --log-dir (it writes no log) goes here
    return at


def sprt(monkeypatch: pytest.MonkeyPatch, db: str, stand_in: type, *extra: str) -> Any:
    stand_in_tournament(monkeypatch, stand_in)
    return CliRunner().invoke(main, [
        "sprt", "--game", "chochlik", "--bot", "a=random", "--bot", "b=random",
        "--field", "random", "--db", db, "--log-dir", "logs", *extra])


def verdict(output: str) -> list[str]:
    return [line for line in output.splitlines()
            if line.startswith(("H1", "H0", "undecided", "a against b"))]


def test_a_stopped_test_continues_to_the_uninterrupted_verdict(monkeypatch, db_at):
    whole = sprt(monkeypatch, db_at("whole.db"), storing_tournament(), "--seed", "7")
    assert whole.exit_code == 0, whole.output
    assert "over 23 sets" in whole.output, whole.output

    db = db_at("stopped.db")
    first = sprt(monkeypatch, db, storing_tournament(signal_after=40))  # no --seed: stored
    assert first.exit_code == 143, first.output
    assert "interrupted after 6 set(s), undecided" in first.output
    assert "the same command continues the test" in first.output
    second = sprt(monkeypatch, db, storing_tournament(signal_after=50))  # stopped again
    assert second.exit_code == 143, second.output
    assert "continuing the SPRT stored in" in second.output
    assert "40 games stored, 6 set(s) read" in second.output
    third = sprt(monkeypatch, db, storing_tournament())
    assert "90 games stored, 15 set(s) read" in third.output
    assert third.exit_code == 0, third.output
    assert re.search(r"^sets 16: ", third.output, re.M), third.output  # where it stopped
    again = sprt(monkeypatch, db, storing_tournament())  # decided: nothing more to play

    seeded = sprt(monkeypatch, db_at("seeded.db"), storing_tournament(signal_after=40),
                  "--seed", "7")
    resumed = sprt(monkeypatch, db_at("seeded.db"), storing_tournament(), "--seed", "7")
    for run in (third, again, resumed):
        assert run.exit_code == 0, run.output
        assert verdict(run.output) == verdict(whole.output), run.output
    assert seeded.exit_code == 143
    stored = [open_storage(name) for name in (db_at("whole.db"), db, db_at("seeded.db"))]
    played = [[game.planned for game in storage.games()] for storage in stored]
    assert played[0] and played[1] == played[2] == played[0]  # in --db, whichever backend
    for storage in stored:
        storage.close()


def test_another_command_on_a_stored_test_is_refused(monkeypatch, db_at):
    db = db_at("s.db")
    assert sprt(monkeypatch, db, storing_tournament(signal_after=10)).exit_code == 143
    other = sprt(monkeypatch, db, storing_tournament(), "--elo1", "30", "--max-sets", "50")
    assert other.exit_code == 2
    assert (f"{db} holds another SPRT run (its thresholds, sets differ): give the same options "
            "to continue it, or choose another --db") in " ".join(other.output.split())
    seed = sprt(monkeypatch, db, storing_tournament(), "--seed", "other")
    assert seed.exit_code == 2 and "(its seed differ)" in seed.output


def test_sigterm_then_the_same_command_continues_through_the_command_line(tmp_path, db_at):
    """Real bots over TCP: stopped by SIGTERM once a set is read, run again, it goes on."""
    db = db_at("s.db")
    command = [sys.executable, "-m", "arena", "sprt", "--game", "chochlik", "--hands", "1",
               "--bot", "a=random", "--bot", "b=random", "--field", "random",
               "--max-sets", "3", "--db", db,
               "--log-dir", str(tmp_path / "logs")]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, env=env) as first:
        lines = Lines(first.stdout)
        lines.expect(r"^sets 1: ")
        first.send_signal(signal.SIGTERM)
        rest = lines.rest()
        assert first.wait(timeout=60) == 143, lines.seen + rest
    stored = re.escape(db)
    again = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert again.returncode in (0, 3, 4), again.stdout + again.stderr
    found = re.search(rf"continuing the SPRT stored in {stored}: (\d+) games stored, "
                      r"(\d) set\(s\) read", again.stdout)
    assert found and int(found[1]) >= 6 and int(found[2]) >= 1, again.stdout
    ended = re.search(r"^(H1 accepted|H0 accepted|undecided after 3 set\(s\))", again.stdout,
                      re.M)
    assert ended, again.stdout
