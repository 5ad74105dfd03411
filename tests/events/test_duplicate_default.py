"""A tournament plays duplicate sets by default only for the games whose spec says so (where
they measured bots with less variance per game, ``benchmarks/studies/duplicate_variance.py``);
--duplicate and --no-duplicate still choose."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.events.settings import default_duplicate
from arena.games import GAMES


def test_the_default_is_each_games_own():
    assert {name for name in GAMES if default_duplicate(name)} == {
        name for name, spec in GAMES.items() if spec.duplicate_default}
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


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_default_seating_per_game_and_the_flags_override_it(monkeypatch, tmp_path, game):
    assert settings_of(monkeypatch, tmp_path, game).duplicate is GAMES[game].duplicate_default
    assert settings_of(monkeypatch, tmp_path, game, "--duplicate").duplicate is True
    assert settings_of(monkeypatch, tmp_path, game, "--no-duplicate").duplicate is False
