"""The wypas engine's views (hand ids, pens as tuples, the table part of the observation, who
may play in a window, the bid cards, who acts, the legal lists) are kept beside the state and
rebuilt only after a change: they must always equal what a state without any view answers, and
an observation built through the fast path must be exactly attrs' value."""

from __future__ import annotations

import random

import attrs
import pytest

from arena.games.base import IllegalAction
from arena.games.wypas import SPEC, WypasObservation, WypasState, parse_options
from tests.games.wypas_positions import position

FIELDS = tuple(field.name for field in attrs.fields(WypasObservation))


def answers(state: WypasState) -> list[object]:
    """Everything the interface says now, every seat's observation included."""
    seats = range(state.num_players)
    return [state.to_act(), [state.legal_actions(seat) for seat in seats],
            [state.observe(seat) for seat in seats],
            [(state.default_action(seat), state.is_reaction(seat)) for seat in state.to_act()]]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("options", [{}, {"bluff": True, "strict_bleating": True}])
def test_views_kept_between_steps_change_nothing(players, options):
    """One game played twice: once keeping its views from step to step, once dropping them
    before every question and every action (so each is rebuilt from the state)."""
    rng = random.Random(players)
    table = parse_options({"players": players, "turn_cap": 12, **options})
    for seed in range(4):
        kept, rebuilt = SPEC.new_state(table, seed), SPEC.new_state(table, seed)
        while True:
            rebuilt._drop_views()
            assert answers(kept) == answers(rebuilt)
            if kept.is_over():
                break
            seat = rng.choice(kept.to_act())
            action = rng.choice(kept.legal_actions(seat))
            kept.apply(seat, action)
            rebuilt._drop_views()
            rebuilt.apply(seat, action)
        assert kept.result() == rebuilt.result()


def test_a_clone_without_views_answers_the_same():
    rng = random.Random(2)
    state = SPEC.new_state(parse_options({"players": 5, "turn_cap": 6, "bluff": True}), 2)
    while not state.is_over():
        twin = state.clone()
        twin._drop_views()
        assert answers(twin) == answers(state)
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))


def test_an_observation_built_by_the_engine_is_the_attrs_value_with_every_field():
    rng = random.Random(5)
    state = SPEC.new_state(parse_options({"players": 4, "turn_cap": 4}), 5)
    while not state.is_over():
        for seat in range(4):
            seen = state.observe(seat)
            assert tuple(vars(seen)) != () and set(vars(seen)) == set(FIELDS)
            rebuilt = WypasObservation(**{name: getattr(seen, name) for name in FIELDS})
            assert rebuilt == seen and repr(rebuilt) == repr(seen)
            assert attrs.asdict(rebuilt) == attrs.asdict(seen)
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            seen.turn = 0  # type: ignore[misc]
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))


def test_the_legal_list_handed_out_is_a_copy_and_apply_still_checks_it():
    state = SPEC.new_state(parse_options({"players": 3}), 1)
    seat = state.to_act()[0]
    legal = state.legal_actions(seat)
    chosen = legal[0]
    legal.clear()
    legal.append("nonsense")
    assert state.legal_actions(seat)[0] == chosen
    with pytest.raises(IllegalAction):
        state.apply(seat, "nonsense")
    state.apply(seat, chosen)


def test_a_thief_is_offered_only_while_another_hand_holds_cards():
    """The window's eligibility is kept between windows: a hand that becomes empty must end
    it for a thief even when no special card moved and the pens offer the same targets."""
    state = position(4, hands=[["thief#0", "sheep-red-1#0"], ["sheep-green-2#0"], [], []],
                     phase="redyk", baca=0)
    state.apply(0, "place sheep-red-1#0 0")
    assert state.to_act() == (0,) and state.observe(0).decision == "window"  # seat 1 has a card
    state.apply(0, "pass")
    state.apply(0, "done")
    state.apply(1, "place sheep-green-2#0 0")  # its last card: nobody left to rob
    assert state.to_act() == (1,) and state.observe(1).decision == "place"
