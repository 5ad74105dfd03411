"""Each game's fixed action index space and flat observation encoding, for learning code,
found through the game's spec (``GameSpec.encoding``: a module of the game's package, imported
the first time an environment of that game is made; see :mod:`arena.games.encoding`).

An action index space is the tuple of every token the game can ever list, or None where the
index is the legal list's position (at most :data:`~arena.games.base.MAX_LEGAL_ACTIONS`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from arena.games import GAMES, get_game
from arena.games.base import MAX_LEGAL_ACTIONS, OptionsError

#: A game's codec: (its action tokens, or None for the legal list's positions; its encoder).
Codec = tuple[tuple[str, ...] | None, Callable[[dict[str, Any]], Any]]


def codec(game: str) -> Codec:
    """The action tokens and the encoder of ``game`` (an OptionsError, saying so, for a game
    without an encoding)."""
    spec = get_game(game)
    if spec.encoding is None:
        raise OptionsError(f"{game} has no training-environment encoding (its GameSpec names "
                           "no encoding module)")
    module = importlib.import_module(spec.encoding)
    return module.ACTIONS, module.encode


class _Codecs(Mapping[str, Codec]):
    """The codecs of the registered games that have an encoding, by name (each imported when
    first read)."""

    def __getitem__(self, game: str) -> Codec:
        if game not in GAMES or GAMES[game].encoding is None:
            raise KeyError(game)
        return codec(game)

    def __iter__(self) -> Iterator[str]:
        return iter([name for name, spec in GAMES.items() if spec.encoding is not None])

    def __len__(self) -> int:
        return sum(1 for _ in self)


GAME_CODECS: Mapping[str, Codec] = _Codecs()


def action_count(game: str) -> int:
    tokens = codec(game)[0]
    return MAX_LEGAL_ACTIONS if tokens is None else len(tokens)
