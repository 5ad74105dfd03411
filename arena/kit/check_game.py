"""``arena check-game NAME``: the game batteries on any installed game, one line per check
(PASS, FAIL with the reason, N/A), as ``arena check-bot`` reports on a bot.

The checks are the interface's promises (:mod:`arena.games.base`), by seeded random self-play
(:mod:`arena.kit.check_game_play`) and through the match driver
(:mod:`arena.kit.check_game_worlds`).  A check fails at the first broken promise, and a game
that raises where it should not fails that check with the exception.  Exit status: 0 when no
check failed, 1 when one did, 2 for a usage error (an unknown game)."""

from __future__ import annotations

import enum
import time
import traceback
from collections.abc import Callable

import attrs
import click

from arena.games import GAMES, get_game
from arena.games.base import GameSpec, OptionsError
from arena.kit.check_findings import Outcome, summary
from arena.kit.check_game_play import (
    Failed,
    GameSettings,
    NotApplicable,
    check_clone,
    check_end,
    check_legal,
    check_options,
    check_replay,
    check_schemas,
    check_simultaneous,
)
from arena.kit.check_game_worlds import check_hidden, check_log


class GameCheck(enum.Enum):
    """Every check of a game, in the order they are reported; the value is its name."""

    OPTIONS = "options refused with a reason"
    LEGAL = "legal lists and defaults"
    END = "random games end"
    REPLAY = "replay from the seed"
    CLONE = "clone independence"
    SIMULTANEOUS = "simultaneous answers in any order"
    HIDDEN = "hidden information"
    SCHEMAS = "observation and event schemas"
    LOG = "log replay"


BATTERIES: dict[GameCheck, Callable[[GameSpec, GameSettings], None]] = {
    GameCheck.OPTIONS: check_options, GameCheck.LEGAL: check_legal, GameCheck.END: check_end,
    GameCheck.REPLAY: check_replay, GameCheck.CLONE: check_clone,
    GameCheck.SIMULTANEOUS: check_simultaneous, GameCheck.HIDDEN: check_hidden,
    GameCheck.SCHEMAS: check_schemas, GameCheck.LOG: check_log}


@attrs.frozen
class GameCheckResult:
    check: GameCheck
    outcome: Outcome
    reason: str = ""

    def line(self) -> str:
        """``PASS  clone independence``, ``FAIL  hidden information: ...``."""
        text = f"{self.outcome.value}  {self.check.value}"
        return f"{text}: {self.reason}" if self.reason else text


def run_check(check: GameCheck, spec: GameSpec, settings: GameSettings) -> GameCheckResult:
    """One check's outcome; an exception the game raised is a failure, with where it was."""
    try:
        BATTERIES[check](spec, settings)
    except Failed as exc:
        return GameCheckResult(check, Outcome.FAIL, str(exc))
    except NotApplicable as exc:
        return GameCheckResult(check, Outcome.NA, str(exc))
    except Exception as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        return GameCheckResult(check, Outcome.FAIL, f"raised {type(exc).__name__}: {exc} "
                               f"({frame.filename}:{frame.lineno})")
    return GameCheckResult(check, Outcome.PASS)


def check_spec(spec: GameSpec, settings: GameSettings,
               report: Callable[[GameCheckResult], object] = lambda result: None
               ) -> list[GameCheckResult]:
    """Every check on ``spec``, each ``report``-ed as it ends."""
    results = []
    for check in GameCheck:
        result = run_check(check, spec, settings)
        report(result)
        results.append(result)
    return results


@click.command("check-game")
@click.argument("names", nargs=-1, required=True, metavar="NAME...")
@click.option("--games", type=click.IntRange(1), default=20, show_default=True,
              help="Random games per table size in each self-play check.")
@click.option("--worlds", type=click.IntRange(1), default=60, show_default=True,
              help="Other worlds tried by the hidden-information check.")
@click.option("--seed", default="check-game", show_default=True,
              help="Seed every random draw derives from (the same seed, the same games).")
def check_game(names: tuple[str, ...], games: int, worlds: int, seed: str) -> None:
    """Run the game batteries on the installed game NAME (repeatable; `all`: every game):
    one line per check, PASS, FAIL with the reason, or N/A; exit status 1 if one failed."""
    chosen = sorted(GAMES) if "all" in names else list(dict.fromkeys(names))
    try:
        specs = [get_game(name) for name in chosen]
    except OptionsError as exc:
        raise click.UsageError(str(exc)) from None
    settings = GameSettings(games=games, worlds=worlds, seed=seed)
    failed = 0
    for spec in specs:
        click.echo(f"{spec.name}: {spec.title}, {spec.min_players}-{spec.max_players} players, "
                   f"{games} game(s) per table size, {worlds} other worlds")
        started = time.monotonic()
        results = check_spec(spec, settings, lambda result: click.echo(result.line()))
        failed += sum(r.outcome is Outcome.FAIL for r in results)
        click.echo(f"{spec.name}: {summary(results)} in {time.monotonic() - started:.1f} s")
    if failed:
        click.echo(f"check-game: {failed} check(s) failed")
        raise SystemExit(1)
    click.echo("check-game: no check failed")
