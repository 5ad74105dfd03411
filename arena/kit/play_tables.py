"""The ends of hands and games drawn as tables, a row per seat: chochlik's ``hand_end``,
vollewolle's ``final_scoring`` and wypas's ``game_over`` events.  Other events stay one line
(:func:`arena.kit.render.describe_event`); :func:`describe` picks."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.kit.play_grid import grid
from arena.kit.render import Table, describe_event, named_cards

Data = Mapping[str, Any]


def _per_seat(data: Data, key: str, table: Table) -> list[Any] | None:
    value = data.get(key)
    return value if isinstance(value, list) and len(value) == len(table.names) else None


def _coins(table: Table, numbers: Sequence[Any]) -> int:
    cards = table.cards("card")
    return sum(cards[n].get("coins", 0) for n in numbers if n in cards)


def chochlik_hand_end(data: Data, table: Table) -> str | None:
    won, hand, total = (_per_seat(data, key, table) for key in ("won", "hand_scores", "scores"))
    if won is None or hand is None or total is None:
        return None
    card = table.card_namer()
    owner = data.get("bottle_owner")
    rows = [[table.name(seat), str(len(won[seat])), str(_coins(table, won[seat])),
             f"{hand[seat]:+d}" if isinstance(hand[seat], int) else str(hand[seat]),
             str(total[seat]), "owns the bottle" if seat == owner else ""]
            for seat in range(len(table.names))]
    pile = data.get("imp_pile") or []
    return "\n".join([
        f"hand {data.get('hand')} is over: the bottle (price {card(data.get('bottle_card'))}) "
        f"ends with {table.name(owner)}; the imp's pile: {named_cards(pile, card)} "
        f"({data.get('imp_coins', _coins(table, pile))} coins)",
        grid(["player", "cards won", "coins won", "this hand", "total", ""], rows)])


#: vollewolle's final scoring, in the order of its fields, with the columns' headings.
VOLLEWOLLE_COLUMNS = (("white", "white"), ("black", "black"), ("trio_370", "3-7-0"),
                      ("trio_007", "0-0-7"), ("dogs", "dogs"), ("most_dogs", "most dogs"),
                      ("bone", "bone"), ("wool", "wool"), ("total", "total"))


def vollewolle_final_scoring(data: Data, table: Table) -> str | None:
    scores = _per_seat(data, "scores", table)
    if scores is None or not all(isinstance(score, Mapping) for score in scores):
        return None
    keys = [key for key, _ in VOLLEWOLLE_COLUMNS]
    extra = [key for key in scores[0] if key not in keys and key != "returned"]
    header = ["player", *(title for _, title in VOLLEWOLLE_COLUMNS), *extra, "returned"]
    card = table.card_namer()
    rows = [[table.name(seat), *(str(score.get(key, "")) for key in keys + extra),
             named_cards(score.get("returned") or [], card)]
            for seat, score in enumerate(scores)]
    return "final scoring:\n" + grid(header, rows)


def wypas_game_over(data: Data, table: Table) -> str | None:
    scores, fleeces = _per_seat(data, "scores", table), _per_seat(data, "fleeces", table)
    if scores is None or fleeces is None:
        return None
    rows = [[table.name(seat), str(scores[seat]), str(fleeces[seat])]
            for seat in range(len(table.names))]
    return (f"the game is over ({str(data.get('reason', '')).replace('_', ' ')}):\n"
            + grid(["player", "score", "fleeces"], rows))


TABLES: dict[tuple[str, str], Callable[[Data, Table], str | None]] = {
    ("chochlik", "hand_end"): chochlik_hand_end,
    ("vollewolle", "final_scoring"): vollewolle_final_scoring,
    ("wypas", "game_over"): wypas_game_over,
}


def describe(kind: str, data: Data, table: Table) -> str:
    """An event for a person: a table for the end of a hand or game, else one line (indented
    two spaces either way).  Data that does not fit the table's shape is shown as a line."""
    drawing = TABLES.get((table.game, kind))
    shown = drawing(data, table) if drawing else None
    return shown if shown is not None else "  " + describe_event(kind, data, table)
