"""Random self-play speed of every game engine, in process: decisions per second per core.

    python benchmarks/engine_speed.py [--seconds 3]

A decision is one observe + legal_actions + apply for one acting seat, with the random choice
between them (the acting seat's observation is built, as a server or a search bot needs it).
Figures are printed side by side for quiet self-play and with events recorded (as the server
runs games); compare them within one run, as the machine may be shared.
"""

from __future__ import annotations

import argparse
import random
import time

from arena.games import GAMES


def self_play(spec, players: int, seconds: float, record: bool) -> tuple[int, float, int]:
    options = spec.parse_options({"players": players})
    rng = random.Random(1)
    decisions = games = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        state = spec.new_state(options, games, record_events=record)
        while True:
            acting = state.to_act()
            if not acting:
                break
            seat = acting[0] if len(acting) == 1 else rng.choice(acting)
            state.observe(seat)
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            if record:
                state.take_events()
            decisions += 1
        games += 1
    return decisions, time.perf_counter() - started, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--game", choices=sorted(GAMES), action="append",
                        help="only these games (repeatable; default: all)")
    args = parser.parse_args()
    print(f"{'game':<12} {'players':>7} {'events':>7} {'decisions/s':>12} {'games':>6}")
    for name, spec in sorted(GAMES.items()):
        if args.game and name not in args.game:
            continue
        for players in range(spec.min_players, spec.max_players + 1):
            for record in (False, True):
                decisions, seconds, games = self_play(spec, players, args.seconds, record)
                print(f"{name:<12} {players:>7} {'yes' if record else 'no':>7} "
                      f"{decisions / seconds:>12,.0f} {games:>6}")


if __name__ == "__main__":
    main()
