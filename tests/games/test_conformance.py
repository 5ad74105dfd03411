"""Every registered game keeps the interface's promises, over many random self-play games."""

from __future__ import annotations

import pytest

from arena.games import GAMES
from arena.kit.check_findings import Outcome
from arena.kit.check_game import GameCheck, run_check
from arena.kit.check_game_play import GameSettings

#: The batteries' deep run here (``arena check-game`` runs them for a game's author, and
#: tests/kit/test_check_game.py shows that each fails on a toy that breaks its promise).
#: Random games per table size for each battery: many for the legal lists, fewer where each
#: game is replayed, cloned or observed from every seat at every step.
GAMES_FOR = {GameCheck.LEGAL: 25, GameCheck.END: 10, GameCheck.REPLAY: 5, GameCheck.CLONE: 3,
             GameCheck.SIMULTANEOUS: 5, GameCheck.SCHEMAS: 3, GameCheck.LOG: 3,
             GameCheck.OPTIONS: 1}
#: The hidden-information battery has a deeper run of its own: tests/test_hidden_information.py.
CHECKS = [check for check in GameCheck if check is not GameCheck.HIDDEN]


def table_sizes(spec):
    return range(spec.min_players, spec.max_players + 1)


def every_game_and_size():
    return [(name, n) for name, spec in GAMES.items() for n in table_sizes(spec)]


@pytest.mark.parametrize("name,check", [(name, check) for name in sorted(GAMES)
                                        for check in CHECKS],
                         ids=lambda value: getattr(value, "name", value))
def test_every_game_keeps_each_battery_s_promises(name, check):
    """Random self-play at every table size: legal lists and defaults, ends and results,
    replay from the seed, clones, simultaneous answers, schemas, log replay, options."""
    settings = GameSettings(games=GAMES_FOR[check], worlds=1, seed="conformance")
    result = run_check(check, GAMES[name], settings)
    assert result.outcome in (Outcome.PASS, Outcome.NA), result.line()


@pytest.mark.parametrize("name,players", every_game_and_size())
def test_same_seed_same_chance_whatever_the_players_do(name, players):
    """Two tables with one seed see the same first chance events even when players differ."""
    spec = GAMES[name]
    options = spec.short_options(players)
    first = spec.new_state(options, "dup", record_events=True).take_events()
    second = spec.new_state(options, "dup", record_events=True).take_events()
    other = spec.new_state(options, "other", record_events=True).take_events()
    assert first == second and first != other


def imported_by(modules: str) -> set[str]:
    import subprocess
    import sys

    code = f"import sys, {modules}; print(' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in out.stdout.split()}


def test_games_and_protocol_import_no_io_libraries():
    loaded = imported_by("arena.games, arena.gameplay.driver, arena.gameplay.gamelog, "
                         "arena.seating.policies, "
                         "arena.gameplay.records, arena.gameplay.replay, protocol.connection")
    assert not loaded & {"trio", "click", "socket", "asyncio"}


def test_games_never_import_the_protocol():
    """A game knows nothing of the wire: the same engine could be driven by anything."""
    assert "protocol" not in imported_by("arena.games")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_game_declares_its_options_with_players_and_help(name):
    import attrs

    spec = GAMES[name]
    fields = spec.option_fields()
    assert fields[0].name == "players"
    assert all(field.metadata.get("help") for field in fields)
    default = spec.parse_options({})
    assert isinstance(default, spec.options_type)
    assert spec.min_players <= default.players <= spec.max_players
    assert attrs.has(spec.observation_type)
    state = spec.new_state(default, 0)
    assert isinstance(state.observe(0), spec.observation_type)
