"""The ``arena`` command: a thin click layer over the server, the match runner and replay.

Exit codes are decided here: 0 ok, 1 failure (a replay that does not reproduce, a match with a
crashed or missing bot), 2 usage (click's own).
"""

from __future__ import annotations

import logging
import secrets
import signal
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from time import monotonic as time_now
from typing import Any

import click
import trio

from arena.games import GAMES, OptionsError, get_game
from arena.runner import BUILTIN_BOTS
from arena.schedule import Format

DEFAULT_LOG_DIR = "arena-logs"
DEFAULT_MOVE_TIMEOUT = 5.0


def _option_flags() -> dict[str, list[str]]:
    """Every game option but ``players`` becomes a flag; the games that have it, by name."""
    flags: dict[str, list[str]] = {}
    for spec in GAMES.values():
        for field in spec.option_fields()[1:]:
            flags.setdefault(field.name, []).append(spec.name)
    return flags


OPTION_FLAGS = _option_flags()


def _flag_help(name: str) -> str:
    parts = []
    for game in OPTION_FLAGS[name]:
        field = next(f for f in GAMES[game].option_fields() if f.name == name)
        parts.append(f"{game}: {field.metadata.get('help', '')} (default {field.default})")
    return "; ".join(parts)


def game_options(function: Any = None, *, game_required: bool = True) -> Any:
    """Options shared by every command that starts games; declared once.  Each game's own
    options (``arena games`` lists them) are flags too, refused for a game without them."""
    if function is None:
        return lambda f: game_options(f, game_required=game_required)
    decorators = [
        click.option("--game", "game_name", type=click.Choice(sorted(GAMES)),
                     required=game_required, help="Which game to play."),
        click.option("--players", type=int, default=None,
                     help="Seats per table (default: the game's)."),
        *[click.option(f"--{name.replace('_', '-')}", f"flag_{name}", default=None,
                       help=_flag_help(name)) for name in sorted(OPTION_FLAGS)],
        click.option("--option", "-o", "extra", multiple=True, metavar="NAME=VALUE",
                     help="A game option (see `arena games`), repeatable."),
        click.option("--seed", default=None, help="Seed for the deals (default: random)."),
        click.option("--move-timeout", type=float, default=DEFAULT_MOVE_TIMEOUT,
                     show_default=True, help="Seconds a bot gets per decision."),
        click.option("--log-dir", type=click.Path(file_okay=False, path_type=Path),
                     default=DEFAULT_LOG_DIR, show_default=True,
                     help="Folder for game logs (JSON Lines, one file per game)."),
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def parse_game_options(game_name: str, players: int | None, extra: tuple[str, ...],
                       flags: dict[str, Any], *,
                       defaults: Callable[[int], Mapping[str, Any]] | None = None
                       ) -> tuple[Any, Any]:
    """The game and its options from ``--players``, the game's flags and ``-o NAME=VALUE``,
    over ``defaults(players)`` where given; a usage error (exit 2) names what is wrong and what
    the game accepts."""
    spec = get_game(game_name)
    known = [field.name for field in spec.option_fields()]
    accepted = ", ".join(known)
    raw: dict[str, Any] = {}
    for item in extra:
        name, sep, value = item.partition("=")
        if not sep:
            raise click.BadParameter(f"{item!r} is not NAME=VALUE", param_hint="--option")
        name = name.strip().replace("-", "_")
        if name not in known:
            raise click.UsageError(f"{spec.name} has no option {name!r}; its options: "
                                   f"{accepted}")
        raw[name] = value.strip()
    for key, value in flags.items():
        name = key.removeprefix("flag_")
        if value is None:
            continue
        if name not in known:
            raise click.UsageError(f"--{name.replace('_', '-')} is not a {spec.name} option; "
                                   f"its options: {accepted}")
        raw[name] = value
    if players is not None:
        raw["players"] = players
    if defaults is not None:
        seats = int(raw.get("players", spec.parse_options({}).players))
        given = set(raw)
        raw.update((k, v) for k, v in defaults(seats).items() if k not in given)
    try:
        return spec, spec.parse_options(raw)
    except OptionsError as exc:
        raise click.UsageError(f"{exc} (see `arena games`)") from None


@click.group()
@click.option("--verbose", "-v", is_flag=True, help="Log connections and tables to stderr.")
def main(verbose: bool) -> None:
    """arena: a game host for bot-programming competitions."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(asctime)s %(name)s: %(message)s")


@main.command()
@game_options
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=int, default=7777, show_default=True, help="Port (0: any free).")
def serve(game_name: str, players: int | None, extra: tuple[str, ...], seed: str | None,
          move_timeout: float, log_dir: Path, host: str, port: int, **flags: Any) -> None:
    """Host tables of a game: bots are seated in arrival order, a game starts when a table is
    full, and a bot stays seated for game after game.  Ctrl-C stops cleanly."""
    from arena.server import ArenaServer, ServerConfig

    spec, options = parse_game_options(game_name, players, extra, flags)
    config = ServerConfig(spec=spec, options=options, host=host, port=port,
                          move_timeout=move_timeout, log_dir=log_dir, seed=seed)

    def game_over(record: Any) -> None:
        outcome = record.aborted or " ".join(
            f"{name}={score}" for name, score in zip(record.names, record.scores))
        click.echo(f"table {record.game_id}: {outcome}  [{record.log_path}]")

    async def run() -> None:
        server = ArenaServer(config, on_game_over=game_over)
        async with trio.open_nursery() as nursery:
            bound = await nursery.start(server.serve)
            click.echo(f"arena: hosting {spec.name} ({options.players} players) on "
                       f"{host}:{bound}; logs in {log_dir}/; Ctrl-C stops")
            with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for _ in signals:
                    click.echo("arena: stopping (running games are logged as aborted)")
                    break
            await server.shutdown()

    try:
        trio.run(run)
    except OSError as exc:
        raise click.ClickException(f"cannot serve on {host}:{port}: {exc}") from None


@main.command()
@game_options
@click.option("--bot", "bot_commands", multiple=True, required=True, metavar="CMD",
              help="A bot command (one per seat), or a built-in bot: "
                   f"{', '.join(BUILTIN_BOTS)}.  {{host}} {{port}} {{name}} {{token}} are "
                   "replaced.")
@click.option("--games", type=click.IntRange(min=1), default=1, show_default=True,
              help="Games to play with the same bots (seats rotate each game).")
@click.option("--connect-timeout", type=float, default=10.0, show_default=True,
              help="Seconds to wait for every bot to connect.")
def match(game_name: str, players: int | None, extra: tuple[str, ...], seed: str | None,
          move_timeout: float, log_dir: Path, bot_commands: tuple[str, ...], games: int,
          connect_timeout: float, **flags: Any) -> None:
    """Play a series of GAMES games between bot programs and print a result table."""
    from arena.runner import plan_bots, run_match

    if players is not None and players != len(bot_commands):
        raise click.UsageError(f"--players {players} but {len(bot_commands)} --bot given")
    spec, options = parse_game_options(game_name, len(bot_commands), extra, flags)
    try:
        bots = plan_bots(list(bot_commands))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None

    def game_over(record: Any) -> None:
        if record.aborted:
            click.echo(f"game {record.number + 1}/{games}: aborted ({record.aborted})")
            return
        scores = ", ".join(f"{name} {score}" for name, score in zip(record.names, record.scores))
        click.echo(f"game {record.number + 1}/{games}: {scores}  "
                   f"({record.rounds} {spec.round_name}s, {record.seconds:.1f} s)")

    report = trio.run(lambda: run_match(
        spec, options, bots, games=games, seed=seed, move_timeout=move_timeout,
        log_dir=log_dir, connect_timeout=connect_timeout, on_game_over=game_over))
    click.echo()
    click.echo(report.table())
    for run in report.bots:
        if run.status != "ok":
            click.echo(f"{run.spec.name}: {run.status}; its output is in {run.output}", err=True)
    sys.exit(0 if report.ok else 1)


@main.command()
@click.argument("log_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--show", is_flag=True, help="Print the game step by step for a person.")
@click.option("--seat", type=int, default=None,
              help="With --show: only what this seat saw (events addressed to it).")
def replay(log_file: Path, show: bool, seat: int | None) -> None:
    """Re-simulate a logged game from its log alone and check it reproduces the result."""
    from arena.replay import ReplayError, replay_log

    try:
        outcome = replay_log(log_file, show=click.echo if show else None, seat=seat)
    except ReplayError as exc:
        click.echo(f"replay: {log_file}: does NOT reproduce: {exc}", err=True)
        sys.exit(1)
    click.echo(f"replay: {log_file}: reproduces ({outcome})")


@main.command(name="games")
def list_games() -> None:
    """List the games this arena hosts, each with its options (flags or -o NAME=VALUE)."""
    for name, spec in sorted(GAMES.items()):
        click.echo(f"{name:12} {spec.title} ({spec.min_players}-{spec.max_players} players)")
        for field in spec.option_fields():
            default = "none" if field.default is None else field.default
            click.echo(f"    --{field.name.replace('_', '-'):<10} {field.metadata['help']} "
                       f"[default: {default}]")


@main.command()
@game_options(game_required=False)
@click.option("--bot", "bot_commands", multiple=True, metavar="NAME=CMD",
              help="An entrant: a bot command or a built-in bot, optionally named "
                   "(NAME=CMD); at least two.  {host} {port} {name} {token} are replaced.")
@click.option("--games", type=click.IntRange(min=1), default=None,
              help="Games to play (rounded up to whole duplicate sets).")
@click.option("--sets", type=click.IntRange(min=1), default=None,
              help="Duplicate sets to play (default: one round robin, at most 100).")
@click.option("--format", "fmt", type=click.Choice([f.value for f in Format]),
              default=Format.ROUND_ROBIN.value, show_default=True,
              help="round-robin: everybody meets everybody; gauntlet: the first bot against "
                   "the others.")
@click.option("--duplicate/--no-duplicate", default=True, show_default=True,
              help="Play each seed once per seating of its table (same cards and dice).")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True,
              help="Tables played at once.")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("arena-tournament.db"), show_default=True,
              help="The event's SQLite database (results are written as games end).")
@click.option("--resume", is_flag=True,
              help="Continue the event stored in --db (its settings and bots are read from it).")
@click.option("--connect-timeout", type=float, default=10.0, show_default=True,
              help="Seconds to wait for every bot instance to connect.")
@click.option("--resamples", type=click.IntRange(min=0), default=200, show_default=True,
              help="Bootstrap resamples for the final leaderboard's intervals.")
def tournament(game_name: str | None, players: int | None, extra: tuple[str, ...], seed: str | None,
               move_timeout: float, log_dir: Path, bot_commands: tuple[str, ...],
               games: int | None, sets: int | None, fmt: str, duplicate: bool,
               concurrency: int, db: Path, resume: bool, connect_timeout: float,
               resamples: int, **flags: Any) -> None:
    """Run a whole event: bots as subprocesses, K tables at once, results in SQLite, a
    leaderboard with 95 % intervals at the end.  A first Ctrl-C finishes the running games and
    stops (resume with --resume); a second stops at once."""
    from arena.runner import BotSpec, plan_bots
    from arena.storage import SqliteStorage
    from arena.tournament import EventSettings, sets_for

    storage = SqliteStorage(db)
    if resume:
        meta = storage.meta()
        if not meta:
            raise click.UsageError(f"{db} holds no event to resume")
        settings = EventSettings.from_meta(meta)
        bots = [BotSpec(name, command) for name, command in storage.entrants()]
    else:
        if storage.meta():
            raise click.UsageError(f"{db} already holds an event: --resume it, or choose "
                                   "another --db")
        if game_name is None:
            raise click.UsageError("Missing option '--game' (or --resume an event)")
        if games is not None and sets is not None:
            raise click.UsageError("give --games or --sets, not both")
        try:
            bots = plan_bots(list(bot_commands))
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        if len(bots) < 2:
            raise click.UsageError("a tournament needs at least two --bot")
        spec, options = parse_game_options(game_name, players, extra, flags,
                                           defaults=get_game(game_name).tournament_options)
        table = options.players
        settings = EventSettings(
            game=spec.name, options=spec.options_to_dict(options), format=fmt,
            duplicate=duplicate, sets=sets_for(len(bots), table, Format(fmt), duplicate,
                                               games=games, sets=sets),
            seed=seed if seed is not None else secrets.token_hex(8), move_timeout=move_timeout)
        try:
            settings.planned(len(bots))
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        storage.write_event(settings.to_meta(), [(b.name, b.command) for b in bots])
    run_event(settings, bots, storage, log_dir=log_dir, concurrency=concurrency,
              connect_timeout=connect_timeout, resamples=resamples)


def run_event(settings: Any, bots: list[Any], storage: Any, *, log_dir: Path,
              concurrency: int, connect_timeout: float, resamples: int) -> None:
    from arena.leaderboard import format_table, leaderboard
    from arena.tournament import Tournament

    spec = get_game(settings.game)
    options = spec.parse_options(settings.options)
    planned = settings.planned(len(bots))
    names = [bot.name for bot in bots]
    started = time_now()
    stored_before = len(storage.games())

    def progress(_game: Any) -> None:
        """One line per finished game: how far, how fast, who leads (a quick fit)."""
        stored = storage.games()
        per_minute = (len(stored) - stored_before) / max(time_now() - started, 1e-9) * 60
        eta = (len(planned) - len(stored)) / per_minute if per_minute else 0.0
        top = leaderboard(names, stored, resamples=0)[:3]
        click.echo(f"[{len(stored)}/{len(planned)}] {per_minute:.1f} games/min, "
                   f"ETA {eta:.1f} min | "
                   + ", ".join(f"{row.name} {row.elo:.0f}" for row in top))

    event = Tournament(spec, options, bots, planned, storage, log_dir=log_dir,
                       concurrency=concurrency, move_timeout=settings.move_timeout,
                       connect_timeout=connect_timeout, on_game_over=progress)
    click.echo(f"arena: {settings.game} tournament, {len(bots)} bots, {len(planned)} games "
               f"in {settings.sets} set(s) ({settings.format}"
               f"{', duplicate' if settings.duplicate else ''}), {len(event.todo)} to play, "
               f"{concurrency} at a time; results in {storage.path}")

    async def run() -> Any:
        report = None
        async with trio.open_nursery() as nursery:
            async def on_signals() -> None:
                with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                    count = 0
                    async for _ in signals:
                        count += 1
                        if count == 1:
                            click.echo("arena: finishing the running games, then stopping "
                                       "(Ctrl-C again stops at once)")
                            event.drain()
                        else:
                            click.echo("arena: stopping now")
                            nursery.cancel_scope.cancel()

            nursery.start_soon(on_signals)
            report = await event.run()
            nursery.cancel_scope.cancel()
        return report

    report = trio.run(run)  # None when a second Ctrl-C stopped it at once
    stored = storage.games()
    click.echo()
    click.echo(format_table(leaderboard(names, stored, resamples=resamples,
                                        seed=settings.seed)))
    remaining = len(planned) - len(stored)
    click.echo(f"{len(stored)} of {len(planned)} games stored in {storage.path}"
               + (f"; {remaining} left: continue with --resume --db {storage.path}"
                  if remaining else ""))
    bot_runs = report.runs if report is not None else []
    for bot_run in bot_runs:
        if bot_run.status != "ok":
            click.echo(f"{bot_run.spec.name}: {bot_run.status}; its output is in "
                       f"{bot_run.output}", err=True)
    failed = remaining or report is None or any(r.status != "ok" for r in bot_runs)
    sys.exit(1 if failed else 0)


@main.command()
@click.option("--db", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              required=True, help="An event's SQLite database.")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
              show_default=True)
@click.option("--resamples", type=click.IntRange(min=0), default=200, show_default=True,
              help="Bootstrap resamples for the 95 % intervals (0: none).")
def ratings(db: Path, fmt: str, resamples: int) -> None:
    """Print the leaderboard of a stored event (also while it runs)."""
    import csv
    import io
    import json

    import attrs

    from arena.leaderboard import format_table, leaderboard
    from arena.storage import SqliteStorage

    storage = SqliteStorage(db)
    names = [name for name, _ in storage.entrants()]
    if not names:
        raise click.UsageError(f"{db} holds no event")
    rows = leaderboard(names, storage.games(), resamples=resamples,
                       seed=storage.meta().get("seed", 0))
    if fmt == "table":
        click.echo(format_table(rows))
    elif fmt == "json":
        click.echo(json.dumps([attrs.asdict(row) for row in rows], indent=2))
    else:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=[f.name for f in attrs.fields(type(rows[0]))])
        writer.writeheader()
        writer.writerows(attrs.asdict(row) for row in rows)
        click.echo(out.getvalue().rstrip("\n"))


if __name__ == "__main__":
    main()
