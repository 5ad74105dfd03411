"""An event played in this process as ``arena tournament`` shows it: the tournament (or its
worker processes), the live view after every game, the leaderboard with its intervals every
:data:`LEADERBOARD_EVERY` seconds, Ctrl-C (a first drains, a second stops at once), the address
``@remote`` bots connect to, and the summary at the end.  What it prints goes through ``echo``
(``click.echo`` from the command line), so the command only parses its options and calls."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from time import monotonic as time_now
from typing import Any

import trio

from arena.edge.server import tune_garbage_collector
from arena.edge.signals import drain_then_stop, run_stoppable
from arena.events.leaderboard import format_table, leaderboard
from arena.events.pg_storage import PostgresStorage
from arena.events.progress import LiveView
from arena.events.ratings import TableResult
from arena.events.schedule import PlannedTable
from arena.events.settings import EventSettings
from arena.events.storage import SqliteStorage
from arena.gameplay.records import GameRecord, timed_out_note
from arena.games import get_game
from arena.launch.live_board import LiveBoard
from arena.launch.restarts import Restarts
from arena.launch.runner import BotLaunch, BotSpec
from arena.launch.tournament import EventServer, Tournament, TournamentReport
from arena.launch.workers import TournamentWorkers

#: Seconds between the leaderboards (with intervals) printed while an event runs.
LEADERBOARD_EVERY = 30.0
#: Bootstrap resamples for those (the final one uses --resamples).
LIVE_RESAMPLES = 100

Echo = Callable[..., None]  # click.echo's: (message, *, nl=True, err=False)


class EventRun:
    """One run of a stored event.  Building it builds the tournament (a ValueError says what
    is wrong with the bots); :meth:`run` plays it under ``trio.run``; :meth:`finish` prints the
    summary and returns the exit status."""

    def __init__(self, settings: EventSettings, bots: Sequence[BotSpec],
                 planned: Sequence[PlannedTable], storage: SqliteStorage | PostgresStorage, *,
                 log_dir: Path,
                 concurrency: int, connect_timeout: float, echo: Echo, on_terminal: bool,
                 workers: int = 1, launch: BotLaunch | None = None,
                 registry: Mapping[str, str] | None = None, host: str = "127.0.0.1",
                 port: int = 0, compress_logs: bool = True,
                 restarts: Restarts | None = None) -> None:
        self.settings, self.bots, self.planned, self.storage = settings, bots, planned, storage
        self.restarts = (restarts if restarts is not None
                         else Restarts(connect_timeout=connect_timeout))
        self.echo, self.on_terminal, self.host = echo, on_terminal, host
        self.concurrency, self.workers = concurrency, workers
        spec = get_game(settings.game)
        options = spec.parse_options(settings.options)
        self.names = [bot.name for bot in bots]
        earlier = storage.games()
        self.view = LiveView(self.names, len(planned), len(earlier), time_now(),
                             [TableResult(g.table.entrants, g.ranks) for g in earlier
                              if g.aborted is None])
        self.board = LiveBoard(getattr(storage, "url", storage.path), self.names,
                               options.players, echo=echo, seed=settings.seed,
                               resamples=LIVE_RESAMPLES, every=LEADERBOARD_EVERY,
                               earlier=earlier,
                               prefix="\n" if on_terminal else "")
        timing: dict[str, Any] = dict(
            concurrency=concurrency, move_timeout=settings.move_timeout,
            compress_logs=compress_logs, reaction_timeout=settings.reaction_timeout,
            time_bank=settings.time_bank, connect_timeout=connect_timeout)
        self.event: Tournament | TournamentWorkers
        if workers > 1:
            self.event = TournamentWorkers(spec, options, bots, planned, storage,
                                           log_dir=log_dir, workers=workers,
                                           on_game_over=self.progress, launch=launch,
                                           restarts=self.restarts, **timing)
        else:
            self.event = Tournament(spec, options, bots, planned, storage, log_dir=log_dir,
                                    on_game_over=self.progress, launch=launch,
                                    registry=registry, host=host, port=port,
                                    restarts=self.restarts, **timing)

    @property
    def server(self) -> EventServer | None:
        """The event's one server (None with workers: each has its own)."""
        return self.event.server if isinstance(self.event, Tournament) else None

    def banner(self) -> str:
        settings = self.settings
        return (f"arena: {settings.game} tournament, {len(self.bots)} bots, "
                f"{len(self.planned)} games in {settings.sets} set(s) ({settings.format}"
                f"{', duplicate' if settings.duplicate else ''}), {len(self.event.todo)} to "
                f"play, {self.concurrency} at a time"
                f"{f' over {self.workers} server processes' if self.workers > 1 else ''}; "
                f"results in {self.storage.path}\n" + restart_note(self.restarts))

    def progress(self, game: GameRecord) -> None:
        """The live view after every game: in place on a terminal, a line each elsewhere."""
        self.view.game_over(TableResult(game.table.entrants, game.ranks)
                            if game.aborted is None else None)
        self.board.game_over(game)
        self.echo(("\r\x1b[2K" if self.on_terminal else "")
                  + self.view.line(time_now(), self.board.leaders()), nl=not self.on_terminal)

    async def announce_address(self, server: EventServer) -> None:
        """Where the ``@remote`` bots connect, once the server listens."""
        await server.listening.wait()
        self.echo(f"arena: @remote bots connect to {self.host}:{server.port} with their "
                  "registered name and token")

    async def on_signals(self, stop: trio.CancelScope,
                         signals: trio.abc.ReceiveChannel[int]) -> None:
        """A first Ctrl-C (or SIGTERM) drains the event; a second stops it at once."""
        await drain_then_stop(signals, stop, drain=self.event.drain, echo=self.echo,
                              draining="\narena: finishing the running games, then stopping "
                                       "(Ctrl-C again stops at once)",
                              stopping="arena: stopping now")

    async def run(self, signals: trio.abc.ReceiveChannel[int]) -> TournamentReport | None:
        """Play the event; None when a second Ctrl-C stopped it at once.  ``signals``: from
        :func:`arena.edge.signals.run_stoppable` (none lost, none re-delivered)."""
        tune_garbage_collector()  # a long-running server (workers tune their own)
        report = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.on_signals, nursery.cancel_scope, signals)
            nursery.start_soon(self.board.run)  # in a process of its own: live_board
            server = self.server
            if server is not None and any(bot.remote for bot in self.bots):
                nursery.start_soon(self.announce_address, server)
            report = await self.event.run()
            nursery.cancel_scope.cancel()
        return report

    def finish(self, report: TournamentReport | None, resamples: int) -> int:
        """Print the final leaderboard, what is left and what went wrong; the exit status."""
        echo, storage, planned = self.echo, self.storage, self.planned
        stored = storage.games()
        echo("\n" if self.on_terminal else "")
        rows = leaderboard(self.names, stored, resamples=resamples, seed=self.settings.seed)
        echo(format_table(rows))
        self.board.final_snapshot(rows)
        remaining = len(planned) - len(stored)
        echo(f"{len(stored)} of {len(planned)} games stored in {storage.path}"
             + (f"; {remaining} left: continue with --resume --db {storage.path}"
                if remaining else ""))
        bot_runs = report.runs if report is not None else []
        for bot_run in bot_runs:
            if bot_run.failed:
                echo("\n".join(bot_run.failure_lines()), err=True)
        failures = report.failures if report is not None else []
        for failure in failures:
            echo(f"arena: {failure}", err=True)
        if report is not None:
            for line in lost_lines(self.names, report):
                echo(line, err=True)
        stuck = stuck_notes(self.names, report.timeouts if report is not None else {})
        for note in stuck:
            echo(note)
        failed = (remaining or report is None or failures or stuck
                  or any(r.failed for r in bot_runs))
        return 1 if failed else 0


def restart_note(restarts: Restarts) -> str:
    """The banner's line on bots that die mid-event."""
    if restarts.most == 0:
        return ("arena: a bot that dies is not restarted: the event stops, and the games it "
                f"was playing are {restarts.policy}")
    other = "forfeit" if restarts.replay else "replay"
    return (f"arena: a bot that dies is restarted (at most {restarts.most} times, then the "
            f"event stops); the games it was playing are {restarts.policy} (--lost-games "
            f"{other} to change)")


def lost_lines(names: Sequence[str], report: TournamentReport) -> list[str]:
    """Per bot whose process ended mid-event: its deaths and restarts, and the games it
    was playing then, forfeited (ranked last) or replayed; nothing is rated on defaults
    silently."""
    deaths: dict[str, list[int]] = {}
    for run in report.runs:
        counts = deaths.setdefault(run.spec.name, [0, 0])
        counts[0] += run.deaths
        counts[1] += run.restarts
    lines = []
    for entrant, name in enumerate(names):
        died, restarted = deaths.get(name, [0, 0])
        lost = report.lost_games.get(entrant, 0)
        if not died and not lost:
            continue
        what = ("forfeited (stored with it ranked last; its seat played by the default "
                "policy from then on: the leaderboard's defaults column)"
                if report.lost_policy == "forfeited" else "replayed (not stored; played "
                "again after its restart)")
        lines.append(f"arena: {name} died {died} time(s) and was restarted {restarted} "
                     f"time(s); {lost} game(s) it was playing then {what}")
    return lines


def stuck_notes(names: Sequence[str], timeouts: Mapping[int, list[int]]) -> list[str]:
    """A note line per bot whose decisions mostly timed out in this run (stuck, stopped, or
    too slow): its leaderboard row alone would not show it."""
    return [f"note: {names[entrant]} timed out {timed_out} of its {decisions} decisions in "
            "this run (stuck, stopped, or too slow for --move-timeout)"
            for entrant, (timed_out, decisions) in sorted(timeouts.items())
            if timed_out_note(timed_out, decisions)]


#: ``arena sprt``'s exit statuses (2 is click's usage error): H1 accepted, something failed (a
#: bot crashed or never connected: the verdict, if any, is printed but not to be trusted),
#: H0 accepted, undecided after --max-sets, stopped by Ctrl-C or SIGTERM before a verdict.
SPRT_H1, SPRT_FAILED, SPRT_H0, SPRT_UNDECIDED, SPRT_INTERRUPTED = 0, 1, 3, 4, 130


def play_sprt(tournament: Callable[..., Any], settings: dict[str, Any], watch: Any,
              echo: Echo) -> int:
    """Play the SPRT's duels (``tournament(**settings)``), a line per finished set, until the
    test decides (then the running games finish) or the sets run out; a first Ctrl-C or
    SIGTERM drains, a second stops at once.  Prints the verdict and A's Elo against B with its
    interval; returns the exit status."""
    names = [bot.name for bot in settings["bots"]]
    signals_seen = 0

    def progress(ended: Any) -> None:
        """As each game ends (before it is stored, before the next table is seated)."""
        state = watch.game_over(ended)
        if state is None:
            return
        echo(f"sets {state.sets}: {names[0]} scores {state.mean:.3f} against {names[1]}; "
             f"LLR {state.llr:.2f} ({state.lower:.2f}, {state.upper:.2f})")
        if state.decision:
            event.drain()

    async def on_signals(stop: trio.CancelScope, signals: trio.abc.ReceiveChannel[int]) -> None:
        nonlocal signals_seen
        async for _ in signals:
            signals_seen += 1
            if signals_seen == 1:
                echo("arena: finishing the running games, then stopping "
                     "(Ctrl-C again stops at once)", err=True)
                event.drain()
            else:
                echo("arena: stopping now", err=True)
                stop.cancel()

    async def run(signals: trio.abc.ReceiveChannel[int]) -> TournamentReport | None:
        report = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(on_signals, nursery.cancel_scope, signals)
            report = await event.run()
            nursery.cancel_scope.cancel()
        return report

    event = tournament(**settings, on_game_finished=progress)
    report = run_stoppable(run)  # no Ctrl-C lost or re-delivered as a KeyboardInterrupt
    return sprt_verdict(watch, names, report, bool(signals_seen), echo)


def sprt_verdict(watch: Any, names: Sequence[str], report: TournamentReport | None,
                 interrupted: bool, echo: Echo) -> int:
    """The verdict, the Elo estimate, what went wrong; the exit status."""
    state, (a, b) = watch.state, names[:2]
    decision = state.decision if state is not None else None
    sets = state.sets if state is not None else 0
    if decision == "H1":
        thresholds = watch.thresholds
        echo(f"H1 accepted: {a} is stronger than {b} (by {thresholds['elo1']:g} Elo or more "
             f"is likelier than {thresholds['elo0']:g})")
        status = SPRT_H1
    elif decision == "H0":
        echo(f"H0 accepted: {a} is not shown to be stronger than {b}")
        status = SPRT_H0
    elif interrupted:
        echo(f"interrupted after {sets} set(s), undecided (the games played stay in the "
             "database: the same command continues the test)")
        status = SPRT_INTERRUPTED
    else:
        echo(f"undecided after {sets} set(s)")
        status = SPRT_UNDECIDED
    if state is not None and state.sets >= 2:
        elo, low, high = state.elo_interval()
        echo(f"{a} against {b}: {elo:+.0f} Elo (95 % interval {low:+.0f} to {high:+.0f}) "
             f"over {state.sets} sets")
    bot_runs = report.runs if report is not None else []
    for bot_run in bot_runs:
        if bot_run.failed:
            echo("\n".join(bot_run.failure_lines()), err=True)
    for failure in report.failures if report is not None else []:
        echo(f"arena: {failure}", err=True)
    if any(r.failed for r in bot_runs) or (report is not None and report.failures):
        return SPRT_FAILED
    return status
