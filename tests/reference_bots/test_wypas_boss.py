"""The wypas boss's auction search: its worlds hide the face-down lot card as the seat does, it
never takes a card from the server's state, and it plays whole games without a fault."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.games import GAMES
from arena.games.chance import RelabelledChance, SeededChance
from arena.games.wypas.cards import CARD_IDS
from reference_bots.boss import wypas as wypas_boss
from reference_bots.boss.wypas import WypasBoss
from reference_bots.boss.wypas_worlds import sample_world, seen_cards
from reference_bots.wypas_heuristic import WypasHeuristic
from tests.reference_bots.test_boss import Seat, as_json, new_game

SPEC = GAMES["wypas"]


def start(bot: Any, state: Any, seat: int) -> None:
    bot.on_message({"type": "game_start", "seat": seat,
                    "info": as_json(SPEC.info(state.options)),
                    "options": SPEC.options_to_dict(state.options)})


def blind_bids(seed: int, players: int = 3):
    """(actions so far, acting seat) at each bid decision of a random game whose seat does not
    know the face-down lot card that is (or is still to be) auctioned."""
    state, rng, actions = new_game("wypas", players, f"bid{seed}"), random.Random(seed), []
    while not state.is_over():
        acting = min(state.to_act())
        obs = as_json(state.observe(acting))
        if (wypas_boss.searchable(obs) and obs["decision"] == "bid"
                and (obs["lot_hidden"] or obs["auction_card"] == "hidden")
                and obs["hidden_card"] is None and len(state.legal_actions(acting)) > 1):
            yield list(actions), acting
        action = rng.choice(state.legal_actions(acting))
        actions.append((acting, action))
        state.apply(acting, action)


def two_games(seed: int) -> tuple[Any, Any, int]:
    """The same bid decision in the real game and in one where everything the seat cannot know
    (the face-down lot card, the other hands, the deck) was renamed at random."""
    actions, me = next(blind_bids(seed))
    real = new_game("wypas", 3, f"bid{seed}")
    for actor, action in actions:
        real.apply(actor, action)
    sigma, script = SPEC.other_world(real, me, actions, random.Random(seed))
    other = new_game("wypas", 3, f"bid{seed}",
                     RelabelledChance(SeededChance(f"bid{seed}"), sigma))
    for actor, action in script:
        other.apply(actor, action)
    for state in (real, other):  # windows the renamed cards open for others pass
        while me not in state.to_act():
            waiting = [s for s in state.to_act() if state.is_reaction(s)]
            state.apply(waiting[0], state.default_action(waiting[0]))
    return real, other, me


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_bid_world_is_made_from_the_observation_alone(seed):
    real, other, me = two_games(seed)
    obs = as_json(real.observe(me))
    assert as_json(other.observe(me)) == obs  # the seat cannot tell the two apart
    assert real.hidden_card != other.hidden_card  # ...yet the face-down lot card differs
    worlds = [sample_world(obs, state.options, random.Random(5)) for state in (real, other)]
    assert [(w.hands, w.deck, w.discard, w.hidden_card) for w in worlds[:1]] == [
        (w.hands, w.deck, w.discard, w.hidden_card) for w in worlds[1:]]
    for world in worlds:
        assert as_json(world.observe(me)) == obs
        assert world.legal_actions(me) == real.legal_actions(me)
    choices = []
    for state in (real, other):
        bot = WypasBoss(iterations=10, seed=4, searched=("shear", "bid"))
        start(bot, state, me)
        choices.append(bot.choose({"observation": obs, "legal": state.legal_actions(me)}))
    assert choices[0] == choices[1] and choices[0] in real.legal_actions(me)


def test_the_face_down_lot_card_of_a_world_is_drawn_from_the_cards_the_seat_has_not_seen():
    real, _, me = two_games(1)
    obs = as_json(real.observe(me))
    rng, seen = random.Random(0), seen_cards(obs)
    drawn = set()
    for _ in range(60):
        world = sample_world(obs, real.options, rng)
        assert world.hidden_card is not None
        card = CARD_IDS[world.hidden_card]
        assert card not in seen
        drawn.add(card)
    assert len(drawn) > 10  # not pinned to the real one


@pytest.mark.parametrize("players,seed", [(3, 1), (4, 2), (6, 3)])
def test_the_boss_searching_bids_plays_whole_games_against_heuristics(players, seed):
    state = new_game("wypas", players, f"whole{seed}")
    bots: list[Any] = [WypasBoss(iterations=3, seed=seed, searched=tuple(wypas_boss.SEARCHED))]
    bots += [WypasHeuristic(0.0, f"h{s}") for s in range(1, players)]
    boss_seat = Seat(0)  # the events the boss is sent (the sheared cards among them)
    for seat, bot in enumerate(bots):
        start(bot, state, seat)
    searched = 0
    while not state.is_over():
        before = len(boss_seat.messages)
        boss_seat.see(state)
        for message in boss_seat.messages[before:]:
            bots[0].on_message(message)
        acting = min(state.to_act())
        obs, legal = as_json(state.observe(acting)), state.legal_actions(acting)
        searched += acting == 0 and wypas_boss.searchable(obs, bots[0].searched)
        choice = bots[acting].choose({"observation": obs, "legal": legal})
        assert choice in legal
        state.apply(acting, choice)
    assert searched > 10


def test_a_rollout_that_ends_the_game_counts_its_pairwise_result():
    state, rng = new_game("wypas", 3, "ended"), random.Random(0)
    while not state.is_over():
        acting = min(state.to_act())
        state.apply(acting, rng.choice(state.legal_actions(acting)))
    state.pens = [[[], []] for _ in range(3)]
    state.scores = [10, 5, 20]
    start = list(state.scores)  # no points gained: only the result counts
    ranked, plain = WypasBoss(), WypasBoss(rank_weight=0.0)
    assert [ranked.value(state, seat, start, 0.0) for seat in range(3)] == [0.0, -10.0, 10.0]
    assert [plain.value(state, seat, start, 0.0) for seat in range(3)] == [0.0, 0.0, 0.0]
    unfinished = new_game("wypas", 3, "ended")
    assert ranked.value(unfinished, 0, list(unfinished.scores), 0.0) == 0.0


def worlds_searched(load: float) -> tuple[int, str]:
    """A paired decision where every world costs 40 ms of CPU and ``load`` times that of wall
    time, at 100 ms: how many worlds it played and what it chose ("pass" is always better)."""
    from reference_bots.boss.search import Deadline
    clock = {"cpu": 0.0, "wall": 0.0}
    worlds = []

    def sample(rng: random.Random) -> Any:
        worlds.append(1)
        clock["cpu"] += 0.04
        clock["wall"] += 0.04 * load
        return new_game("wypas", 3, "budget")

    deadline = Deadline(0.1, lambda: clock["cpu"], lambda: clock["wall"])
    values = wypas_boss.paired_values(["commit", "pass"], sample,
                                      lambda world, token, rng: float(token == "pass"),
                                      random.Random(0), None, deadline)
    assert len(values["pass"]) == len(worlds)
    return len(worlds), wypas_boss.paired_best("commit", values, 2.0)


def test_a_paired_decision_keeps_to_its_budget():
    # a quiet host: worlds until the CPU budget has passed (two at least, to compare)
    assert worlds_searched(1.0) == (3, "pass")
    # a busy one, the wall-clock cap passed after the first world: that one, and the
    # heuristic's choice (nothing to compare it with)
    assert worlds_searched(30.0) == (1, "commit")
