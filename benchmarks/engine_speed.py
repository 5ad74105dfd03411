"""Random self-play speed of every game engine: decisions per second per core, from process CPU.

    python benchmarks/engine_speed.py [--seconds 7] [--quick] [--game G] [--players N] [--events]
    python benchmarks/engine_speed.py --against /tmp/base   # side by side with another checkout

A decision is ``to_act`` + ``observe(acting seat)`` + ``legal_actions`` + ``apply`` (issue 9,
goal P3: at least 100,000 a second for every game); the same without ``observe`` is measured
beside it.  Seats and actions are drawn uniformly with ``Random.random`` (cheaper than
``choice``, so that the figure is the engine's); games are seeded 0, 1, 2, ... and follow each
other; events are not recorded unless ``--events`` (then they are taken every decision, as the
server does).

Every figure is measured in 7 windows and printed as min / median / max, with the median CPU
microseconds per decision.  The figures of one game and player count take turns window by
window (with and without observation, and with ``--against`` this checkout and the other), in
an order that alternates (A B, B A, ...), so that a change in the machine's load falls on all
of them alike; ``--seconds`` of CPU are shared between them.  A window is a fixed number of
decisions (calibrated first) timed with ``time.process_time``; the two checkouts play the same
games with the same draws, so each pair of their windows is identical work, and the ratio of
each pair is printed (min / median / max).  The other checkout runs in a worker process with
its own PYTHONPATH.  Only the GameSpec / GameState interface is used, so the script also runs
against older code (``PYTHONPATH=/tmp/base python benchmarks/engine_speed.py``).

The last line is ``SUMMARY <json>``: one row per game, for its slowest player count (the lowest
median with observation), in the form the collecting script reads.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from typing import Any

from arena.games import GAMES

#: Windows per figure: min / median / max are taken over these.
WINDOWS = 7
#: The P3 goal of issue 9, decisions per second per core with the observation built.
TARGET = 100_000
#: CPU seconds of measurement for all games together with --quick (about 10 s with set-up).
QUICK_TOTAL_SECONDS = 7.0
#: A calibration run doubles its decisions until it takes at least this much CPU.
CALIBRATION_SECONDS = 0.03


class SelfPlay:
    """An endless random self-play of one game and player count: game after game, seeded 0, 1,
    2, ...; ``play(count)`` makes ``count`` decisions and returns the CPU seconds they took."""

    def __init__(self, game: str, players: int, *, observe: bool, events: bool) -> None:
        self.spec = GAMES[game]
        self.options = self.spec.parse_options({"players": players})
        self.observe = observe
        self.events = events
        self.random = random.Random(1).random
        self.games = 0
        self.state = self._next_game()

    def _next_game(self) -> Any:
        state = self.spec.new_state(self.options, self.games, record_events=self.events)
        self.games += 1
        return state

    def play(self, count: int) -> float:
        state, draw, observe, events = self.state, self.random, self.observe, self.events
        started = time.process_time()
        for _ in range(count):
            acting = state.to_act()
            if not acting:
                state = self._next_game()
                acting = state.to_act()
            seat = acting[0] if len(acting) == 1 else acting[int(draw() * len(acting))]
            if observe:
                state.observe(seat)
            legal = state.legal_actions(seat)
            state.apply(seat, legal[int(draw() * len(legal))])
            if events:
                state.take_events()
        elapsed = time.process_time() - started
        self.state = state
        return elapsed


class Engine:
    """One checkout's engines: in this process, or in a worker process on another PYTHONPATH."""

    def __init__(self, path: str | None, events: bool) -> None:
        self.events = events
        self.plays: dict[tuple[str, int, bool], SelfPlay] = {}
        self.worker: subprocess.Popen[str] | None = None
        if path is not None:
            env = {**os.environ, "PYTHONPATH": os.path.abspath(path)}
            command = [sys.executable, os.path.abspath(__file__), "--worker"]
            if events:
                command.append("--events")
            self.worker = subprocess.Popen(command, env=env, cwd=path, text=True,
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def play(self, game: str, players: int, observe: bool, count: int) -> float:
        """CPU seconds for the next ``count`` decisions of this game's self-play."""
        if self.worker is None:
            key = (game, players, observe)
            if key not in self.plays:
                self.plays[key] = SelfPlay(game, players, observe=observe, events=self.events)
            return self.plays[key].play(count)
        assert self.worker.stdin is not None and self.worker.stdout is not None
        self.worker.stdin.write(json.dumps([game, players, observe, count]) + "\n")
        self.worker.stdin.flush()
        return float(self.worker.stdout.readline())

    def close(self) -> None:
        if self.worker is not None:
            assert self.worker.stdin is not None
            self.worker.stdin.close()
            self.worker.wait()


def serve_worker(events: bool) -> None:
    """``--worker``: answer each line ``[game, players, observe, count]`` with the CPU seconds."""
    engine = Engine(None, events)
    for line in sys.stdin:
        game, players, observe, count = json.loads(line)
        print(engine.play(game, players, observe, count), flush=True)


def calibrate(engine: Engine, game: str, players: int, observe: bool,
              seconds: float) -> tuple[int, int]:
    """Decisions that take about ``seconds`` of CPU, from a short run (which also warms up);
    and the decisions that run made."""
    count, played, elapsed = 100, 0, 0.0
    while elapsed < CALIBRATION_SECONDS:
        count *= 2
        elapsed = engine.play(game, players, observe, count)
        played += count
    return max(100, int(count * seconds / elapsed)), played


def measure(engines: list[Engine], game: str, players: int,
            seconds: float) -> dict[tuple[int, bool], list[float]]:
    """Decisions per second in ``WINDOWS`` windows, by (engine, observe?): every engine with
    and without observation, the windows taking turns in an alternating order.  Every engine
    plays the same decisions (calibrated on the first), so their windows are identical work."""
    streams = [(side, observe) for observe in (True, False) for side in range(len(engines))]
    window_seconds = seconds / len(streams) / WINDOWS
    counts: dict[bool, int] = {}
    for observe in (True, False):
        counts[observe], played = calibrate(engines[0], game, players, observe, window_seconds)
        for engine in engines[1:]:
            engine.play(game, players, observe, played)  # the same decisions: still in step
    rates: dict[tuple[int, bool], list[float]] = {stream: [] for stream in streams}
    for window in range(WINDOWS):
        for side, observe in streams if window % 2 == 0 else reversed(streams):
            count = counts[observe]
            rates[side, observe].append(count / engines[side].play(game, players, observe, count))
    return rates


def spread(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def fmt(figures: dict[str, float], digits: int = 0, width: int = 9) -> str:
    return " ".join(f"{figures[key]:>{width},.{digits}f}" for key in ("min", "median", "max"))


def summary_row(game: str, players: int, figures: dict[str, float]) -> dict[str, Any]:
    return {
        "goal": "P3", "name": f"{game} decisions/s with observation ({players} players)",
        "value": round(figures["median"]), "min": round(figures["min"]),
        "median": round(figures["median"]), "max": round(figures["max"]),
        "target": TARGET, "unit": "decisions/s",
        "cpu_us_per_decision": round(1e6 / figures["median"], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=7.0,
                        help="CPU seconds per game and player count, shared by its figures")
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_TOTAL_SECONDS:.0f} s of CPU for every game in all")
    parser.add_argument("--game", choices=sorted(GAMES), action="append",
                        help="only these games (repeatable; default: all)")
    parser.add_argument("--players", type=int, action="append",
                        help="only these player counts (repeatable; default: all)")
    parser.add_argument("--events", action="store_true",
                        help="record events and take them every decision, as the server does")
    parser.add_argument("--against", metavar="DIR",
                        help="also run the checkout in DIR, window by window, and print ratios")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        serve_worker(args.events)
        return
    tables = [(name, players) for name, spec in sorted(GAMES.items())
              if not args.game or name in args.game
              for players in range(spec.min_players, spec.max_players + 1)
              if not args.players or players in args.players]
    seconds = QUICK_TOTAL_SECONDS / len(tables) if args.quick else args.seconds
    engines = [Engine(None, args.events)]
    if args.against:
        engines.append(Engine(args.against, args.events))
    print(f"random self-play{' with events recorded' if args.events else ''}: decisions/s per "
          f"core from process CPU, {WINDOWS} windows per figure (min median max), "
          f"{seconds:.2f} s of CPU per row")
    header = (f"{'game':<11} {'players':>7} | {'with observation':^29} {'µs':>5} | "
              f"{'without observation':^29} {'µs':>5}")
    if args.against:
        header += f" | ratio to {args.against}: with obs. (min median max), without obs."
    print(header)
    rows: dict[str, dict[str, Any]] = {}
    try:
        for name, players in tables:
            rates = measure(engines, name, players, seconds)
            mine, plain = spread(rates[0, True]), spread(rates[0, False])
            line = (f"{name:<11} {players:>7} | {fmt(mine)} {1e6 / mine['median']:>5.1f} | "
                    f"{fmt(plain)} {1e6 / plain['median']:>5.1f}")
            if args.against:
                ratios = [spread([a / b for a, b in zip(rates[0, observe], rates[1, observe])])
                          for observe in (True, False)]
                line += f" | {fmt(ratios[0], 2, 5)}, {fmt(ratios[1], 2, 5)}"
            print(line, flush=True)
            if name not in rows or mine["median"] < rows[name]["median"]:
                rows[name] = summary_row(name, players, mine)
    finally:
        for engine in engines:
            engine.close()
    print("SUMMARY " + json.dumps(list(rows.values())))


if __name__ == "__main__":
    main()
