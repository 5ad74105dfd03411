"""The drawings of what a seat observes: every observation field is drawn (or left out on
purpose, with a reason), on observations of real random games as bots receive them."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import attrs
import pytest

from arena.games import GAMES
from arena.games.render import (
    Table,
    describe_event,
    describe_result,
    draw,
    draw_fields,
    left_out,
)
from protocol.codec import to_json
from reference_bots.wypas_heuristic import WypasHeuristic

NAMES = ("ann", "bob", "cyd", "dee", "eve", "fay")
#: Short games, each size and option that changes what an observation holds; the last wypas
#: one is played by the heuristic bots, which reach a fifth fleece (random bots seldom do).
TABLES = {
    "chochlik": [{"players": 3, "hands": 1}, {"players": 4, "hands": 1, "target": 200}],
    "vollewolle": [{"players": 2}, {"players": 3}],
    "wypas": [{"players": 3, "turn_cap": 8}, {"players": 4, "turn_cap": 8, "bluff": "true"},
              {"players": 3, "turn_cap": 20}],
}
HEURISTIC_TABLE = {"players": 3, "turn_cap": 20}


def tables(game: str) -> list[dict[str, Any]]:
    """The tables above, or for another game a short game at its smallest size and a game of
    its default length at its largest (where later rounds fill what the first leaves empty)."""
    spec = GAMES[game]
    return TABLES.get(game) or [{"players": spec.min_players, **spec.short_game},
                                {"players": spec.max_players}]


class Uniform:
    """A random player, like the random bot."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, request: dict[str, Any]) -> str:
        return self.rng.choice(request["legal"])


def random_observations(game: str, raw: dict[str, Any], seed: int) -> tuple[Table, list[dict]]:
    """Every request's observation of a game between random players (between the heuristic
    bots for :data:`HEURISTIC_TABLE` in wypas), as JSON the way a bot receives it."""
    spec = GAMES[game]
    options = spec.parse_options(raw)
    info = json.loads(to_json(spec.info(options)))
    table = Table(NAMES[:options.players], info)
    players: list[Any] = [Uniform(seed * 10 + seat) for seat in range(options.players)]
    if game == "wypas" and raw == HEURISTIC_TABLE:
        players = [WypasHeuristic(seed=seat) for seat in range(options.players)]
        for seat, player in enumerate(players):
            player.on_message({"type": "game_start", "seat": seat, "info": info})
    state = spec.new_state(options, f"render-{seed}")
    rng = random.Random(seed)
    seen = []
    while state.to_act():
        seat = rng.choice(state.to_act())
        observation = json.loads(to_json(state.observe(seat)))
        seen.append(observation)
        legal = list(state.legal_actions(seat))
        state.apply(seat, players[seat].choose({"legal": legal, "observation": observation}))
    return table, seen


def table_info(game: str) -> dict[str, Any]:
    spec = GAMES[game]
    return json.loads(to_json(spec.info(spec.parse_options({"players": 3}))))


def changed(value: Any) -> Any:
    """``value`` with every leaf changed: numbers + 1, strings marked, booleans flipped."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "~"
    if isinstance(value, list):
        return [changed(item) for item in value]
    if isinstance(value, dict):
        return {key: changed(item) for key, item in value.items()}
    return value  # None: nothing to change


def undrawn_fields(game: str, drawing: Callable[[dict, Table], str]) -> set[str]:
    """The fields (not left out on purpose) whose change never changes ``drawing`` over the
    observations of random games of ``game``."""
    fields = {field.name for field in attrs.fields(GAMES[game].observation_type)}
    waiting = fields - set(left_out(game))
    for seed, raw in enumerate(tables(game)):
        table, observations = random_observations(game, raw, seed)
        for observation in observations:
            before = drawing(observation, table)
            for field in list(waiting):
                if changed(observation[field]) == observation[field]:
                    continue  # null or empty here: nothing to see
                if drawing({**observation, field: changed(observation[field])}, table) != before:
                    waiting.discard(field)
            if not waiting:
                return set()
    return waiting


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_observation_field_is_drawn_or_left_out_on_purpose(game):
    fields = {field.name for field in attrs.fields(GAMES[game].observation_type)}
    assert set(left_out(game)) <= fields
    assert all(reason for reason in left_out(game).values())
    assert undrawn_fields(game, lambda o, table: draw(game, o, table)) == set()


def test_the_field_check_finds_a_field_a_drawing_leaves_out():
    def without_price(observation, table):
        return draw("chochlik", {**observation, "price": 19}, table)

    assert undrawn_fields("chochlik", without_price) == {"price"}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_observations_are_the_fields_the_game_declares(game):
    table, observations = random_observations(game, tables(game)[0], 7)
    declared = [field.name for field in attrs.fields(GAMES[game].observation_type)]
    assert all(list(observation) == declared for observation in observations)
    # a game's own drawing names the seat; the fallback shows every field, the seat's too
    you = ("you: {name} (seat {seat})" if GAMES[game].drawing is not None else "seat: {seat}")
    for observation in observations[::5]:
        drawing = draw(game, observation, table)
        assert you.format(name=NAMES[observation["seat"]], seat=observation["seat"]) in drawing


def test_a_chochlik_drawing_shows_cards_with_colour_and_coins():
    table, observations = random_observations("chochlik", {"players": 3, "hands": 1}, 1)
    first = observations[0]
    drawing = draw("chochlik", first, table)
    cards = {card["card"]: card for card in table.info["cards"]}
    for number in first["hand"]:
        assert f"{number}({cards[number]['coins']})" in drawing
    assert "bottle: price 19, nobody owns it yet" in drawing
    playing = next(o for o in observations if o["trick"])
    seat, card = playing["trick"][0]
    suit = {"red": "♥", "yellow": "♦", "blue": "♠"}[cards[card]["colour"]]
    drawn = draw("chochlik", playing, table)
    assert f"{NAMES[seat]} {card}{suit}({cards[card]['coins']})" in drawn
    played = next(line for line in drawn.splitlines() if line.startswith("played this hand"))
    assert played.endswith("): " + ", ".join(
        f"{n}" + {"red": "♥", "yellow": "♦", "blue": "♠"}[cards[n]["colour"]]
        for n in playing["played"]))


def test_a_vollewolle_drawing_shows_dice_flocks_and_wool():
    table, observations = random_observations("vollewolle", {"players": 3}, 2)
    rolling = next(o for o in observations if o["decision"] == "keep")
    drawing = draw("vollewolle", rolling, table)
    d12, d10, d8 = rolling["dice"]
    assert f"d12={d12}" in drawing and f"d10={d10}" in drawing and f"d8={d8}" in drawing
    late = observations[-1]
    drawing = draw("vollewolle", late, table)
    for seat, flock in enumerate(late["flocks"]):
        assert all(card in drawing for card in flock)
        row = next(line for line in drawing.splitlines() if line.startswith(f"  {NAMES[seat]}"))
        assert str(late["wool"][seat]) in row


def test_a_wypas_drawing_shows_pens_and_fleeces():
    table, observations = random_observations("wypas", {"players": 3, "turn_cap": 8}, 3)
    penned = next(o for o in observations if any(pen for pens in o["pens"] for pen in pens))
    drawing = draw("wypas", penned, table)
    for pens in penned["pens"]:
        for pen in pens:
            for _card, colour, value in pen:
                assert (f"{colour}-{value}" if colour else "black sheep") in drawing
    assert "hand score fleeces" in drawing


def test_a_game_without_a_drawing_gets_every_field():
    assert draw_fields({"a": 1, "b": [2, None]}, Table(())) == 'a: 1\nb: [2, null]'
    assert draw("no-such-game", {"a": 1}, Table(())) == "a: 1"


def test_events_read_as_short_lines_with_names():
    table = Table(("ann", "bob", "cyd"))
    assert describe_event("card_played", {"seat": 1, "card": 17}, table) == (
        "bob: card played: card 17")
    assert describe_event("hand_start", {"hand": 2, "dealer": 0, "leader": 1}, table) == (
        "hand start: hand 2, dealer ann, leader bob")
    assert describe_event("round_end", {"round": 3, "wool": [1, 0, 2]}, table) == (
        "round end: round 3, wool ann 1 · bob 0 · cyd 2")
    assert describe_event("passed", {"from": 2, "to": 9, "card": 4}, table) == (
        "passed: from cyd, to seat 9, card 4")
    assert describe_event("trick_won", {"seat": 0, "card": 7, "returned_card": None,
                                        "returned_to": None}, table) == "ann: trick won: card 7"


def test_results_name_the_winners_and_the_reveal():
    table = Table(("ann", "bob", "cyd"))
    text = describe_result({"scores": [34, 62, -8], "ranks": [2, 1, 3], "winners": [1],
                            "reveal": {"imp_piles": [[14, 15, 23]]}}, table)
    assert ("result:\n  player  score  rank\n  ann        34     2\n"
            "  bob        62     1  won\n") in text
    assert "won by bob" in text and "revealed: imp piles: [14 15 23]" in text
    chochlik = Table(("ann", "bob", "cyd"), table_info("chochlik"), "chochlik")
    assert "revealed: imp piles: [14♥(1) 15♦(4) 23♥(3)]" in describe_result(
        {"scores": [1, 2, 3], "ranks": [3, 2, 1], "winners": [2],
         "reveal": {"imp_piles": [[14, 15, 23]]}}, chochlik)
    assert describe_result({"aborted": "server_shutdown", "scores": []}, table) == (
        "the game was aborted (server_shutdown)")


def test_events_name_their_cards_as_the_game_does():
    chochlik = Table(("ann", "bob", "cyd"), table_info("chochlik"), "chochlik")
    assert describe_event("card_played", {"seat": 1, "card": 17}, chochlik) == (
        "bob: card played: card 17♠(3)")
    assert describe_event("dealt", {"seat": 0, "cards": [4, 14]}, chochlik) == (
        "ann: dealt: cards 4♠(1) 14♥(1)")
    wypas = Table(("ann", "bob", "cyd"), table_info("wypas"), "wypas")
    assert describe_event("sheared", {"seat": 2, "discarded": ["sheep-red-1#3", "wolf#0"],
                                      "fleece": [], "bleated": True}, wypas) == (
        "cyd: sheared: discarded red-1#3 wolf#0, fleece —, bleated true")
    vollewolle = Table(("ann", "bob"), table_info("vollewolle"), "vollewolle")
    assert describe_event("failed", {"seat": 0, "black_sheep": False}, vollewolle) == (
        "ann: failed: black sheep false")  # a flag, not a card


def test_seat_rows_keep_their_columns_with_long_names():
    names = ("ann", "a-name-much-longer-than-twenty-characters-1",
             "a-name-much-longer-than-twenty-characters-2")
    table, observations = random_observations("wypas", {"players": 3, "turn_cap": 8}, 3)
    rows = [line for line in draw("wypas", observations[-1], Table(names, table.info))
            .splitlines() if line.startswith("  ") and "/" in line]
    assert len(rows) == 4  # the heading and a row per seat
    end = rows[0].index("fleeces") + len("fleeces")  # the numbers' columns end there
    assert all(row[end - 1].isdigit() and row[end:end + 2] == "  " for row in rows[1:]), rows
    assert rows[2].startswith("  a-name-much-l…ters-1 ") and rows[3].startswith(
        "  a-name-much-l…ters-2 ")
