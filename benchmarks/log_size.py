"""Bytes per game log, plain (``.jsonl``) and gzip-compressed (``.jsonl.gz``), for every game.

    python benchmarks/log_size.py [--games 20] [--seconds 60] [--game G] [--players N]

Each game is played to its end by the server's own game driver (``MatchDriver``) with random
answers to every open request, seeded 0, 1, 2, ..., with the game's default options (as
``arena serve`` and ``arena match`` play it) and, for a game with tournament options
(chochlik), with those too (as ``arena tournament`` plays it), so the log has every line a real
one has (requests with their digests, every event with its audience, actions with their
milliseconds).  Its lines are then written the way the server writes them (spooled to a
``.part`` file in batches of 64 lines, finished and renamed; ``sync=False``, as the server
leaves syncing to its worker thread) three ways: plain, gzip level 1, and gzip at the level the
server uses (``arena.gameplay.gamelog.COMPRESS_LEVEL``).  Printed per game and format: the bytes of
the
finished file (min / median / max over the games), the ratio to plain, and the process CPU
microseconds that writing one game's log took (min / median / max; the compressed ones' extra
over plain is what the event loop pays per game, as the batches are compressed where they are
spooled).  The three writers take turns game by game, in an alternating order.  Bounded: at
most ``--games`` games per game and player count, and no more once ``--seconds`` of wall time
have passed.  No network.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import arena.gameplay.gamelog as gamelog
from arena.gameplay.driver import MatchDriver
from arena.gameplay.gamelog import GameLog
from arena.games import GAMES, get_game
from protocol.codec import to_json

WRITERS = ("plain", "gzip-1", f"gzip-{gamelog.COMPRESS_LEVEL}")


def played_lines(game: str, players: int, seed: int,
                 tournament: bool = False) -> tuple[dict[str, Any], list[str]]:
    """A whole game's log as the driver wrote it: its header and its lines (header first)."""
    spec = get_game(game)
    extra = spec.tournament_options(players) if tournament else {}
    options = spec.parse_options({"players": players, **extra})
    driver = MatchDriver(spec, options, f"size-{seed}", [f"bot{i}" for i in range(players)],
                         game_id=f"size-{seed}", table=1, move_timeout=5, reaction_timeout=1)
    rng = random.Random(seed)
    now = 0.0
    driver.start(now)
    while not driver.finished:
        if not driver.open:
            raise RuntimeError(f"{game}: nobody to act and the game is not over")
        for seat, request in list(driver.open.items()):
            if driver.open.get(seat) is request:  # not superseded by an earlier answer
                now += 0.01
                driver.answer(seat, request.id, rng.choice(request.legal), now)
    return driver.log.header, [to_json(record) + "\n" for record in driver.log.records]


def write(header: dict[str, Any], lines: list[str], writer: str,
          folder: Path) -> tuple[int, float]:
    """The finished file's bytes and the process CPU seconds the writing took."""
    level = None if writer == "plain" else int(writer.split("-")[1])
    saved = gamelog.COMPRESS_LEVEL
    if level is not None:
        gamelog.COMPRESS_LEVEL = level
    try:
        started = time.process_time()
        log = GameLog(header, compress=level is not None)
        log.spool_to(folder)
        for line in lines[1:]:
            log.add(line)
        path = log.write(sync=False)
        spent = time.process_time() - started
    finally:
        gamelog.COMPRESS_LEVEL = saved
    size = path.stat().st_size
    path.unlink()
    return size, spent


def spread(values: list[float], fmt: str) -> str:
    return " / ".join(format(v, fmt) for v in (min(values), statistics.median(values),
                                                max(values)))


def measure(game: str, players: int, games: int, deadline: float, folder: Path,
            tournament: bool) -> None:
    sizes: dict[str, list[float]] = {w: [] for w in WRITERS}
    cpu: dict[str, list[float]] = {w: [] for w in WRITERS}
    for seed in range(games):
        if seed and time.monotonic() > deadline:
            break
        header, lines = played_lines(game, players, seed, tournament)
        order = WRITERS if seed % 2 == 0 else WRITERS[::-1]
        for writer in order:
            size, spent = write(header, lines, writer, folder)
            sizes[writer].append(size)
            cpu[writer].append(spent * 1e6)
    count = len(sizes["plain"])
    which = "tournament" if tournament else "default"
    print(f"{game} ({players} players, {which} options), {count} games:")
    plain = sizes["plain"]
    for writer in WRITERS:
        ratios = [p / s for p, s in zip(plain, sizes[writer])]
        print(f"  {writer:<7} bytes/game {spread(sizes[writer], ',.0f'):>32}   "
              f"plain/this {spread(ratios, '.1f'):>16}   "
              f"CPU us/game {spread(cpu[writer], ',.0f')}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--game", choices=sorted(GAMES), default=None)
    parser.add_argument("--players", type=int, default=None)
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.seconds
    games = [args.game] if args.game else sorted(GAMES)
    with tempfile.TemporaryDirectory() as folder:
        for game in games:
            spec = get_game(game)
            players = args.players or spec.parse_options({}).players
            measure(game, players, args.games, deadline, Path(folder), False)
            if spec.tournament_options(players):
                measure(game, players, args.games, deadline, Path(folder), True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
