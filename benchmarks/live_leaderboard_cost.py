"""The event loop's share taken by the live leaderboard, before and after it moved to a process
of its own (issue 20, part 4: at most 5 %).

    python benchmarks/live_leaderboard_cost.py [--bots 50] [--sets 2000] [--window 30]
                                               [--rounds 3] [--games-per-second 20]

An event database of ``--bots`` bots and ``--sets`` random duplicate sets (each 3 to 6 bots
of the pool, one table per rotation: ``ratings_speed.event``; about 9,000 games at 2,000
sets) is made first.  Then, in one trio loop, a probe task counts how many times it gets
through a checkpoint (``trio.lowlevel.checkpoint()``) in a window of ``--window`` seconds, and
notes the longest gap between two of its turns, while, in alternating windows:

- ``idle``: nothing else runs but a feeder handing a stored game to the live view
  ``--games-per-second`` times a second (as a running event does);
- ``before``: that, and the leaderboard as ``EventRun.live_leaderboard`` did it on 8c22864:
  ``storage.games()`` in the loop, then ``leaderboard()`` (100 resamples) in a worker thread
  of the loop's process, back to back (no 30 s pause, to see many of them in a window);
- ``after``: that, and ``LiveBoard.refresh()`` back to back: the live rating in the loop, the
  fit, its database read and its snapshot in a niced process of its own, and the live-only
  snapshots (every 100 games) written in a worker thread.

``--pace 30`` waits 30 s after each refresh instead (the event's own pace; use windows of
60 s or more).

The share of the loop a mode takes is 1 - (its probe turns per second / those of the idle
windows on either side).  A refresh's cost in loop seconds is that share times the window over
the refreshes done in it, and the share at the event's real pace is that cost over
``LEADERBOARD_EVERY`` (30 s); back to back is the worst case (after: the fit's process running
all the time; on a busy machine the niced process takes most of 30 s anyway, so the
extrapolation is printed for ``before`` only; ``--pace 30`` measures both at the real pace).
The share of the loop thread's CPU time (turns per CPU second of the loop's thread against
idle) leaves out the other processes' competition for the cores.  Medians, min and max over
``--rounds`` rounds are printed, and the longest pause the probe saw (idle windows: the
machine's own).  The machine's other load shows as noise in the spread (a share below 0 is
such noise): compare the modes, measured side by side.
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import trio  # noqa: E402
import trio.lowlevel  # noqa: E402
from ratings_speed import event  # noqa: E402

from arena.events.leaderboard import format_table, leaderboard  # noqa: E402
from arena.events.progress import LiveView  # noqa: E402
from arena.events.ratings import TableResult  # noqa: E402
from arena.events.storage import SqliteStorage  # noqa: E402
from arena.launch.event_run import LEADERBOARD_EVERY, LIVE_RESAMPLES  # noqa: E402
from arena.launch.live_board import LiveBoard  # noqa: E402


def make_event(folder: Path, bots: int, sets: int) -> tuple[Path, list[str], list]:
    db = folder / "event.db"
    games = event(bots, sets)
    names = [f"bot{i}" for i in range(bots)]
    storage = SqliteStorage(db)
    storage.db.execute("PRAGMA synchronous=OFF")  # made once, quickly: not what is measured
    storage.write_event({"seed": "bench"}, [(name, "random") for name in names])
    for game in games:
        storage.add_game(game)
    storage.close()
    return db, names, games


class Probe:
    """Counts its turns through the loop and the longest gap between two."""

    def __init__(self) -> None:
        self.turns = 0
        self.longest = 0.0

    async def run(self) -> None:
        last = time.perf_counter()
        while True:
            await trio.lowlevel.checkpoint()
            now = time.perf_counter()
            self.turns += 1
            self.longest = max(self.longest, now - last)
            last = now


async def window(mode: str, seconds: float, db: Path, names: list[str], games: list,
                 rate: float, pace: float) -> dict[str, float]:
    """One window of ``mode``: the probe's turns per second, its longest gap (s), the
    refreshes done, and their wall seconds (after: the fit's process, start to end)."""
    probe = Probe()
    storage = SqliteStorage(db)
    view = LiveView(names, len(games), 0, time.monotonic())
    board = LiveBoard(db, names, 4, echo=lambda *a, **k: None, seed="bench",
                      resamples=LIVE_RESAMPLES)
    took: list[float] = []

    async def feed() -> None:
        for game in games:
            if mode == "after":
                board.game_over(game)
            else:
                view.game_over(TableResult(game.table.entrants, game.ranks))
            await trio.sleep(1 / rate)

    async def old_leaderboard() -> None:  # EventRun.live_leaderboard on 8c22864
        while True:
            started = time.perf_counter()
            stored = storage.games()
            rows = await trio.to_thread.run_sync(functools.partial(
                leaderboard, names, stored, resamples=LIVE_RESAMPLES, seed="bench"))
            format_table(rows)
            took.append(time.perf_counter() - started)
            await trio.sleep(pace)

    async def new_leaderboard() -> None:
        while True:
            started = time.perf_counter()
            await board.refresh()
            took.append(time.perf_counter() - started)
            await trio.sleep(pace)

    began, cpu = time.perf_counter(), time.thread_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    with trio.move_on_after(seconds):  # (a refresh in a thread finishes first: timed below)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(probe.run)
            nursery.start_soon(feed)
            if mode == "before":
                nursery.start_soon(old_leaderboard)
            elif mode == "after":
                nursery.start_soon(new_leaderboard)
                nursery.start_soon(board.write_snapshots)  # every 100 games, in a thread
    elapsed, cpu = time.perf_counter() - began, time.thread_time() - cpu
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    storage.close()
    return {"rate": probe.turns / elapsed, "per_cpu": probe.turns / cpu,
            "longest": probe.longest, "refreshes": len(took),
            "refresh_s": statistics.median(took) if took else float("nan"), "seconds": elapsed,
            "child_cpu": (ended.ru_utime + ended.ru_stime - children.ru_utime
                          - children.ru_stime) / max(len(took), 1)}


def spread(values: list[float], scale: float = 1.0, unit: str = "") -> str:
    return (f"{statistics.median(values) * scale:.3g}{unit} (min {min(values) * scale:.3g}, "
            f"max {max(values) * scale:.3g})")


async def measure(args: argparse.Namespace, db: Path, names: list[str], games: list) -> None:
    order = ["idle"] + ["before", "idle", "after", "idle"] * args.rounds
    windows = []
    for number, mode in enumerate(order):
        got = await window(mode, args.window, db, names, games, args.games_per_second,
                           args.pace)
        windows.append((mode, got))
        print(f"window {number + 1}/{len(order)} {mode}: {got['rate']:,.0f} turns/s, longest "
              f"gap {got['longest'] * 1000:.0f} ms, {got['refreshes']} refreshes "
              f"({got['refresh_s']:.2f} s each)", flush=True)
    print(f"\n{len(names)} bots, {len(games):,} games, {args.games_per_second:g} games/s, "
          f"windows of {args.window:g} s, {args.rounds} rounds; each mode against the idle "
          "windows on either side; "
          + (f"a refresh every {args.pace:g} s" if args.pace else "refreshes back to back"))
    for mode in ("before", "after"):
        shares, per_refresh, gaps, walls, in_thread, child = [], [], [], [], [], []
        for index, (kind, got) in enumerate(windows):
            if kind != mode:
                continue
            base = (windows[index - 1][1]["rate"] + windows[index + 1][1]["rate"]) / 2
            share = 1 - got["rate"] / base  # below 0: noise (the machine's other load)
            shares.append(share)
            per_cpu = (windows[index - 1][1]["per_cpu"] + windows[index + 1][1]["per_cpu"]) / 2
            in_thread.append(1 - got["per_cpu"] / per_cpu)
            child.append(got["child_cpu"])
            gaps.append(got["longest"])
            if got["refreshes"]:
                per_refresh.append(share * got["seconds"] / got["refreshes"])
                walls.append(got["refresh_s"])
        line = (f"{mode:>6}: share of the loop {spread(shares, 100, ' %')} (of the loop "
                f"thread's CPU time {spread(in_thread, 100, ' %')}); longest pause "
                f"{spread(gaps, 1000, ' ms')}")
        if mode == "after":
            line += f"; the fit's process {spread(child, 1, ' s')} CPU a refresh"
        if per_refresh and not args.pace and mode == "before":  # (after: the niced process
            # takes most of the 30 s on a busy machine, so back to back is about its pace)
            at_pace = [cost / LEADERBOARD_EVERY for cost in per_refresh]
            line += (f"; a refresh takes {spread(walls, 1, ' s')} wall and "
                     f"{spread(per_refresh, 1, ' s')} of the loop: at one per "
                     f"{LEADERBOARD_EVERY:g} s, {spread(at_pace, 100, ' %')} of the loop")
        print(line)
    idle_gaps = [got["longest"] for kind, got in windows if kind == "idle"]
    print(f"  idle: longest pause {spread(idle_gaps, 1000, ' ms')} (the machine's own)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=50)
    parser.add_argument("--sets", type=int, default=2000)
    parser.add_argument("--window", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games-per-second", type=float, default=20.0)
    parser.add_argument("--pace", type=float, default=0.0,
                        help="seconds between refreshes (the event's: 30; default back to "
                             "back)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db, names, games = make_event(Path(folder), args.bots, args.sets)
        trio.run(measure, args, db, names, games)


if __name__ == "__main__":
    main()
