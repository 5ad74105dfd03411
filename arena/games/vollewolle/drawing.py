"""vollewolle drawn for people (``arena play``): the observation, cards as
``s07(white 1 +2)``, the choices with their cards, the legend, and the final scoring as a
table."""

from __future__ import annotations

from collections.abc import Mapping
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
    signed,
    you,
)


def namer(info: Mapping[str, Any]) -> CardName:
    """``s07(white 1 +2)``, ``s44(black -2)``, ``s50(3-7-0)``, ``dog3``, ``bone``."""
    cards = by_id(info, "id")

    def name(card_id: Any) -> str:
        card = cards.get(card_id)
        if card is None:
            return str(card_id)
        kind = card.get("kind")
        if kind == "white":
            modifier = f" {signed(card['modifier'])}" if card.get("modifier") else ""
            bone = " bone-symbol" if card.get("bone_symbol") else ""
            return f"{card_id}(white {card.get('points')}{modifier}{bone})"
        if kind == "black":
            return f"{card_id}(black {card.get('points')})"
        if kind in ("dog", "bone"):
            return str(card_id)
        return f"{card_id}({kind})"
    return name


def label(info: Mapping[str, Any], token: str) -> str:
    """``take s07`` is ``take s07(white 1 +2)``."""
    return card_label(token, namer(info), frozenset({"play", "imp", "left", "right", "take"}))


def _roll(o: Observation) -> str:
    if o["dice"] is None and o["attempt"] is None:
        return "nobody is rolling"
    dice = " ".join(f"{die}={face}{' kept' if die in o['kept'] else ''}"
                    for die, face in zip(("d12", "d10", "d8"), o["dice"] or ()))
    return (f"attempt {o['attempt']}, dice {dice or '—'} (sum {sum(o['dice'] or ())}), "
            f"kept {listed(o['kept'])}, target {o['target']}")


def draw(o: Observation, table: TableView) -> str:
    card = namer(table.info)
    seats = range(len(o["wool"]))
    rows = [f"  {'':<{table.name_column()}} wool dogs mod  sheep# bid"]
    for seat in seats:
        bid = o["bids"][seat]
        rows.append(f"  {table.seat_cell(seat)} {o['wool'][seat]:>4} {o['dogs'][seat]:>4} "
                    f"{signed(o['modifiers'][seat]):>3} {o['sheep_numbers'][seat]:>7} "
                    f"{'?' if bid is None else ('26+' if bid == 26 else bid):>3}"
                    f"  flock: {listed(o['flocks'][seat], card)}")
    bone = ("with nobody" if o["bone_holder"] is None
            else f"held by {table.name(o['bone_holder'])}")
    reach = ""
    if o["reach_for"] is not None or o["wool_needed"] is not None:
        reach = (f"\nreach: for {o['reach_for']}, spending {o['wool_needed']} wool chip(s) "
                 "(besides the whole bonus, when it adds it)")
    return "\n".join([
        f"vollewolle · round {o['round']} · deck {o['deck_left']} left · "
        f"you decide: {o['decision'] or 'nothing'} · {you(o, table)}",
        f"display: {listed(o['display'], card)}",
        f"bone: {bone}",
        "seats (flocks top card first):",
        *rows,
        f"order: {listed(o['order'], table.name, 'after the bids')} · "
        f"turn: {table.name(o['turn'])} · {_roll(o)}",
        f"to take: {o['to_take']} card(s) from {o['take_from'] or 'nowhere'}",
    ]) + reach


#: The final scoring, in the order of its fields, with the columns' headings.
COLUMNS = (("white", "white"), ("black", "black"), ("trio_370", "3-7-0"),
           ("trio_007", "0-0-7"), ("dogs", "dogs"), ("most_dogs", "most dogs"),
           ("bone", "bone"), ("wool", "wool"), ("total", "total"))


def final_scoring(data: Data, table: TableView) -> str | None:
    scores = per_seat(data, "scores", table)
    if scores is None or not all(isinstance(score, Mapping) for score in scores):
        return None
    keys = [key for key, _ in COLUMNS]
    extra = [key for key in scores[0] if key not in keys and key != "returned"]
    header = ["player", *(title for _, title in COLUMNS), *extra, "returned"]
    card = table.card_namer()
    rows = [[table.name(seat), *(str(score.get(key, "")) for key in keys + extra),
             named_cards(score.get("returned") or [], card)]
            for seat, score in enumerate(scores)]
    return "final scoring:\n" + table.grid(header, rows)


LEGEND = (
    "legend: a sheep card is its code and what it is: s07(white 1 +2) is a white sheep "
    "worth 1 point whose +2 you may add to your dice while it tops your flock (a minus "
    "counts always); s44(black -2) counts -2; bone-symbol: taking it takes the bone\n"
    "  s50(3-7-0) and s54(0-0-7) are special sheep scored by trios; dog1-dog8 are "
    "shepherd dogs, bone is the bone\n"
    "  dice: d12, d10 and d8; between attempts you keep dice and roll the others")

DRAWING = Drawing(
    observation=draw, namer=namer, label=label, legend=LEGEND,
    left_out={"start_player": "breaks ties of equal bids and equal sheep numbers, which the "
                              "deck cannot produce (SPEC.md §10); '?' shows it"},
    tables={"final_scoring": final_scoring})
