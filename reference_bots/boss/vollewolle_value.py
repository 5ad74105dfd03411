"""A learned value of a vollewolle position at a round's start, for the boss's rollouts.

A seat's final score is its score as the flocks stand (the game's own final scoring) plus what
the rest of the game adds; :func:`features` describes what the rest may add to a seat (the sheep
returned for want of a dog, its dogs against the others', the bone, 0-0-7s and 3-7-0s short of a
trio and whether the cards to finish it are still out, the top card's modifier, its wool), each
times the share of the cards still to be taken and its square, and :data:`WEIGHTS` is a least
squares fit of the final score minus the current one on them over heuristic self-play games
(``benchmarks/studies/vollewolle_value_fit.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.vollewolle.cards import Card, Kind, score_table

CARD_COUNT = 60
TRIO_CARDS = 4  # each of 0-0-7 and 3-7-0

NAMES = ("returned", "dogs0", "dogs1", "dogs2", "dogs3", "most", "lead", "bone", "bone_dogs",
         "007_1", "007_2", "007_1_open", "007_2_open", "370_1", "370_2", "370_2_open",
         "minus", "plus", "wool")

#: Each feature's weight times the share of cards left, then times its square (1500 games:
#: ``python benchmarks/studies/vollewolle_value_fit.py --games 1500``).
WEIGHTS = (
    4.196, 1.340, -15.547, 3.890, 10.317, 26.359, -2.321, 1.884, -16.874, -2.751, 1.378, 16.418,
    36.806, 7.065, 0.165, -22.327, -1.571, 8.401, 4.658,
    -3.245, 2.252, 14.811, 0.511, -17.574, -28.276, 2.799, -2.627, 17.880, 2.755, -1.143,
    -12.570, -29.684, -7.271, 0.974, 19.634, 2.129, -8.030, -4.313,
)


def features(flocks: Sequence[Sequence[Card]], dogs: Sequence[int], bone_holder: int | None,
             wool: Sequence[int], left: int) -> tuple[list[float], list[list[float]]]:
    """Each seat's score as it stands, and its features (``flocks`` bottom first; ``left``:
    the cards still to be taken, in the deck and on display)."""
    table = score_table(flocks, dogs, bone_holder, wool)
    count007 = [sum(card.kind is Kind.TRIO_007 for card in flock) for flock in flocks]
    count370 = [sum(card.kind is Kind.TRIO_370 for card in flock) for flock in flocks]
    free007, free370 = TRIO_CARDS - sum(count007), TRIO_CARDS - sum(count370)
    share = left / CARD_COUNT
    rows = []
    for seat, (flock, scoring) in enumerate(zip(flocks, table)):
        d = dogs[seat]
        others = max((x for s, x in enumerate(dogs) if s != seat), default=0)
        n7, n3 = count007[seat] % 3, count370[seat] % 3
        modifier = flock[-1].modifier if flock else 0
        bone = float(bone_holder == seat)
        base = [
            float(sum(card.points for card in flock if card.id in scoring.returned)),
            float(d == 0), float(d == 1), float(d == 2), float(d >= 3),
            float(scoring.most_dogs != 0), float(d - others), bone, bone * d,
            float(n7 == 1), float(n7 == 2),
            float(n7 == 1 and free007 >= 2), float(n7 == 2 and free007 >= 1),
            float(n3 == 1), float(n3 == 2), float(n3 == 2 and free370 >= 1),
            float(min(modifier, 0)), float(max(modifier, 0)), float(wool[seat])]
        rows.append([x * share for x in base] + [x * share * share for x in base])
    return [float(s.total) for s in table], rows


def learned_value(flocks: Sequence[Sequence[Card]], dogs: Sequence[int], bone_holder: int | None,
                  wool: Sequence[int], left: int, seat: int,
                  weights: Sequence[float] = WEIGHTS) -> float:
    """The seat's expected final score minus the others' average, by ``weights``."""
    totals, rows = features(flocks, dogs, bone_holder, wool, left)
    found = [total + sum([w * x for w, x in zip(weights, row)]) for total, row in zip(totals, rows)]
    return found[seat] - (sum(found) - found[seat]) / (len(found) - 1)
