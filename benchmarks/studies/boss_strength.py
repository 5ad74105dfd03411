"""How much stronger each boss bot is than its game's heuristic, and how that grows with the
think time, with ``arena tournament`` on duplicate sets (and optionally ``arena sprt``).

    python benchmarks/studies/boss_strength.py [--games chochlik,vollewolle] [--think-ms 25,100,400]
        [--tables 120] [--players 3] [--seeds boss] [--sprt] [--keep DIR]
    python benchmarks/studies/boss_strength.py --outputs DIR     # summarise earlier runs' outputs
    python benchmarks/studies/boss_strength.py --in-process 300 --iterations 10 [--games vollewolle]
        [--procs 2] [--boss-options JSON] [--paired JSON] [--first K]
                                                         # quick: fixed work, no sockets

For each game and think time, one tournament: the boss (``<game>-boss --think-ms T``) and two
copies of the heuristic at tables of 3, every seating of each deal (duplicate sets), rated by
the tournament's own ratings.  Prints per run: the boss's rating and 95 % interval, the
heuristics' mean, and the difference (Elo points on the tournament's scale; the interval is the
boss's own, the heuristics' are printed beside it).  ``--sprt`` then tests "the boss is 150 Elo
stronger than the heuristic" at 100 ms with ``arena sprt`` (H0: 0, H1: 150).

``--boss-args TEXT`` adds options to the boss's command (a variant, such as ``--search
shear`` for wypas).  ``--seeds a,b,c`` plays one tournament per seed (``--seed a-<game>`` and
so on: other deals) and prints, after each game's and think time's lines, the figures pooled
over the seeds: the seeds' differences weighted by the inverse of their variance (each seed's
standard error taken from its interval's width, 3.92 standard errors), with the 95 % normal
interval of that mean.
The default ``boss`` gives the deals of the earlier runs (``--seed boss-<game>``).

``--in-process N`` plays N games per game in this process's workers instead, through the pure
engine and ``arena.gameplay.driver.MatchDriver`` (the bots get the protocol messages they would
over TCP), the boss with a fixed number of worlds per decision (``--iterations``), so that the
machine's load does not change what is measured; each deal is played three times, the boss in
each seat.  Prints the boss's mean pairwise score against the two heuristics (a win 1, a tie
1/2) as Elo with a 95 % interval (normal, over games), and its mean score minus theirs.
``--boss-options`` gives the boss's constructor keyword arguments (a JSON object, for variants
under test; ``iterations`` there overrides ``--iterations``); ``--paired BASELINE`` plays the
same games (deals, seats, seeds) with a boss built from the BASELINE options too and prints
the paired differences (variant minus baseline) of the pairwise score and of the score minus
the heuristics', with 95 % intervals: a variant's gain without the spread of the deals.  Each
line also gives the CPU seconds a game (the three bots' and the engine's, side by side).
``--first K`` starts at game K (another sample).
``--cache FILE`` keeps each game's result there (JSON lines) and plays only the games not in
it yet (a fixed number of worlds repeats a game exactly), so a baseline is played once.

Machine load matters: a think time is wall time, so a loaded machine gives the boss fewer
worlds; the number of games and the load are the reader's to weigh (the intervals say the
rest).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/in_process.py

ROW = re.compile(r"^\s*\d+\s+(\S+)\s+(\d+)\s+(\d+)\.\.(\d+)\s+\S+\s+(\d+)\s")


def leaderboard(output: str) -> dict[str, tuple[int, int, int, int]]:
    """name -> (elo, low, high, games), from a tournament's final table."""
    rows = {}
    for line in output.splitlines():
        found = ROW.match(line)
        if found:
            name, elo, low, high, games = found.groups()
            rows[name] = (int(elo), int(low), int(high), int(games))
    return rows


def summary(label: str, output: str) -> str:
    rows = leaderboard(output)
    if "boss" not in rows:
        return f"{label:<24} no leaderboard (the run failed or is unfinished)"
    elo, low, high, games = rows["boss"]
    others = [row for name, row in rows.items() if name != "boss"]
    mean = sum(row[0] for row in others) / len(others)
    spans = ", ".join(f"{row[0]} ({row[1]}..{row[2]})" for row in others)
    return (f"{label:<24} {games:>5} games  boss {elo} ({low}..{high})  heuristics {spans}  "
            f"boss - heuristics {elo - mean:+.0f} (boss's interval {low - mean:+.0f}.."
            f"{high - mean:+.0f})")


def difference(output: str) -> tuple[float, float, float] | None:
    """The boss's rating minus the heuristics' mean, with the boss's interval shifted the same
    way, from a tournament's final table; None without a leaderboard."""
    rows = leaderboard(output)
    if "boss" not in rows:
        return None
    elo, low, high, _ = rows["boss"]
    mean = sum(row[0] for name, row in rows.items() if name != "boss") / (len(rows) - 1)
    return elo - mean, low - mean, high - mean


def pooled(label: str, outputs: list[str]) -> str:
    """The seeds' differences pooled by inverse variance (see the module's docstring)."""
    found = [d for d in (difference(output) for output in outputs) if d is not None]
    if not found:
        return f"{label:<24} nothing to pool"
    weights = [(3.92 / max(high - low, 1.0)) ** 2 for _, low, high in found]
    mean = sum(w * d[0] for w, d in zip(weights, found)) / sum(weights)
    half = 1.96 / sum(weights) ** 0.5
    return (f"{label:<24} pooled over {len(found)} seeds: boss - heuristics {mean:+.0f} "
            f"({mean - half:+.0f}..{mean + half:+.0f})")


def tournament(game: str, think_ms: int, tables: int, players: int, folder: Path,
               seed: str = "boss", boss_args: str = "") -> str:
    stem = f"{game}_{think_ms}" + ("" if seed == "boss" else f"_{seed}")
    db = folder / f"{stem}.db"
    boss = f"boss={game}-boss --think-ms {think_ms} {boss_args}".strip()
    command = [sys.executable, "-m", "arena", "tournament", "--game", game,
               "--players", str(players), "--bot", boss,
               "--bot", f"h1={game}-heuristic", "--bot", f"h2={game}-heuristic",
               "--games", str(tables), "--seed", f"{seed}-{game}", "--db", str(db),
               "--log-dir", str(folder / f"logs_{stem}")]
    done = subprocess.run(command, capture_output=True, text=True)
    (folder / f"{stem}.out").write_text(done.stdout + done.stderr)
    return done.stdout + done.stderr


def sprt(game: str, players: int, folder: Path) -> str:
    command = [sys.executable, "-m", "arena", "sprt", "--game", game, "--players", str(players),
               "--bot", f"boss={game}-boss --think-ms 100", "--bot", f"h={game}-heuristic",
               "--field", f"{game}-heuristic", "--elo0", "0", "--elo1", "150",
               "--max-sets", "60", "--seed", f"sprt-{game}", "--db", str(folder / "sprt.db"),
               "--log-dir", str(folder / f"logs_sprt_{game}")]
    done = subprocess.run(command, capture_output=True, text=True)
    (folder / f"sprt_{game}.out").write_text(done.stdout + done.stderr)
    tail = [line for line in done.stdout.splitlines() if line.strip()][-3:]
    return f"sprt {game} (exit {done.returncode}): " + " | ".join(tail)


def in_process_game(job: tuple[str, int, int] | tuple[str, int, int, str]
                    ) -> tuple[float, float, float]:
    """One game of ``--in-process``: (the boss's mean pairwise score, its score minus the
    heuristics' mean, the game's CPU seconds); a fourth item is the boss's keyword arguments
    as JSON."""
    from in_process import play_game  # benchmarks/in_process.py

    from reference_bots.boss.chochlik import ChochlikBoss
    from reference_bots.boss.vollewolle import VolleWolleBoss
    from reference_bots.boss.wypas import WypasBoss
    from reference_bots.chochlik_heuristic import ChochlikHeuristic
    from reference_bots.vollewolle_heuristic import VolleWolleHeuristic
    from reference_bots.wypas_heuristic import WypasHeuristic
    bosses: dict[str, Any] = {"chochlik": ChochlikBoss, "vollewolle": VolleWolleBoss,
                              "wypas": WypasBoss}
    heuristics: dict[str, Any] = {"chochlik": ChochlikHeuristic,
                                  "vollewolle": VolleWolleHeuristic, "wypas": WypasHeuristic}
    game, iterations, index = job[:3]
    options = json.loads(job[3]) if len(job) > 3 else {}  # type: ignore[misc]
    iterations = options.pop("iterations", iterations)  # a variant may set its own
    boss_class, heuristic_class = bosses[game], heuristics[game]
    seat = index % 3
    policies = [heuristic_class(0.0, f"h{index}.{s}") for s in range(3)]
    policies[seat] = boss_class(iterations=iterations, seed=f"boss{index}", **options)
    started = time.process_time()
    scores = play_game(game, f"deal{index // 3}", policies, ["a", "b", "c"]).scores
    others = [s for s in range(3) if s != seat]
    pairs = [1.0 if scores[seat] > scores[o] else 0.5 if scores[seat] == scores[o] else 0.0
             for o in others]
    return (sum(pairs) / 2, scores[seat] - sum(scores[o] for o in others) / 2,
            time.process_time() - started)


def _mean_error(values: list[float]) -> tuple[float, float]:
    """The mean and its standard error."""
    n = len(values)
    mean = sum(values) / n
    return mean, (sum((v - mean) ** 2 for v in values) / max(n - 1, 1) / n) ** 0.5


def _elo(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return 400 * math.log10(p / (1 - p))


def _line(label: str, results: list[tuple[float, ...]]) -> str:
    mean, error = _mean_error([r[0] for r in results])
    diff, diff_error = _mean_error([r[1] for r in results])
    timed = [r[2] for r in results if len(r) > 2]
    seconds = f"  {sum(timed) / len(timed):.2f} CPU s a game" if timed else ""
    return (f"{label}  {len(results)} games  pairwise {mean:.3f}  Elo {_elo(mean):+.0f} "
            f"({_elo(mean - 1.96 * error):+.0f}..{_elo(mean + 1.96 * error):+.0f})  "
            f"score - heuristics {diff:+.1f} (+-{1.96 * diff_error:.1f}){seconds}")


def in_process(game: str, games: int, iterations: int, procs: int, options: str = "{}",
               paired: str | None = None, first: int = 0, cache: Path | None = None) -> str:
    variants = [options] + ([paired] if paired is not None else [])
    results: dict[tuple[int, str], tuple[float, ...]] = {}
    known = {}
    if cache is not None and cache.exists():
        for line in cache.read_text().splitlines():
            row = json.loads(line)
            known[row["game"], row["iterations"], row["index"], row["options"]] = row["result"]
    jobs = []
    for index in range(first, first + games):
        for variant in variants:
            key = (game, iterations, index, json.dumps(json.loads(variant), sort_keys=True))
            if key in known:
                results[index, variant] = tuple(known[key])
            else:
                jobs.append((game, iterations, index, variant))
    with multiprocessing.Pool(procs) as pool:
        for done, (job, result) in enumerate(zip(jobs, pool.imap(in_process_game, jobs)), 1):
            results[job[2], job[3]] = result
            if cache is not None:
                with cache.open("a") as out:
                    out.write(json.dumps({"game": game, "iterations": iterations,
                                          "index": job[2], "result": result, "options":
                                          json.dumps(json.loads(job[3]), sort_keys=True)}) + "\n")
            if done % 60 == 0 and done < len(jobs):
                print(f"  {done} of {len(jobs)} games played", flush=True)
    indices = range(first, first + games)
    found = _line(f"{game} {iterations} worlds {options}",
                  [results[i, options] for i in indices])
    if paired is None:
        return found
    pairs = [(results[i, options][0] - results[i, paired][0],
              results[i, options][1] - results[i, paired][1]) for i in indices]
    pair, pair_error = _mean_error([p[0] for p in pairs])
    points, points_error = _mean_error([p[1] for p in pairs])
    return "\n".join([found, _line(f"{game} {iterations} worlds {paired} (baseline)",
                                   [results[i, paired] for i in indices]),
                      f"paired (variant - baseline): pairwise {pair:+.3f} "
                      f"(+-{1.96 * pair_error:.3f}), points a game {points:+.1f} "
                      f"(+-{1.96 * points_error:.1f})"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="chochlik,vollewolle")
    parser.add_argument("--think-ms", default="25,100,400")
    parser.add_argument("--tables", type=int, default=120, help="games per tournament")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seeds", default="boss",
                        help="deal seeds, one tournament each (--seed <seed>-<game>), pooled")
    parser.add_argument("--boss-args", default="",
                        help="more options for the boss's command line (a variant)")
    parser.add_argument("--sprt", action="store_true")
    parser.add_argument("--keep", type=Path, default=None, help="folder for databases, logs")
    parser.add_argument("--outputs", type=Path, default=None,
                        help="summarise the <game>_<ms>.out files of an earlier run instead")
    parser.add_argument("--in-process", type=int, default=0, metavar="N",
                        help="play N games per game in process with fixed iterations instead")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--boss-options", default="{}", metavar="JSON",
                        help="the boss's keyword arguments in --in-process (a variant)")
    parser.add_argument("--paired", default=None, metavar="JSON",
                        help="also play a baseline boss with these options on the same games "
                             "and print the paired differences")
    parser.add_argument("--first", type=int, default=0, help="the first game's number")
    parser.add_argument("--cache", type=Path, default=None,
                        help="a JSON-lines file of --in-process results to reuse and extend")
    args = parser.parse_args(argv)
    if args.in_process:
        for game in args.games.split(","):
            print(in_process(game, args.in_process, args.iterations, args.procs,
                             args.boss_options, args.paired, args.first, args.cache),
                  flush=True)
        return 0
    if args.outputs:
        runs = [path for path in args.outputs.glob("*_*.out")
                if path.stem.split("_")[1].isdigit()]
        groups: dict[tuple[str, int], list[str]] = {}
        for path in sorted(runs, key=_order):
            print(summary(path.stem, path.read_text()))
            groups.setdefault(_order(path)[:2], []).append(path.read_text())
        for (game, think), outputs in groups.items():
            if len(outputs) > 1:
                print(pooled(f"{game} {think} ms", outputs))
        return 0
    folder = args.keep or Path(tempfile.mkdtemp(prefix="boss-strength-"))
    folder.mkdir(parents=True, exist_ok=True)
    for game in args.games.split(","):
        for think in (int(t) for t in args.think_ms.split(",")):
            outputs = []
            for seed in args.seeds.split(","):
                started, load = time.monotonic(), _load()
                outputs.append(tournament(game, think, args.tables, args.players, folder, seed,
                                          args.boss_args))
                print(summary(f"{game} {think} ms {seed}", outputs[-1])
                      + f"  {time.monotonic() - started:.0f} s, load {load} -> {_load()}",
                      flush=True)
            if len(outputs) > 1:
                print(pooled(f"{game} {think} ms", outputs), flush=True)
        if args.sprt:
            print(sprt(game, args.players, folder), flush=True)
    print(f"databases, logs and outputs in {folder}")
    return 0


def _order(path: Path) -> tuple[str, int, str]:
    game, think, *seed = path.stem.split("_")
    return game, int(think), "_".join(seed)


def _load() -> str:
    """The one-minute load average (think time is wall time: the reader weighs it)."""
    return Path("/proc/loadavg").read_text().split()[0]


if __name__ == "__main__":
    sys.exit(main())
