"""The games arena hosts, by name.  A game is a folder (``arena/games/<game>/``) whose ``SPEC``
is listed here; adding one means adding its folder and one line here.

``ARENA_EXTRA_GAMES`` adds games from elsewhere when the registry is first imported (a test's
toy game, say): comma-separated ``module:attribute`` entries, each attribute a
:class:`GameSpec`; :func:`register` adds one in-process."""

from __future__ import annotations

import importlib
import os

from arena.games import chochlik, vollewolle, wypas
from arena.games.base import GameEvent, GameSpec, GameState, IllegalAction, OptionsError, Result

GAMES: dict[str, GameSpec] = {
    spec.name: spec for spec in (chochlik.SPEC, vollewolle.SPEC, wypas.SPEC)}


def register(spec: GameSpec) -> GameSpec:
    """Add a game to the registry (by its name)."""
    GAMES[spec.name] = spec
    return spec


def _register_extra_games(entries: str) -> None:
    for entry in filter(None, (part.strip() for part in entries.split(","))):
        module, _, attribute = entry.partition(":")
        spec = getattr(importlib.import_module(module), attribute or "SPEC")
        if not isinstance(spec, GameSpec):
            raise TypeError(f"ARENA_EXTRA_GAMES: {entry} is not a GameSpec")
        register(spec)


def get_game(name: str) -> GameSpec:
    try:
        return GAMES[name]
    except KeyError:
        raise OptionsError(f"unknown game {name!r}; known: {', '.join(sorted(GAMES))}") from None


_register_extra_games(os.environ.get("ARENA_EXTRA_GAMES", ""))

__all__ = ["GAMES", "GameEvent", "GameSpec", "GameState", "IllegalAction", "OptionsError",
           "Result", "get_game", "register"]
