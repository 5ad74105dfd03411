"""``arena tournament``: a whole event on one machine, stored in SQLite as it goes.

The runner starts a server whose seating policy is the schedule (``ScheduledSeating``),
launches each entrant's bot as subprocesses (as many instances as ``concurrency`` tables can
need at once, each with its own token), stores every finished game in the event's database
(one transaction per game, keyed by its place in the schedule), and stops the bots at the end.

Resume: the schedule is a pure function of the event's settings, so a resumed event rebuilds
it, skips the games the database already holds, and plays the rest; with deterministic bots the
stored games equal an uninterrupted run's.  Draining: :meth:`Tournament.drain` starts no more
tables and lets the running ones finish (the first Ctrl-C); cancelling stops at once (the
second), and the games already finished are stored either way.
"""

from __future__ import annotations

import hashlib
import math
import secrets
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from arena.edge.server import ArenaServer, ServerConfig
from arena.events.schedule import Format, PlannedTable, plan, set_size
from arena.events.storage import Storage, StoredGame
from arena.gameplay.gamelog import ensure_writable
from arena.gameplay.records import GameRecord
from arena.games.base import GameSpec
from arena.launch.runner import BotLaunch, BotRun, BotSpec, serve_with_bots
from arena.seating.policies import Instance, ScheduledSeating
from protocol.errors import ErrorCode

#: Games aborted for these reasons are played again on resume (the others are stored): the
#: server stopped, or no bot was left at the table (every one crashed, or the event was stopped
#: at once and its bots went: the seating may still start a table then, with nobody to play).
REPLAYED_ABORTS = frozenset({ErrorCode.SERVER_SHUTDOWN.value, ErrorCode.ALL_SEATS_GONE.value})
#: Sets a round robin plays by default: every combination once, but no more than this.
DEFAULT_MAX_SETS = 100


@attrs.frozen
class EventSettings:
    """What defines an event, stored in its database so that ``--resume`` needs nothing else:
    the schedule is rebuilt from these exactly.  Fields added later have defaults, so an
    event stored before them still resumes (``reaction_timeout``: the server's default)."""

    game: str
    options: dict[str, Any]
    format: str
    duplicate: bool
    sets: int
    seed: str
    move_timeout: float
    reaction_timeout: float = 1.0
    time_bank: float = 0.0

    def to_meta(self) -> dict[str, Any]:
        return attrs.asdict(self)

    @classmethod
    def from_meta(cls, meta: dict[str, Any]) -> EventSettings:
        return cls(**{field.name: meta[field.name] for field in attrs.fields(cls)
                      if field.name in meta or field.default is attrs.NOTHING})

    def planned(self, entrants: int) -> list[PlannedTable]:
        return list(plan(entrants, self.options["players"], sets=self.sets,
                         duplicate=self.duplicate, fmt=Format(self.format), seed=self.seed))


def plan_digest(planned: Sequence[PlannedTable]) -> str:
    """A fingerprint of a schedule: a resumed event checks that it rebuilds the same one."""
    text = "\n".join(f"{t.index} {t.set_index} {t.rotation} {t.entrants} {t.seed}"
                     for t in planned)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def sets_for(entrants: int, players: int, fmt: Format, duplicate: bool, *,
             games: int | None = None, sets: int | None = None) -> int:
    """How many sets an event plays: as asked (``games`` rounds up to whole sets), else one
    round robin (every combination once; the gauntlet: every field once), at most
    :data:`DEFAULT_MAX_SETS`."""
    if sets is not None:
        return sets
    if games is not None:
        return max(1, math.ceil(games / set_size(players, duplicate)))
    pool = entrants - 1 if fmt is Format.GAUNTLET else entrants
    seats = players - 1 if fmt is Format.GAUNTLET else players
    return max(1, min(DEFAULT_MAX_SETS, math.comb(pool, seats) if pool >= seats else 1))


def instances_needed(planned: Sequence[PlannedTable], entrants: int,
                     concurrency: int) -> list[int]:
    """Bot processes per entrant: enough for ``concurrency`` tables at once."""
    most = [0] * entrants
    for table in planned:
        for entrant, count in Counter(table.entrants).items():
            most[entrant] = max(most[entrant], count)
    tables_with = Counter(e for table in planned for e in set(table.entrants))
    return [min(concurrency, tables_with[e]) * most[e] for e in range(entrants)]


def stored_game(record: GameRecord) -> StoredGame:
    planned: PlannedTable = record.tag
    return StoredGame(
        planned=planned.index, set_index=planned.set_index, rotation=planned.rotation,
        seed=record.seed, entrants=planned.entrants, scores=record.scores, ranks=record.ranks,
        aborted=record.aborted, defaults=record.defaults, errors=record.errors,
        rounds=record.rounds, game_id=record.game_id,
        log_path=str(record.log_path) if record.log_path else None, seconds=record.seconds)


@attrs.define
class TournamentReport:
    runs: list[BotRun]
    played: int  # games finished and stored by this run
    remaining: int  # planned games not stored yet (after a drain or a failure)
    seconds: float
    #: With workers (``arena.launch.workers``): the CPU seconds their own processes and
    #: their bots used; None for an event in one process (its CPU is the process's own).
    worker_cpu_seconds: float | None = None
    bot_cpu_seconds: float | None = None
    #: What went wrong besides bots (a worker that ended without its report).
    failures: list[str] = attrs.Factory(list)
    #: Per entrant: [decisions played by default because its time ran out, decisions], over
    #: the games stored by this run (:func:`arena.gameplay.records.timed_out_note` flags a stuck
    #: bot).
    timeouts: dict[int, list[int]] = attrs.Factory(dict)


class Tournament:
    def __init__(self, spec: GameSpec, options: Any, bots: Sequence[BotSpec],
                 planned: Sequence[PlannedTable], storage: Storage, *, log_dir: Path,
                 concurrency: int = 1, move_timeout: float = 5.0,
                 reaction_timeout: float = 1.0, connect_timeout: float = 10.0,
                 time_bank: float = 0.0,
                 on_game_over: Callable[[StoredGame], None] | None = None,
                 launch: BotLaunch | None = None,
                 registry: Mapping[str, str] | None = None,
                 host: str = "127.0.0.1", port: int = 0, compress_logs: bool = True) -> None:
        """``registry``: registered names and tokens, for the entrants that connect by
        themselves (``NAME=@remote``) to ``host``:``port``; each plays one table at a time."""
        self.spec, self.options, self.bots = spec, options, list(bots)
        self.launch = launch if launch is not None else BotLaunch()
        self.storage = storage
        self.log_dir = log_dir
        done = {game.planned for game in storage.games()}
        self.todo = [table for table in planned if table.index not in done]
        self.on_game_over = on_game_over
        counts = instances_needed(self.todo, len(self.bots), concurrency)
        tokens = {name.casefold(): token for name, token in (registry or {}).items()}
        self.instances = []
        for entrant, count in enumerate(counts):
            bot = self.bots[entrant]
            if not bot.remote:
                self.instances += [Instance(entrant, secrets.token_hex(12))
                                   for _ in range(count)]
            elif bot.name.casefold() not in tokens:
                raise ValueError(f"{bot.name} connects by itself (@remote) but has no "
                                 "registered token (--tokens FILE)")
            elif count:
                self.instances.append(Instance(entrant, tokens[bot.name.casefold()]))
        self.seating = ScheduledSeating(self.todo, [bot.name for bot in self.bots],
                                        self.instances, concurrency,
                                        connect_timeout=connect_timeout)
        config = ServerConfig(spec=spec, options=options, host=host, port=port,
                              move_timeout=move_timeout, reaction_timeout=reaction_timeout,
                              time_bank=time_bank, log_dir=log_dir,
                              compress_logs=compress_logs,
                              idle_timeout=None)  # instances wait for their scheduled tables
        self.server = ArenaServer(config, seating=self.seating, on_game_over=self._game_over)
        self.played = 0
        self.timeouts: dict[int, list[int]] = {}  # see TournamentReport.timeouts

    def drain(self) -> None:
        """Start no more games; the running ones finish and are stored."""
        self.seating.drain()
        if self.seating.done:
            self.server.all_games_done.set()

    def _game_over(self, record: GameRecord) -> None:
        if record.aborted in REPLAYED_ABORTS:
            return
        game = stored_game(record)
        if self.storage.add_game(game):
            self.played += 1
            for entrant, timeouts, decisions in zip(game.entrants, record.timeouts,
                                                    record.decisions):
                counts = self.timeouts.setdefault(entrant, [0, 0])
                counts[0] += timeouts
                counts[1] += decisions
            if self.on_game_over is not None:
                self.on_game_over(game)

    async def run(self) -> TournamentReport:
        started = time.monotonic()
        ensure_writable(self.log_dir)  # never play games whose logs would be lost
        output_dir = self.log_dir / "bots"
        output_dir.mkdir(parents=True, exist_ok=True)
        runs = [BotRun(self.bots[instance.entrant], instance.token,
                       output_dir / f"{self.server.run_id}-{self.bots[instance.entrant].name}"
                                    f"-{i}.txt")
                for i, instance in enumerate(self.instances)]
        await serve_with_bots(self.server, runs, ErrorCode.EVENT_OVER, self.launch)
        stored = {game.planned for game in self.storage.games()}
        remaining = sum(table.index not in stored for table in self.todo)
        failures = []
        if self.server.unwritten_logs:
            failures.append(f"{len(self.server.unwritten_logs)} game log(s) could not be "
                            f"written to {self.log_dir} (is the disk full?)")
        return TournamentReport(runs, self.played, remaining, time.monotonic() - started,
                                failures=failures, timeouts=self.timeouts)
