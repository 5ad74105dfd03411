"""When a stored game's deal may be shown (pure: an event's settings and counts in, yes or no).

A game's seed, its seat views, its full view and even its public view (the cards played) tell
its deal, and a duplicate set plays one deal at every seating: so no page, route, export or
command shows them while another game that shares the deal is unplayed or in play.

- **A tournament or an SPRT run** (``duplicate`` in its settings) stores each game as it ends:
  a game's deal is played no more once every seating of its set is stored
  (:func:`arena.events.schedule.set_size`).  A set an event never finishes (stopped, or an
  SPRT that decided first) stays hidden: ``arena tournament --resume`` may still play it.
  Without duplicates every table is a set of its own, shown once stored.
- **A ladder** (``ladder`` in its settings) stores a duplicate set's games only once the set
  is over, played in full or abandoned by the seating (``arena.edge.ladder_book``): every
  game it stored may be shown.
- **The event's seed** tells every deal of its schedule: it is shown only once every planned
  game is stored (:func:`schedule_over`); a ladder keeps its seed to itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.events.schedule import set_size


def players_of(meta: Mapping[str, Any], default: int) -> int:
    """The seats of the event's tables (``default`` when its settings do not say)."""
    return int((meta.get("options") or {}).get("players") or default)


def set_over(meta: Mapping[str, Any], stored: int, players: int) -> bool:
    """Whether the deal of a stored game is played no more: ``stored`` games of its set are
    stored, its tables seat ``players`` (see the module's doc)."""
    if meta.get("ladder") or not meta.get("duplicate"):
        return True
    return stored >= set_size(players_of(meta, players), True)


def schedule_over(meta: Mapping[str, Any], stored: int) -> bool:
    """Whether every game an event planned is stored (``stored`` of them), so its seed tells
    nothing still to be played; False when its settings do not say how many it planned."""
    sets, players = meta.get("sets"), players_of(meta, 0)
    if meta.get("ladder") or not isinstance(sets, int) or players < 1:
        return False
    return stored >= sets * set_size(players, bool(meta.get("duplicate")))
