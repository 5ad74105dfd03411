"""The play page's tables: what the organiser allows (:class:`PlaySettings`), and one private
table (:func:`private_table`), where a visitor's seat is a protocol seat like any bot's.

A private table is what ``arena play`` runs: a game server of its own on 127.0.0.1 (port 0, a
roster of one game), the chosen bots launched as processes by the runner, and the person's seat
an in-process connection over a socket pair, bound to its token, so that the person is sent
exactly the lines a bot is sent and nothing of another seat.  Its game is logged in the
settings' log folder as any other (``arena replay`` checks it); it never reaches an event's
database, so it is in no rating and no duplicate set.  Leaving the block stops the table: its
bots are stopped and no process outlives it.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import trio

from arena.edge.server import ArenaServer, ServerConfig
from arena.gameplay.gamelog import ensure_writable
from arena.games import GAMES
from arena.games.base import GameSpec
from arena.launch.runner import BUILTIN_BOTS, REMOTE, BotRun, plan_bots, serve_with_bots
from arena.seating.roster import RosterEntry, RosterSeating
from protocol.errors import ErrorCode

#: Private tables running at once, by default: each runs a bot process per other seat.
MAX_TABLES = 4
#: Seconds a person has for a decision, and for a reaction-window decision, by default.
THINK_SECONDS = 90.0
REACT_SECONDS = 20.0
#: Seconds a table waits for a message from the browser before it ends (the tab left open).
IDLE_SECONDS = 300.0
#: Seconds a table may run at most, whatever happens.
TABLE_SECONDS = 3600.0
#: Seconds the bots get to connect before their seats are played by the default policy.
CONNECT_SECONDS = 20.0
#: Seconds a table that is over gets to finish (its log, the bots' goodbyes).
FINISH_SECONDS = 10.0
#: The person's name at the table.
PERSON = "visitor"


@attrs.frozen
class PlayGame:
    """A game the play page offers: its options (as ``GameSpec.parse_options`` takes them)
    and the built-in bots a visitor may seat against (``arena match`` names: ``random``, the
    game's own ``GameSpec.bots``)."""

    name: str
    options: Mapping[str, Any] = attrs.field(factory=dict)
    bots: tuple[str, ...] = ()

    @property
    def spec(self) -> GameSpec:
        return GAMES[self.name]

    def parsed(self) -> Any:
        return self.spec.parse_options(self.options)


def default_bots(spec: GameSpec) -> tuple[str, ...]:
    """The bots a visitor may pick unless the organiser says: random and the game's own
    (its heuristic and boss bots)."""
    return ("random", *spec.bots)


def play_game(name: str, options: Mapping[str, Any] | None = None,
              bots: Sequence[str] | None = None) -> PlayGame:
    """A game to offer, with :func:`default_bots` unless ``bots`` is given; a
    :class:`ValueError` for a game or bot this arena does not know."""
    spec = GAMES.get(name)
    if spec is None:
        raise ValueError(f"no game {name!r}")
    chosen = tuple(bots) if bots else default_bots(spec)
    unknown = [bot for bot in chosen if bot not in BUILTIN_BOTS]
    if unknown:
        raise ValueError(f"unknown bot(s) {', '.join(unknown)}: one of "
                         f"{', '.join(sorted(BUILTIN_BOTS))}")
    game = PlayGame(name, dict(options or {}), chosen)
    game.parsed()  # options that cannot be read: said now, not at a visitor's table
    return game


@attrs.frozen
class PlaySettings:
    """What the organiser allows on the play page (``arena web --play``, ``arena serve --web
    PORT --play``): the games, where their logs go, and the limits."""

    games: tuple[PlayGame, ...]
    log_dir: Path
    max_tables: int = MAX_TABLES
    move_timeout: float = THINK_SECONDS
    reaction_timeout: float = REACT_SECONDS
    idle_timeout: float = IDLE_SECONDS
    table_timeout: float = TABLE_SECONDS

    def game(self, name: str) -> PlayGame | None:
        return next((game for game in self.games if game.name == name), None)

    def to_json(self) -> dict[str, Any]:
        """As the pages' process gets them (:meth:`from_json` reads them back)."""
        return {**attrs.asdict(self, recurse=False), "log_dir": str(self.log_dir),
                "games": [{"name": g.name, "options": dict(g.options), "bots": list(g.bots)}
                          for g in self.games]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlaySettings:
        games = tuple(PlayGame(g["name"], g["options"], tuple(g["bots"])) for g in data["games"])
        return cls(**{**data, "games": games, "log_dir": Path(data["log_dir"])})


@attrs.define
class Seat:
    """The person's end of a private table: ``stream`` speaks the protocol; ``over`` is set
    when the table's series is done (its game logged)."""

    stream: trio.abc.Stream
    seat: int
    over: trio.Event
    server: ArenaServer


@contextlib.asynccontextmanager
async def private_table(settings: PlaySettings, game: PlayGame,
                        opponents: Sequence[str]) -> AsyncIterator[Seat]:
    """One game of ``game`` between the person (at a random seat) and ``opponents`` (built-in
    bots' names, one per other seat), while the block runs.  At its end the table gets
    :data:`FINISH_SECONDS` to finish if its game is over, and is stopped otherwise."""
    spec, options = game.spec, game.parsed()
    seat = secrets.randbelow(options.players)
    commands = list(opponents)
    commands.insert(seat, f"{PERSON}={REMOTE}")
    bots = plan_bots(commands)
    tokens = [secrets.token_hex(16) for _ in bots]
    config = ServerConfig(spec=spec, options=options, host="127.0.0.1", port=0,
                          move_timeout=settings.move_timeout,
                          reaction_timeout=settings.reaction_timeout, log_dir=settings.log_dir,
                          idle_timeout=None)
    roster = [RosterEntry(bot.name, token) for bot, token in zip(bots, tokens)]
    server = ArenaServer(config, seating=RosterSeating(roster, 1,
                                                       connect_timeout=CONNECT_SECONDS))
    ensure_writable(settings.log_dir)  # never play a game whose log would be lost
    output = settings.log_dir / "bots"
    output.mkdir(parents=True, exist_ok=True)
    runs = [BotRun(bot, token, output / f"{server.run_id}-{bot.name}.txt")
            for bot, token in zip(bots, tokens)]
    over = trio.Event()

    async def run_table() -> None:
        await serve_with_bots(server, runs, ErrorCode.SERIES_OVER)
        over.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_table)
        await server.serving.wait()
        person, server_end = (trio.SocketStream(s) for s in trio.socket.socketpair())
        nursery.start_soon(functools.partial(server.handle_stream, server_end,
                                             bound_token=tokens[seat]))
        try:
            yield Seat(person, seat, over, server)
        finally:
            with trio.move_on_after(FINISH_SECONDS if server.records else 0):
                await over.wait()
            nursery.cancel_scope.cancel()
            await person.aclose()


def settings_for(games: Sequence[tuple[str, Mapping[str, Any]]], log_dir: Path, *,
                 bots: Sequence[str] = (), short: bool = False,
                 max_tables: int = MAX_TABLES) -> PlaySettings:
    """The play page's settings for ``games`` (names, each with its options), as the
    organiser's options say: ``bots`` the built-in bots a visitor may pick (each game gets
    those that play it: ``random`` and its own; none given: :func:`default_bots`), ``short``
    each game's short options (``GameSpec.short_game``) on top of its own.  A
    :class:`ValueError` says what cannot be had."""
    offered = []
    for name, options in games:
        spec = GAMES[name]
        playing = [bot for bot in bots if bot == "random" or bot in spec.bots]
        if bots and not playing:
            raise ValueError(f"none of {', '.join(bots)} plays {name} (its bots: random, "
                             f"{', '.join(spec.bots)})")
        chosen = {**options, **(spec.short_game if short else {})}
        offered.append(play_game(name, chosen, playing or None))
    unused = [bot for bot in bots if not any(bot in game.bots for game in offered)]
    if unused:
        raise ValueError(f"{', '.join(unused)}: no game offered here has such a bot")
    return PlaySettings(tuple(offered), log_dir, max_tables=max_tables)
