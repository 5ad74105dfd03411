"""The games arena hosts, by name.

Games are found through the entry-point group ``arena.games`` (:data:`GROUP`): each entry point
is named after its game and points at its :class:`GameSpec` (``chochlik =
"arena.games.chochlik:SPEC"`` in arena's own ``pyproject.toml``; a game from elsewhere declares
its own the same way, and ``pip install`` of its package is all it takes).  A broken one (it
does not import, is not a ``GameSpec``, carries another name than its entry point's, or takes a
name already taken) is reported in one line on stderr, naming its distribution and the reason,
and skipped: the other games still work.

The registry (:data:`GAMES`) looks for them when first used.  ``ARENA_EXTRA_GAMES`` adds games
then too (a test's toy game, say):
comma-separated ``module:attribute`` entries, each attribute a :class:`GameSpec`;
:func:`register` adds one in-process."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import TYPE_CHECKING

from arena.games.base import GameEvent, GameSpec, GameState, IllegalAction, OptionsError, Result

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

#: The entry-point group games are found in (name: the game's name; object: its spec).
GROUP = "arena.games"

#: arena's own games, as its ``pyproject.toml`` declares them.  A source checkout that was never
#: installed (``PYTHONPATH=.``) has no metadata and so no entry points: the games of arena's own
#: tree are then imported from here, so that it still hosts them (an installed arena never reads
#: this: its entry points name the same packages).
BUILT_IN = {"chochlik": "arena.games.chochlik:SPEC", "vollewolle": "arena.games.vollewolle:SPEC",
            "wypas": "arena.games.wypas:SPEC"}



class Registry(MutableMapping[str, GameSpec]):
    """The games by name, looked for when first used (read or written), not when this module is
    imported: :mod:`importlib.metadata` brings the ``email`` package and with it ``socket``,
    which a process that only imports the pure engines does without."""

    def __init__(self) -> None:
        self._games: dict[str, GameSpec] | None = None

    def _loaded(self) -> dict[str, GameSpec]:
        if self._games is None:
            self._games = _installed_games()
            _register_extra_games(self._games, os.environ.get("ARENA_EXTRA_GAMES", ""))
        return self._games

    def __getitem__(self, name: str) -> GameSpec:
        return self._loaded()[name]

    def __setitem__(self, name: str, spec: GameSpec) -> None:
        self._loaded()[name] = spec

    def __delitem__(self, name: str) -> None:
        del self._loaded()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())


GAMES: MutableMapping[str, GameSpec] = Registry()


def register(spec: GameSpec) -> GameSpec:
    """Add a game to the registry (by its name)."""
    GAMES[spec.name] = spec
    return spec


def discover(found: Iterable[EntryPoint], report: Callable[[str], object]) -> dict[str, GameSpec]:
    """The games of ``found`` (entry points of :data:`GROUP`), by name; each broken one is
    ``report``-ed in one line and left out."""
    games: dict[str, GameSpec] = {}
    origin: dict[str, str] = {}
    for point in found:
        where = point.dist.name if point.dist is not None else "an unnamed distribution"
        problem: str | None
        try:
            spec = point.load()
        except Exception as exc:  # any failure of a game's own import is that game's, not ours
            problem = f"does not load ({type(exc).__name__}: {exc})"
        else:
            problem = judged(point.name, spec, origin)
        if problem:
            report(f"arena: game {point.name!r} of {where} ({point.value}) skipped: {problem}")
            continue
        games[point.name] = spec
        origin[point.name] = where
    return games


def judged(name: str, spec: object, origin: dict[str, str]) -> str | None:
    """What makes ``spec`` unfit to be the game ``name`` (None: nothing)."""
    if not isinstance(spec, GameSpec):
        return f"its object is a {type(spec).__name__}, not a GameSpec"
    if spec.name != name:
        return f"its GameSpec is named {spec.name!r}, not {name!r}"
    if name in origin:
        return f"the name {name!r} is taken by {origin[name]}"
    return None


def _report(line: str) -> None:
    print(line, file=sys.stderr)


def _installed_games() -> dict[str, GameSpec]:
    from importlib.metadata import EntryPoint, entry_points

    found = list(entry_points(group=GROUP))
    if not any(point.name in BUILT_IN for point in found):  # a checkout never installed
        found += [EntryPoint(name, value, GROUP) for name, value in BUILT_IN.items()]
    return discover(found, _report)


def _register_extra_games(games: dict[str, GameSpec], entries: str) -> None:
    for entry in filter(None, (part.strip() for part in entries.split(","))):
        module, _, attribute = entry.partition(":")
        spec = getattr(importlib.import_module(module), attribute or "SPEC")
        if not isinstance(spec, GameSpec):
            raise TypeError(f"ARENA_EXTRA_GAMES: {entry} is not a GameSpec")
        games[spec.name] = spec


def get_game(name: str) -> GameSpec:
    try:
        return GAMES[name]
    except KeyError:
        raise OptionsError(f"unknown game {name!r}; known: {', '.join(sorted(GAMES))}") from None


__all__ = ["GAMES", "GROUP", "GameEvent", "GameSpec", "GameState", "IllegalAction",
           "OptionsError", "Result", "discover", "get_game", "register"]
