"""wypas drawn for people (``arena play``): the observation (pens, auction, reaction window,
bluff), cards as ``red-3#1``, the legend, and the end of the game as a table."""

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
    listed,
    per_seat,
    you,
)


def namer(info: Mapping[str, Any]) -> CardName:
    """``red-3#1`` for a sheep, ``dolly-red#0``, and the special cards as their ids
    (``wolf#2``)."""
    cards = by_id(info, "id")

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


def _placed(placed: Sequence[Any]) -> str:
    card_id, colour, value = (list(placed) + [None, None, None])[:3]
    if colour is None:
        return f"black sheep ({card_id})"
    plain = str(card_id).startswith(f"sheep-{colour}-{value}#")
    return f"{colour}-{value}" if plain else f"{colour}-{value} ({card_id})"


def _pen(o: Observation, seat: int, pen: int) -> str:
    cards = o["pens"][seat][pen] if seat < len(o["pens"]) else ()
    wolf = o["wolves"][seat][pen] if seat < len(o["wolves"]) else None
    return (listed(cards, _placed) + (f" [{wolf} above]" if wolf else "")) or "—"


def _auction(o: Observation, table: TableView, card: Callable[[Any], str]) -> str:
    if o["auction_card"] is None:
        return "no auction now"
    stakes = []
    for seat, stake in enumerate(o["stakes"]):
        laid = o["laid"][seat] if seat < len(o["laid"]) else ()
        declared = o["declared"][seat] if seat < len(o["declared"]) else 0
        stakes.append(f"{table.name(seat)} {stake}"
                      + (f" [{listed(laid, card)}]" if laid else "")
                      + (f" (face-down declared {declared})" if declared else "")
                      + (" passed" if o["passed"][seat] else ""))
    return (f"auction of {card(o['auction_card'])}, opened by {table.name(o['opener'])}; "
            f"bidding: {table.name(o['bidder'])}; highest committed: "
            f"{table.name(o['high_bidder'])}\n  stakes: " + " · ".join(stakes))


def _window(o: Observation, table: TableView, card: Callable[[Any], str]) -> str:
    window = o["window"]
    if not window:
        return ""
    chain = listed(window.get("chain") or (), lambda link: (
        f"{table.name(link.get('seat'))} {card(link.get('card'))} on {link.get('target')}"))
    resolving = window.get("resolving")
    return (f"\nreaction window ({window.get('stage')}), resolving clockwise from "
            f"{table.name(window.get('first'))}: chain {chain}"
            + (f"; your {card(window['choosing'])} waits for its target"
               if window.get("choosing") else "")
            + (f"; {table.name(resolving.get('seat'))} chooses from {resolving.get('target')}"
               if resolving else ""))


def _check(o: Observation, table: TableView) -> str:
    check = o["check"]
    if not check:
        return ""
    if check.get("checker") is None:
        return (f"\nbluff: {table.name(check.get('offer'))} may check "
                f"{table.name(check.get('bluffer'))}'s stake")
    return (f"\nbluff: {table.name(check.get('checker'))} checked "
            f"{table.name(check.get('bluffer'))}: stake {check.get('stake')} to match; matched "
            f"by {listed(check.get('matched') or (), table.name, 'nobody yet')}")


def draw(o: Observation, table: TableView) -> str:
    card = namer(table.info)
    rows = [f"  {'':<{table.name_column()}} hand score fleeces  pen 0 / pen 1"]
    for seat, size in enumerate(o["hand_sizes"]):
        rows.append(f"  {table.seat_cell(seat)} {size:>4} {o['scores'][seat]:>5} "
                    f"{o['fleeces'][seat]:>7}  {_pen(o, seat, 0)} / {_pen(o, seat, 1)}")
    lot = listed(o["lot"], card, "no face-up card") + (
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
        f" · {you(o, table)}",
        *rows,
        f"your hand ({len(o['hand'])}): {listed(o['hand'], card)}",
        f"lot: {lot}",
        _auction(o, table, card),
    ]) + placing + _window(o, table, card) + _check(o, table) + ended


def game_over(data: Data, table: TableView) -> str | None:
    scores, fleeces = per_seat(data, "scores", table), per_seat(data, "fleeces", table)
    if scores is None or fleeces is None:
        return None
    rows = [[table.name(seat), str(scores[seat]), str(fleeces[seat])]
            for seat in range(len(table.names))]
    return (f"the game is over ({str(data.get('reason', '')).replace('_', ' ')}):\n"
            + table.grid(["player", "score", "fleeces"], rows))


LEGEND = (
    "legend: a sheep card is colour-value#copy: red-3#1 is a red sheep of value 3 (copy 1 "
    "of its kind); the choices use the full id, sheep-red-3#1\n"
    "  dolly-red#0 is a joker of its colour, super_dolly#0 a joker of any colour\n"
    "  thief, wolf, dog and black_sheep are special cards, played in reaction windows; "
    "[wolf#2 above] marks a wolf over a pen")

#: wypas ids say their colour already: the choices stay as they are.
DRAWING = Drawing(observation=draw, namer=namer, legend=LEGEND, tables={"game_over": game_over})
