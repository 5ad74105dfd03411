"""How long the vollewolle heuristic bot takes per decision, now and before issue 18's speed-up.

    python benchmarks/vollewolle_heuristic_speed.py [--games 3] [--players 3] [--windows 5]

Records the requests the heuristic bot (seat 0, against random players, in process) is sent
in ``--games`` games, with what it had learnt of the opponents' bids at each, then times
``choose`` on every recorded request, by decision (bid, keep, reach, take, roll_or_take), for
the bot now and for the bot before the speed-up (kept as the test oracle,
``tests/reference_bots/vollewolle_heuristic_oracle.py``).  Each figure is measured in
``--windows`` windows, the two bots taking turns window by window in alternating order
(A B, B A, ...), so that a change in the machine's load falls on both alike; it prints the
CPU milliseconds per decision (``time.process_time``) as min / median / max over the
windows, and the ratio old / new of each pair of windows (min / median / max).  It also checks
that both bots chose the same on every request.  Everything runs in this process: no network.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.games.vollewolle import VolleWolleOptions, VolleWolleState, info  # noqa: E402
from protocol.codec import to_json  # noqa: E402
from reference_bots.vollewolle_heuristic import VolleWolleHeuristic  # noqa: E402

ORACLE = ROOT / "tests" / "reference_bots" / "vollewolle_heuristic_oracle.py"


def load_oracle() -> Any:
    spec = importlib.util.spec_from_file_location("vollewolle_heuristic_oracle", ORACLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.VolleWolleHeuristic


def record(games: int, players: int) -> list[tuple[dict[str, Any], list[int]]]:
    """(request, bid counts learnt so far) for every decision of seat 0 in ``games`` games."""
    options = VolleWolleOptions(players=players)
    recorded = []
    for game in range(games):
        policy, rng = VolleWolleHeuristic(0.0, game), random.Random(game)
        policy.on_message({"type": "game_start", "seat": 0, "info": info(options)})
        state = VolleWolleState(options, f"speed:{game}", record_events=True)
        while state.to_act():
            seat = state.to_act()[0]
            legal = state.legal_actions(seat)
            if seat == 0:
                request = {"legal": legal,
                           "observation": json.loads(to_json(state.observe(seat)))}
                recorded.append((request, list(policy.bid_counts)))
                action = policy.choose(request)
            else:
                action = rng.choice(legal)
            state.apply(seat, action)
            for event in state.take_events():
                policy.on_message({"type": "event", "kind": event.kind,
                                   "data": json.loads(to_json(event.data))})
    return recorded


def ready(cls: Any, players: int) -> Any:
    policy = cls(0.0, 0)
    policy.on_message({"type": "game_start", "seat": 0,
                       "info": info(VolleWolleOptions(players=players))})
    return policy


def timed(policy: Any, requests: list[tuple[dict[str, Any], list[int]]]) -> tuple[float, list]:
    choices = []
    start = time.process_time()
    for request, counts in requests:
        policy.bid_counts = list(counts)
        choices.append(policy.choose(request))
    return (time.process_time() - start) / len(requests) * 1000, choices


def spread(values: list[float], digits: int = 2) -> str:
    return (f"{min(values):.{digits}f} / {statistics.median(values):.{digits}f} / "
            f"{max(values):.{digits}f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--windows", type=int, default=5)
    args = parser.parse_args(argv)
    recorded = record(args.games, args.players)
    new, old = ready(VolleWolleHeuristic, args.players), ready(load_oracle(), args.players)
    kinds = sorted({r["observation"]["decision"] for r, _ in recorded})
    print(f"{len(recorded)} decisions of seat 0 in {args.games} games of {args.players} "
          f"players; ms per decision, min / median / max over {args.windows} windows")
    print(f"{'decision':<13}{'count':>6}  {'before (ms)':<27}{'now (ms)':<27}before / now")
    same = True
    for kind in kinds + ["all"]:
        requests = [(r, c) for r, c in recorded if kind in ("all", r["observation"]["decision"])]
        times: dict[str, list[float]] = {"old": [], "new": []}
        for window in range(args.windows):
            order = ("old", "new") if window % 2 == 0 else ("new", "old")
            for name in order:
                ms, choices = timed(old if name == "old" else new, requests)
                times[name].append(ms)
                if name == "old":
                    old_choices = choices
                else:
                    new_choices = choices
            same = same and old_choices == new_choices
        ratios = [o / n for o, n in zip(times["old"], times["new"])]
        print(f"{kind:<13}{len(requests):>6}  {spread(times['old'], 3):<27}"
              f"{spread(times['new'], 3):<27}{spread(ratios, 1)}")
    print("same choices on every request:", "yes" if same else "NO")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
