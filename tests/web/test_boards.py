"""The boards the pages draw (arena.web.boards) show, at every step of a game's public view,
only cards the public was sent by then; each step reads as a sentence with the game's names of
cards, never as the event's fields."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from arena.gameplay.gamelog import read_log
from arena.games.chochlik.drawing import namer
from arena.web.frames import PUBLIC, frames
from tests.web.events import play
from tests.web.test_live import GAMES


def values(data: Any) -> Iterator[Any]:
    """Every scalar in an event's data."""
    if isinstance(data, dict):
        for value in data.values():
            yield from values(value)
    elif isinstance(data, list):
        for value in data:
            yield from values(value)
    else:
        yield data


def cards_on(parts: dict[str, Any]) -> Iterator[Any]:
    """The ids of the cards drawn on a board (its parts folded so far)."""
    def walk(node: Any) -> Iterator[Any]:
        if isinstance(node, dict):
            if "label" in node and "colour" in node:
                yield node.get("id")
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)
    for part in parts.values():
        yield from walk(part)


@pytest.mark.parametrize("game,options", GAMES)
def test_a_board_shows_only_cards_the_public_was_sent_by_then(tmp_path, game, options):
    for number in range(2):
        names = [f"bot{i}" for i in range(options["players"])]
        _, path = play(game, options, names, f"seed{number}", f"g{number}", tmp_path,
                       random.Random(number))
        records = read_log(path)
        dealt = {v for r in records if r["type"] == "event" and r["to"] is not None
                 for v in values(r["data"])}
        seen: set[Any] = set()
        parts: dict[str, Any] = {}
        drawn = 0
        for step in frames(records, PUBLIC)["steps"]:
            if step["type"] == "event":
                seen.update(values(step["data"]))
            parts.update(step.get("board") or {})
            shown = {card for card in cards_on(parts) if card is not None}
            assert shown <= seen, f"{game}: {sorted(map(str, shown - seen))} not public yet"
            drawn += len(shown & dealt)
        assert drawn or not dealt  # cards dealt to a seat alone are drawn once public


def test_the_steps_read_as_sentences_with_the_games_card_names(tmp_path):
    names = ["alpha", "beta", "gamma"]
    _, path = play("chochlik", {"hands": 1, "players": 3}, names, "s", "g", tmp_path,
                   random.Random(1))
    public = frames(read_log(path), PUBLIC)
    steps, named = public["steps"], namer(public["header"]["info"])
    played = [s for s in steps if s.get("kind") == "card_played"]
    first = played[0]["data"]
    assert played[0]["text"] == \
        f"seat {first['seat']} ({names[first['seat']]}) played {named(first['card'])}"
    assert all("=" not in s["text"] for s in steps if s["type"] == "event")
    won = next(s for s in steps if s.get("kind") == "trick_won")
    assert won["text"].startswith(
        f"{names[won['data']['seat']]} won the trick with {named(won['data']['card'])}")
    assert steps[-1]["type"] == "result" and steps[-1]["text"].startswith("the game is over")


@pytest.mark.parametrize("game,options", GAMES)
def test_a_seats_view_draws_the_cards_it_observed_with_the_games_names(tmp_path, game,
                                                                       options):
    from arena.games import get_game

    spec = get_game(game)
    names = [f"bot{i}" for i in range(options["players"])]
    _, path = play(game, options, names, "s", "g", tmp_path, random.Random(3))
    seat = frames(read_log(path), "seat1")
    if spec.board is None or spec.drawing is None:  # a game without a board: as text
        assert not any(s.get("cards") for s in seat["steps"])
        return
    named = spec.drawing.namer(seat["header"]["info"])
    asked = [s for s in seat["steps"] if s["type"] == "request" and "observation" in s]
    assert asked and all(s["cards"] for s in asked)  # some field of cards, each time
    drawn = 0
    for step in asked:
        for field, shown in step["cards"].items():
            held = step["observation"][field]
            rows = [held] if "cards" in shown else held  # a list of cards, or one per seat
            lists = [shown["cards"]] if "cards" in shown else [p["cards"] for p in shown["pens"]]
            assert [[c["id"] for c in cards] for cards in lists] == rows
            assert all(c["title"] == named(c["id"]) for cards in lists for c in cards)
            drawn += sum(map(len, lists))
    assert drawn
