"""Single sentences SPEC.md §6 and §9-11 says about what a bot sees (issue 18 item 4), pinned here
through the public interface: observations, legal lists, events, results."""

from __future__ import annotations

import random

from arena.gameplay.driver import MatchDriver
from arena.games import chochlik, wypas
from protocol.messages import GameStart
from tests.games.chochlik_positions import position as chochlik_position
from tests.games.vollewolle_positions import bid_all
from tests.games.vollewolle_positions import position as vollewolle_position
from tests.games.wypas_positions import position as wypas_position

RED_1_2_3 = [("sheep-red-1#0", "red", 1), ("sheep-red-2#0", "red", 2),
             ("sheep-red-3#0", "red", 3)]


def test_chochlik_played_includes_the_trick_in_progress():
    state = chochlik_position([[24, 1], [15, 2], [17, 3]])
    state.apply(0, "play 24")
    state.apply(1, "play 15")
    seen = state.observe(2)
    assert seen.trick == ((0, 24), (1, 15)) and seen.played == (24, 15)


def test_vollewolle_to_take_counts_the_card_being_chosen():
    state = vollewolle_position(3, ["s22", "s23", "s24", "s25"], dice=[12, 10, 8])
    bid_all(state, [20, 15, 14])  # 30: three cards
    seen = [state.observe(0).to_take]
    state.apply(0, "take s22")
    seen.append(state.observe(0).to_take)
    state.apply(0, "take s23")
    seen.append(state.observe(0).to_take)
    assert seen == [3, 2, 1] and state.observe(0).decision == "take"


def test_vollewolle_a_keep_list_offers_the_dice_not_set_aside_in_d12_d10_d8_order():
    state = vollewolle_position(3, ["s22", "s23", "s24", "s25"], dice=[1, 1, 1, 1, 1])
    bid_all(state, [20, 15, 14])
    assert state.legal_actions(0) == ["keep d12", "keep d10", "keep d8"]
    state.apply(0, "keep d10")
    assert state.legal_actions(0) == ["keep d12", "keep d8"]


def test_a_resumed_game_start_carries_info_again():
    spec = chochlik.SPEC
    driver = MatchDriver(spec, spec.parse_options({"hands": 1, "players": 3}), "r",
                         ["a", "b", "c"], game_id="g", table=1, move_timeout=5.0)
    first = [o.message for o in driver.start(0.0) if o.seat == 1 and
             isinstance(o.message, GameStart)]
    driver.connection_lost(1)
    again = [o.message for o in driver.resync(1, 1.0) if isinstance(o.message, GameStart)]
    assert first[0].info and again[0].resumed and again[0].info == first[0].info
    assert again[0].info == spec.info(spec.parse_options({"hands": 1, "players": 3}))


def test_wypas_sheep_still_in_pens_at_the_end_score_nothing():
    state = wypas_position(4, hands=[[], [], [], []], pens={(0, 0): RED_1_2_3},
                           turn=2, turn_cap=2)
    assert state.legal_actions(0) == ["shear 0", "done"]
    state.apply(0, "done")  # leaves a 6-point pen unshorn on the last turn
    assert state.is_over() and state.result().scores == (0, 0, 0, 0)
    assert [list(card) for card in state.observe(0).pens[0][0]] == [list(c) for c in RED_1_2_3]


def test_wypas_a_wolf_may_go_on_any_pen_your_own_included():
    state = wypas_position(4, hands=[["sheep-green-3#0"], ["wolf#0"], [], []],
                           pens={(1, 0): RED_1_2_3[:2], (2, 1): RED_1_2_3[2:] + [
                               ("sheep-yellow-3#0", "yellow", 3)]}, phase="redyk")
    state.apply(0, "place sheep-green-3#0 0")
    state.apply(1, "play wolf#0")
    assert state.legal_actions(1) == ["target 1 0", "target 2 1", "pass"]


def test_wypas_the_turn_cap_turn_is_the_last_one_played_through_its_shearing():
    state = wypas.SPEC.new_state(wypas.parse_options({"players": 3, "turn_cap": 2}), 5,
                                 record_events=True)
    rng = random.Random(5)
    seen = []
    while state.to_act():
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        seen += [(e.kind, dict(e.data)) for e in state.take_events()]
    kinds = [kind for kind, _ in seen]
    assert [d["turn"] for k, d in seen if k == "turn_start"] == [1, 2]
    assert seen[-1] == ("game_over", {**seen[-1][1], "reason": "turn_cap"})
    # turn 2 had its auction, redyk and shearing; no cards were drawn after it
    last_turn = kinds[kinds.index("turn_start", kinds.index("turn_start") + 1):]
    assert "auction_won" in last_turn and "dealt" not in last_turn
    assert state.result().rounds == 2
