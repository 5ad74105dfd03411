"""``arena play``: a person at the table, in the terminal, against bots.

The series is run as ``arena match`` runs one (a server, bot subprocesses seated by token, seats
rotating every game, a result table), with one seat held by the person: an in-process client
connected to the same server over a socket pair, so the person gets exactly the lines a bot
gets.  On each request the observation is drawn (:mod:`arena.games.render`) and the legal actions
are listed, numbered and labelled with their cards (:mod:`arena.kit.play_cards`); the person
answers with a number or the token itself (``?`` shows the request as it came).  A request
that is no real decision is answered for them and said so (:mod:`arena.kit.play_auto`, ``--ask``).
Each game starts with a legend of the card codes; events are shown as short lines, the end of
a hand or game as a table (:mod:`arena.kit.play_tables`), and the result at ``game_end``.

At the end of input (Ctrl-D) the person says ``bye`` and leaves: the default policy plays the
seat to the end of the series, and the exit status is 1.  The decision time limits default to
:data:`THINK_SECONDS` for everyone (the server has one limit for all seats; bots answer at
once anyway).
"""

from __future__ import annotations

import functools
import json
import os
import re
import secrets
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import click
import trio

from arena.edge.server import ArenaServer, ServerConfig
from arena.gameplay.gamelog import LogDirectoryError, ensure_writable
from arena.games.base import GameSpec
from arena.games.render import Table, describe_result, draw
from arena.kit.examples import examples
from arena.kit.play_auto import Ask as AskMode
from arena.kit.play_auto import AutoAnswer
from arena.kit.play_cards import label, labels, legend
from arena.kit.play_style import paint, wants_colour
from arena.kit.play_tables import describe
from arena.launch.options import (
    bot_launch,
    bot_launch_options,
    game_options,
    parse_game_options,
    transcripts_option,
)
from arena.launch.runner import (
    BUILTIN_BOTS,
    REMOTE,
    BotLaunch,
    BotRun,
    BotSpec,
    MatchReport,
    plan_bots,
    serve_with_bots,
)
from arena.seating.roster import RosterEntry, RosterSeating
from protocol.errors import ErrorCode
from protocol.linebuffer import LineBuffer

#: Seconds a person has for a decision unless ``--move-timeout`` / ``--reaction-timeout`` say
#: otherwise: ten minutes.
THINK_SECONDS = 600.0
#: Bytes read from the connection at a time.
READ_BYTES = 65536
#: Characters per line of the listed legal actions, and columns at most.
LINE_WIDTH = 100
MAX_COLUMNS = 4
#: The longest line the person's client accepts (the server sends at most 65,536 bytes).
MAX_LINE_BYTES = 1 << 20

#: A person's name at the table (as ``arena match`` allows in ``--bot NAME=CMD``).
NAME = re.compile(r"[A-Za-z0-9_.-]{1,40}")

#: Reads one line typed by the person (shown the prompt), or None at the end of input.
Ask = Callable[[str], Awaitable[str | None]]
Show = Callable[[str], None]


def choice_of(answer: str, legal: list[str]) -> str | None:
    """The token a typed answer picks: a number from 1 to ``len(legal)``, or a token of
    ``legal`` itself; None for anything else."""
    answer = answer.strip()
    if answer.isdigit() and 1 <= int(answer) <= len(legal):
        return legal[int(answer) - 1]
    return answer if answer in legal else None


def numbered(legal: list[str]) -> str:
    """The legal actions (as labelled for the person) numbered from 1, in as many columns as
    fit :data:`LINE_WIDTH`."""
    digits = len(str(len(legal)))
    width = max(len(token) for token in legal) + digits + 4
    per_line = max(1, min(MAX_COLUMNS, (LINE_WIDTH - 2) // width))
    cells = [f"{number:>{digits}}) {token}".ljust(width)
             for number, token in enumerate(legal, start=1)]
    return "\n".join("  " + "".join(cells[i:i + per_line]).rstrip()
                     for i in range(0, len(cells), per_line))


class Person:
    """The person's client: one connection, from ``welcome`` to ``bye``.  It speaks the
    protocol as any bot does; only its choices come from ``ask``, and it tells ``show`` what
    happens."""

    def __init__(self, stream: trio.abc.Stream, game: str, name: str, ask: Ask,
                 show: Show, mode: AskMode = AskMode.CHOICES) -> None:
        self.stream = stream
        self.mode = mode
        self.auto = AutoAnswer(AskMode.ALWAYS, game, 0, {})
        #: Requests the person answered, and those answered for them.
        self.asked = 0
        self.answered_for_you = 0
        self.game = game
        self.name = name
        self.ask = ask
        self.show = show
        self.lines = LineBuffer(max_line=MAX_LINE_BYTES)
        self.table = Table(())
        self.games = 0
        #: False once the person has left (end of input) or the server said bye.
        self.seated = True

    async def play(self) -> None:
        """Play until the server says ``bye`` or closes, or the person leaves."""
        while self.seated:
            message = await self.receive()
            if message is None:
                self.show("the server closed the connection")
                return
            await self.handle(message)
        await self.stream.aclose()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = self.lines.next_line()
            if isinstance(line, bytes):  # (None: more to read; an over-long line is skipped)
                return json.loads(line)
            data = await self.stream.receive_some(READ_BYTES)
            if not data:
                return None
            self.lines.feed(bytes(data))

    async def send(self, message: dict[str, Any]) -> None:
        await self.stream.send_all(json.dumps(message).encode() + b"\n")

    async def handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "welcome":
            limits = message.get("limits", {})
            self.show(f"arena: {message.get('game')}, {message.get('players')} players; "
                      f"{limits.get('move_timeout_ms', 0) / 1000:g} s per decision")
            await self.send({"type": "hello", "name": self.name, "protocol": 1,
                             "game": self.game})
        elif kind == "game_start":
            self.games += 1
            info = message.get("info") or {}
            self.table = Table(tuple(message.get("names", ())), info, self.game)
            self.auto = AutoAnswer(self.mode, self.game, message.get("seat", 0), info)
            seats = ", ".join(f"{seat} {name}" for seat, name in enumerate(self.table.names))
            self.show(f"\n=== game {self.games}: you are seat {message.get('seat')} "
                      f"(seats: {seats}) ===")
            if self.games == 1 and legend(self.game):
                self.show(legend(self.game))
        elif kind == "event":
            self.show(describe(message["kind"], message.get("data", {}), self.table))
        elif kind == "request":
            automatic = self.auto.answer(message)
            if automatic is not None:
                action, why = automatic
                self.answered_for_you += 1
                self.show(f"  you: {label(self.game, self.table.info, action)} "
                          f"(answered for you: {why})")
                await self.send({"type": "action", "id": message["id"], "action": action})
            else:
                await self.decide(message, message["legal"])
        elif kind == "cancel":
            played = f"; the server played {message['played']}" if message.get("played") else ""
            self.show(f"request {message.get('id')} cancelled ({message.get('reason')}){played}")
        elif kind == "error":
            self.show(f"server: {message.get('code')}: {message.get('message')}")
            if message.get("fatal"):
                self.seated = False
            elif message.get("legal") and message.get("tries_left"):
                await self.decide(message, message["legal"])
        elif kind == "game_end":
            self.show(describe_result(message, self.table))
        elif kind == "bye":
            self.show(f"server: bye ({message.get('message') or message.get('reason')})")
            self.show(f"you were asked {self.asked} time(s); {self.answered_for_you} "
                      "request(s) were answered for you"
                      + (" (--ask always asks every time)" if self.answered_for_you else ""))
            self.seated = False

    async def decide(self, request: dict[str, Any], legal: list[str]) -> None:
        """Draw the request, ask until the answer is one of ``legal``, and send it; at the end
        of input, leave."""
        if "observation" in request:
            self.show(f"\n--- request {request['id']} "
                      f"({request.get('time_left_ms', 0) / 1000:g} s) ---")
            self.show(draw(self.game, request["observation"], self.table))
        self.asked += 1
        self.show("your choices:\n" + numbered(labels(self.game, self.table.info, legal)))
        while True:
            answer = await self.ask(f"choose 1-{len(legal)} (or type it; ? shows the request): ")
            if answer is None:
                self.show("end of input: you leave the table; the default policy plays your "
                          "seat")
                await self.send({"type": "bye"})
                self.seated = False
                return
            if answer.strip() == "?":
                self.show(json.dumps(request))
                continue
            token = choice_of(answer, legal)
            if token is not None:
                self.auto.answered(request, token)
                await self.send({"type": "action", "id": request["id"], "action": token})
                return
            self.show(f"{answer.strip()!r} is not one of the {len(legal)} choices")


def seat_person(opponents: list[str], seat: int, name: str) -> list[BotSpec]:
    """The table's bots, as ``arena match`` names them, with the person at ``seat`` (a bot
    the runner does not launch); a :class:`ValueError` for a command that cannot be read."""
    commands = list(opponents)
    commands.insert(seat, f"{name}={REMOTE}")
    return plan_bots(commands)


async def run_play(spec: GameSpec, options: Any, bots: list[BotSpec], *, seat: int, games: int,
                   seed: str | None, move_timeout: float, reaction_timeout: float,
                   time_bank: float, log_dir: Path, ask: Ask, show: Show,
                   connect_timeout: float = 10.0, launch: BotLaunch | None = None,
                   transcript_dir: Path | None = None,
                   mode: AskMode = AskMode.CHOICES) -> MatchReport:
    """A series between ``bots`` (from :func:`seat_person`): the person holds ``bots[seat]``
    in the first game (seats rotate every game), the others are launched as by
    ``arena match`` (``launch``: over stdio or sandboxed; ``transcript_dir``: every line of
    every seat, the person's too, as ``arena match --transcripts`` writes them; ``mode``: which
    requests are answered for the person, see :mod:`arena.kit.play_auto`)."""
    tokens = [secrets.token_hex(12) for _ in bots]
    roster = tuple(RosterEntry(bot.name, token) for bot, token in zip(bots, tokens))
    config = ServerConfig(spec=spec, options=options, host="127.0.0.1", port=0,
                          move_timeout=move_timeout, reaction_timeout=reaction_timeout,
                          log_dir=log_dir, seed=seed, time_bank=time_bank, idle_timeout=None,
                          transcript_dir=transcript_dir)
    seating = RosterSeating(roster, games, connect_timeout=connect_timeout)
    server = ArenaServer(config, seating=seating)
    ensure_writable(log_dir)  # never play games whose logs would be lost
    output_dir = log_dir / "bots"
    output_dir.mkdir(parents=True, exist_ok=True)
    runs = [BotRun(bot, token, output_dir / f"{server.run_id}-{bot.name}.txt")
            for bot, token in zip(bots, tokens)]
    started = trio.current_time()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve_with_bots, server, runs, ErrorCode.SERIES_OVER, launch)
        await server.serving.wait()
        person_end, server_end = (trio.SocketStream(s) for s in trio.socket.socketpair())
        nursery.start_soon(functools.partial(server.handle_stream, server_end,
                                             bound_token=tokens[seat]))
        await Person(person_end, spec.name, bots[seat].name, ask, show, mode).play()
    records = sorted(server.records, key=lambda r: r.number)
    return MatchReport(spec.name, spec.round_name, runs, records,
                       trio.current_time() - started, log_dir,
                       unwritten_logs=len(server.unwritten_logs), refusals=dict(server.refusals))


def default_opponents(game: str, players: int) -> list[str]:
    """The game's heuristic bot, then random bots to fill the table."""
    heuristic = f"{game}-heuristic"
    first = [heuristic] if heuristic in BUILTIN_BOTS else ["random"]
    return (first + ["random"] * players)[:players - 1]


async def ask_stdin(prompt: str) -> str | None:
    """A line from standard input (without its newline), or None at its end."""
    click.echo(prompt, nl=False)
    line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
    if not line:
        click.echo()
        return None
    return line.rstrip("\r\n")


def _with_think_time(command: click.Command) -> click.Command:
    """A person thinks longer than a bot: the decision limits default to THINK_SECONDS."""
    for param in command.params:
        if param.name in ("move_timeout", "reaction_timeout") and isinstance(param, click.Option):
            param.default = THINK_SECONDS
            what = "decision" if param.name == "move_timeout" else "reaction-window decision"
            param.help = f"Seconds per {what} for every seat (the person's time to think)."
    return command


@_with_think_time
@examples(
    "arena play --game chochlik --bot chochlik-heuristic --bot random",
)
@click.command(name="play")
@game_options
@click.option("--bot", "bot_commands", multiple=True, metavar="CMD",
              help="An opponent (one per seat besides yours), as for `arena match`; default: "
                   "the game's heuristic bot and random bots to fill the table.")
@click.option("--seat", type=click.IntRange(min=0), default=0, show_default=True,
              help="Your seat in the first game (seats rotate every game).")
@click.option("--name", default="you", show_default=True, help="Your name at the table.")
@click.option("--games", type=click.IntRange(min=1), default=1, show_default=True,
              help="Games to play (seats rotate each game).")
@click.option("--ask", "ask_mode", type=click.Choice([mode.value for mode in AskMode]),
              default=AskMode.CHOICES.value, show_default=True,
              help="Which requests you answer yourself: 'always' every one; 'choices' those "
                   "with more than one legal action (a lone pass, done or last card is played "
                   "for you and shown); 'worthwhile' also passes in wypas reaction windows "
                   "unless a special card is worth playing (as the heuristic bot judges).")
@click.option("--plain", is_flag=True,
              help="No colours even in a terminal (output to a pipe or file is always plain; "
                   "so is NO_COLOR or TERM=dumb).")
@transcripts_option("each seat (yours too)")
@bot_launch_options
def play(game_name: str, players: int | None, extra: tuple[str, ...], seed: str | None,
         move_timeout: float, reaction_timeout: float, time_bank: float, log_dir: Path,
         bot_commands: tuple[str, ...], seat: int, name: str, games: int, ask_mode: str,
         plain: bool,
         transcript_dir: Path | None, stdio: bool, sandbox: bool, sandbox_memory: int,
         sandbox_cpu: int | None, **flags: Any) -> None:
    """Sit at the table yourself, against bots: you see what a bot would see and choose from
    the legal list.  Ctrl-D leaves the table."""
    if bot_commands and players is not None and players != len(bot_commands) + 1:
        raise click.UsageError(f"--players {players} but {len(bot_commands)} --bot given "
                               "(the table has your seat and one per --bot)")
    if bot_commands:
        players = len(bot_commands) + 1
    spec, options = parse_game_options(game_name, players, extra, flags)
    if not NAME.fullmatch(name):
        raise click.UsageError(f"--name {name!r}: 1 to 40 letters, digits, '_', '.' or '-'")
    if seat >= options.players:
        raise click.UsageError(f"--seat {seat}: the table has seats 0 to {options.players - 1}")
    opponents = list(bot_commands) or default_opponents(spec.name, options.players)
    try:
        bots = seat_person(opponents, seat, name)
    except ValueError as exc:  # a bot command that cannot be read
        raise click.UsageError(str(exc)) from None
    launch = bot_launch(stdio, sandbox, sandbox_memory, sandbox_cpu)

    def show(text: str) -> None:
        click.echo(paint(text) if colour else text)
    colour = wants_colour(sys.stdout, plain, os.environ)
    try:
        report = trio.run(lambda: run_play(
            spec, options, bots, seat=seat, games=games, seed=seed, move_timeout=move_timeout,
            reaction_timeout=reaction_timeout, time_bank=time_bank, log_dir=log_dir,
            ask=ask_stdin, show=show, launch=launch, transcript_dir=transcript_dir,
            mode=AskMode(ask_mode)))
    except* LogDirectoryError as group:
        raise click.ClickException(str(group.exceptions[0])) from None
    except* KeyboardInterrupt:  # Ctrl-C: the bots are stopped already
        click.echo("\narena: interrupted; the game under way was not finished", err=True)
        sys.exit(1)
    click.echo()
    click.echo(report.table())
    sys.exit(0 if report.ok else 1)
