"""Wypas: behaviours SPEC §11 spells out where the rules text could be read two ways (issue 17
item 7): a check whose checker passes instead of matching, and a `withdrawn` card that is no
longer in its owner's hand."""

from __future__ import annotations

from tests.games.wypas_positions import game, position

LOT = ["sheep-red-1#0", "sheep-red-2#0", "sheep-red-3#0"]
RED_1_2 = [("sheep-red-1#0", "red", 1), ("sheep-red-2#0", "red", 2)]


def data(state, kind):
    return [dict(e.data) for e in state.take_events() if e.kind == kind]


def seen_by(state):
    return [(e.kind, dict(e.data), e.audience) for e in state.take_events()]


def checked_then_passed():
    """Seat 1 bids a face-down card declared 5 (a real violet 5); seat 2 checks and then
    passes without matching; seat 3 holds a red 4, a red 1 and a yellow 1."""
    hands = [[], ["sheep-violet-5#0"], ["sheep-green-5#0"],
             ["sheep-red-4#0", "sheep-red-1#1", "sheep-yellow-1#0"]]
    state = game(4, hands, LOT, bluff=True)
    state.apply(0, "hide sheep-red-3#0")
    state.apply(1, "name sheep-red-1#0")
    state.apply(1, "bluff")
    state.apply(1, "face_down sheep-violet-5#0")
    state.apply(1, "value 5")
    state.apply(1, "commit")
    state.apply(2, "check")
    assert state.observe(3).check["checker"] == 2
    state.apply(2, "pass")
    state.take_events()
    return state


def test_a_checker_who_passes_without_matching_has_not_checked():
    # "sprawdza i wyrównuje stawkę, tzn. dokłada karty": checking IS matching, one act
    state = checked_then_passed()
    assert state.observe(3).check is None and state.observe(3).high_bidder == 1
    state.apply(3, "add sheep-red-4#0")
    state.apply(3, "add sheep-red-1#1")  # 5: equal to the bluffer's stake, not a match
    assert "commit" not in state.legal_actions(3)
    state.apply(3, "add sheep-yellow-1#0")  # 6 beats 5: an ordinary raise
    state.apply(3, "commit")
    assert state.observe(0).high_bidder == 3
    state.apply(0, "pass")
    state.apply(1, "pass")
    seen = state.take_events()
    assert not [e for e in seen if e.kind == "showdown"]
    (won,) = [dict(e.data) for e in seen if e.kind == "auction_won"]
    assert won["seat"] == 3 and won["discarded"].count("face-down") == 1  # never revealed


def test_after_a_void_check_the_bluffer_wins_unrevealed_when_the_others_pass():
    state = checked_then_passed()
    state.apply(3, "pass")
    state.apply(0, "pass")
    seen = state.take_events()
    assert not [e for e in seen if e.kind == "showdown"]
    (won,) = [dict(e.data) for e in seen if e.kind == "auction_won"]
    assert won == {"seat": 1, "card": "sheep-red-1#0", "stake": 5,
                   "discarded": ["face-down"]}


def test_a_card_stolen_before_its_turn_is_withdrawn_and_is_the_thiefs():
    # seat 0 places; in the window seat 1 plays a thief on seat 2 and seat 2 a wolf; the thief
    # resolves first (clockwise from seat 0) and takes the wolf
    state = position(4, hands=[["sheep-red-3#0"], ["thief#0"],
                               ["wolf#0", "sheep-violet-6#0"], []],
                     pens={(3, 0): RED_1_2}, phase="redyk")
    state.apply(0, "place sheep-red-3#0 0")
    assert state.to_act() == (1, 2)
    state.apply(2, "play wolf#0")
    state.apply(2, "target 3 0")
    state.apply(1, "play thief#0")
    state.apply(1, "target 2")
    state.apply(1, "steal wolf#0")
    seen = seen_by(state)
    assert ("stolen_card", {"seat": 1, "from": 2, "card": "wolf#0"}, frozenset({1, 2})) in seen
    withdrawn = [(d, a) for k, d, a in seen if k == "withdrawn"]
    assert withdrawn == [({"seat": 2, "card": "wolf#0", "reason": "no longer possible"},
                          frozenset({2}))]
    assert "wolf#0" not in state.observe(2).hand and "wolf#0" in state.observe(1).hand
    assert state.observe(0).wolves[3] == (None, None)


def test_a_dog_played_as_a_response_before_its_turn_is_withdrawn_and_is_used():
    # seat 2 queues its dog against the wolf on seat 3's pen; seat 1's wolf resolves first and
    # seat 2 answers it with that same dog
    state = position(4, hands=[["sheep-red-3#0"], ["wolf#0"], ["dog#0"], []],
                     pens={(2, 0): RED_1_2, (3, 0): RED_1_2}, wolves={(3, 0): "wolf#1"},
                     phase="redyk")
    state.apply(0, "place sheep-red-3#0 0")
    assert state.to_act() == (1, 2)
    state.apply(1, "play wolf#0")
    state.apply(1, "target 2 0")
    state.apply(2, "play dog#0")
    state.apply(2, "target 3 0")
    assert state.observe(2).decision == "response"
    discard_before = state.observe(0).discard_size
    state.apply(2, "play dog#0")  # cancels the wolf
    seen = seen_by(state)
    assert ("resolved", {"card": "wolf#0", "cancelled": True, "dogs": ["dog#0"]}, None) in seen
    withdrawn = [(d, a) for k, d, a in seen if k == "withdrawn"]
    assert withdrawn == [({"seat": 2, "card": "dog#0", "reason": "no longer possible"},
                          frozenset({2}))]
    assert state.observe(2).hand == () and state.observe(0).discard_size == discard_before + 2
    assert state.observe(0).wolves[3] == ("wolf#1", None)  # nobody chased it
