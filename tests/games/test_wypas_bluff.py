"""The Bluff option: a face-down bid card with a declared value, the check by the next bidder,
matching, the showdown (the bluffer wins a tie with its checker), raises, and what stays
hidden."""

from __future__ import annotations

from tests.games.wypas_positions import game

HANDS = [[], ["sheep-violet-5#0", "wolf#0", "sheep-yellow-1#0"],
         ["sheep-green-5#0", "sheep-violet-6#0"], ["sheep-violet-6#1"]]
LOT = ["sheep-red-1#0", "sheep-red-2#0", "sheep-red-3#0"]


def auction(**options):
    state = game(4, HANDS, LOT, bluff=True, **options)
    state.apply(0, "hide sheep-red-3#0")
    state.apply(1, "name sheep-red-1#0")
    state.take_events()
    return state


def data(state, kind):
    return [dict(e.data) for e in state.take_events() if e.kind == kind]


def bluff(state, seat, card, value):
    assert "bluff" in state.legal_actions(seat)
    state.apply(seat, "bluff")
    assert state.observe(seat).decision == "bluff_card"
    state.apply(seat, f"face_down {card}")
    assert state.observe(seat).decision == "bluff_value"
    state.apply(seat, f"value {value}")


def test_without_the_option_there_is_no_bluff():
    state = game(4, HANDS, LOT)
    state.apply(0, "hide sheep-red-3#0")
    state.apply(1, "name sheep-red-1#0")
    assert "bluff" not in state.legal_actions(1)


def test_a_face_down_card_counts_its_declared_value_and_stays_hidden():
    state = auction()
    bluff(state, 1, "wolf#0", 6)
    seen = [e for e in state.take_events()]
    public = [dict(e.data) for e in seen if e.kind == "bid_card"]
    assert public == [{"seat": 1, "card": "face-down", "value": 6, "stake": 6}]
    private = [(dict(e.data), e.audience) for e in seen if e.kind == "face_down_bid"]
    assert private == [({"seat": 1, "card": "wolf#0"}, frozenset({1}))]
    assert state.observe(1).laid[1] == ("wolf#0",)
    assert state.observe(2).laid[1] == ("face-down",) and state.observe(2).declared[1] == 6
    state.apply(1, "commit")
    # nobody checks: seat 2 passes, so the chance is gone for everyone after it
    assert "check" in state.legal_actions(2)
    state.apply(2, "pass")
    assert "check" not in state.legal_actions(3)
    state.apply(3, "pass")
    state.apply(0, "pass")
    (won,) = data(state, "auction_won")
    assert won["seat"] == 1 and won["discarded"] == ["face-down"]  # discarded unrevealed
    assert "wolf#0" not in str(state.observe(2))


def test_the_bluffer_wins_a_tie_with_its_checker():
    state = auction()
    bluff(state, 1, "sheep-violet-5#0", 5)
    state.apply(1, "commit")
    state.apply(2, "check")
    assert data(state, "checked") == [{"seat": 2, "bluffer": 1, "stake": 5}]
    # the checker must match exactly: the violet 6 would overshoot
    legal = state.legal_actions(2)
    assert "add sheep-green-5#0" in legal and "add sheep-violet-6#0" not in legal
    assert "commit" not in legal and legal[-2:] == ["bluff", "pass"]
    state.apply(2, "add sheep-green-5#0")
    assert "commit" in state.legal_actions(2)
    state.apply(2, "commit")
    assert state.observe(0).check["matched"] == [2]
    state.apply(3, "pass")
    state.apply(0, "pass")
    seen = state.take_events()
    (showdown,) = [dict(e.data) for e in seen if e.kind == "showdown"]
    assert showdown == {"revealed": [[1, "sheep-violet-5#0", 5]],
                        "totals": [None, 5, 5, None], "winner": 1, "tied": [1]}
    (won,) = [dict(e.data) for e in seen if e.kind == "auction_won"]
    assert won["seat"] == 1 and "sheep-violet-5#0" in won["discarded"]


def test_a_caught_bluff_loses_the_showdown():
    state = auction()
    bluff(state, 1, "wolf#0", 6)  # a special card face down is worth 0
    state.apply(1, "commit")
    state.apply(2, "check")
    state.apply(2, "add sheep-violet-6#0")
    state.apply(2, "commit")
    state.apply(3, "pass")
    state.apply(0, "pass")
    (showdown,) = data(state, "showdown")
    assert showdown["totals"] == [None, 0, 6, None] and showdown["winner"] == 2
    assert "sheep-red-1#0" in state.observe(2).hand


def test_a_raise_after_a_check_goes_on_with_the_bidding():
    state = auction()
    bluff(state, 1, "sheep-violet-5#0", 5)
    state.apply(1, "commit")
    state.apply(2, "check")
    state.apply(2, "add sheep-green-5#0")
    state.apply(2, "commit")
    state.apply(3, "add sheep-violet-6#1")  # 6 beats 5: a raise, no showdown
    state.apply(3, "commit")
    assert state.observe(0).check is None and state.observe(0).high_bidder == 3
    state.apply(0, "pass")
    assert state.to_act() == (1,)  # the bluffer must now raise or pass
    state.apply(1, "pass")
    state.apply(2, "pass")
    (won,) = data(state, "auction_won")
    assert won["seat"] == 3 and won["discarded"].count("face-down") == 1


def test_other_ties_go_to_the_baca_whose_default_is_the_first_from_the_opener():
    hands = [[], ["sheep-violet-5#0"], ["sheep-green-5#0"], ["sheep-red-4#0", "sheep-red-1#1"]]
    state = game(4, hands, LOT, bluff=True)
    state.apply(0, "hide sheep-red-3#0")
    state.apply(1, "name sheep-red-1#0")
    bluff(state, 1, "sheep-violet-5#0", 5)
    state.apply(1, "commit")
    state.apply(2, "check")
    state.apply(2, "add sheep-green-5#0")
    state.apply(2, "commit")
    state.apply(3, "add sheep-red-4#0")
    state.apply(3, "add sheep-red-1#1")
    state.apply(3, "commit")  # matches too: a three-way tie
    state.apply(0, "pass")
    # the checker loses its tie with the bluffer; the baca chooses between the other two
    assert data(state, "showdown")[0]["tied"] == [1, 3]
    assert state.to_act() == (0,) and state.observe(0).decision == "award"
    assert state.legal_actions(0) == ["award 1", "award 3"]
    assert state.default_action(0) == "award 1"
    state.apply(0, "award 3")
    assert data(state, "auction_won")[0]["seat"] == 3


def test_a_showdown_reveals_only_the_face_down_cards_of_the_seats_in_it():
    hands = [["sheep-red-4#0"], ["sheep-yellow-2#0"], ["sheep-violet-3#0"], ["wolf#1"]]
    state = game(4, hands, LOT, bluff=True)
    state.apply(0, "hide sheep-red-3#0")
    state.apply(1, "name sheep-red-1#0")
    bluff(state, 1, "sheep-yellow-2#0", 2)
    state.apply(1, "commit")
    state.apply(2, "add sheep-violet-3#0")  # 3: a raise, no check
    state.apply(2, "commit")
    bluff(state, 3, "wolf#1", 4)
    state.apply(3, "commit")
    state.apply(0, "check")
    state.apply(0, "add sheep-red-4#0")
    state.apply(0, "commit")
    state.apply(1, "pass")  # seat 1's face-down card was never checked
    state.apply(2, "pass")
    seen = state.take_events()
    (showdown,) = [dict(e.data) for e in seen if e.kind == "showdown"]
    assert showdown["revealed"] == [[3, "wolf#1", 4]]
    (won,) = [dict(e.data) for e in seen if e.kind == "auction_won"]
    assert won["seat"] == 0 and "sheep-yellow-2#0" not in won["discarded"]
    assert won["discarded"].count("face-down") == 1 and "wolf#1" in won["discarded"]


def test_a_joker_laid_as_a_bid_takes_a_declared_value_so_a_checker_can_match_exactly():
    hands = [[], ["sheep-violet-3#0"], ["dolly-red#0", "sheep-green-1#0"], []]
    state = game(4, hands, LOT, bluff=True)
    state.apply(0, "hide sheep-red-3#0")
    state.apply(1, "name sheep-red-1#0")
    bluff(state, 1, "sheep-violet-3#0", 3)
    state.apply(1, "commit")
    state.apply(2, "check")
    state.apply(2, "add dolly-red#0")
    assert state.observe(2).decision == "joker_value"
    assert state.legal_actions(2) == ["value 1", "value 2", "value 3"]  # no more than 3
    assert state.default_action(2) == "value 3"
    state.apply(2, "value 3")
    assert state.observe(0).stakes[2] == 3 and "commit" in state.legal_actions(2)
    state.apply(2, "commit")
    state.apply(3, "pass")
    state.apply(0, "pass")
    showdown = data(state, "showdown")[0]
    assert showdown["totals"] == [None, 3, 3, None] and showdown["winner"] == 1
