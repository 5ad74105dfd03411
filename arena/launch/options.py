"""Options shared by the commands that start games (``arena.cli``'s and ``arena.kit``'s),
declared once: the game, its seats, each game's own options (as flags, refused for a game
without them, or ``-o NAME=VALUE``), the seed, the move and reaction timeouts and the log
folder; and how a runner launches its bots (``--stdio``, ``--sandbox``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from arena.games import GAMES, OptionsError, get_game

DEFAULT_LOG_DIR = "arena-logs"
DEFAULT_MOVE_TIMEOUT = 5.0
#: Seconds for a reaction-window decision (several seats may play a special card or pass).
DEFAULT_REACTION_TIMEOUT = 1.0


def _option_flags() -> dict[str, list[str]]:
    """Every game option but ``players`` becomes a flag; the games that have it, by name."""
    flags: dict[str, list[str]] = {}
    for spec in GAMES.values():
        for field in spec.option_fields()[1:]:
            flags.setdefault(field.name, []).append(spec.name)
    return flags


OPTION_FLAGS = _option_flags()


def _fields(name: str) -> list[Any]:
    """The option ``name`` of every game that has it."""
    return [next(f for f in GAMES[game].option_fields() if f.name == name)
            for game in OPTION_FLAGS[name]]


def shown_default(field: Any) -> str:
    """A game option's default as a person reads it: on/off, a number, none."""
    if field.default is None:
        return "none"
    if isinstance(field.default, bool):
        return "on" if field.default else "off"
    return str(field.default)


def _flag_help(name: str) -> str:
    return "; ".join(f"{game}: {field.metadata.get('help', '')} (default: {shown_default(field)})"
                     for game, field in zip(OPTION_FLAGS[name], _fields(name)))


class CountOrNone(click.ParamType):
    """A whole number, or ``none`` (no such limit: kept as the text ``"none"``, which the game
    reads, since an unset flag is None)."""

    name = "N|none"

    def convert(self, value: Any, param: Any, ctx: Any) -> int | str | None:
        if value is None or isinstance(value, int):
            return value
        if str(value).strip().lower() == "none":
            return "none"
        try:
            return int(str(value))
        except ValueError:
            self.fail(f"{value!r} is not a whole number or none", param, ctx)


def _flag_option(name: str) -> Any:
    """A game option as a typed flag: ``--bluff/--no-bluff`` for a yes/no option, a number
    for a number; unset (None) unless given, so a game's own default applies."""
    flag = f"--{name.replace('_', '-')}"
    types = {str(field.type) for field in _fields(name)}
    if types == {"bool"}:
        return click.option(f"{flag}/--no-{flag[2:]}", f"flag_{name}", default=None,
                            help=_flag_help(name))
    if types == {"int"}:
        return click.option(flag, f"flag_{name}", type=int, default=None,
                            help=_flag_help(name))
    if types <= {"int", "int | None"}:
        return click.option(flag, f"flag_{name}", type=CountOrNone(), default=None,
                            metavar="N|none", help=_flag_help(name))
    return click.option(flag, f"flag_{name}", default=None, help=_flag_help(name))


#: ``--game all`` (``arena serve``): every game of the registry.
ALL_GAMES = "all"


def _game_option(game_required: bool, several: bool) -> Any:
    if not several:
        return click.option("--game", "game_name", type=click.Choice(sorted(GAMES)),
                            required=game_required, help="Which game to play.")
    return click.option(
        "--game", "game_names", type=click.Choice([*sorted(GAMES), ALL_GAMES]), multiple=True,
        required=game_required,
        help="Which game to host; repeat it (or say all) to host several on one port, each "
             "with its own tables, its own defaults and (with --db) its own ratings.")


def game_options(function: Any = None, *, game_required: bool = True, several: bool = False,
                 players_help: str = "Seats per table (default: the game's).") -> Any:
    """Options shared by every command that starts games; declared once.  Each game's own
    options (``arena games`` lists them) are typed flags too, refused for a game without
    them.  ``several``: ``--game`` may be repeated (or ``all``): ``game_names``, a tuple."""
    if function is None:
        return lambda f: game_options(f, game_required=game_required, several=several,
                                      players_help=players_help)
    decorators = [
        _game_option(game_required, several),
        click.option("--players", type=int, default=None, help=players_help),
        *[_flag_option(name) for name in sorted(OPTION_FLAGS)],
        click.option("--option", "-o", "extra", multiple=True, metavar="NAME=VALUE",
                     help="A game option (see `arena games`), repeatable."),
        click.option("--seed", default=None, help="Seed for the deals (default: random)."),
        click.option("--move-timeout", type=float, default=DEFAULT_MOVE_TIMEOUT,
                     show_default=True, help="Seconds a bot gets per decision."),
        click.option("--reaction-timeout", type=float, default=DEFAULT_REACTION_TIMEOUT,
                     show_default=True,
                     help="time limit for a reaction-window decision (a special card or pass), "
                          "in seconds"),
        click.option("--time-bank", type=click.FloatRange(min=0), default=0.0,
                     show_default=True,
                     help="Seconds each seat may use beyond its decisions' time limits over a "
                          "game (a chess-clock bank; 0: none)."),
        click.option("--log-dir", type=click.Path(file_okay=False, path_type=Path),
                     default=DEFAULT_LOG_DIR, show_default=True,
                     help="Folder for game logs (gzip-compressed JSON Lines, one "
                          "<game>-<id>.jsonl.gz file per game)."),
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


def chosen_games(names: Sequence[str]) -> list[str]:
    """The games of a repeated ``--game`` in the order given, once each (``all``: every game
    of the registry)."""
    chosen = [name for given in names
              for name in (sorted(GAMES) if given == ALL_GAMES else [given])]
    return list(dict.fromkeys(chosen))


def several_games_options(names: Sequence[str], players: int | None, extra: tuple[str, ...],
                          flags: dict[str, Any]) -> list[tuple[Any, Any]]:
    """Each game and its options when several are hosted: its own defaults, and what
    ``-o GAME:NAME=VALUE`` says for it.  ``--players`` and the games' flags would apply to
    every game at once, and are refused (a usage error says how to set them)."""
    given = ["--players"] if players is not None else []
    given += [f"--{key.removeprefix('flag_').replace('_', '-')}"
              for key, value in flags.items() if value is not None]
    if given:
        raise click.UsageError(
            f"{', '.join(given)}: with several games each plays its own defaults; set one "
            "game's option with -o GAME:NAME=VALUE (say, -o "
            f"{names[0]}:players=4)")
    own: dict[str, list[str]] = {name: [] for name in names}
    for item in extra:
        game, sep, option = item.partition(":")
        if not sep or game.strip() not in own:
            raise click.BadParameter(
                f"{item!r}: with several games an option is GAME:NAME=VALUE, GAME one of "
                f"{', '.join(names)}", param_hint="--option")
        own[game.strip()].append(option)
    return [parse_game_options(name, None, tuple(own[name]), {}) for name in names]


def plain_logs_option(function: Any) -> Any:
    """``--plain-logs``: game logs as plain ``.jsonl`` instead of ``.jsonl.gz``."""
    return click.option(
        "--plain-logs", is_flag=True,
        help="Write game logs as plain JSON Lines (.jsonl), to read with less, instead of "
             "gzip-compressed (.jsonl.gz: zcat and arena replay read them).")(function)


def transcripts_option(whose: str, extra: str = "") -> Any:
    """``--transcripts DIR``: every line ``whose`` exchanges, with times, to a file per
    connection in DIR (tokens masked), for debugging bots."""
    return click.option(
        "--transcripts", "transcript_dir", type=click.Path(file_okay=False, path_type=Path),
        default=None, help=f"Write every line {whose} exchanges, with times, to a file per "
                           f"connection in this folder{extra} (for debugging bots).")


def bot_launch_options(function: Any) -> Any:
    """How a runner starts its bots: ``--stdio`` and ``--sandbox`` with its limits."""
    decorators = [
        click.option("--stdio", is_flag=True,
                     help="Bots speak the protocol on stdin/stdout instead of a socket "
                          "(ARENA_TRANSPORT=stdio; the built-in bots follow it)."),
        click.option("--sandbox", is_flag=True,
                     help="Run each bot isolated (own PID, mount and network namespaces, "
                          "read-only files, a memory limit and an optional CPU limit; implies "
                          "--stdio). Without "
                          "it bots run with your user's rights: only for bots you trust."),
        click.option("--sandbox-memory", type=click.IntRange(min=64), default=2048,
                     show_default=True, metavar="MB", help="A sandboxed bot's address space."),
        click.option("--sandbox-cpu", type=click.IntRange(min=1), default=None, metavar="SECONDS",
                     help="A sandboxed bot's CPU time over its whole run (default: no limit)."),
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def bot_launch(stdio: bool, sandbox: bool, sandbox_memory: int,
               sandbox_cpu: int | None, protect: Sequence[Path | str] = ()) -> Any:
    """The runner's :class:`~arena.launch.runner.BotLaunch` from :func:`bot_launch_options`; a usage
    error when the sandbox cannot run here.  ``protect``: the event's database (a sandboxed bot
    is never shown its folder: :class:`~arena.launch.sandbox.Sandbox`)."""
    from arena.launch.runner import BotLaunch
    from arena.launch.sandbox import Sandbox, SandboxUnavailable

    if not sandbox:
        return BotLaunch(stdio=stdio)
    box = Sandbox(memory_mb=sandbox_memory, cpu_seconds=sandbox_cpu,  # a URL is no folder
                  protect=tuple(str(path) for path in protect if "://" not in str(path)))
    try:
        box.check()
    except SandboxUnavailable as exc:
        raise click.UsageError(str(exc)) from None
    return BotLaunch(stdio=True, sandbox=box)


TRUSTED_BOTS_NOTE = ("arena: bots run with your user's rights (they could read each other's "
                     "files and memory); use --sandbox for bots you do not trust")
