"""Wypas's special cards in reaction windows: who is asked, the fixed order of resolution,
dogs answering specials (and dogs), the thief, the wolf, the black sheep, and defaults."""

from __future__ import annotations

from arena.gameplay.driver import MatchDriver
from arena.games.wypas import SPEC, parse_options
from tests.games.wypas_positions import position

RED_1_2 = [("sheep-red-1#0", "red", 1), ("sheep-red-2#0", "red", 2)]


def events(state):
    return [(e.kind, dict(e.data), e.audience) for e in state.take_events()]


def kinds(seen):
    return [kind for kind, _, _ in seen]


def redyk(hands, pens=None, **kw):
    """Redyk of turn 1 with the baca at seat 0; seat 0 is asked first."""
    return position(4, hands=hands, pens=pens or {}, phase="redyk", **kw)


def test_a_window_asks_only_the_seats_that_could_play_something():
    state = redyk([["sheep-red-3#0"], [], ["wolf#0"], ["dog#0"]], {(1, 0): RED_1_2})
    state.take_events()
    assert state.observe(2).window is None and not state.is_reaction(0)
    state.apply(0, "place sheep-red-3#0 0")
    # the wolf has a pen with two sheep; the dog has nothing to answer and no wolf to chase
    assert state.to_act() == (2,) and state.is_reaction(2)
    assert state.observe(2).decision == "window"
    assert state.legal_actions(2) == ["pass", "play wolf#0"]
    assert state.legal_actions(3) == [] and state.observe(3).decision is None
    assert state.default_action(2) == "pass"
    window = state.observe(0).window
    assert window == {"stage": "window", "first": 0, "chain": [], "choosing": None,
                      "resolving": None}
    state.apply(2, "pass")
    assert state.to_act() == (0,) and state.observe(0).decision == "place"


def test_a_dog_cancels_a_wolf_and_a_second_dog_cancels_the_first():
    state = redyk([["sheep-red-3#0"], ["dog#1"], ["wolf#0"], ["dog#0"]], {(1, 0): RED_1_2})
    state.apply(0, "place sheep-red-3#0 0")
    assert state.to_act() == (2,)  # dogs have nothing to answer yet
    state.apply(2, "play wolf#0")
    assert state.observe(2).decision == "target" and state.observe(2).window["choosing"] == "wolf#0"
    assert state.legal_actions(2) == ["target 1 0", "pass"]
    state.take_events()
    state.apply(2, "target 1 0")
    assert events(state) == [("special_played", {"seat": 2, "card": "wolf#0", "target": [1, 0],
                                                 "cancels": None}, None)]
    # the dogs may answer: both at once, each in its own request
    assert state.to_act() == (1, 3) and state.observe(1).decision == "response"
    assert state.legal_actions(3) == ["pass", "play dog#0"] and state.is_reaction(3)
    state.apply(3, "play dog#0")
    state.apply(1, "pass")
    assert events(state)[0][1] == {"seat": 3, "card": "dog#0", "target": [],
                                   "cancels": "wolf#0"}
    # a new response window for the dog on top: seat 1's dog may cancel it
    assert state.to_act() == (1,)
    assert state.observe(0).window["chain"] == [
        {"seat": 2, "card": "wolf#0", "target": [1, 0]}, {"seat": 3, "card": "dog#0",
                                                          "target": []}]
    state.apply(1, "play dog#1")
    seen = events(state)
    resolved = next(data for kind, data, _ in seen if kind == "resolved")
    assert resolved == {"card": "wolf#0", "cancelled": False, "dogs": ["dog#0", "dog#1"]}
    assert state.observe(0).wolves[1] == ("wolf#0", None)  # two dogs: the wolf stands


def test_one_dog_cancels_the_special_card():
    state = redyk([["sheep-red-3#0"], [], ["wolf#0"], ["dog#0"]], {(1, 0): RED_1_2})
    state.apply(0, "place sheep-red-3#0 0")
    state.apply(2, "play wolf#0")
    state.apply(2, "target 1 0")
    state.apply(3, "play dog#0")
    seen = events(state)
    assert ("resolved", {"card": "wolf#0", "cancelled": True, "dogs": ["dog#0"]}, None) in seen
    assert state.observe(0).wolves[1] == (None, None)
    assert state.observe(0).discard_size == 2
    assert state.to_act() == (0,)  # back to seat 0's redyk


def test_plays_in_one_window_resolve_clockwise_from_the_acting_seat_not_by_arrival():
    # seats 1 and 3 both play a wolf on the same pen; seat 2 acted, so seat 3 goes first
    pens = {(0, 0): RED_1_2}
    state = redyk([[], ["wolf#1"], ["sheep-green-3#0"], ["wolf#0"]], pens, baca=2)
    assert state.to_act() == (2,)
    state.apply(2, "place sheep-green-3#0 0")
    assert state.to_act() == (1, 3)
    state.apply(1, "play wolf#1")
    state.apply(1, "target 0 0")  # seat 1 answers first...
    state.apply(3, "play wolf#0")
    state.apply(3, "target 0 0")
    seen = events(state)
    played = [data for kind, data, _ in seen if kind == "special_played"]
    assert played == [{"seat": 3, "card": "wolf#0", "target": [0, 0], "cancels": None}]
    # ...but seat 3 resolves first; seat 1's wolf finds the pen taken and stays in its hand
    assert ("withdrawn", {"seat": 1, "card": "wolf#1", "reason": "no longer possible"},
            frozenset({1})) in seen
    assert state.observe(1).hand == ("wolf#1",) and state.observe(0).wolves[0] == ("wolf#0", None)


def test_the_thief_sees_a_hand_and_takes_one_card():
    state = redyk([["sheep-red-3#0"], ["thief#0"], ["sheep-violet-6#0", "dog#0"], []])
    state.apply(0, "place sheep-red-3#0 0")
    assert state.to_act() == (1,)  # the dog of seat 2 has nothing to do
    assert state.legal_actions(1) == ["pass", "play thief#0"]
    state.apply(1, "play thief#0")
    assert state.legal_actions(1) == ["target 2", "pass"]  # seat 0's hand is empty now
    state.apply(1, "target 2")
    assert state.to_act() == (2,) and state.observe(2).decision == "response"
    state.apply(2, "pass")
    seen = events(state)
    assert ("hand_seen", {"seat": 2, "cards": ["sheep-violet-6#0", "dog#0"]},
            frozenset({1})) in seen
    assert state.observe(1).decision == "steal" and not state.is_reaction(1)
    assert state.legal_actions(1) == ["steal sheep-violet-6#0", "steal dog#0"]
    state.apply(1, "steal sheep-violet-6#0")
    seen = events(state)
    assert ("stole", {"seat": 1, "from": 2}, None) in seen
    assert ("stolen_card", {"seat": 1, "from": 2, "card": "sheep-violet-6#0"},
            frozenset({1, 2})) in seen
    assert state.observe(1).hand == ("sheep-violet-6#0",)
    assert state.observe(2).hand == ("dog#0",)


def test_the_black_sheep_swaps_into_a_pen_and_the_row_goes_on_from_the_sheep_left():
    # red 1, 2, 3, 4 in seat 0's pen; seat 1 takes the red 3 (the digest's example)
    row = RED_1_2 + [("sheep-red-3#0", "red", 3), ("sheep-red-4#0", "red", 4)]
    state = redyk([["dolly-red#0"], ["black_sheep#0"], ["sheep-green-3#0"], []],
                  {(0, 0): row}, baca=2)
    state.apply(2, "place sheep-green-3#0 0")
    state.apply(1, "play black_sheep#0")
    assert state.legal_actions(1) == ["target 0 0", "pass"]
    state.apply(1, "target 0 0")
    assert state.observe(1).decision == "swap"
    assert state.legal_actions(1) == [f"swap sheep-red-{v}#0" for v in (1, 2, 3, 4)]
    state.apply(1, "swap sheep-red-3#0")
    swapped = [data for kind, data, _ in events(state) if kind == "swapped"]
    assert swapped == [{"seat": 1, "target": [0, 0], "card": "sheep-red-3#0",
                        "black_sheep": "black_sheep#0"}]
    pen = state.observe(2).pens[0][0]
    assert pen == (RED_1_2[0], RED_1_2[1], ("black_sheep#0", None, 0), row[3])
    assert "sheep-red-3#0" in state.observe(1).hand
    # seat 0's redyk: the red Dolly continues the row as a red 5, nothing else
    state.apply(2, "done")
    state.apply(3, "done")
    state.apply(0, "place dolly-red#0 0")
    assert state.legal_actions(0) == ["as red-5"]


def test_a_black_sheep_with_one_sheep_left_opens_both_kinds_of_row():
    pens = {(0, 0): [("sheep-green-3#0", "green", 3), ("sheep-yellow-3#0", "yellow", 3)]}
    state = redyk([["sheep-green-4#0", "sheep-red-3#0", "sheep-green-5#0"], ["black_sheep#0"],
                   [], []], pens, baca=3)
    state.apply(3, "done")  # a window? seat 3 did nothing: "done" opens none
    assert state.to_act() == (0,)
    state.apply(0, "place sheep-green-5#0 1")
    state.apply(1, "play black_sheep#0")
    state.apply(1, "target 0 0")
    state.apply(1, "swap sheep-yellow-3#0")
    # black sheep + green 3: other 3s, or the next green (the rules' example)
    assert state.legal_actions(0) == ["place sheep-red-3#0 0", "place sheep-green-4#0 0",
                                      "done"]


def test_a_dog_chases_a_wolf_away():
    state = redyk([["sheep-red-3#0"], [], [], ["dog#0"]], {(1, 0): RED_1_2},
                  wolves={(1, 0): "wolf#0"})
    state.apply(0, "place sheep-red-3#0 0")
    assert state.legal_actions(3) == ["pass", "play dog#0"]
    state.apply(3, "play dog#0")
    assert state.legal_actions(3) == ["target 1 0", "pass"]
    state.apply(3, "target 1 0")
    seen = events(state)
    assert ("chased", {"seat": 3, "target": [1, 0], "wolf": "wolf#0"}, None) in seen
    assert state.observe(0).wolves[1] == (None, None)


def test_choosing_a_card_then_passing_keeps_it():
    state = redyk([["sheep-red-3#0"], [], ["wolf#0"], []], {(1, 0): RED_1_2})
    state.apply(0, "place sheep-red-3#0 0")
    state.apply(2, "play wolf#0")
    state.apply(2, "pass")
    assert state.observe(2).hand == ("wolf#0",) and state.to_act() == (0,)
    assert not [kind for kind in kinds(events(state)) if kind == "special_played"]


def test_a_silent_bot_never_plays_a_special_card():
    """Every decision of every seat times out: the defaults play a whole game, and not one
    special card is played (nor a card bid, placed or shorn)."""
    spec = SPEC
    options = parse_options({"players": 4, "turn_cap": 6})
    driver = MatchDriver(spec, options, "silent", ["a", "b", "c", "d"], game_id="g", table=1,
                         move_timeout=5.0, reaction_timeout=1.0)
    out = driver.start(0.0)
    now, windows = 0.0, 0
    while not driver.finished:
        deadline = driver.next_deadline()
        windows += sum(1 for seat in driver.open if driver.state.is_reaction(seat))
        for seat, request in driver.open.items():
            assert request.deadline - request.issued_at == (
                1.0 if driver.state.is_reaction(seat) else 5.0)
        now = deadline
        out += driver.expire(now)
    kinds_seen = {o.message.kind for o in out if type(o.message).__name__ == "Event"}
    assert windows > 0  # seats were asked in windows, and passed
    assert not kinds_seen & {"special_played", "bid_card", "placed", "sheared"}
    assert driver.result.scores == (0, 0, 0, 0)
    # the log says which decision each action answered (a window pass is not a bid pass)
    logged = {(r["action"], r.get("decision")) for r in driver.log.records
              if r["type"] == "action"}
    assert ("pass", "window") in logged and ("pass", "bid") in logged
