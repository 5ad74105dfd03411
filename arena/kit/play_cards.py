"""Cards as a person reads them, per game: a short name for a card id, the choices labelled
with what their card is, and a legend that says what the codes and numbers mean.

Everything works on what a seat receives (``game_start``'s ``info``), like :mod:`arena.kit.render`,
and forgives what it does not know: an unknown card id is shown as it came.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: The symbol of each chochlik colour (the legend lists them).
SUITS = {"red": "♥", "yellow": "♦", "blue": "♠"}

CardName = Callable[[Any], str]


def _cards(info: Mapping[str, Any], key: str) -> dict[Any, Mapping[str, Any]]:
    return {card.get(key): card for card in info.get("cards", ()) if isinstance(card, Mapping)}


def _signed(number: Any) -> str:
    if isinstance(number, int) and not isinstance(number, bool):
        return f"{number:+d}"
    return str(number)


def chochlik_namer(info: Mapping[str, Any]) -> CardName:
    """``17♠(3)``: number, colour symbol, coins."""
    cards = _cards(info, "card")

    def name(number: Any) -> str:
        card = cards.get(number)
        if card is None:
            return str(number)
        return f"{number}{SUITS.get(str(card.get('colour')), '?')}({card.get('coins')})"
    return name


def vollewolle_namer(info: Mapping[str, Any]) -> CardName:
    """``s07(white 1 +2)``, ``s44(black -2)``, ``s50(3-7-0)``, ``dog3``, ``bone``."""
    cards = _cards(info, "id")

    def name(card_id: Any) -> str:
        card = cards.get(card_id)
        if card is None:
            return str(card_id)
        kind = card.get("kind")
        if kind == "white":
            modifier = f" {_signed(card['modifier'])}" if card.get("modifier") else ""
            bone = " bone-symbol" if card.get("bone_symbol") else ""
            return f"{card_id}(white {card.get('points')}{modifier}{bone})"
        if kind == "black":
            return f"{card_id}(black {card.get('points')})"
        if kind in ("dog", "bone"):
            return str(card_id)
        return f"{card_id}({kind})"
    return name


def wypas_namer(info: Mapping[str, Any]) -> CardName:
    """``red-3#1`` for a sheep, ``dolly-red#0``, and the special cards as their ids
    (``wolf#2``)."""
    cards = _cards(info, "id")

    def name(card_id: Any) -> str:
        card = cards.get(card_id)
        if card is None:
            return str(card_id)
        copy = str(card_id).rpartition("#")[2]
        if card.get("kind") == "sheep":
            return f"{card.get('colour')}-{card.get('value')}#{copy}"
        if card.get("kind") == "dolly":
            return f"dolly-{card.get('colour')}#{copy}"
        return str(card_id)
    return name


NAMERS: dict[str, Callable[[Mapping[str, Any]], CardName]] = {
    "chochlik": chochlik_namer, "vollewolle": vollewolle_namer, "wypas": wypas_namer}


def namer(game: str, info: Mapping[str, Any]) -> CardName:
    """How ``game`` names a card; for a game it does not know, the card as it came."""
    make = NAMERS.get(game)
    return make(info) if make else str


def label(game: str, info: Mapping[str, Any], token: str) -> str:
    """A legal action as the list shows it: chochlik ``play 4`` is ``play 4♠(1)`` and vollewolle
    ``take s07`` is ``take s07(white 1 +2)`` (the card's colour and worth beside its code);
    wypas ids say their colour already and stay as they are."""
    if game not in ("chochlik", "vollewolle"):
        return token
    verb, _, rest = token.partition(" ")
    if not rest or " " in rest:
        return token
    argument: Any = int(rest) if game == "chochlik" and rest.isdigit() else rest
    if verb not in ("play", "imp", "left", "right", "take"):
        return token
    return f"{verb} {namer(game, info)(argument)}"


def labels(game: str, info: Mapping[str, Any], legal: Sequence[str]) -> list[str]:
    return [label(game, info, token) for token in legal]


LEGENDS: dict[str, str] = {
    "chochlik": (
        "legend: a card is its number, its colour and its coins: 17♠(3) is card 17, blue, "
        "3 coins (17♠ in long lists)\n"
        "  colours: ♥ red · ♦ yellow · ♠ blue (follow the colour led if you can)\n"
        "  coins are points: at the end of a hand each player scores the coins of the cards "
        "they won, except the bottle's owner, who scores minus the coins of the imp's pile\n"
        "  a trick goes to the highest card of the colour led, unless cards below the bottle's "
        "price were played: then the highest of those wins it, takes the bottle and becomes the "
        "new price"),
    "vollewolle": (
        "legend: a sheep card is its code and what it is: s07(white 1 +2) is a white sheep "
        "worth 1 point whose +2 you may add to your dice while it tops your flock (a minus "
        "counts always); s44(black -2) counts -2; bone-symbol: taking it takes the bone\n"
        "  s50(3-7-0) and s54(0-0-7) are special sheep scored by trios; dog1-dog8 are "
        "shepherd dogs, bone is the bone\n"
        "  dice: d12, d10 and d8; between attempts you keep dice and roll the others"),
    "wypas": (
        "legend: a sheep card is colour-value#copy: red-3#1 is a red sheep of value 3 (copy 1 "
        "of its kind); the choices use the full id, sheep-red-3#1\n"
        "  dolly-red#0 is a joker of its colour, super_dolly#0 a joker of any colour\n"
        "  thief, wolf, dog and black_sheep are special cards, played in reaction windows; "
        "[wolf#2 above] marks a wolf over a pen"),
}


def legend(game: str) -> str:
    """What a person needs to read the game's drawings and choices ("" for a game without)."""
    return LEGENDS.get(game, "")
