"""``arena check-game``: the game batteries pass on every registered game (the toy game of the
tests too), and a game that breaks a promise fails that check, with the reason."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.games import GAMES
from arena.kit.check_findings import Outcome
from arena.kit.check_game import GameCheck, check_spec
from arena.kit.check_game_play import GameSettings
from tests.kit.broken_games import BROKEN, LEAKY

#: Few games and worlds: the batteries' full runs are `arena check-game`'s defaults.
QUICK = GameSettings(games=3, worlds=20, seed="tests")


def outcomes(output: str) -> dict[str, str]:
    """Each reported check's line, by the check's name."""
    found = {}
    for line in output.splitlines():
        for check in GameCheck:
            for outcome in Outcome:
                if line.startswith(f"{outcome.value}  {check.value}"):
                    found[check.value] = line
    return found


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_registered_game_passes(name):
    results = check_spec(GAMES[name], QUICK)
    assert [r.line() for r in results if r.outcome is Outcome.FAIL] == []
    assert [r.check for r in results] == list(GameCheck)


@pytest.mark.parametrize("failing", list(BROKEN), ids=lambda check: check.name.lower())
def test_a_broken_game_fails_that_check_with_the_reason(monkeypatch, failing):
    spec, reason = BROKEN[failing]
    monkeypatch.setitem(GAMES, spec.name, spec)
    result = CliRunner().invoke(main, ["check-game", spec.name, "--games", "3", "--worlds", "20"])
    assert result.exit_code == 1, result.output
    lines = outcomes(result.output)
    assert len(lines) == len(GameCheck)
    failed = {check: line for check, line in lines.items() if line.startswith("FAIL")}
    # a game that ignores its seed cannot replay its log or build other worlds either
    also = {GameCheck.HIDDEN.value, GameCheck.LOG.value} if failing is GameCheck.REPLAY else set()
    assert set(failed) == {failing.value, *also}
    assert reason in failed[failing.value]
    assert f"check-game: {len(failed)} check(s) failed" in result.output


def test_the_leak_is_shown_where_it_is(monkeypatch):
    monkeypatch.setitem(GAMES, LEAKY.name, LEAKY)
    result = CliRunner().invoke(main, ["check-game", LEAKY.name, "--worlds", "20"])
    line = outcomes(result.output)[GameCheck.HIDDEN.value]
    assert '"neighbour":"c' in line, line


def test_an_unknown_game_is_a_usage_error():
    result = CliRunner().invoke(main, ["check-game", "no-such-game"])
    assert result.exit_code == 2 and "unknown game 'no-such-game'" in result.output
