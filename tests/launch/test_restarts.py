"""A bot that dies mid-event, through ``arena tournament`` and ``arena ratings``: it is started
again, the game it was playing is forfeited (it is ranked last there; the leaderboard's defaults
column shows its seat's defaulted decisions) or replayed, the organiser is told which, and a bot
that dies past its restarts stops the event.  The dying bot is
``tests/check_bots/dies_mid_game.py``: it exits at its first request after N games."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.events.storage import SqliteStorage
from arena.launch.restarts import forfeited

DIES = Path(__file__).resolve().parents[1] / "check_bots" / "dies_mid_game.py"


def event(tmp_path: Path, deaths: int, *args: str) -> tuple[int, str, str]:
    """A chochlik event of one duplicate set (6 games): a and b random, c dies at its first
    request after 1 game, ``deaths`` times at most over its restarts."""
    dying = f"c={sys.executable} {DIES} 1 {tmp_path / 'deaths'} {deaths}"
    result = CliRunner().invoke(main, [
        "tournament", "--game", "chochlik", "--bot", "a=random --seed 1", "--bot",
        "b=random --seed 2", "--bot", dying, "--hands", "1", "--seed", "r", "--db",
        str(tmp_path / "t.db"), "--log-dir", str(tmp_path / "logs"), "--resamples", "0", *args])
    return result.exit_code, result.stdout, result.stderr


def ratings(tmp_path: Path) -> dict[str, dict]:
    result = CliRunner().invoke(main, ["ratings", "--db", str(tmp_path / "t.db"), "--format",
                                       "json", "--resamples", "0"])
    assert result.exit_code == 0, result.output
    return {row["name"]: row for row in json.loads(result.stdout)}


def test_forfeit_ranks_the_dying_bot_last_and_keeps_the_others_order():
    assert forfeited((1, 2, 3), {0}) == (3, 1, 2)
    assert forfeited((2, 1, 1), {1}) == (2, 3, 1)
    assert forfeited((1, 2, 2, 4), {0, 3}) == (3, 1, 1, 3)


def test_a_bot_that_dies_is_restarted_and_forfeits_the_game_it_was_playing(tmp_path):
    status, out, err = event(tmp_path, 1, "--games", "6")
    assert "the games it was playing are forfeited (--lost-games replay to change)" in out
    assert "6 of 6 games stored" in out
    assert ("arena: c died 1 time(s) and was restarted 1 time(s); 1 game(s) it was playing "
            "then forfeited") in err
    assert status == 1  # a bot died: said, and the exit status says so too
    games = SqliteStorage(tmp_path / "t.db").games()
    assert sorted(g.planned for g in games) == list(range(6))
    hit = [g for g in games if g.defaults[g.entrants.index(2)]]
    assert len(hit) == 1  # the restarted bot played every later game itself
    assert hit[0].ranks[hit[0].entrants.index(2)] == 3  # ranked last: forfeited
    rows = ratings(tmp_path)
    assert rows["c"]["defaults"] == hit[0].defaults[hit[0].entrants.index(2)] > 0
    assert rows["a"]["defaults"] == rows["b"]["defaults"] == 0


def test_with_replay_the_lost_game_is_played_again_and_nothing_is_defaulted(tmp_path):
    status, out, err = event(tmp_path, 1, "--games", "6", "--lost-games", "replay")
    assert "the games it was playing are replayed (--lost-games forfeit to change)" in out
    assert "6 of 6 games stored" in out
    assert "1 game(s) it was playing then replayed (not stored" in err
    games = SqliteStorage(tmp_path / "t.db").games()
    assert sorted(g.planned for g in games) == list(range(6))
    assert all(not any(g.defaults) for g in games)
    assert {row["defaults"] for row in ratings(tmp_path).values()} == {0}


def test_a_bot_that_dies_past_its_restarts_stops_the_event(tmp_path):
    status, out, err = event(tmp_path, 9, "--games", "12", "--restarts", "1")
    assert status == 1
    assert ("arena: stopped the event: bot c died more often than its 1 restart(s) (its "
            "output is above); its games so far are stored: fix it, then --resume") in err
    assert "c: died 2 time(s) (exit 3), restarted 1 time(s), then excluded" in err
    stored = SqliteStorage(tmp_path / "t.db").games()
    assert len(stored) < 12
    assert f"{len(stored)} of 12 games stored" in out
    # no seat of c was played by default but in the two games it died in (both forfeited)
    assert sum(1 for g in stored if g.defaults[g.entrants.index(2)]) == 2


def test_the_seating_waits_for_a_held_bot_replays_first_and_gives_up_on_release():
    from arena.gameplay.records import PlannedTable
    from arena.seating.scheduled import Instance, ScheduledSeating

    planned = [PlannedTable(i, 0, i, (0, 1), f"s{i}") for i in range(3)]
    seating = ScheduledSeating(planned, ["a", "b"], [Instance(0, "ta"), Instance(1, "tb")], 1)
    seating.start(0.0)
    seating.admit("A", "a", "ta")
    seating.admit("B", "b", "tb")
    seating.ready("A", 0.0)
    (first,) = seating.ready("B", 0.0)
    assert first.number == 0 and first.sessions == ("A", "B")
    seating.hold("tb")  # b's process ended mid-game: it is being started again
    assert seating.gone("B", 1.0) == []
    seating.replay(planned[0])  # its game is played again
    assert seating.game_over(first, 2.0) == []
    assert seating.ready("A", 2.0) == []  # the next table waits for b, not for its defaults
    seating.admit("B2", "b", "tb")  # b is back
    (again,) = seating.ready("B2", 3.0)
    assert again.number == 0 and again.sessions == ("A", "B2")
    seating.hold("tb")
    seating.gone("B2", 4.0)
    assert seating.game_over(again, 4.0) == [] and seating.ready("A", 4.0) == []
    (alone,) = seating.release("tb", 5.0)  # b will not come back: its seat is the default's
    assert alone.number == 1 and alone.sessions == ("A", None)
