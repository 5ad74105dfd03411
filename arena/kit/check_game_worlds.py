"""The batteries of ``arena check-game`` that play a game through the match driver: the
hidden-information property over other worlds, and the log's replay.

Hidden information (as ``tests/test_hidden_information.py``, by seeded draws instead of
Hypothesis): world A is a game played by random answers; at a random point P the game's own
``other_world`` changes everything seat k may not know, and every byte sent to seat k up to P
must be the same in both worlds.  An observation, event, error or reveal that let something
hidden through differs, and the check fails with the first difference."""

from __future__ import annotations

import random
import tempfile
from typing import Any

from arena.gameplay.driver import MatchDriver
from arena.gameplay.replay import ReplayError, replay_log
from arena.games.base import GameSpec
from arena.games.chance import RelabelledChance, SeededChance
from arena.kit.check_game_play import Failed, GameSettings, sizes
from protocol.codec import encode

#: Characters shown each side of the first difference between two worlds' bytes.
SHOWN_AROUND = 60


def new_driver(spec: GameSpec, options: Any, seed: str, chance: Any = None) -> MatchDriver:
    state = spec.new_state(options, seed, record_events=True, chance=chance)
    return MatchDriver(spec, options, seed, [f"p{i}" for i in range(options.players)],
                       game_id="check", table=1, move_timeout=5.0, state=state)


def play(driver: MatchDriver, script: list[tuple[int, str]] | None = None,
         rng: random.Random | None = None, stop: int | None = None
         ) -> tuple[list[tuple[int, str]], list[tuple[int, bytes]]]:
    """Answer open requests from ``script``, or at random (lowest seat first), up to ``stop``
    answers: the actions played and every message sent, as (seat, bytes)."""
    sent = [(o.seat, encode(o.message)) for o in driver.start(0.0)]
    actions: list[tuple[int, str]] = []
    while not driver.finished and (stop is None or len(actions) < stop):
        if script is not None:
            seat, action = script[len(actions)]
            request = driver.open[seat]
        else:
            assert rng is not None
            seat, request = min(driver.open.items())
            action = rng.choice(request.legal)
        actions.append((seat, action))
        sent.extend((o.seat, encode(o.message)) for o in driver.answer(seat, request.id, action,
                                                                        0.0))
    return actions, sent


def settle_windows(driver: MatchDriver, seat: int) -> list[tuple[int, bytes]]:
    """Every other seat asked in a reaction window passes (its default), so that both worlds
    stop at the same point of the game."""
    sent: list[tuple[int, bytes]] = []
    while not driver.finished:
        waiting = [(other, request) for other, request in sorted(driver.open.items())
                   if other != seat and driver.state.is_reaction(other)]
        if not waiting:
            break
        other, request = waiting[0]
        default = driver.state.default_action(other) or request.legal[0]
        sent.extend((o.seat, encode(o.message)) for o in driver.answer(other, request.id,
                                                                        default, 0.0))
    return sent


def check_hidden(spec: GameSpec, settings: GameSettings) -> None:
    """Over ``settings.worlds`` draws: a seat sees the same bytes in a world that differs only
    in what it may not know."""
    table_sizes = list(sizes(spec))
    for number in range(settings.worlds):
        rng = settings.rng("hidden", number)
        one_world(spec, rng.choice(table_sizes), f"hidden{number}", rng)


def one_world(spec: GameSpec, players: int, game_seed: str, rng: random.Random) -> None:
    options = spec.short_options(players)
    actions_a, _ = play(new_driver(spec, options, game_seed), rng=rng)
    cut = rng.randint(0, len(actions_a))
    seat = rng.randrange(players)
    at_p = new_driver(spec, options, game_seed)
    play(at_p, script=actions_a, stop=cut)
    sigma, script_b = spec.other_world(at_p.state, seat, actions_a[:cut],
                                       random.Random(rng.random()))
    driver_a = new_driver(spec, options, game_seed)
    driver_b = new_driver(spec, options, game_seed,
                          RelabelledChance(SeededChance(game_seed), sigma))
    _, sent_a = play(driver_a, script=actions_a, stop=cut)
    _, sent_b = play(driver_b, script=script_b, stop=len(script_b))
    sent_a += settle_windows(driver_a, seat)
    sent_b += settle_windows(driver_b, seat)
    mine_a = [line for s, line in sent_a if s == seat]
    mine_b = [line for s, line in sent_b if s == seat]
    if mine_a != mine_b:
        where = f"{players} players, seed {game_seed!r}, after {cut} actions"
        raise Failed(f"{where}: seat {seat} sees {difference(mine_a, mine_b)} in a world "
                     "that differs only in what it may not know")


def difference(first: list[bytes], second: list[bytes]) -> str:
    """Where two lists of lines first differ, with the text around it in both."""
    for number, (a, b) in enumerate(zip(first, second), 1):
        a, b = a.rstrip(b"\n"), b.rstrip(b"\n")  # one report line
        if a != b:
            at = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y) if any(
                x != y for x, y in zip(a, b)) else min(len(a), len(b))
            start = max(0, at - SHOWN_AROUND)
            around_a = a[start:at + SHOWN_AROUND].decode("utf-8", "replace")
            around_b = b[start:at + SHOWN_AROUND].decode("utf-8", "replace")
            return f"message {number} differ: ...{around_a}... against ...{around_b}..."
    return f"{len(first)} messages against {len(second)}"


def check_log(spec: GameSpec, settings: GameSettings) -> None:
    """A game driven as the server drives it (random answers) writes a log that ``arena
    replay`` reproduces, audit trail included."""
    with tempfile.TemporaryDirectory(prefix="arena-check-game-") as folder:
        for players in sizes(spec):
            rng = settings.rng("log", players)
            driver = new_driver(spec, spec.short_options(players), f"log{players}")
            play(driver, rng=rng)
            path = driver.log.write(folder, sync=False)
            try:
                replay_log(path)
            except ReplayError as exc:
                raise Failed(f"{players} players: the log does not replay: {exc}") from None
