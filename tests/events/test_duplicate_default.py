"""A tournament plays duplicate sets by default only for the games where they measured bots
with less variance per game (``benchmarks/duplicate_variance.py``); --duplicate and
--no-duplicate still choose."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.events.settings import DUPLICATE_GAMES, default_duplicate
from arena.games import GAMES

#: The measured verdicts (README "Duplicate or independent", realistic bots since issue 30):
#: True where the ratio of the variances, duplicate over independent, had its 95 % interval
#: entirely below 1 (chochlik 0.93, 0.79 to 1.08; vollewolle 1.21, 0.97 to 1.50; wypas 0.88,
#: 0.74 to 1.04).
MEASURED = {"chochlik": False, "vollewolle": False, "wypas": False}


def test_every_game_was_measured_and_the_default_follows_the_measurement():
    assert set(MEASURED) == set(GAMES)
    assert {game for game, wins in MEASURED.items() if wins} == DUPLICATE_GAMES
    assert not default_duplicate("a game nobody measured")


def settings_of(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, game: str,
                *extra: str) -> Any:
    """The settings ``arena tournament`` stores, the event itself not played."""
    import arena.cli.events

    seen = {}
    monkeypatch.setattr(arena.cli.events, "run_event",
                        lambda settings, *args, **kwargs: seen.setdefault("s", settings))
    result = CliRunner().invoke(main, [
        "tournament", "--game", game, "--players", "3", "--bot", "random", "--bot", "random",
        "--bot", "random", "--sets", "2", "--db", str(tmp_path / f"{game}{''.join(extra)}.db"),
        "--log-dir", str(tmp_path / "logs"), *extra])
    assert result.exit_code == 0, result.output
    return seen["s"]


@pytest.mark.parametrize("game", sorted(MEASURED))
def test_the_default_seating_per_game_and_the_flags_override_it(monkeypatch, tmp_path, game):
    assert settings_of(monkeypatch, tmp_path, game).duplicate is bool(MEASURED[game])
    assert settings_of(monkeypatch, tmp_path, game, "--duplicate").duplicate is True
    assert settings_of(monkeypatch, tmp_path, game, "--no-duplicate").duplicate is False
