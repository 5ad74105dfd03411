"""Fit the vollewolle boss's round's-start value (``reference_bots/boss/vollewolle_value.py``)
on heuristic self-play, and say how well it predicts.

    python benchmarks/studies/vollewolle_value_fit.py [--games 1500] [--procs 2] [--data FILE]

Plays ``--games`` games of three reference heuristics in process (deals ``train0``,
``train1``, ...; kept as JSON lines in ``--data``, by default in the temporary folder, and
reused if the file exists), notes every seat's holdings at each round's start and the final
scores, and fits the features' weights by least squares on each seat's final score minus its
current one, relative to the others' average (as the boss uses the value).  Prints the mean
squared error of that relative prediction on the last fifth of the games when fitted on the
rest, for no estimate, the hand-made estimate (``estimate_value``) and the fit, then the
weights fitted on all games, as the ``WEIGHTS`` tuple to paste.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from arena.games.vollewolle.cards import Kind
from arena.games.vollewolle.core import CARDS, INDEX
from reference_bots.boss.vollewolle_value import NAMES, features

HELD = ("flocks", "dogs", "bone_holder", "wool", "deck_left", "display")


class Recorder:
    """A heuristic that also notes the table's holdings at each of its bids."""

    def __init__(self, inner: Any, log: list[dict[str, Any]]) -> None:
        self.inner, self.log = inner, log
        self.wanted_events = inner.wanted_events

    def on_message(self, message: dict[str, Any]) -> None:
        self.inner.on_message(message)

    def choose(self, request: dict[str, Any]) -> str:
        obs = request["observation"]
        if obs["decision"] == "bid":
            self.log.append({key: obs[key] for key in HELD})
        return str(self.inner.choose(request))


def self_play(index: int) -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).parent))
    from in_process import play_game

    from reference_bots.boss.vollewolle_fast import FastHeuristic
    log: list[dict[str, Any]] = []
    policies: list[Any] = [FastHeuristic(0.0, f"g{index}.{s}") for s in range(3)]
    policies[0] = Recorder(policies[0], log)
    result = play_game("vollewolle", f"train{index}", policies, ["a", "b", "c"])
    return {"states": log, "scores": list(result.scores)}


def relative(values: np.ndarray) -> np.ndarray:
    """Each seat's value minus the others' average (rows grouped by table of three)."""
    grouped = values.reshape(-1, 3, *values.shape[1:])
    return (grouped - (grouped.sum(axis=1, keepdims=True) - grouped) / 2).reshape(values.shape)


def table(games: list[dict[str, Any]]) -> tuple[np.ndarray, ...]:
    """Features, targets (final minus current score), the hand-made estimate's additions and
    each row's game."""
    rows, targets, handmade, game_of = [], [], [], []
    for number, game in enumerate(games):
        for held in game["states"]:
            flocks = [[CARDS[INDEX[c]] for c in reversed(flock)] for flock in held["flocks"]]
            left = held["deck_left"] + len(held["display"])
            totals, found = features(flocks, held["dogs"], held["bone_holder"], held["wool"],
                                     left)
            for seat, flock in enumerate(flocks):
                rows.append(found[seat])
                targets.append(game["scores"][seat] - totals[seat])
                game_of.append(number)
                added = 0.0
                if held["deck_left"]:  # estimate_value's additions (only while the deck lasts)
                    share = held["deck_left"] / len(CARDS)
                    added = share * found[seat][0] / (left / len(CARDS))
                    added += (0, 2, 7)[sum(c.kind is Kind.TRIO_007 for c in flock) % 3]
                    added += flock[-1].modifier if flock else 0
                handmade.append(added)
    return np.array(rows), np.array(targets), np.array(handmade), np.array(game_of)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--data", type=Path,
                        default=Path(tempfile.gettempdir()) / "vollewolle_selfplay.jsonl")
    args = parser.parse_args(argv)
    if args.data.exists():
        games = [json.loads(line) for line in args.data.read_text().splitlines()][:args.games]
    else:
        with multiprocessing.Pool(args.procs) as pool:
            games = pool.map(self_play, range(args.games))
        args.data.write_text("".join(json.dumps(game) + "\n" for game in games))
    x, y, handmade, game_of = table(games)
    x, y, handmade = relative(x), relative(y), relative(handmade)
    train = game_of < 0.8 * len(games)
    test = ~train
    weights, *_ = np.linalg.lstsq(x[train], y[train], rcond=None)
    for label, guess in (("no estimate", 0 * y), ("estimate_value", handmade),
                         ("fitted", x @ weights)):
        print(f"{label:<15} relative mean squared error {((y - guess)[test] ** 2).mean():.1f}")
    weights, *_ = np.linalg.lstsq(x, y, rcond=None)
    print(f"{len(games)} games, {len(y)} rows; features {', '.join(NAMES)} times the share")
    print("WEIGHTS = (  # times the share of cards left, then times its square")
    for half in (weights[:len(NAMES)], weights[len(NAMES):]):
        print("    " + ", ".join(f"{w:.3f}" for w in half) + ",")
    print(")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
