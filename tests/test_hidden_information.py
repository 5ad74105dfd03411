"""Hidden information never reaches another seat: a property over the real message stream,
for every registered game.

World A is a game played by random answers.  At a random point P, the game's own
``other_world`` changes everything seat k cannot know (other hands, the deck's order, secret
bids not yet revealed): a renaming of shuffled items applied to the chance, and the other
seats' earlier actions translated to match (where the other world asks another seat something
the first did not, a reaction window say, that seat answers with its default).  Every byte
sent to seat k up to P must be the same in both worlds.  Any event, observation, error or
reveal that let hidden information through would differ.
"""

from __future__ import annotations

import random

import attrs
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from arena.gameplay.driver import MatchDriver
from arena.games import GAMES
from arena.games.chance import RelabelledChance, SeededChance
from protocol.codec import encode


def new_driver(spec, options, seed, chance=None):
    state = spec.new_state(options, seed, record_events=True, chance=chance)
    return MatchDriver(spec, options, seed, [f"p{i}" for i in range(options.players)],
                       game_id="g", table=1, move_timeout=5.0, state=state)


def play(driver, script=None, rng=None, stop=None):
    """Answer open requests from ``script`` (seat and action), or at random, lowest seat first.
    Returns the actions played and every message, as (seat, bytes)."""
    out = driver.start(0.0)
    sent = [(o.seat, encode(o.message)) for o in out]
    actions = []
    while not driver.finished and (stop is None or len(actions) < stop):
        if script:
            seat, action = script[len(actions)]
            request = driver.open[seat]
        else:
            seat, request = min(driver.open.items())
            action = rng.choice(request.legal)
        actions.append((seat, action))
        out = driver.answer(seat, request.id, action, 0.0)
        sent.extend((o.seat, encode(o.message)) for o in out)
    return actions, sent


def settle_windows(driver, seat):
    """Let every other seat asked in a reaction window pass, so that both worlds stop at the
    same point of the game (a window one world opened for another seat and the other did not
    is pending in one world only).  Returns the messages sent."""
    sent = []
    while not driver.finished:
        waiting = [(other, request) for other, request in sorted(driver.open.items())
                   if other != seat and driver.state.is_reaction(other)]
        if not waiting:
            break
        other, request = waiting[0]
        out = driver.answer(other, request.id, driver.state.default_action(other), 0.0)
        sent.extend((o.seat, encode(o.message)) for o in out)
    return sent


def check_one_world(name: str, seed: int, players: int, data, **extra) -> None:
    spec = GAMES[name]
    rng = random.Random(seed)
    options = spec.short_options(players)
    if extra:
        options = attrs.evolve(options, **extra)
    game_seed = f"hidden{seed}"
    actions_a, _ = play(new_driver(spec, options, game_seed), rng=rng)
    cut = data.draw(st.integers(0, len(actions_a)), label="point P")
    seat = data.draw(st.integers(0, players - 1), label="seat k")

    at_p = new_driver(spec, options, game_seed)
    play(at_p, script=actions_a, stop=cut)
    sigma, script_b = spec.other_world(at_p.state, seat, actions_a[:cut], random.Random(seed))

    world_b = RelabelledChance(SeededChance(game_seed), sigma)
    driver_a = new_driver(spec, options, game_seed)
    driver_b = new_driver(spec, options, game_seed, world_b)
    _, sent_a = play(driver_a, script=actions_a, stop=cut)
    _, sent_b = play(driver_b, script=script_b, stop=len(script_b))
    sent_a += settle_windows(driver_a, seat)
    sent_b += settle_windows(driver_b, seat)
    mine_a = [line for s, line in sent_a if s == seat]
    mine_b = [line for s, line in sent_b if s == seat]
    assert mine_a == mine_b


def the_property(name, seed, data):
    spec = GAMES[name]
    players = data.draw(st.integers(spec.min_players, spec.max_players), label="players")
    check_one_world(name, seed, players, data)


WORLDS = given(seed=st.integers(0, 10**6), data=st.data())


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=60, deadline=None)
@WORLDS
def test_a_seat_sees_the_same_bytes_whatever_it_cannot_know(name, seed, data):
    the_property(name, seed, data)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_property_would_catch_a_leak(name, monkeypatch):
    """Sanity check of the test itself: let every observation carry the state's lists (hands,
    the deck, bids, ...) and the property fails."""
    spec = GAMES[name]
    state_type = type(spec.new_state(spec.short_options(spec.min_players), 0))

    def leaky(self, seat):
        return {key: value for key, value in vars(self).items() if isinstance(value, list)
                and key != "_events"}

    monkeypatch.setattr(state_type, "observe", leaky)
    # the same property and examples, without shrinking the counterexample (only speed)
    quick = settings(max_examples=60, deadline=None, phases=[Phase.generate])(
        WORLDS(the_property))
    with pytest.raises(AssertionError):
        quick(name)


@settings(max_examples=40, deadline=None)
@WORLDS
def test_wypas_with_bluff_keeps_face_down_bid_cards_hidden(seed, data):
    players = data.draw(st.integers(3, 6), label="players")
    check_one_world("wypas", seed, players, data, bluff=True, strict_bleating=True)


def test_the_property_would_catch_who_is_asked_in_a_window(monkeypatch):
    """Sanity check for reaction windows: an observation that only says which seats are being
    asked now (nothing about any card) is caught, because in the other world other seats hold
    special cards where they held sheep."""
    from arena.games.wypas import WypasState

    original = WypasState.observe

    def telling(self, seat):
        return {"seen": attrs.asdict(original(self, seat)), "asked": list(self.to_act())}

    monkeypatch.setattr(WypasState, "observe", telling)
    quick = settings(max_examples=60, deadline=None, phases=[Phase.generate])(
        WORLDS(the_property))
    with pytest.raises(AssertionError):
        quick("wypas")
