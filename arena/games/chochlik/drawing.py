"""chochlik drawn for people (``arena play``): the observation, cards as ``17♠(3)``, the
choices with their cards, the legend, and the end of a hand as a table."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.games.drawing import (
    CardName,
    Data,
    Drawing,
    Observation,
    TableView,
    by_id,
    card_label,
    listed,
    named_cards,
    per_seat,
    you,
)

#: The symbol of each colour (the legend lists them).
SUITS = {"red": "♥", "yellow": "♦", "blue": "♠"}


def namer(info: Mapping[str, Any]) -> CardName:
    """``17♠(3)``: number, colour symbol, coins."""
    cards = by_id(info, "card")

    def name(number: Any) -> str:
        card = cards.get(number)
        if card is None:
            return str(number)
        return f"{number}{SUITS.get(str(card.get('colour')), '?')}({card.get('coins')})"
    return name


def label(info: Mapping[str, Any], token: str) -> str:
    """``play 4`` is ``play 4♠(1)``."""
    return card_label(token, namer(info), frozenset({"play", "imp", "left", "right"}),
                      numbers=True)


def _suited(table: TableView) -> Callable[[Any], str]:
    """A card with its colour but not its coins (``17♠``), for long lists."""
    cards = table.cards("card")

    def show(number: Any) -> str:
        card = cards.get(number)
        return str(number) if card is None else f"{number}{SUITS.get(str(card['colour']), '?')}"
    return show


def _coins(table: TableView, numbers: Sequence[Any]) -> int:
    cards = table.cards("card")
    return sum(cards[n]["coins"] for n in numbers if n in cards)


def draw(o: Observation, table: TableView) -> str:
    card = namer(table.info)
    cards = table.cards("card")
    by_colour: dict[str, list[str]] = {}
    for number in o["hand"]:
        colour = cards[number]["colour"] if number in cards else "?"
        by_colour.setdefault(colour, []).append(
            f"{number}({cards[number]['coins']})" if number in cards else str(number))
    hand = " · ".join(f"{SUITS.get(colour, '?')} {colour} {' '.join(shown)}"
                      for colour, shown in by_colour.items())
    ends = [f"after {o['hands']} hand(s)" if o.get("hands") else "",
            f"at {o['target']} points" if o.get("target") else ""]
    owner = o["bottle_owner"]
    bottle = f"price {o['price']}, " + (f"owned by {table.name(owner)}" if owner is not None
                                         else "nobody owns it yet")
    def passed(key: str) -> str:
        return "—" if o[key] is None else card(o[key])
    passes = (f"imp {passed('imp_card')}, left {passed('passed_left')}, "
              f"right {passed('passed_right')}; received "
              f"{passed('received_from_left')} from the left, "
              f"{passed('received_from_right')} from the right")
    trick = listed(o["trick"], lambda play: f"{table.name(play[0])} {card(play[1])}")
    suited = _suited(table)
    won = " · ".join(f"{table.name(seat)} {' '.join(map(suited, numbers)) or '—'}"
                     f" ({_coins(table, numbers)} coins)" for seat, numbers in enumerate(o["won"]))
    return "\n".join([
        f"chochlik · hand {o['hand_number']} · dealer {table.name(o['dealer'])} · "
        f"phase {o['phase']} · to play: {table.name(o['turn'])} · {you(o, table)}",
        f"scores before this hand: {table.by_seat(o['scores'])}"
        f"   (the game ends {' or '.join(e for e in ends if e) or 'never'})",
        f"bottle: {bottle}",
        f"trick, led by {table.name(o['leader'])}: {trick}",
        f"your hand ({len(o['hand'])}): {hand or '—'}",
        f"your passes: {passes}",
        f"won this hand: {won}",
        f"played this hand ({len(o['played'])}): {listed(o['played'], suited)}",
    ])


def hand_end(data: Data, table: TableView) -> str | None:
    won, hand, total = (per_seat(data, key, table) for key in ("won", "hand_scores", "scores"))
    if won is None or hand is None or total is None:
        return None
    card = table.card_namer()
    cards = table.cards("card")

    def coins(numbers: Sequence[Any]) -> int:
        return sum(cards[n].get("coins", 0) for n in numbers if n in cards)
    owner = data.get("bottle_owner")
    rows = [[table.name(seat), str(len(won[seat])), str(coins(won[seat])),
             f"{hand[seat]:+d}" if isinstance(hand[seat], int) else str(hand[seat]),
             str(total[seat]), "owns the bottle" if seat == owner else ""]
            for seat in range(len(table.names))]
    pile = data.get("imp_pile") or []
    return "\n".join([
        f"hand {data.get('hand')} is over: the bottle (price {card(data.get('bottle_card'))}) "
        f"ends with {table.name(owner)}; the imp's pile: {named_cards(pile, card)} "
        f"({data.get('imp_coins', coins(pile))} coins)",
        table.grid(["player", "cards won", "coins won", "this hand", "total", ""], rows)])


LEGEND = (
    "legend: a card is its number, its colour and its coins: 17♠(3) is card 17, blue, "
    "3 coins (17♠ in long lists)\n"
    "  colours: ♥ red · ♦ yellow · ♠ blue (follow the colour led if you can)\n"
    "  coins are points: at the end of a hand each player scores the coins of the cards "
    "they won, except the bottle's owner, who scores minus the coins of the imp's pile\n"
    "  a trick goes to the highest card of the colour led, unless cards below the bottle's "
    "price were played: then the highest of those wins it, takes the bottle and becomes the "
    "new price")

DRAWING = Drawing(observation=draw, namer=namer, label=label, legend=LEGEND,
                  tables={"hand_end": hand_end})
