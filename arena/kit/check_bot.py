"""``arena check-bot --game G -- CMD``: run a bot through scripted situations and report each
check (:class:`~arena.kit.check_findings.Check`) as passed, failed with the reason, skipped, or not
applicable.

For every game asked (``--game`` repeated, or ``all``) the bot is started the way ``arena
match`` starts it (:func:`arena.launch.runner.launch`: ``{port}``, ``{token_file}`` and the other
placeholders, the ARENA_* variables, a private token file, ``--stdio``), and a scripted series
(:mod:`arena.kit.check_series`) is played against it on a port of its own.  Exit status: 0 when no
check failed, 1 when one did, 2 for a usage error.
"""

from __future__ import annotations

import functools
import itertools
import math
import secrets
import shlex
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import trio

from arena.edge.peer_process import ProcessBinding
from arena.edge.transcript import Transcript
from arena.games import GAMES
from arena.games.base import GameSpec
from arena.kit.check_findings import CheckResult, Outcome, summary
from arena.kit.check_link import Connected, Exited, Link
from arena.kit.check_series import BOT_NAME, ScriptedSeries
from arena.kit.check_setup import SeriesSettings
from arena.kit.examples import examples
from arena.launch.errors import INTERRUPTED, only
from arena.launch.hosted_run import hosted_environment
from arena.launch.options import transcripts_option
from arena.launch.runner import BotLaunch, BotRun, BotSpec, builtin_command, launch
from arena.launch.sandbox import Sandbox

#: A new connection's transcript (given its address), or None when none is kept.
Transcripts = Callable[[str], Transcript | None]

#: Seats at the checker's tables (within each game's range).
CHECK_PLAYERS = 3
#: Characters of the bot's last output quoted in a reason about a crash.
OUTPUT_TAIL_CHARS = 300
#: The file, beside the transcripts, that keeps the bot's output (its stderr; stdout too
#: over TCP).
BOT_OUTPUT = "bot-output.txt"


def check_options(spec: GameSpec) -> Any:
    players = max(spec.min_players, min(CHECK_PLAYERS, spec.max_players))
    return spec.short_options(players)  # a check plays a series: short games


def command_template(words: tuple[str, ...]) -> str:
    """The bot command as a template: one word is a whole command, several are the command's
    words; either may be a built-in bot's name and its options (as in ``arena match --bot``:
    ``chochlik-heuristic --random-rate 0.25``)."""
    return builtin_command(words[0] if len(words) == 1 else shlex.join(words))[1]


def output_tail(path: Path) -> str:
    """The bot's last lines of output, joined, at most :data:`OUTPUT_TAIL_CHARS`."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    tail = " | ".join(lines[-3:])
    return tail if len(tail) <= OUTPUT_TAIL_CHARS else "..." + tail[-OUTPUT_TAIL_CHARS:]


def transcripts_in(folder: Path | None) -> Transcripts:
    """Transcripts numbered by connection (1, then 2 after a reconnect, ...) in ``folder``."""
    numbers = itertools.count(1)

    def transcript(address: str) -> Transcript | None:
        if folder is None:
            return None
        kept = Transcript(folder, next(numbers), address)
        kept.named(BOT_NAME)
        return kept
    return transcript


async def check_game(template: str, settings: SeriesSettings, *, stdio: bool,
                     keep_in: Path | None = None,
                     progress: Callable[[str], None] = lambda line: None,
                     sandbox: Sandbox | None = None) -> list[CheckResult]:
    """Start the bot, play the scripted series against it, stop it; the results.  With
    ``keep_in``, a transcript of every connection and the bot's own output stay there;
    ``progress`` is told each game as it starts; with ``sandbox`` the bot runs in it (over
    stdio: ``stdio`` must be set)."""
    transcripts = transcripts_in(keep_in)
    private = Path(tempfile.mkdtemp(prefix="arena-check-"))
    output = private / "output.txt"
    if keep_in is not None:
        await trio.Path(keep_in).mkdir(parents=True, exist_ok=True)
        output = keep_in / BOT_OUTPUT
    disguise = settings.disguise  # a hosted validation: named and run as on the ladder
    name = BOT_NAME if disguise is None else disguise.name
    run = BotRun(BotSpec(name, template), settings.token or "", output)
    binding = ProcessBinding()
    inbox_in, inbox_out = trio.open_memory_channel[Any](math.inf)
    process: trio.Process | None = None
    try:
        async with trio.open_nursery() as nursery:
            port = 0
            if not stdio:
                listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
                port = listener.socket.getsockname()[1]
                nursery.start_soon(accept_connections, listener, inbox_in, nursery,
                                   settings.spec.name, transcripts)
            environment = None if disguise is None else hosted_environment(name)
            process = await launch(run, port, BotLaunch(stdio, sandbox, environment), private)
            if settings.token is not None:
                binding.bind(settings.token, process.pid)
            if stdio:
                assert process.stdin is not None and process.stdout is not None
                link = Link(trio.StapledStream(process.stdin, process.stdout),
                            settings.spec.name, transcripts("stdio"))
                await inbox_in.send(Connected(link))
                nursery.start_soon(link.read_into, inbox_in)
            nursery.start_soon(watch_process, process, inbox_in)
            series = ScriptedSeries(settings, inbox_out, lambda: output_tail(run.output),
                                    binding, progress)
            findings = await series.run()
            nursery.cancel_scope.cancel()
    finally:
        if process is not None and process.returncode is None:
            process.kill()
        shutil.rmtree(private, ignore_errors=True)
    return findings.results()


async def accept_connections(listener: trio.SocketListener, inbox: trio.MemorySendChannel[Any],
                             nursery: trio.Nursery, game: str,
                             transcripts: Transcripts) -> None:
    async with listener:
        while True:
            stream = await listener.accept()
            host, port = stream.socket.getpeername()[:2]
            link = Link(stream, game, transcripts(f"{host}:{port}"))
            await inbox.send(Connected(link))
            nursery.start_soon(link.read_into, inbox)


async def watch_process(process: trio.Process, inbox: trio.MemorySendChannel[Any]) -> None:
    await inbox.send(Exited(await process.wait()))


@examples(
    "arena check-bot --game chochlik -- python3 my_bot.py",
    "arena check-bot --game all -- random",
)
@click.command("check-bot")
@click.option("--game", "game_names", multiple=True, required=True,
              type=click.Choice(sorted(GAMES) + ["all"]),
              help="A game to check the bot on (repeatable; `all`: every game).")
@click.option("--stdio", is_flag=True,
              help="Speak to the bot over its stdin/stdout (ARENA_TRANSPORT=stdio).")
@click.option("--games", "series_games", type=click.IntRange(1, 20), default=3,
              show_default=True, help="Games in each game's series.")
@click.option("--seed", default="check-bot", show_default=True, help="Seed for the deals.")
@click.option("--move-timeout", type=click.FloatRange(0.05), default=5.0, show_default=True,
              help="Seconds the bot gets per decision.")
@click.option("--reaction-timeout", type=click.FloatRange(0.05), default=1.0,
              show_default=True, help="Seconds for a reaction-window decision.")
@click.option("--hello-timeout", type=click.FloatRange(0.05), default=10.0, show_default=True,
              help="Seconds from welcome to hello.")
@click.option("--connect-timeout", type=click.FloatRange(0.05), default=10.0,
              show_default=True, help="Seconds the bot gets to connect after it starts.")
@click.option("--reconnect-grace", type=click.FloatRange(0.05), default=10.0,
              show_default=True, help="Seconds the bot gets to come back after its connection "
              "is closed mid-game.")
@click.option("--exit-grace", type=click.FloatRange(0.05), default=5.0, show_default=True,
              help="Seconds the bot's process gets to end after bye.")
@transcripts_option("the bot", f" (DIR/<game>/, with the bot's output: {BOT_OUTPUT})")
@click.argument("command", nargs=-1, required=True)
def check_bot(game_names: tuple[str, ...], stdio: bool, series_games: int, seed: str,
              move_timeout: float, reaction_timeout: float, hello_timeout: float,
              connect_timeout: float, reconnect_grace: float, exit_grace: float,
              transcript_dir: Path | None, command: tuple[str, ...]) -> None:
    """Check that the bot CMD (after `--`; `{port}`, `{token_file}` ... as in `arena match`,
    or a built-in bot's name and its options: `-- chochlik-heuristic --random-rate 0.25`)
    handles what the protocol asks of it: one line per check, PASS,
    FAIL with the reason, SKIP or N/A; exit status 1 if a check failed."""
    names = sorted(GAMES) if "all" in game_names else list(dict.fromkeys(game_names))
    try:
        template = command_template(command)
    except ValueError as exc:  # a built-in bot's options with unbalanced quotes
        raise click.UsageError(f"the bot's command: {exc}") from None
    failed = 0
    for name in names:
        try:
            failed += check_one(name, template, stdio, series_games, seed, move_timeout,
                                reaction_timeout, hello_timeout, connect_timeout,
                                reconnect_grace, exit_grace, transcript_dir)
        except KeyboardInterrupt:  # a Ctrl-C between two games' checks
            interrupted(name)
    if failed:
        click.echo(f"check-bot: {failed} check(s) failed")
        raise SystemExit(1)
    click.echo("check-bot: no check failed")


def interrupted(name: str) -> None:
    click.echo(f"\ncheck-bot: interrupted during {name}'s checks; those not reported above "
               "are undecided", err=True)
    raise SystemExit(INTERRUPTED)


def check_one(name: str, template: str, stdio: bool, series_games: int, seed: str,
              move_timeout: float, reaction_timeout: float, hello_timeout: float,
              connect_timeout: float, reconnect_grace: float, exit_grace: float,
              transcript_dir: Path | None) -> int:
    """Check the bot on one game, printing each check; the number that failed."""
    spec = GAMES[name]
    settings = SeriesSettings(
        spec=spec, options=check_options(spec), games=series_games, seed=seed,
        move_timeout=move_timeout, reaction_timeout=reaction_timeout,
        hello_timeout=hello_timeout, connect_timeout=connect_timeout,
        reconnect_grace=reconnect_grace, exit_grace=exit_grace,
        token=None if stdio else secrets.token_hex(12))
    click.echo(f"{name}: {settings.options.players} players, {series_games} game(s), "
               f"{'stdio' if stdio else 'TCP'}: {template}")
    keep_in = transcript_dir / name if transcript_dir else None
    try:
        # Ctrl-C only at checkpoints: trio (0.35) raising KeyboardInterrupt inside its own run
        # loop reports it as TrioInternalError, a traceback (seen once in ~150 runs under load)
        results = trio.run(functools.partial(check_game, template, settings, stdio=stdio,
                                             keep_in=keep_in, progress=click.echo),
                           restrict_keyboard_interrupt_to_checkpoints=True)
    except (KeyboardInterrupt, BaseExceptionGroup) as exc:  # Ctrl-C: the bot is stopped
        if only(exc, KeyboardInterrupt) is None:
            raise
        interrupted(name)
    for result in results:
        click.echo(result.line())
    click.echo(f"{name}: {summary(results)}")
    if transcript_dir is not None:
        click.echo(f"{name}: every line exchanged, and the bot's output ({BOT_OUTPUT}), "
                   f"are in {keep_in}")
    return sum(r.outcome is Outcome.FAIL for r in results)
