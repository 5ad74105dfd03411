"""``arena sprt``'s exit statuses, verdict and Elo line, its refusal of elo0 >= elo1, and
SIGTERM, with a stand-in tournament that plays scripted games (no bots, no server)."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path
from typing import Any

import pytest
import trio
from click.testing import CliRunner

from arena.cli import main
from arena.gameplay.records import GameRecord
from arena.launch.tournament import TournamentReport
from tests.helpers import stand_in_tournament


def scripted_tournament(winner: Any, *, failures: tuple[str, ...] = (),
                        signal_after: int | None = None,
                        signum: int = signal.SIGTERM) -> type:
    """A Tournament stand-in: table by table, ``winner(set_index, rotation)`` (0 A, 1 B) ranks
    first, the field second, the other third; it starts no table once drained."""

    class Scripted:
        def __init__(self, *, planned: Any, on_game_finished: Any, **_: Any) -> None:
            self.planned, self.on_game_finished = planned, on_game_finished
            self.drained = trio.Event()

        def drain(self) -> None:
            self.drained.set()

        async def run(self) -> TournamentReport:
            played = 0
            for table in self.planned:
                if self.drained.is_set():
                    break
                first = winner(table.set_index, table.rotation)
                rank = {first: 1, 2: 2, 1 - first: 3}
                ranks = tuple(rank[entrant] for entrant in table.entrants)
                self.on_game_finished(GameRecord(
                    number=table.index, game_id=f"g{table.index}", entrants=table.entrants,
                    names=(), seed=table.seed, scores=(0,) * len(ranks), ranks=ranks,
                    winners=(), aborted=None, defaults=(0,) * len(ranks),
                    errors=(0,) * len(ranks), rounds=1, log_path=None, seconds=0.0,
                    tag=table))
                played += 1
                if played == signal_after:
                    os.kill(os.getpid(), signum)
                    with trio.fail_after(5):
                        await self.drained.wait()
                await trio.lowlevel.checkpoint()
            return TournamentReport(runs=[], played=played,
                                    remaining=len(self.planned) - played, seconds=0.0,
                                    failures=list(failures))

    return Scripted


def run_sprt(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, stand_in: type,
             *extra: str) -> Any:
    stand_in_tournament(monkeypatch, stand_in)
    return CliRunner().invoke(main, [
        "sprt", "--game", "chochlik", "--bot", "a=random", "--bot", "b=random",
        "--field", "random", "--seed", "1", "--db", str(tmp_path / "s.db"),
        "--log-dir", str(tmp_path / "logs"), *extra])


def test_h1_exits_0_with_the_elo_estimate(monkeypatch, tmp_path):
    result = run_sprt(monkeypatch, tmp_path, scripted_tournament(lambda s, r: 0))
    assert result.exit_code == 0, result.output
    assert "H1 accepted: a is stronger than b" in result.output
    assert "a against b: +inf Elo" in result.output  # A won every game


def test_h0_exits_3(monkeypatch, tmp_path):
    # B wins all but 0, 1 or 2 games of each set: A's outcomes vary, the estimate is finite
    result = run_sprt(monkeypatch, tmp_path, scripted_tournament(
        lambda s, r: 0 if r < s % 3 else 1))
    assert result.exit_code == 3, result.output
    assert "H0 accepted: a is not shown to be stronger than b" in result.output
    found = re.search(r"a against b: (\S+) Elo \(95 % interval (\S+) to (\S+)\) over "
                      r"(\d+) sets", result.output)
    assert found, result.output
    elo, low, high = (float(x) for x in found.groups()[:3])
    assert -1000 < low < elo < high < 0, result.output


def test_undecided_at_max_sets_exits_4(monkeypatch, tmp_path):
    result = run_sprt(monkeypatch, tmp_path, scripted_tournament(lambda s, r: s % 2),
                      "--max-sets", "4")
    assert result.exit_code == 4, result.output
    assert "undecided after 4 set(s)" in result.output
    assert "a against b: +0 Elo" in result.output


def test_a_failure_exits_1_whatever_the_verdict(monkeypatch, tmp_path):
    result = run_sprt(monkeypatch, tmp_path, scripted_tournament(
        lambda s, r: 0, failures=("worker 1 ended without its report",)))
    assert result.exit_code == 1, result.output
    assert "H1 accepted" in result.output


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_drains_and_exits_as_a_shell_expects(monkeypatch, tmp_path, signum, status):
    """128 + the signal's number (issue 30: SIGTERM gave 130, Ctrl-C's status)."""
    result = run_sprt(monkeypatch, tmp_path, scripted_tournament(
        lambda s, r: s % 2, signal_after=8, signum=signum))
    assert result.exit_code == status, result.output
    assert "finishing the running games, then stopping" in result.output
    assert "interrupted after 1 set(s), undecided" in result.output


@pytest.mark.parametrize(("elo0", "elo1"), [("20", "20"), ("30", "10")])
def test_elo0_not_below_elo1_is_refused(tmp_path, elo0, elo1):
    result = CliRunner().invoke(main, [
        "sprt", "--game", "chochlik", "--bot", "a=random", "--bot", "b=random",
        "--field", "random", "--elo0", elo0, "--elo1", elo1, "--db", str(tmp_path / "s.db")])
    assert result.exit_code == 2
    assert f"Error: --elo0 ({elo0}) must be below --elo1 ({elo1})" in result.output
    assert not (tmp_path / "s.db").exists()


def test_the_stand_in_does_not_outlive_the_tests_that_use_it():
    # Modules that import Tournament by name keep what they found at their first import: one
    # first imported while a test had patched it kept the stand-in, and later tests' real
    # tournaments (tests/test_full_disk.py after this file) ran the script.
    import arena.launch.event_run
    import arena.launch.tournament
    import arena.launch.workers

    for module in (arena.launch.event_run, arena.launch.workers, arena.launch.tournament):
        assert module.Tournament.__module__ == "arena.launch.tournament", module
