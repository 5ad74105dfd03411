"""Text drawings for people: what one seat observes, events and results, per game.

Everything here works on the messages exactly as a bot receives them (the JSON of a request's
``observation``, an event's ``data``, ``game_end``) plus ``game_start``'s ``names`` and
``info`` (the card tables), so a person at the table (``arena play``) sees what a bot sees and
nothing more.  Drawings are forgiving: an unknown card or seat is shown as it came, never an
error, so a game that gains a field or a card still draws.

Each game's drawing shows every observation field except those in :data:`LEFT_OUT` (the tests
check this on observations of random games); a game without a drawing gets every field as
``name: value`` lines.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from arena.kit.play_cards import SUITS, CardName, namer
from arena.kit.play_grid import fit, grid, name_width

Observation = Mapping[str, Any]

#: Observation fields a drawing leaves out on purpose, by game, each with the reason.
LEFT_OUT: dict[str, dict[str, str]] = {
    "chochlik": {},
    "vollewolle": {
        "start_player": "breaks ties of equal bids and equal sheep numbers, which the deck "
                        "cannot produce (SPEC.md §8); '?' shows it",
    },
    "wypas": {},
}

#: Event fields that hold a seat number, shown as the seat's name.
SEAT_FIELDS = frozenset({
    "seat", "from", "to", "winner", "leader", "dealer", "bidder", "opener", "baca",
    "bottle_owner", "returned_to", "bluffer", "checker", "bone_from", "first"})
#: Event fields that hold a card or cards (lists, lists of lists), shown as the game names them.
CARD_FIELDS = frozenset({
    "card", "cards", "bottle_card", "imp_pile", "imp_piles", "returned_card", "display",
    "discarded", "fleece", "face_up", "eaten", "wolf", "black_sheep", "laid"})
#: Event fields that hold a value per seat, shown as ``name value`` pairs.
BY_SEAT_FIELDS = frozenset({
    "scores", "hand_scores", "won", "wool", "fleeces", "bids", "sheep_numbers", "totals"})


@attrs.frozen
class Table:
    """What a drawing needs besides the observation: the players' names by seat and the
    game's ``info`` from ``game_start``."""

    names: tuple[str, ...]
    info: Mapping[str, Any] = attrs.field(factory=dict)
    #: The game's name: cards in events are named as its drawings name them.
    game: str = ""

    def name(self, seat: Any) -> str:
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(self.names):
            return self.names[seat]
        return "nobody" if seat is None else f"seat {seat}"

    def by_seat(self, values: Sequence[Any], show: Callable[[Any], str] = str) -> str:
        return " · ".join(f"{self.name(seat)} {show(value)}" for seat, value in enumerate(values))

    def name_column(self) -> int:
        """The width of a column of the players' names (see :mod:`arena.kit.play_grid`)."""
        return name_width(self.names)

    def seat_cell(self, seat: int) -> str:
        return fit(self.name(seat), self.name_column())

    def card_namer(self) -> CardName:
        return namer(self.game, self.info)

    def cards(self, key: str) -> dict[Any, Mapping[str, Any]]:
        """``info.cards`` by id (``key`` names the id field)."""
        return {card.get(key): card for card in self.info.get("cards", ())
                if isinstance(card, Mapping)}


def _signed(number: Any) -> str:
    if isinstance(number, int) and not isinstance(number, bool):
        return f"{number:+d}"
    return str(number)


def _listed(items: Sequence[Any], show: Callable[[Any], str] = str, empty: str = "—") -> str:
    return ", ".join(show(item) for item in items) if items else empty


def _shown(value: Any) -> str:
    return "—" if value is None else str(value)


def _you(observation: Observation, table: Table) -> str:
    seat = observation.get("seat")
    return f"you: {table.name(seat)} (seat {seat})"


# --- chochlik --------------------------------------------------------------------------------


def _chochlik_card(table: Table) -> Callable[[Any], str]:
    return namer("chochlik", table.info)


def _suited(table: Table) -> Callable[[Any], str]:
    """A chochlik card with its colour but not its coins (``17♠``), for long lists."""
    cards = table.cards("card")

    def show(number: Any) -> str:
        card = cards.get(number)
        return str(number) if card is None else f"{number}{SUITS.get(str(card['colour']), '?')}"
    return show


def _coins(table: Table, numbers: Sequence[Any]) -> int:
    cards = table.cards("card")
    return sum(cards[n]["coins"] for n in numbers if n in cards)


def draw_chochlik(o: Observation, table: Table) -> str:
    card = _chochlik_card(table)
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
    trick = _listed(o["trick"], lambda play: f"{table.name(play[0])} {card(play[1])}")
    suited = _suited(table)
    won = " · ".join(f"{table.name(seat)} {' '.join(map(suited, numbers)) or '—'}"
                     f" ({_coins(table, numbers)} coins)" for seat, numbers in enumerate(o["won"]))
    return "\n".join([
        f"chochlik · hand {o['hand_number']} · dealer {table.name(o['dealer'])} · "
        f"phase {o['phase']} · to play: {table.name(o['turn'])} · {_you(o, table)}",
        f"scores before this hand: {table.by_seat(o['scores'])}"
        f"   (the game ends {' or '.join(e for e in ends if e) or 'never'})",
        f"bottle: {bottle}",
        f"trick, led by {table.name(o['leader'])}: {trick}",
        f"your hand ({len(o['hand'])}): {hand or '—'}",
        f"your passes: {passes}",
        f"won this hand: {won}",
        f"played this hand ({len(o['played'])}): {_listed(o['played'], suited)}",
    ])


# --- vollewolle ------------------------------------------------------------------------------


def _sheep_card(table: Table) -> Callable[[Any], str]:
    return namer("vollewolle", table.info)


def _roll(o: Observation) -> str:
    if o["dice"] is None and o["attempt"] is None:
        return "nobody is rolling"
    dice = " ".join(f"{die}={face}{' kept' if die in o['kept'] else ''}"
                    for die, face in zip(("d12", "d10", "d8"), o["dice"] or ()))
    return (f"attempt {o['attempt']}, dice {dice or '—'} (sum {sum(o['dice'] or ())}), "
            f"kept {_listed(o['kept'])}, target {o['target']}")


def draw_vollewolle(o: Observation, table: Table) -> str:
    card = _sheep_card(table)
    seats = range(len(o["wool"]))
    rows = [f"  {'':<{table.name_column()}} wool dogs mod  sheep# bid"]
    for seat in seats:
        bid = o["bids"][seat]
        rows.append(f"  {table.seat_cell(seat)} {o['wool'][seat]:>4} {o['dogs'][seat]:>4} "
                    f"{_signed(o['modifiers'][seat]):>3} {o['sheep_numbers'][seat]:>7} "
                    f"{'?' if bid is None else ('26+' if bid == 26 else bid):>3}"
                    f"  flock: {_listed(o['flocks'][seat], card)}")
    bone = ("with nobody" if o["bone_holder"] is None
            else f"held by {table.name(o['bone_holder'])}")
    reach = ""
    if o["reach_for"] is not None or o["wool_needed"] is not None:
        reach = (f"\nreach: for {o['reach_for']}, spending {o['wool_needed']} wool chip(s) "
                 "(besides the whole bonus, when it adds it)")
    return "\n".join([
        f"vollewolle · round {o['round']} · deck {o['deck_left']} left · "
        f"you decide: {o['decision'] or 'nothing'} · {_you(o, table)}",
        f"display: {_listed(o['display'], card)}",
        f"bone: {bone}",
        "seats (flocks top card first):",
        *rows,
        f"order: {_listed(o['order'], table.name, 'after the bids')} · "
        f"turn: {table.name(o['turn'])} · {_roll(o)}",
        f"to take: {o['to_take']} card(s) from {o['take_from'] or 'nowhere'}",
    ]) + reach


# --- wypas -----------------------------------------------------------------------------------


def _wypas_card(table: Table) -> Callable[[Any], str]:
    return namer("wypas", table.info)


def _placed(placed: Sequence[Any]) -> str:
    card_id, colour, value = (list(placed) + [None, None, None])[:3]
    if colour is None:
        return f"black sheep ({card_id})"
    plain = str(card_id).startswith(f"sheep-{colour}-{value}#")
    return f"{colour}-{value}" if plain else f"{colour}-{value} ({card_id})"


def _pen(o: Observation, seat: int, pen: int) -> str:
    cards = o["pens"][seat][pen] if seat < len(o["pens"]) else ()
    wolf = o["wolves"][seat][pen] if seat < len(o["wolves"]) else None
    return (_listed(cards, _placed) + (f" [{wolf} above]" if wolf else "")) or "—"


def _auction(o: Observation, table: Table, card: Callable[[Any], str]) -> str:
    if o["auction_card"] is None:
        return "no auction now"
    stakes = []
    for seat, stake in enumerate(o["stakes"]):
        laid = o["laid"][seat] if seat < len(o["laid"]) else ()
        declared = o["declared"][seat] if seat < len(o["declared"]) else 0
        stakes.append(f"{table.name(seat)} {stake}"
                      + (f" [{_listed(laid, card)}]" if laid else "")
                      + (f" (face-down declared {declared})" if declared else "")
                      + (" passed" if o["passed"][seat] else ""))
    return (f"auction of {card(o['auction_card'])}, opened by {table.name(o['opener'])}; "
            f"bidding: {table.name(o['bidder'])}; highest committed: "
            f"{table.name(o['high_bidder'])}\n  stakes: " + " · ".join(stakes))


def _window(o: Observation, table: Table, card: Callable[[Any], str]) -> str:
    window = o["window"]
    if not window:
        return ""
    chain = _listed(window.get("chain") or (), lambda link: (
        f"{table.name(link.get('seat'))} {card(link.get('card'))} on {link.get('target')}"))
    resolving = window.get("resolving")
    return (f"\nreaction window ({window.get('stage')}), resolving clockwise from "
            f"{table.name(window.get('first'))}: chain {chain}"
            + (f"; your {card(window['choosing'])} waits for its target"
               if window.get("choosing") else "")
            + (f"; {table.name(resolving.get('seat'))} chooses from {resolving.get('target')}"
               if resolving else ""))


def _check(o: Observation, table: Table) -> str:
    check = o["check"]
    if not check:
        return ""
    if check.get("checker") is None:
        return (f"\nbluff: {table.name(check.get('offer'))} may check "
                f"{table.name(check.get('bluffer'))}'s stake")
    return (f"\nbluff: {table.name(check.get('checker'))} checked "
            f"{table.name(check.get('bluffer'))}: stake {check.get('stake')} to match; matched "
            f"by {_listed(check.get('matched') or (), table.name, 'nobody yet')}")


def draw_wypas(o: Observation, table: Table) -> str:
    card = _wypas_card(table)
    rows = [f"  {'':<{table.name_column()}} hand score fleeces  pen 0 / pen 1"]
    for seat, size in enumerate(o["hand_sizes"]):
        rows.append(f"  {table.seat_cell(seat)} {size:>4} {o['scores'][seat]:>5} "
                    f"{o['fleeces'][seat]:>7}  {_pen(o, seat, 0)} / {_pen(o, seat, 1)}")
    lot = _listed(o["lot"], card, "no face-up card") + (
        " + the face-down card" if o["lot_hidden"] else "")
    if o["hidden_card"] is not None:
        lot += f" (face down, known to you: {card(o['hidden_card'])})"
    placing = (f"\nplacing {card(o['placing'])} in pen {o['placing_pen']}"
               if o["placing"] is not None or o["placing_pen"] is not None else "")
    ended = (f"\nthe end was triggered by {table.name(o['end_triggered_by'])}: final shearing"
             if o["end_triggered_by"] is not None else "")
    return "\n".join([
        f"wypas · turn {o['turn']} of {o['turn_cap']} · phase {o['phase']} · "
        f"baca {table.name(o['baca'])} · deck {o['deck_size']} · used pile {o['discard_size']}",
        f"you decide: {o['decision'] or 'nothing'} · main-line actor: {table.name(o['actor'])}"
        f" · {_you(o, table)}",
        *rows,
        f"your hand ({len(o['hand'])}): {_listed(o['hand'], card)}",
        f"lot: {lot}",
        _auction(o, table, card),
    ]) + placing + _window(o, table, card) + _check(o, table) + ended


# --- any game ----------------------------------------------------------------------------------


def draw_fields(observation: Observation, table: Table) -> str:
    """Every field as ``name: value``: for a game without a drawing of its own."""
    return "\n".join(f"{key}: {json.dumps(value)}" for key, value in observation.items())


DRAWINGS: dict[str, Callable[[Observation, Table], str]] = {
    "chochlik": draw_chochlik, "vollewolle": draw_vollewolle, "wypas": draw_wypas}


def draw(game: str, observation: Observation, table: Table) -> str:
    """What the seat observes, drawn for a person (see :data:`LEFT_OUT`)."""
    return DRAWINGS.get(game, draw_fields)(observation, table)


def named_cards(value: Any, card: CardName) -> str:
    """A card, or a list (of lists) of cards, as the game names them: ``4♠(1) 9♦(3)``."""
    if isinstance(value, list):
        inner = [named_cards(item, card) for item in value]
        return "[" + " ".join(inner) + "]" if any(isinstance(i, list) for i in value) else (
            " ".join(inner) or "—")
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return card(value)
    return json.dumps(value)


def _value(key: str, value: Any, table: Table) -> str:
    if key in SEAT_FIELDS and (value is None or isinstance(value, int)):
        return table.name(value)
    if key in CARD_FIELDS and not isinstance(value, bool):
        return named_cards(value, table.card_namer())
    if key in BY_SEAT_FIELDS and isinstance(value, list) and len(value) == len(table.names):
        return table.by_seat(value, lambda v: json.dumps(v, separators=(",", ":")))
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"))


def describe_event(kind: str, data: Mapping[str, Any], table: Table) -> str:
    """One short line: ``bob: card played: card 17♠(3)`` (fields that are null are left
    out; cards named as the game's drawings name them)."""
    actor = f"{table.name(data['seat'])}: " if isinstance(data.get("seat"), int) else ""
    details = ", ".join(f"{key.replace('_', ' ')} {_value(key, value, table)}"
                        for key, value in data.items() if key != "seat" and value is not None)
    return f"{actor}{kind.replace('_', ' ')}" + (f": {details}" if details else "")


def describe_result(game_end: Mapping[str, Any], table: Table) -> str:
    """The result of a ``game_end`` as a table (each seat's score and rank), the winners and
    what the game revealed at its end."""
    if game_end.get("aborted"):
        return f"the game was aborted ({game_end['aborted']})"
    scores, ranks = game_end.get("scores") or [], game_end.get("ranks") or []
    winners = set(game_end.get("winners") or ())
    rows = [[table.name(seat), str(score), str(rank), "won" if seat in winners else ""]
            for seat, (score, rank) in enumerate(zip(scores, ranks))]
    lines = ["result:", grid(["player", "score", "rank", ""], rows),
             f"won by {_listed(sorted(winners), table.name)}"]
    reveal = game_end.get("reveal")
    for key, value in (reveal.items() if isinstance(reveal, Mapping) else ()):
        lines.append(f"revealed: {key.replace('_', ' ')}: "
                     + named_cards(value, table.card_namer()))
    return "\n".join(lines)
