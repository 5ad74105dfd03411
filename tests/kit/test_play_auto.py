"""Which requests ``arena play`` answers for the person (``--ask``)."""

from __future__ import annotations

import json

from arena.games import GAMES
from arena.kit.play_auto import Ask, AutoAnswer
from protocol.codec import to_json

INFO = json.loads(to_json(GAMES["wypas"].info(GAMES["wypas"].parse_options({"players": 3}))))


def window(legal, *, phase="auction", hand_sizes=(5, 4, 2), decision="window"):
    empty = [[[], []] for _ in hand_sizes]
    return {"type": "request", "id": 1, "legal": list(legal), "observation": {
        "decision": decision, "turn": 3, "phase": phase, "hand_sizes": list(hand_sizes),
        "pens": empty, "wolves": [[None, None] for _ in hand_sizes],
        "window": {"chain": [], "stage": "window"}}}


def test_a_lone_choice_is_answered_unless_asked_always():
    lone = {"type": "request", "id": 1, "legal": ["pass"], "observation": {"decision": "bid"}}
    assert AutoAnswer(Ask.CHOICES, "chochlik", 0, {}).answer(lone) == ("pass", "your only choice")
    assert AutoAnswer(Ask.ALWAYS, "wypas", 0, INFO).answer(lone) is None
    two = {**lone, "legal": ["pass", "commit"]}
    assert AutoAnswer(Ask.CHOICES, "wypas", 0, INFO).answer(two) is None


def test_windows_ask_only_when_a_card_is_worth_playing_and_not_turned_down_yet():
    auto = AutoAnswer(Ask.WORTHWHILE, "wypas", 0, INFO)
    assert auto.answer(window(["pass", "play dog#0"])) == (
        "pass", "no special card worth playing now")  # no wolf above a pen of ours
    thief = window(["pass", "play thief#0"])  # bob holds 4 cards: worth robbing
    assert auto.answer(thief) is None
    auto.answered(thief, "pass")
    assert auto.answer(window(["pass", "play thief#0"], hand_sizes=(5, 3, 2))) == (
        "pass", "you passed on the same card and target already")
    assert auto.answer(window(["pass", "play thief#0"], phase="redyk")) is None
    assert auto.answer(window(["pass", "play thief#0"], hand_sizes=(5, 2, 4))) is None
    assert AutoAnswer(Ask.CHOICES, "wypas", 0, INFO).answer(
        window(["pass", "play dog#0"])) is None  # the default asks in every window
