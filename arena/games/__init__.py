"""The games arena hosts, by name.  Adding a game means adding its module and one line here."""

from __future__ import annotations

from arena.games import chochlik, vollewolle, wypas
from arena.games.base import GameEvent, GameSpec, GameState, IllegalAction, OptionsError, Result

GAMES: dict[str, GameSpec] = {
    spec.name: spec for spec in (chochlik.SPEC, vollewolle.SPEC, wypas.SPEC)}


def get_game(name: str) -> GameSpec:
    try:
        return GAMES[name]
    except KeyError:
        raise OptionsError(f"unknown game {name!r}; known: {', '.join(sorted(GAMES))}") from None


__all__ = ["GAMES", "GameEvent", "GameSpec", "GameState", "IllegalAction", "OptionsError",
           "Result", "get_game"]
