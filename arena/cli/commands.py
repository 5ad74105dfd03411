"""The ``arena`` command: a thin click layer over the server, the match runner and replay.

Exit codes are decided here: 0 ok, 1 failure (a replay that does not reproduce, a match with a
crashed or missing bot), 2 usage (click's own), 130 a match stopped by Ctrl-C.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Any

import attrs
import click
import outcome
import trio

from arena.cli.database import Database
from arena.cli.entry import main
from arena.cli.hosted_serve import hosted_options, hosted_setup
from arena.cli.web import WEB_HOST_OPTION, WEB_OPTION, play_for, play_options
from arena.edge.spectators import MAX_SPECTATORS, SPECTATOR_MODES, SpectatorRules
from arena.gameplay.gamelog import LogDirectoryError
from arena.games import GAMES
from arena.kit.examples import examples
from arena.launch.options import (
    TRUSTED_BOTS_NOTE,
    bot_launch,
    bot_launch_options,
    chosen_games,
    game_options,
    parse_game_options,
    plain_logs_option,
    several_games_options,
    shown_default,
    transcripts_option,
)
from arena.launch.runner import BUILTIN_BOTS


@examples(
    "arena serve --game chochlik --port 7777",
    "arena serve --game chochlik --game wypas -o chochlik:hands=1 --port 7777",
)
@main.command()
@game_options(several=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=int, default=7777, show_default=True, help="Port (0: any free).")
@click.option("--max-connections", type=click.IntRange(1), default=None,
              help="Connections at once (default: the open-file limit less 128 for logs).")
@click.option("--max-connections-per-address", type=click.IntRange(1), default=256,
              show_default=True, help="Connections at once from one IP address.")
@click.option("--hello-timeout", type=click.FloatRange(min=0.1), default=10.0,
              show_default=True, help="Seconds a new connection has to send a valid hello.")
@click.option("--max-queued-bytes", type=click.IntRange(1024), default=4 * 1024 * 1024,
              show_default=True, help="Bytes queued for a bot that does not read before it "
                                      "is dropped.")
@click.option("--tokens", "tokens_file",
              type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Registered players: a file of 'name token' lines. Only they are admitted, "
                   "each with its token (default: open to anyone).")
@click.option("--db", "db_file", type=Database(exists=True),
              default=None,
              help="Admit only the bots registered in this SQLite file (made by arena bots add), "
                   "or PostgreSQL URL, and store every game there: a ladder (arena ratings --db "
                   "reads it).")
@click.option("--seating", "seating_kind", type=click.Choice(["arrival", "ladder"]), default=None,
              help="arrival: first come, first seated; ladder: by rating (close opponents, "
                   "regularly distant ones, duplicate sets; needs --db) (default: ladder with "
                   "--db, else arrival).")
@click.option("--idle-timeout", type=click.FloatRange(min=1), default=600.0, show_default=True,
              help="Seconds a bot may wait without a seat before it is disconnected.")
@click.option("--max-messages-per-second", type=click.FloatRange(min=1), default=200.0,
              show_default=True, help="Lines a connection may send per second (twice as many "
                                      "in a burst) before it is closed.")
@click.option("--reconnect-grace", type=click.FloatRange(min=0), default=30.0,
              show_default=True,
              help="Seconds a bot with a token whose connection was lost may take to come back "
                   "to its seat (0: none).")
@click.option("--max-hellos-per-second", type=click.FloatRange(min=0.1), default=20.0,
              show_default=True, help="Connections (hellos) one IP address may open a second "
                                      "(twice as many at once); more wait their turn, up to "
                                      "2 s, or are refused.")
@click.option("--spectators", "spectator_mode", type=click.Choice(SPECTATOR_MODES),
              default=None, help="Who may watch: anyone, registered players (with their "
                                 "tokens) or no one (default: registered with --tokens or "
                                 "--db, else open).")
@click.option("--max-spectators", type=click.IntRange(0), default=MAX_SPECTATORS,
              show_default=True, help="Spectator connections at once.")
@transcripts_option("each connection")
@click.option("--games", type=click.IntRange(min=1), default=None,
              help="Stop after this many games: start no more, finish the running ones, say "
                   "bye to every bot, print the summary (default: serve until Ctrl-C).")
@click.option("--quiet", is_flag=True,
              help="No line per game and no running tally (the summary at the end stays).")
@click.option("--tally-every", type=click.FloatRange(min=0), default=10.0, show_default=True,
              help="Seconds at least between two running tallies (games, wins and mean score "
                   "per name, the last results).")
@click.option("--tally-games", type=click.IntRange(min=1), default=10, show_default=True,
              help="New games at least between two running tallies.")
@click.option("--final", is_flag=True,
              help="With --db: Ctrl-C ends the ladder for good (bye server_shutdown: the bots "
                   "stop). Without it a ladder's bots are told it restarts (bye "
                   "server_restart) and come back by themselves when it is up again.")
@plain_logs_option
@WEB_OPTION
@WEB_HOST_OPTION
@play_options
@hosted_options
def serve(game_names: tuple[str, ...], players: int | None, extra: tuple[str, ...],
          seed: str | None, move_timeout: float, reaction_timeout: float, time_bank: float,
          log_dir: Path, host: str, port: int, max_connections: int | None,
          max_connections_per_address: int, hello_timeout: float, max_queued_bytes: int,
          max_messages_per_second: float, idle_timeout: float, tokens_file: Path | None,
          reconnect_grace: float, transcript_dir: Path | None, max_hellos_per_second: float,
          spectator_mode: str | None, max_spectators: int, games: int | None, quiet: bool,
          tally_every: float, tally_games: int, plain_logs: bool, db_file: Path | str | None,
          web_port: int | None, web_host: str, seating_kind: str | None, final: bool,
          play: bool, play_bots: str | None, play_tables: int, play_short: bool,
          hosted: int | None, builds: Path | None, cores: int | None, **flags: Any) -> None:
    """Host tables of a game (or of several: --game A --game B, each at its own tables): a
    game starts when a table is full, and a bot stays seated for game after game.  Bots are
    seated in arrival order, or with --db (a ladder) by rating, near bots of their strength
    (--seating to choose).  Connections, seatings and open seats are reported on stderr (at
    most a line a second), a running tally on stdout.  Ctrl-C stops cleanly and prints a
    summary."""
    from arena.cli.events import load_tokens
    from arena.cli.hosting import host_games, hosted_games
    from arena.edge.server import SERVE_RECORDS_KEPT, ServerConfig

    names = chosen_games(game_names)
    chosen = (several_games_options(names, players, extra, flags) if len(names) > 1
              else [parse_game_options(names[0], players, extra, flags)])
    spec, options = chosen[0]
    config = ServerConfig(spec=spec, options=options, host=host, port=port,
                          move_timeout=move_timeout, reaction_timeout=reaction_timeout,
                          log_dir=log_dir, seed=seed, max_connections=max_connections,
                          max_connections_per_address=max_connections_per_address,
                          hello_timeout=hello_timeout, max_queued_bytes=max_queued_bytes,
                          max_messages_per_second=max_messages_per_second,
                          idle_timeout=idle_timeout, reconnect_grace=reconnect_grace,
                          time_bank=time_bank, records_kept=SERVE_RECORDS_KEPT,
                          transcript_dir=transcript_dir, compress_logs=not plain_logs,
                          max_hellos_per_second=max_hellos_per_second)
    registry = load_tokens(tokens_file)
    view = open_registry_view(db_file, registry)
    if spectator_mode == "registered" and registry is None and view is None:
        raise click.UsageError("--spectators registered needs --tokens FILE or --db FILE (the "
                               "registered players)")
    config = attrs.evolve(config, spectators=SpectatorRules(
        spectator_mode or ("registered" if registry is not None or view is not None
                           else "open"), max_spectators, registry, view and view.check))
    if view is not None:
        config = attrs.evolve(config, prepare_hello=view)
    if seating_kind == "ladder" and db_file is None:
        raise click.UsageError("--seating ladder needs --db FILE (its ratings and results)")
    bots = hosted_setup(hosted, builds, cores, db_file, len(chosen), config)
    host_games(hosted_games(config, chosen, db_file, seed), registry, hosted_bots=bots,
               games=games, quiet=quiet,
               tally_every=None if quiet else (tally_every, tally_games),
               checker=view and view.check,
               web=None if web_port is None else ((web_host, web_port), db_file),
               play=play_for(chosen, log_dir, web_port, play=play, play_bots=play_bots,
                             play_tables=play_tables, play_short=play_short),
               seating_kind=seating_kind or ("ladder" if db_file is not None else "arrival"),
               restarts=db_file is not None and not final)


@examples(
    "arena match --game chochlik --bot chochlik-heuristic --bot random --bot random --games 10",
    'arena match --game wypas --bot "python3 my_bot.py" --bot wypas-boss --bot random --sandbox',
)
@main.command()
@game_options(players_help="Seats per table: one per --bot (a --players that differs is "
                           "refused).")
@click.option("--bot", "bot_commands", multiple=True, required=True, metavar="CMD",
              help="A bot command (one per seat), or a built-in bot: "
                   f"{', '.join(BUILTIN_BOTS)}, with its options after its name (random "
                   "--seed 3; a game's heuristic bot: --random-rate 0.25, a share of random "
                   "moves; `python -m reference_bots.chochlik_heuristic --help` lists a bot's "
                   "options); NAME=CMD "
                   "names a bot.  {host} {port} {name} {token_file} are replaced.")
@click.option("--games", type=click.IntRange(min=1), default=1, show_default=True,
              help="Games to play with the same bots (seats rotate each game).")
@click.option("--connect-timeout", type=float, default=10.0, show_default=True,
              help="Seconds to wait for every bot to connect.")
@transcripts_option("each bot")
@plain_logs_option
@bot_launch_options
def match(game_name: str, players: int | None, extra: tuple[str, ...], seed: str | None,
          move_timeout: float, reaction_timeout: float, time_bank: float, log_dir: Path,
          bot_commands: tuple[str, ...], games: int, connect_timeout: float,
          transcript_dir: Path | None, plain_logs: bool, stdio: bool, sandbox: bool,
          sandbox_memory: int, sandbox_cpu: int | None, **flags: Any) -> None:
    """Play a series of GAMES games between bot programs and print a result table.

    Bots run as your user unless --sandbox is given: use it for bots you do not trust."""
    from arena.edge.signals import run_stoppable, stopped_status
    from arena.launch.bots import never_start
    from arena.launch.runner import Interrupt, plan_bots, run_match

    if players is not None and players != len(bot_commands):
        raise click.UsageError(f"--players {players} contradicts the {len(bot_commands)} --bot "
                               "given: a match has one seat per --bot (add --bot, or leave "
                               "--players out)")
    spec, options = parse_game_options(game_name, len(bot_commands), extra, flags)
    try:
        bots = plan_bots(list(bot_commands))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if unstartable := never_start(bots, os.environ.get("PATH")):  # else a phantom is rated
        raise click.ClickException("\n".join(unstartable))
    launch = bot_launch(stdio, sandbox, sandbox_memory, sandbox_cpu)
    if launch.sandbox is None:
        click.echo(TRUSTED_BOTS_NOTE, err=True)

    def game_over(record: Any) -> None:
        click.echo(match_line(record, games, spec.round_name))

    interrupt = Interrupt()

    async def run(signals: Any) -> Any:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_press_on_signals, interrupt, signals)
            # its errors are raised as they are, outside the nursery (never in a group)
            report = await outcome.acapture(functools.partial(
                run_match, spec, options, bots, games=games, seed=seed,
                move_timeout=move_timeout, reaction_timeout=reaction_timeout, log_dir=log_dir,
                connect_timeout=connect_timeout, on_game_over=game_over, launch=launch,
                time_bank=time_bank, transcript_dir=transcript_dir,
                compress_logs=not plain_logs, interrupt=interrupt))
            nursery.cancel_scope.cancel()
        return report

    try:
        report = run_stoppable(run).unwrap()  # no Ctrl-C lost, none a KeyboardInterrupt
    except LogDirectoryError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo()
    click.echo(report.table())
    for bot_run in report.bots:
        if bot_run.failed:
            click.echo("\n".join(bot_run.failure_lines()), err=True)
    for bot_run, row in report.stuck():
        click.echo(f"{bot_run.spec.name}: timed out {row['timeouts']} of its "
                   f"{row['decisions']} decisions "
                   "(stuck, stopped, or too slow for --move-timeout); its output is in "
                   f"{bot_run.output}", err=True)
    sys.exit(stopped_status() if report.interrupted else 0 if report.ok else 1)


def match_line(record: Any, games: int, round_name: str) -> str:
    """A match's line for a finished (or aborted) game."""
    if record.aborted:
        return f"game {record.number + 1}/{games}: aborted ({record.aborted})"
    scores = ", ".join(f"{name} {score}" for name, score in zip(record.names, record.scores))
    return (f"game {record.number + 1}/{games}: {scores}  "
            f"({record.rounds} {round_name}s, {record.seconds:.1f} s)")


async def _press_on_signals(interrupt: Any, signals: Any) -> None:
    """Ctrl-C (or SIGTERM) stops the series: once to log the running game as aborted and print
    the table of the games played, twice to stop at once."""
    async for _ in signals:
        click.echo("\narena: " + ("stopping now" if interrupt.requested.is_set() else
                                  "stopping (the running game is logged as aborted; "
                                  "Ctrl-C again stops at once)"), err=True)
        interrupt.press()


@examples(
    "arena replay arena-logs/chochlik-20261206-101500-ab12-t1.jsonl.gz",
    "arena replay arena-logs/chochlik-20261206-101500-ab12-t1.jsonl.gz --show --seat 0",
)
@main.command()
@click.argument("log_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--show", is_flag=True, help="Print the game step by step for a person.")
@click.option("--seat", type=int, default=None,
              help="With --show: only what this seat saw (events addressed to it).")
def replay(log_file: Path, show: bool, seat: int | None) -> None:
    """Re-simulate a logged game from its log alone and check it reproduces the result."""
    from arena.gameplay.replay import ReplayError, replay_log

    try:
        outcome = replay_log(log_file, show=click.echo if show else None, seat=seat)
    except ReplayError as exc:
        click.echo(f"replay: {log_file}: does NOT reproduce: {exc}", err=True)
        sys.exit(1)
    click.echo(f"replay: {log_file}: reproduces ({outcome})")


@examples(
    "arena games",
)
@main.command(name="games")
def list_games() -> None:
    """List the games this arena hosts, each with its options (flags or -o NAME=VALUE)."""
    for name, spec in sorted(GAMES.items()):
        click.echo(f"{name:12} {spec.title} ({spec.min_players}-{spec.max_players} players)")
        for field in spec.option_fields():
            click.echo(f"    --{field.name.replace('_', '-'):<10} {field.metadata['help']} "
                       f"[default: {shown_default(field)}]")


@examples(
    "arena schema > protocol-schema.json",
    "arena schema --game wypas > wypas-schema.json",
)
@main.command(name="schema")
@click.option("--game", "game_name", type=click.Choice(sorted(GAMES)), default=None,
              help="With this game's observation in requests (default: observations are any "
                   "JSON object).")
def schema(game_name: str | None) -> None:
    """Print the JSON Schema of every protocol message (draft 2020-12), made from the
    protocol's own definitions."""
    import json

    from protocol.schema import game_protocol_schema, protocol_schema

    if game_name is None:
        document = protocol_schema()
    else:
        document = game_protocol_schema(game_name, GAMES[game_name].observation_type)
    click.echo(json.dumps(document, indent=2, ensure_ascii=False))


from arena.cli.bots import (  # noqa: E402 - registration, ladders
    bots,
    open_registry_view,
)
from arena.cli.events import ratings, tournament  # noqa: E402 - the event commands
from arena.cli.export import export  # noqa: E402 - an event's games in one file
from arena.cli.hosted import languages  # noqa: E402 - hosted bots (adds bots submit ...)
from arena.cli.sprt import sprt  # noqa: E402 - a sequential test of two bots
from arena.cli.web import web  # noqa: E402 - the competition pages
from arena.kit.check_bot import check_bot  # noqa: E402 - the conformance checker
from arena.kit.check_game import check_game  # noqa: E402 - a game's batteries
from arena.kit.new_game import new_game  # noqa: E402 - a game's package to start from
from arena.kit.play import play  # noqa: E402 - a person at the table

for command in (tournament, ratings, sprt, export, play, check_bot, check_game, new_game, bots,
                web, languages):
    main.add_command(command)

from arena.cli.worker import worker  # noqa: E402 - an event's tables on many hosts

main.add_command(worker)


if __name__ == "__main__":
    main()
