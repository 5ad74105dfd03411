"""Every registered game keeps the interface's promises, over many random self-play games."""

from __future__ import annotations

import json
import random

import pytest

from arena.games import GAMES
from arena.games.base import MAX_LEGAL_ACTIONS, IllegalAction
from protocol.codec import to_json

SEEDS = range(25)


def table_sizes(spec):
    return range(spec.min_players, spec.max_players + 1)


def small_options(spec, players):
    """Options for a short game: the game's own short-game preset (``GameSpec.short_game``)."""
    return spec.short_options(players)


def playout(spec, options, seed, rng, *, record=True, check=None):
    """Random self-play; returns (actions, events, result)."""
    state = spec.new_state(options, seed, record_events=record)
    actions, events = [], list(state.take_events())
    while state.to_act():
        seat = rng.choice(state.to_act())
        legal = state.legal_actions(seat)
        if check:
            check(state, seat, legal)
        action = rng.choice(legal)
        state.apply(seat, action)
        actions.append((seat, action))
        events.extend(state.take_events())
    return actions, events, state


def every_game_and_size():
    return [(name, n) for name, spec in GAMES.items() for n in table_sizes(spec)]


@pytest.mark.parametrize("name,players", every_game_and_size())
def test_random_self_play_keeps_the_promises(name, players):
    spec = GAMES[name]
    options = small_options(spec, players)

    def check(state, seat, legal):
        acting = state.to_act()
        assert len(set(acting)) == len(acting) and all(0 <= s < players for s in acting)
        assert not state.is_over() and state.result() is None
        assert 0 < len(legal) < MAX_LEGAL_ACTIONS
        assert len(set(legal)) == len(legal)
        assert all(token and "\n" not in token and len(token) <= 100 for token in legal)
        default = state.default_action(seat)
        assert default is None or default in legal, (default, legal)
        assert all(type(state.is_reaction(s)) is bool for s in acting)
        for other in range(players):
            if other not in acting:
                assert not state.legal_actions(other)

    for seed in SEEDS:
        _, events, state = playout(spec, options, seed, random.Random(seed), check=check)
        assert state.is_over() and state.to_act() == ()
        result = state.result()
        assert len(result.scores) == players
        assert result.ranks == tuple(1 + sum(o > s for o in result.scores) for s in result.scores)
        assert result.winners and all(result.ranks[w] == 1 for w in result.winners)
        json.loads(to_json(result.reveal))
        for event in events:
            json.loads(to_json(event.data))
            assert event.kind in spec.events, f"{name} emits undeclared event {event.kind!r}"
            assert tuple(event.data) == spec.events[event.kind].fields, event.kind
            assert event.audience is None or (
                event.audience and all(0 <= s < players for s in event.audience))


@pytest.mark.parametrize("name,players", every_game_and_size())
def test_a_game_is_a_function_of_options_seed_and_actions(name, players):
    spec = GAMES[name]
    options = small_options(spec, players)
    for seed in range(5):
        actions, events, state = playout(spec, options, f"s{seed}", random.Random(seed))
        again = spec.new_state(options, f"s{seed}", record_events=True)
        replayed = list(again.take_events())
        for seat, action in actions:
            again.apply(seat, action)
            replayed.extend(again.take_events())
        assert replayed == events
        assert again.result() == state.result()
        # recording events or not changes nothing about the game
        quiet = spec.new_state(options, f"s{seed}")
        for seat, action in actions:
            quiet.apply(seat, action)
        assert quiet.result() == state.result() and quiet.take_events() == []


@pytest.mark.parametrize("name,players", every_game_and_size())
def test_same_seed_same_chance_whatever_the_players_do(name, players):
    """Two tables with one seed see the same first chance events even when players differ."""
    spec = GAMES[name]
    options = small_options(spec, players)
    first = spec.new_state(options, "dup", record_events=True).take_events()
    second = spec.new_state(options, "dup", record_events=True).take_events()
    other = spec.new_state(options, "other", record_events=True).take_events()
    assert first == second and first != other


@pytest.mark.parametrize("name,players", every_game_and_size())
def test_illegal_actions_are_refused_without_changing_anything(name, players):
    spec = GAMES[name]
    rng = random.Random(11)
    state = spec.new_state(small_options(spec, players), 11, record_events=True)
    state.take_events()
    for _ in range(60):
        if state.is_over():
            break
        acting = state.to_act()
        before = [to_json(state.observe(s)) for s in range(players)]
        idle = [s for s in range(players) if s not in acting]
        seat = rng.choice(acting)
        probes = [(seat, "no such action"), (seat, ""), (players + 3, state.legal_actions(seat)[0])]
        if idle:  # a legal token from a seat that need not act
            probes.append((idle[0], state.legal_actions(seat)[0]))
        for probe_seat, token in probes:
            with pytest.raises(IllegalAction):
                state.apply(probe_seat, token)
        assert [to_json(state.observe(s)) for s in range(players)] == before
        assert state.take_events() == []
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        state.take_events()


@pytest.mark.parametrize("name,players", every_game_and_size())
def test_clones_are_independent_and_play_on_identically(name, players):
    spec = GAMES[name]
    rng = random.Random(5)
    options = small_options(spec, players)
    length = finish(spec.new_state(options, 5), random.Random(5))
    state = spec.new_state(options, 5)
    for _ in range(min(25, length // 2)):  # the middle of a short game, at most 25 decisions in
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert state.to_act()
    twin = state.clone()
    snapshot = [to_json(state.observe(s)) for s in range(players)]
    finish(twin, random.Random(9))
    assert [to_json(state.observe(s)) for s in range(players)] == snapshot  # untouched
    finish(state, random.Random(9))
    assert state.result() == twin.result()


def finish(state, rng):
    """Random play to the end; returns how many decisions it took."""
    decisions = 0
    while state.to_act():
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        decisions += 1
    return decisions


@pytest.mark.parametrize("name,players", every_game_and_size())
def test_simultaneous_answers_do_not_depend_on_their_order(name, players):
    """Where several seats act at once, answering in another order changes nothing."""
    spec = GAMES[name]
    options = small_options(spec, players)
    checked = 0
    for seed in range(10):
        rng = random.Random(seed)
        state = spec.new_state(options, seed)
        while state.to_act() and checked < 20:
            acting = state.to_act()
            if len(acting) > 1:
                choices = {s: rng.choice(state.legal_actions(s)) for s in acting}
                forward, backward = state.clone(), state.clone()
                for s in acting:
                    forward.apply(s, choices[s])
                for s in reversed(acting):
                    backward.apply(s, choices[s])
                assert [to_json(forward.observe(s)) for s in range(players)] == [
                    to_json(backward.observe(s)) for s in range(players)]
                checked += 1
            seat = rng.choice(state.to_act())
            state.apply(seat, rng.choice(state.legal_actions(seat)))


@pytest.mark.parametrize("name,players", every_game_and_size())
def test_observations_are_json_values_every_step(name, players):
    spec = GAMES[name]

    def check(state, seat, legal):
        for s in range(players):
            json.loads(to_json(state.observe(s)))

    playout(spec, small_options(spec, players), 1, random.Random(1), check=check)


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
